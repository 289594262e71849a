// A small dedicated worker that reads and validates a dropped JSONL file off the main thread
// (a 5 MB task file takes longer than a frame). Spawned by src/store/datasets-slice.ts;
// exercised by tests/e2e/studio-datasets.spec.ts.
import { analyseDataset } from './analyse';
import type { DatasetReply, DatasetRequest, DatasetSource } from './protocol';

const scope = self as unknown as { onmessage: ((e: MessageEvent<DatasetRequest>) => void) | null; postMessage(m: DatasetReply): void };

async function readSource(source: DatasetSource, fileName: string): Promise<Blob> {
  if ('blob' in source) return source.blob;
  const res = await fetch(source.url);
  if (!res.ok) throw new Error(`the server answered ${res.status} for ${fileName}; restart the studio's server and reload`);
  return res.blob();
}

scope.onmessage = (e) => {
  const req = e.data;
  readSource(req.source, req.fileName).then(async (blob) => {
    const report = analyseDataset(await blob.text(), req.fileName, blob.size);
    scope.postMessage({ kind: 'result', id: req.id, report });
  },
    (err: unknown) => scope.postMessage({ kind: 'error', id: req.id, message: `${req.fileName}: could not be read (${(err as Error).message})` }),
  ).catch((err: unknown) => scope.postMessage({ kind: 'error', id: req.id, message: `${req.fileName}: ${(err as Error).message}` }));
};
