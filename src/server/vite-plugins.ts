// Vite plugins of the tools: serve the `pyodide` npm package under <base>pyodide/ (dev) and copy
// it into dist/pyodide/ (build); send the strict CSP on the Python worker script's response
// (dev and preview) so nothing in the sandbox reaches the network; mount the search proxy under
// /api/. Wired in vite.config.ts; exercised by tests/e2e/tools.spec.ts against `vite preview`.
import { copyFileSync, createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'vite';
import { loadSearchConfig } from './search/config';
import { SearchService } from './search/service';
import { createProxyHandler } from './proxy/handler';
import { defaultConfigPath } from './proxy/server';

/** The files Pyodide loads at start (interpreter, wasm, stdlib, lock file). */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

/** Matches the sandbox worker's URL in dev (/src/workers/python-sandbox.worker.ts?worker_file...)
 * and in the build (/assets/python-sandbox.worker-<hash>.js). */
export const SANDBOX_WORKER_RE = /\/python-sandbox\.worker[^/]*$/;

const TYPES: Record<string, string> = {
  '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.zip': 'application/zip', '.json': 'application/json',
};

/** The worker's policy: scripts and fetches only from the Pyodide path, no eval, no sub-workers. */
export function sandboxCsp(origin: string, base: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'wasm-unsafe-eval'`,
    `connect-src ${origin}${base}pyodide/`,
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function originOf(req: IncomingMessage): string {
  const tls = (req.socket as { encrypted?: boolean }).encrypted;
  return `${tls ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

type Next = (err?: unknown) => void;

export function pythonSandboxPlugin(): Plugin {
  let base = '/';
  let outDir = 'dist';
  const pyodideDir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));

  const addCsp = (req: IncomingMessage, res: ServerResponse, next: Next) => {
    const path = (req.url ?? '').split('?')[0];
    if (SANDBOX_WORKER_RE.test(path)) res.setHeader('Content-Security-Policy', sandboxCsp(originOf(req), base));
    next();
  };

  return {
    name: 'rl-studio:python-sandbox',
    configResolved(c) {
      base = c.base;
      outDir = resolve(c.root, c.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use(addCsp);
      server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: Next) => {
        const path = (req.url ?? '').split('?')[0];
        const prefix = `${base}pyodide/`;
        if (!path.startsWith(prefix)) return next();
        const name = path.slice(prefix.length);
        if (!PYODIDE_FILES.includes(name)) return next();
        const file = join(pyodideDir, name);
        res.writeHead(200, {
          'content-type': TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream',
          'content-length': String(statSync(file).size),
          'cross-origin-resource-policy': 'same-origin',
          'cache-control': 'max-age=3600',
        });
        createReadStream(file).pipe(res);
      });
    },
    configurePreviewServer(server) {
      server.middlewares.use(addCsp);
    },
    closeBundle() {
      if (!existsSync(outDir)) return;
      const dest = join(outDir, 'pyodide');
      mkdirSync(dest, { recursive: true });
      for (const f of PYODIDE_FILES) copyFileSync(join(pyodideDir, f), join(dest, f));
    },
  };
}

/** Mounts the search proxy's /api/ routes into the dev and preview servers. */
export function searchProxyPlugin(): Plugin {
  const make = () => {
    try {
      const config = loadSearchConfig(defaultConfigPath());
      return createProxyHandler(new SearchService(config), { allowedOrigins: config.allowed_origins, allowedHosts: config.allowed_hosts });
    } catch (e) {
      const message = `search proxy settings are invalid: ${(e as Error).message}`;
      console.warn(message);
      return (req: IncomingMessage, res: ServerResponse, next?: Next) => {
        if (!(req.url ?? '').startsWith('/api/')) return next?.();
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: message }));
      };
    }
  };
  return {
    name: 'rl-studio:search-proxy',
    configureServer(server) {
      const h = make();
      server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: Next) => void h(req, res, next));
    },
    configurePreviewServer(server) {
      const h = make();
      server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: Next) => void h(req, res, next));
    },
  };
}
