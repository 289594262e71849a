// f32 matmul with the weight transposed, the shape of every linear layer:
//   Y[M, N] = X[M, K] . W[N, K]^T        (W row-major [out, in], as in Hugging Face checkpoints)
// M = rows (B*T tokens), K = in features, N = out features. K must be a multiple of 4.
// CPU twin: src/reference/matmul.ts (matmul_forward). Launcher: src/gpu/kernels/matmul.ts.
// Two entry points, chosen per adapter by measuring:
//   matmul_rb    register-blocked, TM x TN outputs per invocation, no workgroup memory
//                (best on CPU adapters such as SwiftShader);
//   matmul_tiled tiles of X and W staged through workgroup memory (best on real GPUs).
// Write contract: Y is overwritten (=).

struct Params {
  M: u32,
  N: u32,
  K: u32,
  _pad: u32,
}

@group(0) @binding(0) var<storage, read> X: array<vec4<f32>>;        // [M, K/4]
@group(0) @binding(1) var<storage, read> W: array<vec4<f32>>;        // [N, K/4]
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;        // [M, N]
@group(0) @binding(3) var<uniform> p: Params;

// Workgroup shape (invocations), both variants.
override WG_X: u32 = 8;
override WG_Y: u32 = 8;

// ---- register-blocked ---------------------------------------------------------------------
const TM: u32 = 4;   // rows of Y per invocation
const TN: u32 = 4;   // columns of Y per invocation

@compute @workgroup_size(WG_X, WG_Y)
fn matmul_rb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * TM;
  let col0 = gid.x * TN;
  if (row0 >= p.M || col0 >= p.N) { return; }
  let K4 = p.K / 4u;
  var acc: array<array<f32, TN>, TM>;
  var xr: array<u32, TM>;
  var wr: array<u32, TN>;
  for (var i = 0u; i < TM; i++) { xr[i] = min(row0 + i, p.M - 1u) * K4; }
  for (var j = 0u; j < TN; j++) { wr[j] = min(col0 + j, p.N - 1u) * K4; }
  for (var k = 0u; k < K4; k++) {
    var w: array<vec4<f32>, TN>;
    for (var j = 0u; j < TN; j++) { w[j] = W[wr[j] + k]; }
    for (var i = 0u; i < TM; i++) {
      let x = X[xr[i] + k];
      for (var j = 0u; j < TN; j++) { acc[i][j] += dot(x, w[j]); }
    }
  }
  for (var i = 0u; i < TM; i++) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    for (var j = 0u; j < TN; j++) {
      let c = col0 + j;
      if (c < p.N) { Y[r * p.N + c] = acc[i][j]; }
    }
  }
}

// ---- workgroup-tiled ----------------------------------------------------------------------
// Each workgroup computes a (WG_Y*TM) x (WG_X*TN) tile of Y, stepping K by TK4*4 through
// workgroup memory. Tiles hold vec4 along K.
override TK4: u32 = 4;   // K tile in vec4s (16 floats)
var<workgroup> xs: array<vec4<f32>, WG_Y * TM * TK4>;
var<workgroup> ws: array<vec4<f32>, WG_X * TN * TK4>;

@compute @workgroup_size(WG_X, WG_Y)
fn matmul_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(local_invocation_index) li: u32) {
  let tileM = WG_Y * TM;
  let tileN = WG_X * TN;
  let rowBase = wid.y * tileM;
  let colBase = wid.x * tileN;
  let K4 = p.K / 4u;
  let threads = WG_X * WG_Y;
  var acc: array<array<f32, TN>, TM>;
  for (var k0 = 0u; k0 < K4; k0 += TK4) {
    for (var e = li; e < tileM * TK4; e += threads) {
      let r = e / TK4; let kk = k0 + e % TK4;
      let gr = rowBase + r;
      xs[e] = select(vec4<f32>(0.0), X[min(gr, p.M - 1u) * K4 + min(kk, K4 - 1u)], gr < p.M && kk < K4);
    }
    for (var e = li; e < tileN * TK4; e += threads) {
      let c = e / TK4; let kk = k0 + e % TK4;
      let gc = colBase + c;
      ws[e] = select(vec4<f32>(0.0), W[min(gc, p.N - 1u) * K4 + min(kk, K4 - 1u)], gc < p.N && kk < K4);
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TK4; kk++) {
      var w: array<vec4<f32>, TN>;
      for (var j = 0u; j < TN; j++) { w[j] = ws[(lid.x * TN + j) * TK4 + kk]; }
      for (var i = 0u; i < TM; i++) {
        let x = xs[(lid.y * TM + i) * TK4 + kk];
        for (var j = 0u; j < TN; j++) { acc[i][j] += dot(x, w[j]); }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < TM; i++) {
    let r = rowBase + lid.y * TM + i;
    if (r >= p.M) { break; }
    for (var j = 0u; j < TN; j++) {
      let c = colBase + lid.x * TN + j;
      if (c < p.N) { Y[r * p.N + c] = acc[i][j]; }
    }
  }
}
