// The HTTP face of the OpenAI-compatible server (node:http): Host header checked against the
// names the server answers to (loopback by default: DNS rebinding), optional bearer token,
// per-client rate limit, body size limit, then the routes: GET /v1/models[/{id}],
// POST /v1/chat/completions (JSON or server-sent events), POST /v1/rollouts/{id}/reward,
// GET /v1/train/status (serve --online), GET /health. The same routes answer under /rollout/{id}/v1/... so an agent can be routed to a
// rollout by its base URL. Errors are OpenAI-shaped. Tested by tests/unit/server/serve-openai.test.ts.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { chatCompletion, type ChatDeps } from './completions';
import { ApiError, badParam, toApiError } from './errors';
import { RateLimiter } from './rate-limit';
import { parseChatRequest } from './request';

export interface HttpOptions {
  /** Host names (without port) accepted in the Host header. */
  allowedHosts: string[];
  /** Bearer token required on every /v1 route; undefined: none. */
  token?: string;
  /** Largest request body, bytes. */
  maxBodyBytes: number;
  /** Requests per minute per client address (0: off). */
  rateLimit: number;
  /** Largest n. */
  maxN: number;
  /** Requests waiting for a batch slot beyond which new ones get 429. */
  maxQueue: number;
}

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1', '[::1]'];
export const ROLLOUT_HEADER = 'x-rollout-id';
export const TASK_HEADER = 'x-task-id';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createServeHandler(deps: ChatDeps, opts: HttpOptions): Handler {
  const limiter = new RateLimiter(opts.rateLimit);
  const allowed = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));

  return async (req, res) => {
    try {
      checkHost(req, allowed);
      const url = new URL(req.url ?? '/', 'http://server');
      let path = url.pathname;
      let pathRollout: string | null = null;
      const routed = /^\/rollout\/([^/]+)(?:\/attempt\/[^/]+)?(\/v1\/.*)$/.exec(path);
      if (routed) [pathRollout, path] = [decodeURIComponent(routed[1]), routed[2]];
      if (path === '/health' && req.method === 'GET') return json(res, 200, { ok: true, ...deps.scheduler.load, traces: deps.traces.written });
      if (!path.startsWith('/v1/')) throw new ApiError(404, `Unknown route ${req.method} ${url.pathname}; this server answers /v1/models, /v1/chat/completions and /v1/rollouts/{id}/reward`, 'not_found_error', null, 'unknown_url');
      checkToken(req, opts.token);
      const rate = limiter.take(req.socket.remoteAddress ?? '?');
      if (!rate.ok) {
        res.setHeader('retry-after', String(rate.retryAfter));
        throw new ApiError(429, `Rate limit of ${opts.rateLimit} requests per minute reached; retry in ${rate.retryAfter} s (serve --rate-limit raises it)`, 'rate_limit_error', null, 'rate_limit_exceeded');
      }
      if (path === '/v1/models' || path.startsWith('/v1/models/')) return models(req, res, deps, path);
      if (path === '/v1/chat/completions') return await chat(req, res, deps, opts, pathRollout);
      const reward = /^\/v1\/rollouts\/([^/]+)\/reward$/.exec(path);
      if (reward) return await postReward(req, res, deps, opts, decodeURIComponent(reward[1]));
      if (path === '/v1/train/status') {
        needMethod(req, 'GET');
        if (!deps.online) throw new ApiError(404, 'This server does not train: start serve with --online to train the served adapter from rewarded rollouts', 'not_found_error', null, 'online_off');
        return json(res, 200, deps.online.status());
      }
      throw new ApiError(404, `Unknown route ${req.method} ${path}`, 'not_found_error', null, 'unknown_url');
    } catch (e) {
      const err = toApiError(e);
      if (res.headersSent) {
        // A stream already under way: the error goes in-band, then the stream ends.
        if (!res.writableEnded) res.end(`data: ${JSON.stringify(err.body())}\n\n`);
        return;
      }
      json(res, err.status, err.body());
    }
  };
}

function checkHost(req: IncomingMessage, allowed: Set<string>): void {
  const host = (req.headers.host ?? '').toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  if (!allowed.has(name)) {
    throw new ApiError(403, `Host "${host}" is not one this server answers to (${[...allowed].join(', ')}); connect by that name, or start serve with --host set to the name clients use`, 'permission_error', null, 'host_not_allowed');
  }
}

