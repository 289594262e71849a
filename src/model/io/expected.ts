// The tensor names and shapes a ModelConfig implies (HF Llama/Qwen2 naming), and the check of a
// checkpoint against them: missing, extra and wrong-shape tensors are reported by name.
// Used by loader.ts; tested by tests/unit/model/io-loader.test.ts.
import { hfNames, PROJECTIONS, projShape, type ModelConfig } from '../types';
import { ModelLoadError } from './errors';
import { checkDtype, type TensorInfo } from './safetensors';

/** name -> shape of every weight the engine reads, in a natural load order. */
export function expectedTensors(cfg: ModelConfig): Map<string, number[]> {
  const C = cfg.hiddenSize, V = cfg.vocabSize;
  const m = new Map<string, number[]>([[hfNames.embed, [V, C]]]);
  for (let i = 0; i < cfg.numLayers; i++) {
    m.set(hfNames.inputNorm(i), [C]);
    for (const p of PROJECTIONS) {
      m.set(hfNames.proj(i, p), projShape(cfg, p));
      if (cfg.attentionBias && (p === 'q' || p === 'k' || p === 'v')) m.set(hfNames.bias(i, p), [projShape(cfg, p)[0]]);
    }
    m.set(hfNames.postAttnNorm(i), [C]);
  }
  m.set(hfNames.finalNorm, [C]);
  if (!cfg.tieWordEmbeddings) m.set(hfNames.lmHead, [V, C]);
  return m;
}

/** Tensors some exporters add that we can safely skip. */
function harmless(name: string, cfg: ModelConfig): boolean {
  return name.endsWith('.rotary_emb.inv_freq') || (cfg.tieWordEmbeddings && name === hfNames.lmHead);
}

const listNames = (names: string[]) => names.slice(0, 8).map((n) => `"${n}"`).join(', ') + (names.length > 8 ? ` and ${names.length - 8} more` : '');

/**
 * Check a checkpoint against the config. Returns the harmless extras it will ignore; throws on
 * missing tensors, unexpected extras, wrong shapes or unsupported dtypes.
 */
export function checkTensors(cfg: ModelConfig, found: Map<string, TensorInfo>, where: string): string[] {
  const want = expectedTensors(cfg);
  const missing = [...want.keys()].filter((n) => !found.has(n));
  if (missing.length) {
    const hint = missing.includes(hfNames.lmHead) ? ' (config.json says tie_word_embeddings is false, so lm_head.weight is needed)' : '';
    throw new ModelLoadError(where, `missing ${missing.length} tensor(s) that config.json implies: ${listNames(missing)}${hint}; the weights do not match config.json`, missing[0]);
  }
  const extra = [...found.keys()].filter((n) => !want.has(n));
  const unexpected = extra.filter((n) => !harmless(n, cfg));
  if (unexpected.length) {
    throw new ModelLoadError(where, `has ${unexpected.length} tensor(s) this ${cfg.architecture} config does not use: ${listNames(unexpected)}; the weights are for a different architecture or config.json is wrong`, unexpected[0]);
  }
  for (const [name, shape] of want) {
    const t = found.get(name)!;
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new ModelLoadError(t.file, `tensor "${name}" has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}] from config.json; the weights and config.json belong to different models: use the config.json that came with these weights`, name);
    }
    checkDtype(t);
  }
  return extra;
}
