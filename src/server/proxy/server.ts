// The search proxy as a standalone node:http server: one SearchService behind the /api handler.
// Started by main.ts (`npm run proxy`) and by tests/unit/server/proxy-server.test.ts.
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import type { SearchConfig } from '../search/config';
import { SearchService } from '../search/service';
import { createProxyHandler, type ProxyHandler } from './handler';

export function defaultConfigPath(): string | undefined {
  const p = process.env.SEARCH_CONFIG ?? 'configs/search.yaml';
  return existsSync(p) ? p : undefined;
}

export async function startProxyServer(config: SearchConfig, port: number, host = '127.0.0.1', token?: string): Promise<{ server: Server; handler: ProxyHandler; service: SearchService; url: string }> {
  const service = new SearchService(config);
  const handler = createProxyHandler(service, { allowedOrigins: config.allowed_origins, allowedHosts: config.allowed_hosts, ...(token ? { token } : {}) });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const addr = server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : port;
  return { server, handler, service, url: `http://${host}:${actual}` };
}
