// Token embedding gather: out[n, c] = wte[ids[n], c] for N token ids, from an f32 table or an
// NF4-quantized one (--quant-embeddings; packed by shaders/nf4.wgsl over the flat [V, C] table).
// V = vocab, C = channels, N = tokens. Ids >= V produce a row of zeros (the launcher cannot see
// ids on the GPU; the CPU twin throws instead).
// CPU twin: embedding_forward (src/reference/embedding.ts), with nf4_roundtrip(wte) for NF4.
// Launcher: src/gpu/kernels/embedding.ts. Tested by tests/unit/gpu/embedding-forward.test.ts.
// Write contract: out is overwritten (=). One invocation per 4 consecutive channels (C % 4 == 0).
// Backward (full mode, f32 table): embed_bwd, dwte[id, :] += sum of dout rows with that id, from a
// CSR the host builds (launcher src/gpu/kernels/embedding-backward.ts, twin embedding_backward,
// tests/unit/gpu/embedding-backward.test.ts). One workgroup per distinct id sums its rows in ascending
// order: deterministic, no atomics. dwte accumulates (+=).

struct Params {
  N: u32,
  C: u32,
  V: u32,
  _pad: u32,
}

override WG: u32 = 64;

// NF4 (code book), unpack_lo / unpack_hi, fill_pairs / pairs_lo / pairs_hi.
// #include nf4_codes

// ---- f32 table ------------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> ids: array<u32>;            // [N]
@group(0) @binding(1) var<storage, read> wte: array<vec4<f32>>;      // [V, C/4]
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>; // [N, C/4]
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn embed_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
  let C4 = p.C / 4u;
  let n = gid.y;
  let c4 = gid.x;
  if (n >= p.N || c4 >= C4) { return; }
  let id = ids[n];
  out[n * C4 + c4] = select(vec4<f32>(0.0), wte[min(id, p.V - 1u) * C4 + c4], id < p.V);
}

// ---- NF4 table --------------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> ids_q: array<u32>;            // [N]
@group(0) @binding(1) var<storage, read> codes: array<u32>;            // [V*C/8] packed codes
@group(0) @binding(2) var<storage, read> absmax: array<f32>;           // [V*C/64]
@group(0) @binding(3) var<storage, read_write> out_q: array<vec4<f32>>; // [N, C/4]
@group(0) @binding(4) var<uniform> pq: Params;

@compute @workgroup_size(WG)
fn embed_nf4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let C4 = pq.C / 4u;
  let n = gid.y;
  let c4 = gid.x;
  if (n >= pq.N || c4 >= C4) { return; }
  let id = ids_q[n];
  let e = min(id, pq.V - 1u) * pq.C + c4 * 4u;   // flat element index, a multiple of 4
  let q = codes[e / 8u] >> (4u * (e % 8u));
  let v = unpack_lo(q) * absmax[e / 64u];
  out_q[n * C4 + c4] = select(vec4<f32>(0.0), v, id < pq.V);
}

// ---- backward: scatter-add by id through a CSR ---------------------------------------------------
struct BwdParams {
  U: u32,   // distinct ids
  C: u32,
  N: u32,   // rows of dout
  V: u32,
}

@group(0) @binding(0) var<storage, read> csr: array<u32>;               // [U ids | U+1 starts | N rows]
@group(0) @binding(1) var<storage, read> bdout: array<vec4<f32>>;       // [N, C/4]
@group(0) @binding(2) var<storage, read_write> bdwte: array<vec4<f32>>; // [V, C/4]
@group(0) @binding(3) var<uniform> pb: BwdParams;

@compute @workgroup_size(WG)
fn embed_bwd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let u = wid.x + wid.y * 65535u;
  if (u >= pb.U) { return; }
  let C4 = pb.C / 4u;
  let id = csr[u];
  let r0 = csr[pb.U + u];
  let r1 = csr[pb.U + u + 1u];
  let rows = 2u * pb.U + 1u;
  for (var c = li; c < C4; c += WG) {
    var acc = vec4<f32>();
    for (var j = r0; j < r1; j++) { acc += bdout[csr[rows + j] * C4 + c]; }
    bdwte[id * C4 + c] += acc;
  }
}
