// Why a model cannot be used: one line per problem, naming the file at fault and what to do
// (from the engine worker's inspect-model report). Used by the Models panel's cards; exercised
// by tests/e2e/studio-models.spec.ts.
import type { ModelProblem } from '../../workers/engine/inspect';

export function ProblemsList({ problems }: { problems: ModelProblem[] }) {
  return (
    <ul className="problems" data-testid="model-problems">
      {problems.map((p) => <li key={`${p.file}: ${p.message}`}><code>{p.file}</code>: {p.message}</li>)}
    </ul>
  );
}
