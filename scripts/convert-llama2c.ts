// Convert a llama2.c legacy checkpoint (+ its tokenizer .bin) into a standard Hugging Face folder:
// config.json (LlamaForCausalLM), model.safetensors (f32, q/k rows permuted to HF RoPE),
// tokenizer.json, tokenizer_config.json, generation_config.json. The folder then loads here and
// in transformers. Run: npx tsx scripts/convert-llama2c.ts model.bin out/ [--tokenizer tok.bin]
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { convertLlama2c } from '../src/model/io/llama2c-convert';
import { loadModelFiles } from '../src/model/io/loader';
import { NodeDirSource } from '../src/model/io/node-source';

const USAGE = 'usage: npx tsx scripts/convert-llama2c.ts <model.bin> <out-folder> [--tokenizer <tok.bin>]';

async function main(argv: string[]): Promise<number> {
  const ti = argv.indexOf('--tokenizer');
  const tokArg = ti >= 0 ? argv[ti + 1] : undefined;
  const pos = ti < 0 ? argv : argv.filter((_, i) => i !== ti && i !== ti + 1);
  if (pos.length !== 2 || argv.includes('--help') || (ti >= 0 && !tokArg)) {
    console.error(USAGE);
    return 2;
  }
  const [modelPath, outDir] = pos;
  let tokPath = tokArg;
  if (!tokPath) {
    const dir = dirname(modelPath);
    const bins = (await readdir(dir)).filter((n) => n.endsWith('.bin') && n !== basename(modelPath));
    const pick = bins.find((n) => n === 'tokenizer.bin') ?? bins.find((n) => n.startsWith('tok'));
    if (!pick) {
      console.error(`no tokenizer .bin beside ${modelPath}; pass --tokenizer <tok.bin>`);
      return 2;
    }
    tokPath = join(dir, pick);
  }
  const files = convertLlama2c(new Uint8Array(await readFile(modelPath)), new Uint8Array(await readFile(tokPath)), {
    model: basename(modelPath),
    tokenizer: basename(tokPath),
  });
  await mkdir(outDir, { recursive: true });
  for (const [name, bytes] of files) await writeFile(join(outDir, name), bytes);
  // Read the folder back through the loader: the same validation every consumer applies.
  const m = await loadModelFiles(new NodeDirSource(outDir));
  const c = m.config;
  console.log(`wrote ${[...files.keys()].join(', ')} to ${outDir}`);
  console.log(`LlamaForCausalLM C=${c.hiddenSize} I=${c.intermediateSize} L=${c.numLayers} NH=${c.numHeads} KVH=${c.numKvHeads} V=${c.vocabSize} tied=${c.tieWordEmbeddings}; tokenizer ${m.tokenizer.vocabSize} tokens from ${basename(tokPath)}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
