// Captured traces back as training episodes: reads OUT/traces/calls.jsonl and rewards.jsonl,
// keeps rewarded rollouts, and makes one episode per choice of each rollout's LAST call (whose
// tokens hold the earlier turns when the conversation stayed token-faithful, with their masks),
// grouped by task id for GRPO (a rollout without a task id is its own group). Errors name the
// file and line. Used by trace-train.ts; tested by tests/unit/server/serve-train-traces.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADVANTAGE_STD_EPS, unbiasedStd } from '../../rl/advantages';
import { CALLS_FILE, REWARDS_FILE, type CallRecord, type RewardRecord } from './traces';

export interface TraceEpisode {
  rolloutId: string;
  /** GRPO group key: the task id, or the rollout id when the client sent none. */
  group: string;
  tokens: number[];
  /** [tokens] 1 on sampled tokens. */
  mask: number[];
  /** [tokens] sampling log-probs (NaN where mask is 0). */
  logprobs: number[];
  temperature: number;
  reward: number;
}

export interface TraceSet {
  episodes: TraceEpisode[];
  /** Rollouts with calls but no reward (left out). */
  unrewarded: number;
  /** Episodes whose rollout re-tokenized an earlier turn (those turns are not trained). */
  diverged: number;
}

/** The traces folder of a run folder (or the folder itself when it holds calls.jsonl). */
export function tracesDir(dir: string): string {
  if (existsSync(join(dir, CALLS_FILE))) return dir;
  if (existsSync(join(dir, 'traces', CALLS_FILE))) return join(dir, 'traces');
  throw new Error(`--traces ${dir}: no ${CALLS_FILE} there or in ${join(dir, 'traces')}; point it at the run folder given to serve --out`);
}

function readJsonl<T extends { kind: string }>(file: string, kind: T['kind']): T[] {
  if (!existsSync(file)) return [];
  const out: T[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let v: T;
    try {
      v = JSON.parse(line) as T;
    } catch (e) {
      throw new Error(`${file}:${i + 1}: not JSON (${(e as Error).message}); remove or repair the line`);
    }
    if (v.kind !== kind) throw new Error(`${file}:${i + 1}: kind is ${JSON.stringify(v.kind)}, expected "${kind}"`);
    out.push(v);
  });
  return out;
}

export function readTraces(dir: string): TraceSet {
  const d = tracesDir(dir);
  const calls = readJsonl<CallRecord>(join(d, CALLS_FILE), 'call');
  const rewards = new Map<string, number>();
  for (const r of readJsonl<RewardRecord>(join(d, REWARDS_FILE), 'reward')) rewards.set(r.rollout_id, r.reward); // the last report wins
  const byRollout = new Map<string, CallRecord[]>();
  for (const c of calls) byRollout.set(c.rollout_id, [...(byRollout.get(c.rollout_id) ?? []), c]);
  const set: TraceSet = { episodes: [], unrewarded: 0, diverged: 0 };
  for (const [id, recs] of byRollout) {
    const reward = rewards.get(id);
    if (reward === undefined) {
      set.unrewarded++;
      continue;
    }
    for (const e of episodesOfRollout(recs, reward)) {
      if (e.diverged) set.diverged++;
      set.episodes.push(e.episode);
    }
  }
  return set;
}

/** One episode per choice of the rollout's last call (its tokens hold the earlier turns). */
export function episodesOfRollout(recs: readonly CallRecord[], reward: number): { episode: TraceEpisode; diverged: boolean }[] {
  if (!recs.length) return [];
  const lastCall = recs[recs.length - 1].call_id;
  return recs.filter((r) => r.call_id === lastCall).map((c) => ({
    diverged: c.diverged !== null,
    episode: {
      rolloutId: c.rollout_id, group: c.task_id ?? `rollout:${c.rollout_id}`, tokens: c.tokens, mask: c.mask,
      logprobs: c.logprobs.map((v) => (v === null ? NaN : v)), temperature: c.temperature, reward,
    },
  }));
}

/** GRPO advantages per task group: (r - mean) / (std + 1e-4), or r - mean when scale is false. */
export function groupAdvantages(episodes: TraceEpisode[], scale: boolean): { advantages: number[]; fracZeroStd: number } {
  const groups = new Map<string, number[]>();
  episodes.forEach((e, i) => groups.set(e.group, [...(groups.get(e.group) ?? []), i]));
  const adv = new Array<number>(episodes.length).fill(0);
  let zero = 0;
  for (const idx of groups.values()) {
    const r = idx.map((i) => episodes[i].reward);
    const mean = r.reduce((a, b) => a + b, 0) / r.length;
    const std = unbiasedStd(r);
    if (std <= 1e-8) zero++;
    idx.forEach((i, k) => { adv[i] = scale ? (r[k] - mean) / (std + ADVANTAGE_STD_EPS) : r[k] - mean; });
  }
  return { advantages: adv, fracZeroStd: groups.size ? zero / groups.size : 0 };
}
