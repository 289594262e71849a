// What keeps the proxy polite and cheap: fetch with a per-attempt timeout, exponential-backoff
// retries (timeouts, network errors, 429, 5xx) and a streamed size cap, a token bucket on provider
// calls, and a TTL cache that also merges identical in-flight queries (a GRPO group's G samples
// hit the provider once). Tested by tests/unit/server/proxy-server.test.ts.
import { readCapped } from './body';
import { responsiveTimeout } from '../../util/responsive-timeout';

export class ProviderError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface RetryOptions {
  timeoutMs: number;
  maxRetries: number;
  /** Seconds; the wait before retry n is backoffFactor * 2^n. */
  backoffFactor: number;
  label: string;
  /** Largest answer accepted, bytes; the download stops past it. */
  maxBytes: number;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    }, { once: true });
  });

/** One request with retries; resolves with the parsed JSON of the first 2xx answer. */
export async function fetchJsonWithRetry(url: string, init: RequestInit, o: RetryOptions): Promise<unknown> {
  let last = '';
  for (let attempt = 0; attempt <= o.maxRetries; attempt++) {
    if (attempt > 0) await sleep(o.backoffFactor * 1000 * 2 ** (attempt - 1), o.signal);
    const ac = new AbortController();
    const clearTimer = responsiveTimeout(o.timeoutMs, () => ac.abort()); // responsive time (util/responsive-timeout.ts)
    const onAbort = () => ac.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await fetch(url, { ...init, signal: ac.signal });
      if (res.ok) {
        const body = await readCapped(res, o.maxBytes);
        if (body.over) throw new ProviderError(`${o.label} answered more than ${o.maxBytes} bytes (max_response_bytes); raise the limit or ask for fewer results`, 502);
        try {
          return JSON.parse(new TextDecoder().decode(body.bytes)) as unknown;
        } catch {
          throw new ProviderError(`${o.label} answered with something that is not JSON`, 502);
        }
      }
      await res.body?.cancel();
      last = `HTTP ${res.status}`;
      if (res.status !== 429 && res.status < 500) throw new ProviderError(`${o.label} refused the request: HTTP ${res.status}`, 502);
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      if (o.signal?.aborted) throw new ProviderError(`${o.label}: request aborted`, 499);
      last = ac.signal.aborted ? `timed out after ${o.timeoutMs} ms` : `network error (${(e as Error).message})`;
    } finally {
      clearTimer();
      o.signal?.removeEventListener('abort', onAbort);
    }
  }
  const status = last.startsWith('timed out') ? 504 : 502;
  throw new ProviderError(`${o.label} failed after ${o.maxRetries + 1} attempts: ${last}`, status);
}

/** A token bucket: `capacity` tokens, refilled continuously at `perMinute`. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(private readonly perMinute: number, private readonly now: () => number = () => Date.now()) {
    this.tokens = perMinute;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.perMinute, this.tokens + ((t - this.last) * this.perMinute) / 60_000);
    this.last = t;
  }

  /** Takes a token if one is there; otherwise returns the ms until one will be. */
  tryTake(): { ok: true } | { ok: false; retryAfterMs: number } {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    if (this.perMinute <= 0) return { ok: false, retryAfterMs: 60_000 };
    return { ok: false, retryAfterMs: Math.ceil(((1 - this.tokens) * 60_000) / this.perMinute) };
  }
}

/** TTL + LRU cache of promises: concurrent identical keys share one computation. */
export class TtlCache<T> {
  private readonly entries = new Map<string, { expires: number; value: Promise<T> }>();

  constructor(private readonly ttlMs: number, private readonly maxEntries: number, private readonly now: () => number = () => Date.now()) {}

  /** Returns the cached promise (hit) or stores and returns `make()` (miss); failures are not kept. */
  get(key: string, make: () => Promise<T>): { value: Promise<T>; hit: boolean } {
    const e = this.entries.get(key);
    if (e && e.expires > this.now()) {
      this.entries.delete(key);
      this.entries.set(key, e);
      return { value: e.value, hit: true };
    }
    const value = make();
    if (this.ttlMs > 0 && this.maxEntries > 0) {
      this.entries.set(key, { expires: this.now() + this.ttlMs, value });
      value.catch(() => this.entries.get(key)?.value === value && this.entries.delete(key));
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return { value, hit: false };
  }

  get size(): number {
    return this.entries.size;
  }
}
