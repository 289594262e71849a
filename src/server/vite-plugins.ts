// Vite plugins: serve the `pyodide` npm package under <base>pyodide/, onnxruntime-web's
// .wasm/.mjs runtime under <base>ort/ and datasets/*.jsonl under <base>datasets/ (dev) and copy
// them into dist/ (build); send the strict CSP
// on the Python worker script's response (dev and preview) so nothing in the sandbox reaches the
// network; mount the search proxy under /api/. Wired in vite.config.ts; exercised by
// tests/e2e/tools.spec.ts and tests/e2e/ort.spec.ts against `vite preview`.
import { copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
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
  '.jsonl': 'application/jsonl; charset=utf-8',
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

/** Files of an npm package served under <base><prefix>/ in dev and copied to dist/<prefix>/. */
interface PackageFiles {
  prefix: string;
  /** The package folder the files are read from. */
  dir: string;
  files: string[];
}

/**
 * A plugin serving a package's files under <base><prefix>/ in dev (same-origin, so
 * cross-origin isolation holds) and copying them into <outDir>/<prefix>/ after the build.
 */
function packageFilesPlugin(name: string, p: PackageFiles): Plugin {
  let base = '/';
  let outDir = 'dist';
  return {
    name,
    configResolved(c) {
      base = c.base;
      outDir = resolve(c.root, c.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: Next) => {
        const [path, query] = (req.url ?? '').split('?');
        const prefix = `${base}${p.prefix}/`;
        // A query (`?url`, `?import`) is Vite's own module request for the file: Vite answers it.
        if (!path.startsWith(prefix) || query !== undefined) return next();
        const file = path.slice(prefix.length);
        if (!p.files.includes(file)) return next();
        res.writeHead(200, {
          'content-type': TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream',
          'content-length': String(statSync(join(p.dir, file)).size),
          'cross-origin-resource-policy': 'same-origin',
          'cache-control': 'max-age=3600',
        });
        createReadStream(join(p.dir, file)).pipe(res);
      });
    },
    closeBundle() {
      if (!existsSync(outDir)) return;
      const dest = join(outDir, p.prefix);
      mkdirSync(dest, { recursive: true });
      for (const f of p.files) copyFileSync(join(p.dir, f), join(dest, f));
    },
  };
}

/** Pyodide's files under <base>pyodide/ and the strict CSP on the Python worker's response. */
export function pythonSandboxPlugin(): Plugin[] {
  let base = '/';
  const pkg: PackageFiles = { prefix: 'pyodide', dir: dirname(createRequire(import.meta.url).resolve('pyodide/package.json')), files: PYODIDE_FILES };
  const addCsp = (req: IncomingMessage, res: ServerResponse, next: Next) => {
    const path = (req.url ?? '').split('?')[0];
    if (SANDBOX_WORKER_RE.test(path)) res.setHeader('Content-Security-Policy', sandboxCsp(originOf(req), base));
    next();
  };
  const csp: Plugin = {
    name: 'rl-studio:python-sandbox',
    configResolved(c) {
      base = c.base;
    },
    configureServer(server) {
      server.middlewares.use(addCsp);
    },
    configurePreviewServer(server) {
      server.middlewares.use(addCsp);
    },
  };
  return [csp, packageFilesPlugin('rl-studio:pyodide-files', pkg)];
}

/** onnxruntime-web's runtime files (the wasm builds and their loaders), fetched at session start. */
export const ORT_FILES = [
  'ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.mjs',
  'ort-wasm-simd-threaded.jsep.wasm', 'ort-wasm-simd-threaded.jsep.mjs',
  'ort-wasm-simd-threaded.asyncify.wasm', 'ort-wasm-simd-threaded.asyncify.mjs',
];

/**
 * Serves onnxruntime-web's .wasm/.mjs under <base>ort/ (dev) and copies them into dist/ort/
 * (build), so the studio never fetches them from a CDN; src/ort/env.ts points
 * `ort.env.wasm.wasmPaths` there.
 */
export function ortRuntimePlugin(): Plugin {
  // The package exports its runtime files but not package.json: find dist/ through one of them.
  const dir = dirname(createRequire(import.meta.url).resolve('onnxruntime-web/ort-wasm-simd-threaded.wasm'));
  return packageFilesPlugin('rl-studio:ort-runtime', { prefix: 'ort', dir, files: ORT_FILES });
}

/**
 * The task files and corpora of datasets/ under <base>datasets/ (dev) and copied into
 * <outDir>/datasets/ (build): the engine worker fetches a run's shipped tasks and the search
 * corpus from there (src/workers/engine/services.ts).
 */
export function datasetsPlugin(): Plugin {
  const dir = resolve('datasets');
  return packageFilesPlugin('rl-studio:datasets', { prefix: 'datasets', dir, files: readdirSync(dir).filter((f) => f.endsWith('.jsonl')) });
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
