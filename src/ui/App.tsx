// The studio shell: header with the GPU status, left navigation of panels, main area.
// Rendered by src/main.tsx; exercised by tests/e2e/gpu.spec.ts.
import { useEffect } from 'react';
import { useStudio } from '../store/store';
import type { PanelId } from '../store/ui-slice';
import { GpuPanel } from './panels/GpuPanel';
import { GpuBadge } from './GpuBadge';

const PANELS: { id: PanelId; title: string; hint: string }[] = [
  { id: 'gpu', title: 'GPU', hint: 'Adapter, limits and a kernel self-test' },
];

export function App() {
  const panel = useStudio((s) => s.panel);
  const setPanel = useStudio((s) => s.setPanel);
  const openGpu = useStudio((s) => s.openGpu);
  useEffect(() => {
    void openGpu();
  }, [openGpu]);

  return (
    <div className="shell">
      <header className="header">
        <span className="brand">RL Studio</span>
        <span className="tagline">agentic RL for LLMs, on your GPU, in the browser</span>
        <GpuBadge />
      </header>
      <nav className="nav" aria-label="Panels">
        {PANELS.map((p) => (
          <button key={p.id} className={p.id === panel ? 'nav-item active' : 'nav-item'} title={p.hint}
            aria-current={p.id === panel ? 'page' : undefined} onClick={() => setPanel(p.id)}>
            {p.title}
          </button>
        ))}
      </nav>
      <main className="main">{panel === 'gpu' && <GpuPanel />}</main>
    </div>
  );
}
