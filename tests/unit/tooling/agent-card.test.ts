// The default agent's model card (scripts/agent-data/model-card.ts) from a two-stage run's records:
// each stage's figures and loss curve come from its metrics rows, a stage stopped early says so,
// a stage not run yet says what is planned, and the eval figures become the table. A stage whose
// run is not on this machine (train-agent --start-at) keeps its section of the published card.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelCard, publishedStageSections, type StepRecord } from '../../../scripts/agent-data/model-card';
import { agentModelConfig } from '../../../scripts/agent-data/init-model';

const rows = (n: number, loss0: number): StepRecord[] =>
  Array.from({ length: n }, (_, i) => ({ step: i + 1, loss: loss0 - i * 0.1, num_tokens: (i + 1) * 1000, step_time: 2, 'perf/train_tokens_per_s': 500 }));

describe('agent model card', () => {
  it('one section per stage from its records, with the eval table', () => {
    const card = modelCard({
      cfg: agentModelConfig(1024, [1019, 1017]), params: 263232, recipe: { seed: 0, batchSize: 16 },
      stages: [
        { name: 'drill', steps: 10, lr: 2e-3, data: 'copy drill', metrics: rows(6, 6) },
        { name: 'sft', steps: 5, lr: 1e-3, data: 'traces', metrics: [] },
      ],
      evaluation: { tasks: 100, 'eval/accuracy': 0.25, 'eval/accuracy/calculator': 0.4, 'eval/accuracy/lookup': 0.1 },
    });
    expect(card).toContain('Recipe (scripts/train-agent.ts, `AGENT_RECIPE`): seed 0, batchSize 16.');
    expect(card).toContain('### Stage drill: copy drill');
    expect(card).toContain('**Stopped after 6 of them**');
    expect(card).toContain('| updates | 6 |');
    expect(card).toContain('| tokens seen (prompt + completion rows) | 6000 |');
    expect(card).toContain('| first / last loss | 6.000 / 5.500 |');
    expect(card).toContain('| mean tokens/s | 500.0 |');
    expect(card).toContain('Not run yet (planned: 5 updates at lr 0.001 on traces).');
    expect(card).toContain('| success, all | 25.0 % |');
    expect(card).toContain('| success, calculator | 40.0 % |');
  });

  it('a stage without local records keeps its published section byte for byte; the eval table gets a column after the GRPO preset', () => {
    const base = { cfg: agentModelConfig(1024, [1019, 1017]), params: 263232, recipe: { seed: 0 } };
    const first = modelCard({ ...base, stages: [{ name: 'drill', steps: 6, lr: 2e-3, data: 'copy drill', metrics: rows(6, 6) }, { name: 'read', steps: 4, lr: 1e-3, data: 'reading', metrics: rows(4, 2) }] });
    const sections = publishedStageSections(first);
    expect([...sections.keys()]).toEqual(['drill', 'read']);
    expect(sections.get('read')).toMatch(/^### Stage read: reading\n[^]*\| 4 \| 1\.700 \| 4000 \|$/);
    const again = modelCard({
      ...base,
      stages: [
        { name: 'drill', steps: 6, lr: 2e-3, data: 'copy drill', metrics: [], published: sections.get('drill') },
        { name: 'read', steps: 4, lr: 1e-3, data: 'reading', metrics: [], published: sections.get('read') },
        { name: 'direct', steps: 3, lr: 3e-4, data: 'direct answers', metrics: rows(3, 1) },
      ],
      evaluation: { tasks: 400, 'eval/accuracy': 0.15, 'tools/call_frequency': 0.53 },
      rlEvaluation: { tasks: 400, 'eval/accuracy': 0.4775, 'tools/call_frequency': 1 },
    });
    expect(again.startsWith(first.slice(0, first.indexOf('## Evaluation')).trimEnd())).toBe(true);
    expect(again).toContain('### Stage direct: direct answers');
    expect(again).toContain('| figure | this model | after the GRPO preset |');
    expect(again).toContain('| success, all | 15.0 % | 47.8 % |');
    expect(again).toContain('| tool calls per episode | 0.53 | 1.00 |');
    // The shipped card parses into its stages.
    const shippedCard = readFileSync('public/models/agent-tiny/README.md', 'utf8');
    expect([...publishedStageSections(shippedCard).keys()].slice(0, 5)).toEqual(['drill', 'induct', 'sft', 'augment', 'read']);
  });
});
