// The proxy's HTTP API under /api, as a node:http / connect middleware (mounted into the Vite
// dev and preview servers, or served alone by main.ts). First of all the Host header must be a
// loopback name or a configured host (a DNS-rebinding page sends its own name: 403). Then POST
// /api/session hands the page the per-server-start token; POST /api/search and /api/tool/<name>
// need it and an allowed Origin (the page's own, or one configured). Bodies are size-limited and
// validated; no response ever carries a key. Tested by tests/unit/server/proxy-server.test.ts.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_HEADER } from '../../tools/proxy-client';
import type { SearchService } from '../search/service';
import { ProviderError } from '../search/resilience';

export interface ProxyOptions {
  /** Origins allowed besides the page's own (same host as the request's Host header). */
  allowedOrigins: string[];
  /** Hosts answered besides loopback: host names, or host:port for one port only. */
  allowedHosts: string[];
  /** Largest request body accepted, bytes. */
  maxBodyBytes?: number;
  /** Fixed token (tests); default: 32 random bytes per handler, i.e. per server start. */
  token?: string;
}

type Next = (err?: unknown) => void;
export type ProxyHandler = ((req: IncomingMessage, res: ServerResponse, next?: Next) => void) & { token: string };

export function createProxyHandler(service: SearchService, opts: ProxyOptions): ProxyHandler {
  const token = opts.token ?? randomBytes(32).toString('hex');
  const maxBody = opts.maxBodyBytes ?? 16 * 1024;

  const configuredHosts = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
  /** True when the Host header is exactly a loopback name or a configured host (with any port). */
  const hostOk = (req: IncomingMessage): boolean => {
    const host = (req.headers.host ?? '').toLowerCase();
    let parsed: URL;
    try {
      parsed = new URL(`http://${host}`);
    } catch {
      return false;
    }
    // Refuse anything that is not plain host[:port] (userinfo, paths, ...).
    if (!host || parsed.host !== host.replace(/:80$/, '')) return false;
    return isLoopbackName(parsed.hostname) || configuredHosts.has(parsed.hostname) || configuredHosts.has(host);
  };

  const originOk = (req: IncomingMessage): string | undefined => {
    const origin = req.headers.origin;
    if (!origin) return undefined;
    if (opts.allowedOrigins.includes(origin)) return origin;
    try {
      if (new URL(origin).host === req.headers.host) return origin;
    } catch {
      /* malformed Origin */
    }
    return undefined;
  };

  const send = (res: ServerResponse, status: number, body: unknown, origin?: string, extra: Record<string, string> = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...extra };
    if (origin) {
      headers['access-control-allow-origin'] = origin;
      headers['vary'] = 'Origin';
    }
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
  };

  const readJson = (req: IncomingMessage): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('application/json')) return reject(new ProviderError('send a JSON body (content-type: application/json)', 415));
      let size = 0;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= maxBody) chunks.push(c);
        else if (size > 64 * maxBody) req.destroy(); // not worth reading to the end
      });
      req.on('end', () => {
        if (size > maxBody) return reject(new ProviderError(`request body larger than ${maxBody} bytes`, 413));
        try {
          const v = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
          if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
          resolve(v as Record<string, unknown>);
        } catch {
          reject(new ProviderError('the body must be a JSON object', 400));
        }
      });
      req.on('error', reject);
    });

  const tokenOk = (req: IncomingMessage) => {
    const got = Buffer.from(String(req.headers[SESSION_HEADER] ?? ''));
    const want = Buffer.from(token);
    return got.length === want.length && timingSafeEqual(got, want);
  };

  const handler = (async (req: IncomingMessage, res: ServerResponse, next?: Next) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const isApi = url.pathname.startsWith('/api/');
    if (!isApi && next) return next(); // the host server's own routes
    if (!hostOk(req)) {
      const shown = JSON.stringify(req.headers.host ?? '');
      return send(res, 403, { error: `host ${shown} is not allowed: use localhost/127.0.0.1, or add the name to allowed_hosts (SEARCH_ALLOWED_HOSTS)` });
    }
    if (!isApi) return send(res, 404, { error: 'not found' });
    const route = url.pathname.slice(4);
    const origin = originOk(req);
    if (req.method === 'OPTIONS') {
      if (!origin) return send(res, 403, { error: 'origin not allowed' });
      res.writeHead(204, {
        'access-control-allow-origin': origin, 'access-control-allow-methods': 'POST',
        'access-control-allow-headers': `content-type, ${SESSION_HEADER}`, 'access-control-max-age': '600', vary: 'Origin',
      });
      return res.end();
    }
    if (route === '/health' && req.method === 'GET') {
      return send(res, 200, { ok: true, provider: service.config.provider, tools: service.config.http_tools.map((t) => t.name) }, origin);
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'use POST' }, origin);
    if (!origin) return send(res, 403, { error: 'origin not allowed: only the studio page may call this proxy' });
    try {
      const body = await readJson(req);
      if (route === '/session') return send(res, 200, { token }, origin);
      if (!tokenOk(req)) return send(res, 401, { error: `missing or wrong ${SESSION_HEADER} header (get one from POST /api/session)` }, origin);
      if (route === '/search') {
        const extra = Object.keys(body).filter((k) => k !== 'query' && k !== 'count');
        if (extra.length) throw new ProviderError(`unknown field(s): ${extra.join(', ')}`, 400);
        if (typeof body.query !== 'string') throw new ProviderError('"query" must be a string', 400);
        if (body.count !== undefined && typeof body.count !== 'number') throw new ProviderError('"count" must be a number', 400);
        const answer = await service.search(body.query, (body.count as number | undefined) ?? service.config.default_count);
        return send(res, 200, answer, origin);
      }
      const tool = /^\/tool\/([A-Za-z0-9_-]{1,64})$/.exec(route);
      if (tool) {
        const args = body.arguments;
        if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ProviderError('"arguments" must be a JSON object', 400);
        return send(res, 200, { text: await service.callTool(tool[1], args as Record<string, unknown>) }, origin);
      }
      return send(res, 404, { error: `no route ${url.pathname}` }, origin);
    } catch (e) {
      const status = e instanceof ProviderError ? e.status : 500;
      const extra: Record<string, string> = status === 429 ? { 'retry-after': '60' } : {};
      return send(res, status, { error: (e as Error).message }, origin, extra);
    }
  }) as unknown as ProxyHandler;
  handler.token = token;
  return handler;
}

/** localhost, 127.0.0.0/8 and [::1]: names that only ever reach this machine. */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
