// Where ../shared (datasets, models) lives for scripts: SHARED_DIR, or the folder beside the repo.
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export function sharedDir(): string {
  return process.env.SHARED_DIR ?? resolve(fileURLToPath(new URL('.', import.meta.url)), '../../shared');
}
