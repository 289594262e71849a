// The direct transport of user HTTP tools (`tools.http` of the run config) for the CLI: the model's
// arguments go to the tool's URL as a JSON body (POST) or a query string (GET), with the tool's
// timeout and a cap on the answer read. The browser goes through the proxy instead (http-tool.ts).
// Tested by tests/unit/rl/rl-tools-config.test.ts (a loopback server, inside a real GRPO step).
import type { HttpToolTransport } from './http-tool';
import { responsiveSignal } from '../util/responsive-timeout';

export interface HttpEndpoint {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  timeout_ms: number;
}

/** Calls `endpoints` by name; non-2xx answers, timeouts and network errors throw (the registry turns them into tool errors). */
export function directHttpTransport(endpoints: HttpEndpoint[], fetchFn: typeof fetch = (...a) => fetch(...a), maxChars = 64 * 1024): HttpToolTransport {
  const byName = new Map(endpoints.map((e) => [e.name, e]));
  return async (name, args, signal) => {
    const e = byName.get(name);
    if (!e) throw new Error(`unknown HTTP tool "${name}"; configured: ${[...byName.keys()].join(', ') || 'none'}`);
    // Responsive time (util/responsive-timeout.ts): the run's own synchronous GPU work does not count.
    const timeout = responsiveSignal(e.timeout_ms);
    let url = e.url, init: RequestInit = { method: e.method, signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal };
    if (e.method === 'GET') {
      const u = new URL(e.url);
      for (const [k, v] of Object.entries(args)) u.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
      url = u.href;
    } else {
      init = { ...init, headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) };
    }
    try {
      let res: Response;
      try {
        res = await fetchFn(url, init);
      } catch (err) {
        throw new Error(timeout.signal.aborted ? `timed out after ${e.timeout_ms} ms (tools.http ${name}.timeout_ms)` : `request to ${e.url} failed: ${(err as Error).message}`);
      }
      const text = await res.text();
      if (!res.ok) throw new Error(`${e.url} answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
      return text.length > maxChars ? `${text.slice(0, maxChars)}\n...[answer cut at ${maxChars} characters]` : text;
    } finally {
      timeout.clear();
    }
  };
}
