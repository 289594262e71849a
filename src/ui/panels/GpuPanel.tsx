// GPU panel: adapter name and architecture, features, the limits obtained, memory counters,
// and the matmul self-test (GPU vs CPU max difference and GFLOPS per kernel variant). When
// WebGPU is unavailable it says so and how to enable it; on SwiftShader it names the Chrome
// switch that shortens kernel compiles. Tested by tests/e2e/gpu.spec.ts.
import { useState } from 'react';
import { useStudio } from '../../store/store';
import { formatBytes } from '../../gpu/errors';
import { RAISED_LIMITS, SWIFTSHADER_CHROME_SWITCH, isSwiftShader } from '../../gpu/device';

const SIZES = [128, 256, 512];

export function GpuPanel() {
  const status = useStudio((s) => s.gpuStatus);
  const report = useStudio((s) => s.gpuReport);
  const error = useStudio((s) => s.gpuError);
  const memory = useStudio((s) => s.gpuMemory);
  const selfTest = useStudio((s) => s.selfTest);
  const runSelfTest = useStudio((s) => s.runSelfTest);
  const [size, setSize] = useState(256);

  if (status === 'unavailable' || (status === 'error' && !report)) {
    return (
      <section className="panel" data-testid="gpu-unavailable">
        <h1>WebGPU is not available</h1>
        <p className="error">{error?.message}</p>
        <p>The studio trains on your GPU through WebGPU. To enable it:</p>
        <ul>{error?.help.map((h) => <li key={h}>{h}</li>)}</ul>
      </section>
    );
  }
  if (!report) return <section className="panel"><h1>GPU</h1><p>Opening the GPU...</p></section>;

  return (
    <section className="panel gpu" data-testid="gpu-panel">
      <h1>GPU</h1>
      {error && <p className="error" role="alert">{error.message}</p>}
      <div className="cards">
        <div className="card">
          <h2>Adapter</h2>
          <dl>
            <dt>Vendor</dt><dd data-testid="gpu-vendor">{report.vendor}</dd>
            <dt>Architecture</dt><dd data-testid="gpu-arch">{report.architecture}</dd>
            {report.device && <><dt>Device</dt><dd>{report.device}</dd></>}
            {report.description && <><dt>Description</dt><dd>{report.description}</dd></>}
            <dt>Software adapter</dt><dd>{report.isFallback ? 'yes (slow; for testing)' : 'no'}</dd>
            {report.subgroupMinSize !== undefined && <><dt>Subgroup size</dt><dd>{report.subgroupMinSize}-{report.subgroupMaxSize}</dd></>}
          </dl>
          {isSwiftShader(report) && (
            <p className="small hint" data-testid="gpu-swiftshader-hint">
              SwiftShader, Chrome's CPU driver: every kernel compiles at its first use, seconds at a
              run's first step. Starting Chrome with <code>{SWIFTSHADER_CHROME_SWITCH}</code> cuts
              that time (the same zeros in workgroup memory, filled by a loop).
            </p>
          )}
        </div>
        <div className="card">
          <h2>Features</h2>
          <ul className="tags" data-testid="gpu-features">
            {['shader-f16', 'subgroups', 'timestamp-query'].map((f) => (
              <li key={f} className={report.features.includes(f) ? 'tag on' : 'tag off'}>{f} {report.features.includes(f) ? 'yes' : 'no'}</li>
            ))}
          </ul>
          <details><summary>All {report.features.length} features enabled on the device</summary><p className="small">{report.features.join(', ')}</p></details>
        </div>
        <div className="card limits">
          <h2>Limits obtained</h2>
          <table className="kv limits-table" data-testid="gpu-limits"><tbody>
            {RAISED_LIMITS.map((l) => (
              <tr key={l}><th scope="row">{l}</th><td>{/Size$/.test(l) ? formatBytes(report.limits[l]) : report.limits[l].toLocaleString()}</td></tr>
            ))}
          </tbody></table>
        </div>
        {memory && (
          <div className="card">
            <h2>Memory (buffer pool)</h2>
            <dl>
              <dt>In use</dt><dd>{formatBytes(memory.inUse)}</dd>
              <dt>Allocated</dt><dd>{formatBytes(memory.allocated)}</dd>
              <dt>Peak</dt><dd>{formatBytes(memory.peak)}</dd>
            </dl>
          </div>
        )}
      </div>

      <div className="card wide">
        <h2>Self-test: matmul on the GPU vs the CPU</h2>
        <p className="small">Multiplies random {size}x{size} matrices with each WGSL kernel variant, compares with a plain
          CPU loop, and times it. The fastest correct variant is remembered for this adapter.</p>
        <label>Size{' '}
          <select aria-label="Matrix size" value={size} onChange={(e) => setSize(Number(e.target.value))} disabled={selfTest.running}>
            {SIZES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>{' '}
        <button data-testid="selftest-run" onClick={() => void runSelfTest(size)} disabled={selfTest.running}>
          {selfTest.running ? `Running: ${selfTest.progress}` : 'Run self-test'}
        </button>
        {selfTest.error && <p className="error" data-testid="selftest-error">{selfTest.error}</p>}
        {selfTest.result && (
          <div data-testid="selftest-result" data-passed={selfTest.result.passed}>
            <p className={selfTest.result.passed ? 'ok' : 'error'}>
              {selfTest.result.passed ? 'PASSED' : 'FAILED'}: best {selfTest.result.best.variant},{' '}
              <span data-testid="selftest-gflops">{selfTest.result.best.gflops.toFixed(2)}</span> GFLOPS, max difference{' '}
              <span data-testid="selftest-maxdiff">{selfTest.result.best.maxDiff.toExponential(2)}</span>{' '}
              (tolerance {selfTest.result.tolerance.toExponential(1)})
            </p>
            <table className="kv"><thead><tr><th>variant</th><th>max diff</th><th>ms/run</th><th>GFLOPS</th></tr></thead><tbody>
              {selfTest.result.variants.map((v) => (
                <tr key={v.variant}><td>{v.variant}</td><td>{v.maxDiff.toExponential(2)}</td><td>{v.msPerRun.toFixed(2)}</td><td>{v.gflops.toFixed(2)}</td></tr>
              ))}
            </tbody></table>
          </div>
        )}
      </div>
    </section>
  );
}
