// The Runs panel's table (src/ui/runs/RunsTable.tsx) is virtualised: with 2,000 stored runs it
// draws only a window of rows (first paint, server-rendered with react-dom/server) plus spacer
// rows that stand in for the rest, and still names the full row count for screen readers.
import { describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { RunsTable } from '../../../src/ui/runs/RunsTable';
import type { StoredRun } from '../../../src/workers/engine/protocol';

const run = (i: number): StoredRun => ({
  runId: `run-${String(i).padStart(4, '0')}`, trainer: 'grpo', env: 'calc', model: 'models/agent-tiny', quant: 'f32', quantEmbeddings: false,
  steps: i % 7, totalSteps: 10, lastCheckpoint: null, state: 'finished', message: null, endedAt: null,
});

describe('RunsTable virtualisation', () => {
  it('renders a window of a 2,000-row list, not every row', () => {
    const html = renderToString(createElement(RunsTable, { runs: Array.from({ length: 2000 }, (_, i) => run(i)) }));
    const drawn = html.match(/data-testid="run-row-/g)?.length ?? 0;
    console.log(`runs table: ${drawn} of 2000 rows drawn`);
    expect(drawn).toBeGreaterThan(5);
    expect(drawn).toBeLessThan(60);
    expect(html).toContain('data-testid="run-row-run-0000"');
    expect(html).not.toContain('data-testid="run-row-run-1999"');
    expect(html).toContain('aria-rowcount="2001"');
    expect(html).toMatch(/class="runs-spacer"/);
  });

  it('draws every row of a short list', () => {
    const html = renderToString(createElement(RunsTable, { runs: Array.from({ length: 4 }, (_, i) => run(i)) }));
    expect(html.match(/data-testid="run-row-/g)?.length).toBe(4);
    expect(html).not.toMatch(/class="runs-spacer"/);
  });
});
