// CPU reference for the SwiGLU gate of the Llama/Qwen2 MLP: silu(gate) * up, elementwise.
// Plain loop, the twin of the WGSL swiglu kernel, with its backward. Exercised by
// tests/unit/reference/reference-ops.test.ts and (backward, finite differences) reference-bwd-ops.test.ts.

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

// dout [N, I], gate [N, I], up [N, I] -> dgate [N, I], dup [N, I]
// With s = sigmoid(g): dgate = dout * up * s (1 + g (1 - s)), dup = dout * g * s.
// Write contract: both are new arrays (=).
/** Backward of swiglu_forward. */
export function swiglu_backward(dout: Float32Array, gate: Float32Array, up: Float32Array): { dgate: Float32Array; dup: Float32Array } {
  if (gate.length !== up.length || dout.length !== gate.length) {
    throw new Error(`swiglu_backward: dout, gate, up have ${dout.length}, ${gate.length}, ${up.length} values; expected equal [N, I]`);
  }
  const dgate = new Float32Array(gate.length);
  const dup = new Float32Array(gate.length);
  for (let i = 0; i < gate.length; i++) {
    const g = gate[i];
    const s = 1 / (1 + Math.exp(-g));
    dgate[i] = dout[i] * up[i] * s * (1 + g * (1 - s));
    dup[i] = dout[i] * g * s;
  }
  return { dgate, dup };
}
