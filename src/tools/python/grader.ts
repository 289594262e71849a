// Grading out of the solution's reach: turns test plans (made by a job that never saw the
// solution) into the checks the solution's job runs, and the checks' results into pass/fail by
// comparing values here, in the pool. Whole asserts (not `A == B`) are only trusted when the
// solution changed nothing outside its namespace. Used by pool.ts; tests/unit/tools/tools-python.test.ts and tools-python-tamper.test.ts.
import type { Check, CheckResult, TestPlan } from './protocol';
import { pyEquals, pyRepr } from './py-value';
import type { AssertResult, RunResult } from './types';

export function planChecks(plans: TestPlan[]): Check[] {
  return plans.map((p): Check => (p.kind === 'compare' ? { kind: 'value', expr: p.probe } : { kind: 'assert', test: p.test }));
}

function testText(p: TestPlan, i: number, tests?: string[]): string {
  return tests?.[i] ?? (p.kind === 'assert' ? p.test : `assert ${p.probe} == ...`);
}

export function gradeChecks(plans: TestPlan[], checks: Map<number, CheckResult>, run: RunResult, solutionOk: boolean, tests?: string[]): AssertResult[] {
  const tampered = run.changedOutside?.length ? run.changedOutside.join('; ') : null;
  return plans.map((plan, i): AssertResult => {
    const test = testText(plan, i, tests);
    const r = checks.get(i);
    if (!r) {
      const why = solutionOk ? `${run.errorType ?? 'NotRun'}: ${run.errorMessage ?? 'stopped before this assert'}` : `solution failed: ${run.errorType}: ${run.errorMessage}`;
      return { test, passed: false, error: why };
    }
    if (r.kind === 'failed') return { test, passed: false, error: r.error };
    if (plan.kind === 'compare') {
      if (r.kind !== 'value') return { test, passed: false, error: 'SandboxError: the worker did not return a value' };
      return pyEquals(r.value, plan.expected) ? { test, passed: true } : { test, passed: false, error: `AssertionError: got ${pyRepr(r.value)}, expected ${pyRepr(plan.expected)}` };
    }
    if (r.kind !== 'passed') return { test, passed: false, error: 'SandboxError: the worker returned a value for a whole assert' };
    if (tampered) return { test, passed: false, error: `Untrusted: the solution changed ${tampered} outside its namespace, so asserts run in its interpreter do not count` };
    return { test, passed: true };
  });
}
