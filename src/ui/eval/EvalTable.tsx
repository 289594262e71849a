// The figures of one evaluation: one row per metric (the CLI eval's names), base, adapter and the
// change; fractions shown as percentages. Rendered by src/ui/panels/EvalPanel.tsx; tested by
// tests/e2e/studio-eval.spec.ts.
import type { EvalReport } from '../../rl/eval-run';

const ORDER = ['eval/accuracy', 'eval/pass@', 'eval/accuracy/', 'eval/reward', 'tools/call_frequency', 'tools/failure_frequency', 'eval/malformed_call_rate', 'num_turns/mean'];
const rank = (k: string) => {
  const i = ORDER.findIndex((p) => (p.endsWith('/') || p.endsWith('@') ? k.startsWith(p) : k === p));
  return i < 0 ? ORDER.length : i;
};
/** Shares are shown as percentages; counts and rewards as numbers. */
const isShare = (k: string) => k.startsWith('eval/accuracy') || k.startsWith('eval/pass@') || k.endsWith('_rate') || k === 'tools/failure_frequency';
const fmt = (k: string, v: number | undefined) => (v === undefined ? '-' : isShare(k) ? `${(v * 100).toFixed(1)} %` : v.toFixed(3));

export function EvalTable({ report, caption }: { report: EvalReport; caption: string }) {
  const keys = Object.keys(report.base).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const a = report.adapter?.metrics;
  return (
    <table className="kv eval-table" data-testid="eval-table">
      <caption>{caption}</caption>
      <thead>
        <tr><th scope="col">metric</th><th scope="col">base</th>{a && <><th scope="col">adapter</th><th scope="col">change</th></>}</tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k} data-testid={`eval-row-${k}`}>
            <th scope="row"><code>{k}</code></th>
            <td>{fmt(k, report.base[k])}</td>
            {a && <><td>{fmt(k, a[k])}</td><td>{a[k] === undefined ? '-' : `${a[k] - report.base[k] >= 0 ? '+' : ''}${isShare(k) ? `${((a[k] - report.base[k]) * 100).toFixed(1)} pt` : (a[k] - report.base[k]).toFixed(3)}`}</td></>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
