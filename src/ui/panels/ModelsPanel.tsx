// Models panel: the shipped models and the ones the user added (kept in the browser's OPFS) to pick
// from, a card to add a Hugging Face folder, and the selected model's facts (architecture,
// parameters, GPU bytes per quantization, context, vocabulary, chat template, adapters trained on it).
// Everything is read by the engine worker (inspect-model). Tested by tests/e2e/studio-models.spec.ts.
import { useEffect } from 'react';
import { useStudio } from '../../store/store';
import { AddModelCard } from '../models/AddModelCard';
import { ModelDetails } from '../models/ModelDetails';
import { ModelList } from '../models/ModelList';

export function ModelsPanel() {
  const models = useStudio((s) => s.models);
  const selected = useStudio((s) => s.selectedModel);
  const refreshModels = useStudio((s) => s.refreshModels);
  const scanRunFolders = useStudio((s) => s.scanRunFolders);
  const runsError = useStudio((s) => s.runFoldersError);
  const model = models.find((m) => m.name === selected);
  useEffect(() => {
    void refreshModels();
    void scanRunFolders();
  }, [refreshModels, scanRunFolders, models.length]);

  return (
    <section className="panel" data-testid="models-panel">
      <h1>Models</h1>
      <div className="cards">
        <ModelList />
        <AddModelCard />
      </div>
      {runsError && <p className="error" role="alert">{runsError}</p>}
      {model && <ModelDetails model={model} />}
    </section>
  );
}
