// Messages between the Datasets panel's store slice and dataset.worker.ts: one request kind and
// exactly one reply (result or error) per request id.
import type { DatasetReport } from './analyse';

/** A dropped or chosen file is posted as a Blob; a shipped one as its URL (the worker fetches it, so
 * the page never holds its bytes). */
export type DatasetSource = { blob: Blob } | { url: string };

export type DatasetRequest = { kind: 'analyse'; id: number; source: DatasetSource; fileName: string };

export type DatasetReply =
  | { kind: 'result'; id: number; report: DatasetReport }
  | { kind: 'error'; id: number; message: string };
