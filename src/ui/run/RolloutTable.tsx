// The shown run's last rollouts as a virtualised, filterable table (@tanstack/react-virtual):
// step, task, reward, advantage, turns, tool calls, generated length, finish reason, error; a row
// opens the episode's detail. Exercised by tests/e2e/studio-run.spec.ts.
import { memo, useId, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { RolloutRecord } from '../../rl/rollout-log';
import { filterRollouts, finishReasons, num, type RolloutFilter } from './rollout-rows';

const ROW_PX = 30;
const COLUMNS = ['step', 'task', 'reward', 'advantage', 'turns', 'tool calls', 'length', 'finish', 'error'];

export const RolloutTable = memo(function RolloutTable({ records, total, selected, onOpen }: { records: readonly RolloutRecord[]; total: number; selected: string | null; onOpen: (key: string) => void }) {
  const [filter, setFilter] = useState<RolloutFilter>({ text: '', finish: '', errorsOnly: false });
  const rows = useMemo(() => filterRollouts(records, filter), [records, filter]);
  const reasons = useMemo(() => finishReasons(records), [records]);
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 8 });
  const textId = useId(), finishId = useId(), errId = useId();
  return (
    <section className="card rollouts" aria-labelledby="rollouts-title">
      <h2 id="rollouts-title">Rollouts ({rows.length} shown of the last {records.length}; {total} received)</h2>
      <div className="inline-form rollout-filter">
        <label htmlFor={textId}>Filter</label>
        <input id={textId} type="search" placeholder="task id, text or error" value={filter.text} data-testid="rollout-filter"
          onChange={(e) => setFilter({ ...filter, text: e.target.value })} />
        <label htmlFor={finishId}>Finish</label>
        <select id={finishId} value={filter.finish} onChange={(e) => setFilter({ ...filter, finish: e.target.value })} data-testid="rollout-finish">
          <option value="">any</option>
          {reasons.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
        <label htmlFor={errId}><input id={errId} type="checkbox" checked={filter.errorsOnly} onChange={(e) => setFilter({ ...filter, errorsOnly: e.target.checked })} /> errors only</label>
      </div>
      <div role="table" aria-label="Rollouts" aria-rowcount={rows.length + 1} className="rollout-table">
        <div role="row" className="rollout-row rollout-head" aria-rowindex={1}>
          {COLUMNS.map((c) => <span role="columnheader" key={c}>{c}</span>)}
        </div>
        <div ref={scroller} className="rollout-scroll" data-testid="rollout-scroll" role="rowgroup">
          <div style={{ height: v.getTotalSize(), position: 'relative' }}>
            {v.getVirtualItems().map((it) => {
              const row = rows[it.index], r = row.record;
              return (
                <div role="row" key={row.key} aria-rowindex={it.index + 2} data-testid="rollout-row" aria-selected={row.key === selected}
                  className={row.key === selected ? 'rollout-row selected' : 'rollout-row'}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_PX, transform: `translateY(${it.start}px)` }}>
                  <span role="cell">
                    <button type="button" className="link" onClick={() => onOpen(row.key)} aria-label={`Open episode: step ${r.step}, task ${r.task_id}, sample ${r.sample}`}>
                      {r.step}.{r.sample}
                    </button>
                  </span>
                  <span role="cell" title={r.task_id}>{r.task_id}</span>
                  <span role="cell">{num(r.reward.total)}</span>
                  <span role="cell">{num(r.advantage)}</span>
                  <span role="cell">{r.num_turns}</span>
                  <span role="cell">{row.toolCalls}{row.failedCalls ? ` (${row.failedCalls} failed)` : ''}</span>
                  <span role="cell">{row.length}</span>
                  <span role="cell">{r.finish_reason}</span>
                  <span role="cell" className={r.error ? 'error' : ''} title={r.error}>{r.error ?? ''}</span>
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {records.length === 0 && <p className="small">Episodes appear after the first step (with log.rollouts: true, the default).</p>}
    </section>
  );
});
