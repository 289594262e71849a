// The studio shell: header with the GPU status, left navigation of every panel (built or coming),
// and the panel shown. The panel is also in the address (#datasets), so links and reloads keep it.
// Rendered by src/main.tsx; exercised by tests/e2e/studio-layout.spec.ts and gpu.spec.ts.
import { useEffect } from 'react';
import { useStudio } from '../store/store';
import { PANELS, type PanelId } from '../store/ui-slice';
import { ComingPanel } from './panels/ComingPanel';
import { ConfigPanel } from './panels/ConfigPanel';
import { DatasetsPanel } from './panels/DatasetsPanel';
import { EvalPanel } from './panels/EvalPanel';
import { ExportPanel } from './panels/ExportPanel';
import { GpuPanel } from './panels/GpuPanel';
import { ModelsPanel } from './panels/ModelsPanel';
import { PlaygroundPanel } from './panels/PlaygroundPanel';
import { RunPanel } from './panels/RunPanel';
import { RunsPanel } from './panels/RunsPanel';
import { ToolsPanel } from './panels/ToolsPanel';
import { GpuBadge } from './GpuBadge';
import { ChartWarmup } from './run/ChartWarmup';

function panelFromHash(): PanelId | null {
  const id = window.location.hash.replace(/^#\/?/, '');
  return PANELS.find((p) => p.id === id)?.id ?? null;
}

function PanelView({ id }: { id: PanelId }) {
  switch (id) {
    case 'gpu': return <GpuPanel />;
    case 'datasets': return <DatasetsPanel />;
    case 'config': return <ConfigPanel />;
    case 'tools': return <ToolsPanel />;
    case 'models': return <ModelsPanel />;
    case 'export': return <ExportPanel />;
    case 'runs': return <RunsPanel />;
    case 'playground': return <PlaygroundPanel />;
    case 'eval': return <EvalPanel />;
    case 'run': return <RunPanel />;
    default: return <ComingPanel info={PANELS.find((p) => p.id === id)!} />;
  }
}

export function App() {
  const panel = useStudio((s) => s.panel);
  const setPanel = useStudio((s) => s.setPanel);
  const openGpu = useStudio((s) => s.openGpu);
  useEffect(() => {
    void openGpu();
  }, [openGpu]);
  useEffect(() => {
    const follow = () => {
      const id = panelFromHash();
      if (id) setPanel(id);
    };
    follow();
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, [setPanel]);

  return (
    <div className="shell">
      <header className="header">
        <span className="brand">RL Studio</span>
        <span className="tagline">agentic RL for LLMs, on your GPU, in the browser</span>
        <GpuBadge />
      </header>
      <nav className="nav" aria-label="Panels">
        <ul>
          {PANELS.map((p) => (
            <li key={p.id}>
              <a href={`#${p.id}`} className={p.id === panel ? 'nav-item active' : 'nav-item'} title={p.job}
                aria-current={p.id === panel ? 'page' : undefined} data-testid={`nav-${p.id}`}>
                {p.title}{!p.built && <span className="soon"> (coming)</span>}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main className="main">
        <PanelView id={panel} />
      </main>
      <ChartWarmup />
    </div>
  );
}
