// The note shown for a panel not built yet: what it will do, and that nothing here is faked.
import type { PanelInfo } from '../../store/ui-slice';

export function ComingPanel({ info }: { info: PanelInfo }) {
  return (
    <section className="panel" data-testid={`${info.id}-panel`}>
      <h1>{info.title}</h1>
      <div className="card coming">
        <h2>Coming</h2>
        <p>{info.job}</p>
        <p className="small">This panel is not built yet, so it shows nothing rather than sample data. The command line
          (<code>npm run cli -- --help</code>) already does much of this; see the README.</p>
      </div>
    </section>
  );
}
