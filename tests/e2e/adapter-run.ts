// Helper of the Playground and Eval browser tests: a run folder with an adapter for agent-tiny put in
// the studio's OPFS (runs/<id>/: config.yaml, the agent preset naming public/models/agent-tiny, and
// adapter/ as our PEFT export writes it), which is all those panels read (src/run/opfs-runs.ts).
// The adapter is a small synthetic LoRA (tests/fixtures/interop-models.ts), not trained here: that
// a GRPO run of the agent preset writes such a folder is run-worker.spec.ts's and
// studio-first-run.spec.ts's business, and training it took about half a minute of each test.
// Used by studio-playground.spec.ts and studio-eval.spec.ts.
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { AGENT_DIR, syntheticLora } from '../fixtures/interop-models';
import { join } from 'node:path';
import { parseModelConfig } from '../../src/model/hf-config';
import { exportPeftAdapter } from '../../src/train/peft-export';

/** Writes runs/<prefix>-<time>/ with the agent preset's config.yaml and a synthetic adapter; returns its id. */
export async function storeAdapterRun(page: Page, prefix: string): Promise<string> {
  // The adapter's shapes need only config.json, not the weights.
  const config = parseModelConfig(JSON.parse(readFileSync(join(AGENT_DIR, 'config.json'), 'utf8')));
  // Rank 4 at scale 0.25: answers that differ from the base's without leaving its vocabulary of habits.
  const files = exportPeftAdapter(syntheticLora(config, 4, 1, 11), config, { baseModelName: 'public/models/agent-tiny' });
  const runId = `${prefix}-${Date.now()}`;
  const entries: [string, string][] = [
    ['config.yaml', Buffer.from(readFileSync('configs/agent_grpo.yaml')).toString('base64')],
    ...[...files].map(([name, bytes]): [string, string] => [`adapter/${name}`, Buffer.from(bytes).toString('base64')]),
  ];
  if (!page.url().startsWith('http')) await page.goto('/');
  await page.evaluate(async ([id, list]) => {
    const runs = await (await navigator.storage.getDirectory()).getDirectoryHandle('runs', { create: true });
    const run = await runs.getDirectoryHandle(id, { create: true });
    for (const [path, b64] of list) {
      const parts = path.split('/');
      let dir = run;
      for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
      const w = await (await dir.getFileHandle(parts.at(-1)!, { create: true })).createWritable();
      await w.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
      await w.close();
    }
  }, [runId, entries] as const);
  return runId;
}
