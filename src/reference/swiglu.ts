// CPU reference for the SwiGLU gate of the Llama/Qwen2 MLP: silu(gate) * up, elementwise.
// Plain loop, the twin of the WGSL swiglu kernel. Exercised by tests/unit/reference-ops.test.ts.

// gate [N, I], up [N, I] -> out [N, I]
/** out = gate * sigmoid(gate) * up. */
export function swiglu_forward(gate: Float32Array, up: Float32Array): Float32Array {
  if (gate.length !== up.length) throw new Error(`swiglu_forward: gate has ${gate.length} values, up has ${up.length}; expected equal [N, I]`);
  const out = new Float32Array(gate.length);
  for (let i = 0; i < gate.length; i++) {
    const g = gate[i];
    out[i] = (g / (1 + Math.exp(-g))) * up[i];
  }
  return out;
}
