// f32 matmul with the weight transposed, the shape of every linear layer:
//   Y[M, N] = X[M, K] . W[N, K]^T        (W row-major [out, in], as in Hugging Face checkpoints)
// M = rows (B*T tokens), K = in features, N = out features. K must be a multiple of 4.
// CPU twin: src/reference/matmul.ts (matmul_forward). Launcher: src/gpu/kernels/matmul.ts.
// Two entry points, chosen per adapter by measuring:
//   matmul_rb    register-blocked, 8 x 8 outputs per invocation, no workgroup memory
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
// 8 x 8 outputs per invocation held in named vec4 registers (a<row>l = columns 0-3, a<row>h =
// columns 4-7). Dynamic indexing of private arrays spills to memory on SwiftShader and runs
// 10x slower, so this entry point is unrolled by hand. Best with a 4 x 4 workgroup there.
const TM: u32 = 8;   // rows of Y per invocation (matmul_rb)
const TN: u32 = 8;   // columns of Y per invocation (matmul_rb)

fn dot4(r: vec4<f32>, b0: vec4<f32>, b1: vec4<f32>, b2: vec4<f32>, b3: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(dot(r, b0), dot(r, b1), dot(r, b2), dot(r, b3));
}

fn store_row(r: u32, col0: u32, lo: vec4<f32>, hi: vec4<f32>) {
  if (r >= p.M) { return; }
  for (var j = 0u; j < 4u; j++) {
    if (col0 + j < p.N) { Y[r * p.N + col0 + j] = lo[j]; }
    if (col0 + 4u + j < p.N) { Y[r * p.N + col0 + 4u + j] = hi[j]; }
  }
}

@compute @workgroup_size(WG_X, WG_Y)
fn matmul_rb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * TM;
  let col0 = gid.x * TN;
  if (row0 >= p.M || col0 >= p.N) { return; }
  let K4 = p.K / 4u;
  let lastM = p.M - 1u;
  let lastN = p.N - 1u;
  // Row offsets, clamped so edge invocations read valid memory (their extra outputs are dropped).
  let x0 = min(row0, lastM) * K4;      let x1 = min(row0 + 1u, lastM) * K4;
  let x2 = min(row0 + 2u, lastM) * K4; let x3 = min(row0 + 3u, lastM) * K4;
  let x4 = min(row0 + 4u, lastM) * K4; let x5 = min(row0 + 5u, lastM) * K4;
  let x6 = min(row0 + 6u, lastM) * K4; let x7 = min(row0 + 7u, lastM) * K4;
  let w0 = min(col0, lastN) * K4;      let w1 = min(col0 + 1u, lastN) * K4;
  let w2 = min(col0 + 2u, lastN) * K4; let w3 = min(col0 + 3u, lastN) * K4;
  let w4 = min(col0 + 4u, lastN) * K4; let w5 = min(col0 + 5u, lastN) * K4;
  let w6 = min(col0 + 6u, lastN) * K4; let w7 = min(col0 + 7u, lastN) * K4;
  var a0l = vec4<f32>(); var a0h = vec4<f32>(); var a1l = vec4<f32>(); var a1h = vec4<f32>();
  var a2l = vec4<f32>(); var a2h = vec4<f32>(); var a3l = vec4<f32>(); var a3h = vec4<f32>();
  var a4l = vec4<f32>(); var a4h = vec4<f32>(); var a5l = vec4<f32>(); var a5h = vec4<f32>();
  var a6l = vec4<f32>(); var a6h = vec4<f32>(); var a7l = vec4<f32>(); var a7h = vec4<f32>();
  for (var k = 0u; k < K4; k++) {
    let b0 = W[w0 + k]; let b1 = W[w1 + k]; let b2 = W[w2 + k]; let b3 = W[w3 + k];
    let b4 = W[w4 + k]; let b5 = W[w5 + k]; let b6 = W[w6 + k]; let b7 = W[w7 + k];
    let r0 = X[x0 + k]; a0l += dot4(r0, b0, b1, b2, b3); a0h += dot4(r0, b4, b5, b6, b7);
    let r1 = X[x1 + k]; a1l += dot4(r1, b0, b1, b2, b3); a1h += dot4(r1, b4, b5, b6, b7);
    let r2 = X[x2 + k]; a2l += dot4(r2, b0, b1, b2, b3); a2h += dot4(r2, b4, b5, b6, b7);
    let r3 = X[x3 + k]; a3l += dot4(r3, b0, b1, b2, b3); a3h += dot4(r3, b4, b5, b6, b7);
    let r4 = X[x4 + k]; a4l += dot4(r4, b0, b1, b2, b3); a4h += dot4(r4, b4, b5, b6, b7);
    let r5 = X[x5 + k]; a5l += dot4(r5, b0, b1, b2, b3); a5h += dot4(r5, b4, b5, b6, b7);
    let r6 = X[x6 + k]; a6l += dot4(r6, b0, b1, b2, b3); a6h += dot4(r6, b4, b5, b6, b7);
    let r7 = X[x7 + k]; a7l += dot4(r7, b0, b1, b2, b3); a7h += dot4(r7, b4, b5, b6, b7);
  }
  store_row(row0, col0, a0l, a0h);      store_row(row0 + 1u, col0, a1l, a1h);
  store_row(row0 + 2u, col0, a2l, a2h); store_row(row0 + 3u, col0, a3l, a3h);
  store_row(row0 + 4u, col0, a4l, a4h); store_row(row0 + 5u, col0, a5l, a5h);
  store_row(row0 + 6u, col0, a6l, a6h); store_row(row0 + 7u, col0, a7l, a7h);
}

// ---- workgroup-tiled ----------------------------------------------------------------------
// Each workgroup computes a (WG_Y*TTM) x (WG_X*TTN) tile of Y, stepping K by TK4*4 through
// workgroup memory. Tiles hold vec4 along K.
override TK4: u32 = 4;   // K tile in vec4s (16 floats)
const TTM: u32 = 4;      // rows of Y per invocation (matmul_tiled)
const TTN: u32 = 4;      // columns of Y per invocation (matmul_tiled)
var<workgroup> xs: array<vec4<f32>, WG_Y * TTM * TK4>;
var<workgroup> ws: array<vec4<f32>, WG_X * TTN * TK4>;

@compute @workgroup_size(WG_X, WG_Y)
fn matmul_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(local_invocation_index) li: u32) {
  let tileM = WG_Y * TTM;
  let tileN = WG_X * TTN;
  let rowBase = wid.y * tileM;
  let colBase = wid.x * tileN;
  let K4 = p.K / 4u;
  let threads = WG_X * WG_Y;
  var acc: array<array<f32, TTN>, TTM>;
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
      var w: array<vec4<f32>, TTN>;
      for (var j = 0u; j < TTN; j++) { w[j] = ws[(lid.x * TTN + j) * TK4 + kk]; }
      for (var i = 0u; i < TTM; i++) {
        let x = xs[(lid.y * TTM + i) * TK4 + kk];
        for (var j = 0u; j < TTN; j++) { acc[i][j] += dot(x, w[j]); }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < TTM; i++) {
    let r = rowBase + lid.y * TTM + i;
    if (r >= p.M) { break; }
    for (var j = 0u; j < TTN; j++) {
      let c = colBase + lid.x * TTN + j;
      if (c < p.N) { Y[r * p.N + c] = acc[i][j]; }
    }
  }
}
