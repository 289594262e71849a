// Typical lengths for the step-time estimate: a run's rollouts.jsonl gives the mean prompt (tokens
// before the first trained one), the mean tokens after it, and per step the most tokens one episode
// sampled (averaged over steps); without rollouts its metrics'
// completions/mean_length joins the preview's prompt lengths; the Datasets preview alone gives the
// prompt and leaves the completion to the upper bound; cut-off lines are ignored. Pure.
import { describe, expect, it } from 'vitest';
import { lengthsFromPreview, lengthsFromRun } from '../../../src/run/typical-lengths';

const episode = (prompt: number, after: number, step = 1, sampled = after) => JSON.stringify({ step, tokens: Array.from({ length: prompt + after }, (_, i) => i), mask: [...Array<number>(prompt).fill(0), ...Array<number>(sampled).fill(1), ...Array<number>(after - sampled).fill(0)] });

describe('typical lengths', () => {
  it('from a run\'s logged episodes: mean prompt and mean tokens after it', () => {
    // Step 1: most sampled 30; step 2: most sampled 50.
    const rollouts = [episode(80, 40, 1, 20), episode(100, 60, 1, 30), episode(90, 50, 2, 50), episode(100, 40, 2, 40), '{"tokens": [1, 2'].join('\n');
    const l = lengthsFromRun('run-a', rollouts, null);
    console.log(JSON.stringify(l));
    expect(l).toEqual({ prompt: 93, completion: 48, decoded: 40, from: 'mean of run run-a\'s 4 logged episodes over 2 steps' });
  });

  it('without rollouts: the preview\'s prompts and the run\'s completions/mean_length; nothing without a prompt source', () => {
    const metrics = ['{"step": 1, "completions/mean_length": 30}', '{"step": 2, "completions/mean_length": 50}'].join('\n');
    const preview = lengthsFromPreview('agent_train.jsonl', [87, 68, 87]);
    expect(preview).toEqual({ prompt: 81, completion: null, decoded: null, from: 'mean of the 3 previewed tasks of agent_train.jsonl' });
    expect(lengthsFromRun('run-b', null, metrics, preview)).toEqual({ prompt: 81, completion: 40, decoded: null, from: 'mean of the 3 previewed tasks of agent_train.jsonl; completions/mean_length of run run-b' });
    expect(lengthsFromRun('run-b', null, metrics, null)).toBeNull();
    expect(lengthsFromRun('run-c', '', '', preview)).toBeNull();
    expect(lengthsFromPreview('x.jsonl', [])).toBeNull();
  });
});
