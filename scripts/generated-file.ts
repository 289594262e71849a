// The command line the shader generators share (scripts/gen-attention-hs64.ts,
// scripts/gen-attention-tiles.ts): write the generated text into its file, or with --check exit 1
// when the file (missing counts as different) holds something else.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/** `generate` maps the file's current text ('' when missing) to what it should hold. */
export function writeOrCheck(path: string, generate: (source: string) => string, generator: string): void {
  const name = relative(process.cwd(), path);
  let source = '';
  try { source = readFileSync(path, 'utf8'); } catch { /* missing: differs */ }
  const next = generate(source);
  if (process.argv.includes('--check')) {
    if (next !== source) {
      console.error(`${name} differs from ${generator}; run \`npx tsx ${generator}\``);
      process.exit(1);
    }
    console.log(`${name} is up to date`);
  } else {
    writeFileSync(path, next);
    console.log(`wrote ${name}`);
  }
}
