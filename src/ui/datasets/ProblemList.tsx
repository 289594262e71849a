// The skipped lines of a dataset, one row per line (`file:line: "field" reason`, wrapped, rows
// measured), virtualised so a file with thousands of bad lines stays fast. Used by DatasetsPanel.
import { useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { formatProblem, type LineProblem } from '../../data/loader';

const ROW = 24;

export function ProblemList({ fileName, problems, label }: { fileName: string; problems: LineProblem[]; label: string }) {
  const scroller = useRef<HTMLDivElement>(null);
  // The studio does not use the React Compiler; the virtualizer re-renders this list itself.
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({ count: problems.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });
  return (
    <div ref={scroller} className="problem-list" role="list" aria-label={label} tabIndex={0}
      style={{ maxHeight: 240, height: Math.min(v.getTotalSize(), 240) + 2 }}>
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((row) => {
          const p = problems[row.index];
          return (
            <div key={row.key} ref={v.measureElement} data-index={row.index} role="listitem" className="problem"
              data-line={p.line} data-field={p.field}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${row.start}px)` }}>
              {formatProblem(fileName, p)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
