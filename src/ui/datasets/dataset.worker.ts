// A small dedicated worker that reads and validates a dropped JSONL file off the main thread
// (a 5 MB task file takes longer than a frame). Spawned by src/store/datasets-slice.ts;
// exercised by tests/e2e/studio-datasets.spec.ts.
import { analyseDataset } from './analyse';
import type { DatasetReply, DatasetRequest } from './protocol';

const scope = self as unknown as { onmessage: ((e: MessageEvent<DatasetRequest>) => void) | null; postMessage(m: DatasetReply): void };

scope.onmessage = (e) => {
  const req = e.data;
  void req.file.text().then(
    (text) => scope.postMessage({ kind: 'result', id: req.id, report: analyseDataset(text, req.fileName, req.file.size) }),
    (err: unknown) => scope.postMessage({ kind: 'error', id: req.id, message: `${req.fileName}: could not be read (${(err as Error).message})` }),
  ).catch((err: unknown) => scope.postMessage({ kind: 'error', id: req.id, message: `${req.fileName}: ${(err as Error).message}` }));
};
