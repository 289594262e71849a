// The layer table of src/ and the ESLint rule `layers/import-order` that enforces it: a file may
// import its own folder and the folders of LOWER layers only. eslint.config.js turns the rule on
// for src/; docs/architecture.md draws the same table and tests/unit/tooling/lint-layers.test.ts
// proves an upward import fails `npm run lint` while a downward one passes.
import path from 'node:path';

/**
 * Layers, lowest first: each entry lists the top-level folders of src/ on that layer. Folders on
 * one layer do not import each other; the last layer (the app) is the top, nothing restricts it.
 */
export const LAYERS = [
  { name: 'util', folders: ['util'], role: 'shared helpers with no project imports (argument parser, seeded RNG)' },
  { name: 'vocabulary', folders: ['metrics', 'data'], role: 'metric names; dataset formats, task schemas and sampling' },
  { name: 'reference', folders: ['reference'], role: 'CPU twins of every kernel and loss (plain loops, float64)' },
  { name: 'gpu', folders: ['gpu'], role: 'WebGPU runtime, pools, pipelines and kernel launchers' },
  { name: 'model', folders: ['model'], role: 'model description, weights IO, tokenizer, GPU forward and generation' },
  { name: 'tools', folders: ['tools'], role: 'tool registry, Python sandbox, search' },
  { name: 'agents', folders: ['agents'], role: 'chat templates and the multi-turn tool-calling loop' },
  { name: 'train / envs', folders: ['train', 'envs'], role: 'SFT trainer and training step; RL environments and rewards' },
  { name: 'rl', folders: ['rl'], role: 'rollouts, advantages, GRPO / rejection / reward-weighted trainers' },
  { name: 'run / export', folders: ['run', 'export'], role: 'one run config and trainer settings; HF / PEFT / ONNX / TRL export' },
  { name: 'ort', folders: ['ort'], role: 'ONNX Runtime Web decoder checks of the exported graphs' },
  { name: 'server / workers', folders: ['server', 'workers'], role: 'OpenAI-compatible server, search proxy, Vite plugins; Web Worker entries' },
  { name: 'cli / harness', folders: ['cli', 'harness'], role: 'the command line; the browser test page (harness.html)' },
  { name: 'app', folders: ['store', 'ui', 'main.tsx'], role: 'the React studio and its zustand store' },
];

/**
 * Imports allowed although they point upward or sideways, each with the reason. `from` and `to`
 * are paths below src/ (a folder prefix or a file without extension).
 */
export const LAYER_EXCEPTIONS = [
  {
    from: 'reference/', to: 'model/types',
    why: 'model/types is the model\'s shape table (names, projections, LoRA keys) with no imports of its own; the CPU twins share it with the engine',
  },
];

const layerOf = new Map(LAYERS.flatMap((l, rank) => l.folders.map((f) => [f, rank])));
const TOP = LAYERS.length - 1;

/** The top-level folder below src/ of a path relative to the repo, or null outside src/. */
function folderOf(rel) {
  const parts = rel.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return null;
  return parts[1].replace(/\.(ts|tsx)$/, '.tsx') === 'main.tsx' ? 'main.tsx' : parts[1];
}

function isException(fromRel, toRel) {
  const f = fromRel.replace(/^src\//, '').replace(/\.(ts|tsx)$/, '');
  const t = toRel.replace(/^src\//, '').replace(/\.(ts|tsx)$/, '');
  const hit = (p, x) => (p.endsWith('/') ? x.startsWith(p) : x === p);
  return LAYER_EXCEPTIONS.some((e) => hit(e.from, f) && hit(e.to, t));
}

/**
 * Why `spec` imported from `file` breaks the layering, or null when it does not.
 * Exported for the rule and for tests; `root` is the repo folder.
 */
export function layerViolation(root, file, spec) {
  if (!spec.startsWith('.')) return null;
  const fromRel = path.relative(root, file).split(path.sep).join('/');
  const from = folderOf(fromRel);
  if (from === null) return null;
  const toRel = path.relative(root, path.resolve(path.dirname(file), spec.split('?')[0])).split(path.sep).join('/');
  const to = folderOf(toRel);
  if (to === null || to === from) return null;
  const rf = layerOf.get(from), rt = layerOf.get(to);
  if (rf === undefined) return `src/${from} is in no layer: add it to LAYERS in scripts/eslint-layers.mjs and docs/architecture.md.`;
  if (rt === undefined) return `src/${to} is in no layer: add it to LAYERS in scripts/eslint-layers.mjs and docs/architecture.md.`;
  if (rt < rf || rf === TOP || isException(fromRel, toRel)) return null;
  const where = rt === rf ? 'on the same layer as' : 'above';
  return `${fromRel} (layer ${LAYERS[rf].name}) imports ${toRel} (layer ${LAYERS[rt].name}), ${where} it. ` +
    'Layers import downward only (docs/architecture.md): move the shared piece down, or the caller up.';
}

/** The ESLint rule: static imports, re-exports and dynamic import() with a literal path. */
const importOrder = {
  meta: {
    type: 'problem',
    docs: { description: 'src/ folders import only their own folder and lower layers (docs/architecture.md)' },
    schema: [],
  },
  create(context) {
    const root = context.cwd;
    const file = context.filename;
    const check = (node) => {
      const src = node.source;
      if (!src || src.type !== 'Literal' || typeof src.value !== 'string') return;
      const message = layerViolation(root, file, src.value);
      if (message) context.report({ node: src, message });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export const layersPlugin = { rules: { 'import-order': importOrder } };
