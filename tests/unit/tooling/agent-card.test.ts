// The default agent's model card (scripts/agent-data/model-card.ts) from a two-stage run's records:
// each stage's figures and loss curve come from its metrics rows, a stage stopped early says so,
// a stage not run yet says what is planned, and the eval figures become the table.
import { describe, expect, it } from 'vitest';
import { modelCard, type StepRecord } from '../../../scripts/agent-data/model-card';
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
});