function checkToken(req: IncomingMessage, token: string | undefined): void {
  if (!token) return;
  const got = Buffer.from(String(req.headers.authorization ?? ''));
  const want = Buffer.from(`Bearer ${token}`);
  if (got.length !== want.length || !timingSafeEqual(got, want)) {
    throw new ApiError(401, 'Missing or wrong API key: send "Authorization: Bearer <key>" with the key given to serve --api-key', 'authentication_error', null, 'invalid_api_key');
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function needMethod(req: IncomingMessage, method: string): void {
  if (req.method !== method) throw new ApiError(405, `${req.url} takes ${method}, not ${req.method}`, 'invalid_request_error', null, 'method_not_allowed');
}

function models(req: IncomingMessage, res: ServerResponse, deps: ChatDeps, path: string): void {
  needMethod(req, 'GET');
  const s = deps.served;
  const card = { id: s.id, object: 'model', created: s.created, owned_by: 'rl-studio' };
  if (path === '/v1/models') return json(res, 200, { object: 'list', data: [card] });
  const id = decodeURIComponent(path.slice('/v1/models/'.length));
  if (id !== s.id) throw new ApiError(404, `The model "${id}" does not exist; this server serves "${s.id}"`, 'not_found_error', 'model', 'model_not_found');
  json(res, 200, card);
}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) throw new ApiError(415, 'Send the body as JSON (content-type: application/json)', 'invalid_request_error', null, 'unsupported_media_type');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > maxBytes) throw new ApiError(413, `The request body is larger than ${maxBytes} bytes (serve --max-body raises the limit)`, 'invalid_request_error', null, 'request_too_large');
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (e) {
    throw new ApiError(400, `The body is not valid JSON: ${(e as Error).message}`, 'invalid_request_error', null, 'invalid_json');
  }
}

async function chat(req: IncomingMessage, res: ServerResponse, deps: ChatDeps, opts: HttpOptions, pathRollout: string | null): Promise<void> {
  needMethod(req, 'POST');
  const body = await readJson(req, opts.maxBodyBytes);
  const r = parseChatRequest(body, { maxN: opts.maxN });
  if (deps.scheduler.load.pending >= opts.maxQueue) {
    throw new ApiError(429, `The server is busy: ${opts.maxQueue} requests are waiting for a batch slot; retry shortly`, 'rate_limit_error', null, 'queue_full');
  }
  const header = (k: string) => (typeof req.headers[k] === 'string' ? (req.headers[k] as string) : undefined);
  const rolloutId = pathRollout ?? header(ROLLOUT_HEADER) ?? r.metadata.rollout_id ?? null;
  const ref = { rolloutId: rolloutId ?? '', taskId: header(TASK_HEADER) ?? r.metadata.task_id ?? null };
  let cancel: (() => void) | null = null, finished = false;
  res.on('close', () => { if (!finished) cancel?.(); });
  const emit = r.stream ? (chunk: object) => {
    if (res.destroyed || res.writableEnded) return; // the client went away; its choices are being cancelled
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  } : null;
  // Online mode: the request holds the adapter from scheduling to its last log-prob; an update waits for it.
  await deps.online?.acquire();
  let out;
  try {
    out = await chatCompletion(deps, r, ref, emit, (c) => { cancel = c; });
  } finally {
    deps.online?.release();
  }
  finished = true;
  if (emit) {
    if (!res.destroyed) res.end('data: [DONE]\n\n');
    return;
  }
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-rollout-id': out.rolloutId,
    'x-token-faithful': String(out.prompt.faithful), ...(out.prompt.diverged ? { 'x-diverged-at-token': String(out.prompt.diverged.token) } : {}),
  });
  res.end(JSON.stringify(out.body));
}

async function postReward(req: IncomingMessage, res: ServerResponse, deps: ChatDeps, opts: HttpOptions, rolloutId: string): Promise<void> {
  needMethod(req, 'POST');
  const body = await readJson(req, opts.maxBodyBytes);
  const v = (body as { reward?: unknown } | null)?.reward;
  const ok = (typeof v === 'number' && Number.isFinite(v)) || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x)));
  if (!ok) throw badParam('reward', 'must be a finite number or a non-empty array of per-turn numbers');
  const calls = deps.traces.calls(rolloutId);
  const rec = deps.traces.reward(rolloutId, v as number | number[]);
  const online = deps.online ? { online: deps.online.reward(rolloutId, calls, rec.reward) } : {};
  json(res, 200, { object: 'rollout.reward', rollout_id: rolloutId, reward: rec.reward, per_turn: rec.per_turn, calls: calls.length, ...online });
}
