// The shipped search corpus a null data.corpus stands for (src/rl/env-factory.ts shippedCorpus):
// one helper used by both the run's services (src/run/rl-node-run.ts startServices) and the CLI
// defaults (src/cli/defaults.ts); the files it names exist, and startServices reads the one it picks.
// Run: npx vitest run tests/unit/rl/shipped-corpus.test.ts
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/rl/config-validate';
import { shippedCorpus } from '../../../src/rl/env-factory';
import { startServices } from '../../../src/run/rl-node-run';
import { parseCorpusJsonl } from '../../../src/tools/search/corpus';

const ROOT = resolve(__dirname, '../../..');

describe('shippedCorpus', () => {
  it('names the shipped corpus of the search envs (null elsewhere), and startServices searches it', async () => {
    expect(shippedCorpus('agent')).toBe('datasets/agent_corpus.jsonl');
    expect(shippedCorpus('search_qa')).toBe('datasets/squad_corpus.jsonl');
    for (const env of ['math', 'code_exec', 'story'] as const) expect(shippedCorpus(env)).toBeNull();
    for (const env of ['agent', 'search_qa'] as const) expect(existsSync(join(ROOT, shippedCorpus(env)!))).toBe(true);

    const svc = await startServices(resolveConfig({ model: { path: 'unused' }, data: { env: 'search_qa', corpus: null } }, 'shipped-corpus.test'), () => {});
    expect(svc.pool).toBeNull();
    const docs = parseCorpusJsonl(readFileSync(join(ROOT, 'datasets/squad_corpus.jsonl'), 'utf8'));
    const hits = await svc.services.search!.search(docs[0].title, 3);
    console.log(`search_qa corpus: ${docs.length} docs; top hit for "${docs[0].title}": ${hits[0]?.title}`);
    expect(hits.length).toBeGreaterThan(0);
  });
});
