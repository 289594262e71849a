// `npm run bench -- <name> [options]`: runs scripts/bench-<name>.ts. Benchmarks print figures;
// they never assert on time (these machines are shared and noisy).
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const names = readdirSync(dir).filter((f) => /^bench-.+\.ts$/.test(f)).map((f) => f.slice(6, -3)).sort();
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`Usage: npm run bench -- <name> [options]\nBenchmarks: ${names.join(', ')}`);
  process.exit(name ? 2 : 1);
}
const file = `${dir}bench-${name}.ts`;
if (!existsSync(file)) process.exit(2);
process.argv.splice(2, 1);
await import(file);
