// Harness functions driving the engine worker (src/workers/engine/) from the page, as the studio will:
// load stories260K by URL, start a run from config YAML text, send pause / resume / stop /
// checkpoint-now, read run files back from OPFS through the worker, and record every run event
// (the page's long tasks are traced by the test, tests/e2e/main-thread-trace.ts); load a model with
// kernel tuning in a worker of its own. A live status line is shown on the page for screenshots. Used by
// tests/e2e/run-worker.spec.ts and run-worker-grpo.spec.ts.
import type { RunCommand, RunEvent } from '../run/events';
import { EngineClient } from '../workers/engine/client';
import type { Harness } from './types';

let client: EngineClient | null = null;
const events: { runId: string; at: number; event: RunEvent }[] = [];

const status: Record<string, string> = {};

/** One line per topic (model, phase, progress, metrics, checkpoints) in a <pre> for screenshots. */
function show(topic: string, line: string): void {
  let el = document.getElementById('run-status');
  if (!el) {
    el = document.createElement('pre');
    el.id = 'run-status';
    document.body.appendChild(el);
  }
  status[topic] = line;
  el.textContent = Object.entries(status).map(([k, v]) => `${k.padEnd(12)} ${v}`).join('\n');
}

const checkpoints: string[] = [];

function describe(runId: string, e: RunEvent): void {
  switch (e.kind) {
    case 'progress': return show('progress', `step ${e.step}/${e.total}, ${(e.elapsedMs / 1000).toFixed(1)} s, eta ${(e.etaMs / 1000).toFixed(0)} s`);
    case 'metrics': return show('metrics', `step ${e.row.step} reward ${e.row.reward?.toFixed(3)} loss ${e.row.loss?.toExponential(3)} kl ${e.row.kl?.toExponential(2) ?? '-'} grad_norm ${e.row.grad_norm?.toFixed(4)}`);
    case 'checkpoint':
      checkpoints.push(e.path);
      return show('checkpoints', checkpoints.join(', '));
    case 'warning': return show('warning', `step ${e.step}: ${e.message}`);
    case 'rollout': return;
    default: return show('run', `${runId}: ${e.kind}`);
  }
}

export function register(h: Harness): void {
  /** Starts the worker; loads a model served under /models/. */
  h.engineLoad = async (url: string) => {
    client ??= EngineClient.create();
    client.onEvent((runId, event) => {
      events.push({ runId, at: performance.now(), event });
      describe(runId, event);
    });
    show('model', `loading ${url}`);
    const info = await client.loadModel({ source: { url }, quant: 'none', tune: false });
    show('model', `${info.modelId}: ${url} ${info.architecture} L=${info.numLayers} C=${info.hiddenSize} V=${info.vocabSize}`);
    return info;
  };
  h.engineStart = async (modelId: string, configYaml: string, runId: string, dataset?: { text: string; name: string }) =>
    (await client!.startRun({ modelId, configYaml, runId, ...(dataset ? { dataset } : {}) })).runId;
  h.engineCommand = async (runId: string, kind: RunCommand['kind']) => {
    const st = await client!.command(runId, { kind } as RunCommand);
    show('command', `${kind} -> ${st.phase} at step ${st.step}`);
    return st;
  };
  h.engineState = async (runId: string) => client!.state(runId);
  /** Events so far (rollouts counted, not returned). */
  h.engineEvents = async () => events.filter((e) => e.event.kind !== 'rollout');
  h.engineRolloutCount = async () => events.filter((e) => e.event.kind === 'rollout').length;
  /** Kills the worker as a crash would; returns what a later call gets. */
  h.engineTerminate = async (runId: string) => {
    client!.terminate();
    return client!.state(runId).then(() => 'resolved', (e: Error) => e.message);
  };
  h.engineList = async (runId: string) => client!.listRun(runId);
  /** Lists the stored runs until `runId` is listed finished: how many listings, and the errors met. */
  h.engineListUntilFinished = async (runId: string) => {
    const errors: string[] = [];
    for (let n = 1; ; n++) {
      try {
        if ((await client!.listRuns()).some((r) => r.runId === runId && r.state === 'finished')) return { listings: n, errors };
      } catch (e) {
        errors.push((e as Error).message);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /**
   * Loads a model in a new engine worker with kernel tuning on (the default on a GPU), then ends
   * that worker: the load's progress stages and the worker's tuning file (OPFS engine/tuning.json)
   * as read from the page afterwards.
   */
  h.engineTuneLoad = async (url: string) => {
    const worker = EngineClient.create();
    const stages: string[] = [];
    try {
      await worker.loadModel({ source: { url }, quant: 'none', tune: true }, (_done, _total, stage) => { stages.push(stage); });
    } finally {
      worker.terminate();
    }
    let tuning: string | null = null;
    try {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('engine');
      tuning = await (await (await dir.getFileHandle('tuning.json')).getFile()).text();
    } catch { /* no file */ }
    return { stages, tuning };
  };
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
