// A token bucket per client address: `perMinute` requests refill evenly over a minute, bursts up
// to `perMinute / 4` (at least 1). 0 turns the limit off. Used by http.ts; tested by
// tests/unit/server/serve-request.test.ts.

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  constructor(readonly perMinute: number, private readonly now: () => number = () => Date.now()) {
    this.burst = Math.max(1, Math.floor(perMinute / 4));
  }

  /** Takes one request from `client`'s bucket; returns the seconds to wait when it is empty. */
  take(client: string): { ok: true } | { ok: false; retryAfter: number } {
    if (this.perMinute <= 0) return { ok: true };
    const t = this.now(), rate = this.perMinute / 60000;
    const b = this.buckets.get(client) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + (t - b.at) * rate);
    b.at = t;
    this.buckets.set(client, b);
    if (this.buckets.size > 10000) this.buckets.delete(this.buckets.keys().next().value as string);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfter: Math.ceil((1 - b.tokens) / rate / 1000) };
  }
}
