// Messages between the Datasets panel's store slice and dataset.worker.ts: one request kind and
// exactly one reply (result or error) per request id.
import type { DatasetReport } from './analyse';

export type DatasetRequest = { kind: 'analyse'; id: number; file: Blob; fileName: string };

export type DatasetReply =
  | { kind: 'result'; id: number; report: DatasetReport }
  | { kind: 'error'; id: number; message: string };
