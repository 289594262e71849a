// Harness functions driving the engine worker (src/worker/) from the page, as the studio will:
// load stories260K by URL, start a run from config YAML text, send pause / resume / stop /
// checkpoint-now, read run files back from OPFS through the worker, and record every run event
// and every main-thread long task (PerformanceObserver 'longtask'). A live status line is shown
// on the page for screenshots. Used by tests/e2e/run-worker.spec.ts.
import type { RunCommand, RunEvent } from '../run/events';
import { EngineClient } from '../worker/client';
import type { Harness } from './types';

let client: EngineClient | null = null;
const events: { runId: string; at: number; event: RunEvent }[] = [];
const longTasks: { start: number; duration: number }[] = [];
let observer: PerformanceObserver | null = null;

function show(line: string): void {
  let el = document.getElementById('run-status');
  if (!el) {
    el = document.createElement('pre');
    el.id = 'run-status';
    document.body.appendChild(el);
  }
  el.textContent = line;
}

function describe(runId: string, e: RunEvent): string {
  switch (e.kind) {
    case 'progress': return `${runId}: step ${e.step}/${e.total}, ${(e.elapsedMs / 1000).toFixed(1)} s, eta ${(e.etaMs / 1000).toFixed(0)} s`;
    case 'metrics': return `${runId}: step ${e.row.step} reward ${e.row.reward?.toFixed(3)} loss ${e.row.loss?.toExponential(3)}`;
    case 'checkpoint': return `${runId}: checkpoint ${e.path}`;
    default: return `${runId}: ${e.kind}`;
  }
}

export function register(h: Harness): void {
  /** Starts the worker and the long-task observer; loads a model served under /models/. */
  h.engineLoad = async (url: string) => {
    observer ??= new PerformanceObserver((list) => {
      for (const t of list.getEntries()) longTasks.push({ start: t.startTime, duration: t.duration });
    });
    observer.observe({ type: 'longtask' });
    client ??= EngineClient.create();
    client.onEvent((runId, event) => {
      events.push({ runId, at: performance.now(), event });
      if (event.kind !== 'rollout') show(describe(runId, event));
    });
    show(`loading ${url}`);
    const info = await client.loadModel({ source: { url }, quant: 'none', tune: false });
    show(`loaded ${info.modelId}: ${info.architecture} L=${info.numLayers} C=${info.hiddenSize}`);
    return info;
  };
  h.engineStart = async (modelId: string, configYaml: string, runId: string) => (await client!.startRun({ modelId, configYaml, runId })).runId;
  h.engineCommand = async (runId: string, kind: RunCommand['kind']) => client!.command(runId, { kind } as RunCommand);
  h.engineState = async (runId: string) => client!.state(runId);
  /** Events so far (rollouts counted, not returned). */
  h.engineEvents = async () => events.filter((e) => e.event.kind !== 'rollout');
  h.engineRolloutCount = async () => events.filter((e) => e.event.kind === 'rollout').length;
  h.engineLongTasks = async () => longTasks;
  h.engineList = async (runId: string) => client!.listRun(runId);
  h.engineReadText = async (runId: string, path: string) => {
    const b = await client!.readRunFile(runId, path);
    return b ? new TextDecoder().decode(b) : null;
  };
  /** A run folder's files as base64 (for copying it to a Node folder). */
  h.engineExport = async (runId: string) => {
    const out: Record<string, string> = {};
    for (const path of await client!.listRun(runId)) {
      const b = (await client!.readRunFile(runId, path))!;
      let s = '';
      for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
      out[path] = btoa(s);
    }
    return out;
  };
}
