// parseModelConfig: real-world config.json shapes (Qwen2.5-0.5B, a Llama, MiniMind) become the
// right ModelConfig, and unsupported ones are rejected with the file, the field and what to do.
import { describe, expect, it } from 'vitest';
import { modelConfigToJson, parseModelConfig } from '../../../src/model/hf-config';
import { ModelLoadError } from '../../../src/model/io/errors';

// Field values of Qwen/Qwen2.5-0.5B-Instruct's config.json (anchors.md section 4 shapes).
const qwen = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_act: 'silu', hidden_size: 896,
  intermediate_size: 4864, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2,
  max_position_embeddings: 32768, rope_theta: 1000000.0, rms_norm_eps: 1e-6, rope_scaling: null,
  tie_word_embeddings: true, use_sliding_window: false, vocab_size: 151936, bos_token_id: 151643,
  eos_token_id: 151645, torch_dtype: 'bfloat16',
};

const llama = {
  architectures: ['LlamaForCausalLM'], hidden_size: 2048, intermediate_size: 5632, num_hidden_layers: 22,
  num_attention_heads: 32, num_key_value_heads: 4, rms_norm_eps: 1e-5, vocab_size: 32000,
  max_position_embeddings: 2048, bos_token_id: 1, eos_token_id: 2, rope_scaling: null,
};

describe('parseModelConfig', () => {
  it('reads Qwen2.5-0.5B', () => {
    const c = parseModelConfig(qwen);
    expect(c).toEqual({
      architecture: 'qwen2', vocabSize: 151936, hiddenSize: 896, intermediateSize: 4864, numLayers: 24,
      numHeads: 14, numKvHeads: 2, headDim: 64, ropeTheta: 1e6, rmsNormEps: 1e-6, maxPositions: 32768,
      tieWordEmbeddings: true, attentionBias: true, bosTokenId: 151643, eosTokenIds: [151645],
    });
  });

  it('reads a Llama with defaults, explicit head_dim and eos lists', () => {
    const c = parseModelConfig(llama);
    expect(c).toMatchObject({ architecture: 'llama', headDim: 64, ropeTheta: 10000, tieWordEmbeddings: false, attentionBias: false, eosTokenIds: [2] });
    const d = parseModelConfig({ ...llama, head_dim: 128, eos_token_id: [2, 7], attention_bias: false, tie_word_embeddings: true });
    expect(d).toMatchObject({ headDim: 128, eosTokenIds: [2, 7], tieWordEmbeddings: true });
  });

  it('reads MiniMind (model_type minimind, intermediate_size derived, tied)', () => {
    const c = parseModelConfig({ architectures: ['MiniMindForCausalLM'], model_type: 'minimind', hidden_size: 512, num_hidden_layers: 8, num_attention_heads: 8, num_key_value_heads: 2, vocab_size: 6400, intermediate_size: null, flash_attn: true });
    expect(c).toMatchObject({ architecture: 'llama', intermediateSize: 1408, headDim: 64, ropeTheta: 1e6, rmsNormEps: 1e-5, tieWordEmbeddings: true, maxPositions: 32768 });
  });

  it('round-trips through modelConfigToJson', () => {
    for (const j of [qwen, llama]) {
      const c = parseModelConfig(j);
      expect(parseModelConfig(modelConfigToJson(c))).toEqual(c);
    }
  });

  it('rejects unsupported configs naming file, field and remedy', () => {
    const bad: [unknown, RegExp][] = [
      [{ ...llama, architectures: ['GPT2LMHeadModel'] }, /^config\.json: "architectures" is \["GPT2LMHeadModel"\]; supported: LlamaForCausalLM, Qwen2ForCausalLM, MiniMindForCausalLM/],
      [{ ...llama, architectures: undefined, model_type: 'gpt_neox' }, /"model_type" is "gpt_neox"/],
      [{ ...llama, rope_scaling: { rope_type: 'llama3', factor: 32 } }, /"rope_scaling" is \{"rope_type":"llama3","factor":32\}; only plain RoPE/],
      [{ ...llama, hidden_act: 'gelu' }, /"hidden_act" is "gelu"/],
      [{ ...llama, num_key_value_heads: 5 }, /"num_key_value_heads" is 5, which does not divide num_attention_heads 32/],
      [{ ...llama, vocab_size: undefined }, /"vocab_size" is missing/],
      [{ ...llama, hidden_size: 2048.5 }, /"hidden_size" is 2048.5; expected a positive integer/],
      [{ ...llama, attention_bias: true }, /"attention_bias" is true for a Llama model/],
      [{ ...qwen, use_sliding_window: true }, /"use_sliding_window" is true/],
      [{ ...llama, eos_token_id: 'x' }, /"eos_token_id" is "x"/],
      [[1, 2], /expected a JSON object/],
    ];
    for (const [json, re] of bad) {
      let err: unknown;
      try {
        parseModelConfig(json, 'config.json');
      } catch (e) {
        err = e;
      }
      expect(err, String(re)).toBeInstanceOf(ModelLoadError);
      expect(String((err as Error).message)).toMatch(re);
    }
  });
});
