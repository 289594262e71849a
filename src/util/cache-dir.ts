// The folder of what the product keeps between runs on this machine (Node): the kernel tuning
// file (src/gpu/node-gpu.ts) and the Pyodide snapshot (src/tools/python/node-snapshot-file.ts).
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CACHE_DIR = join(homedir(), '.cache', 'rl-studio');
