// The optimizer step on the GPU over a list of flat f32 parameter buffers (n elements each):
//   sumsq      partials[offset + g] = sum of grad^2 over chunk g (CHUNK elements) of one buffer
//   grad_norm  stats = [norm, coef]: norm = sqrt(sum of all partials), coef = min(1, maxNorm /
//              (norm + 1e-6)) (1 when maxNorm <= 0: no clipping), as clip_grad_norm
//   adamw      g = grad coef; p *= 1 - lr wd; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
//              p -= stepSize m / (sqrt(v) / bc2sqrt + eps); grad = 0 (flag), as adamw_step
//              (stepSize = lr / (1 - b1^t), bc2sqrt = sqrt(1 - b2^t), computed on the host)
//   fill       buf = 0 (moments at creation, gradients before accumulating)
// CPU twins: clip_grad_norm, adamw_step (src/reference/adamw.ts). Launcher:
// src/gpu/kernels/adamw.ts. Tested by tests/unit/gpu/adamw-kernel.test.ts.
// Write contract: partials and stats are overwritten; param, m, v updated in place; grad zeroed
// by adamw when asked. Reductions run in a fixed order (workgroup trees, then one workgroup over
// the partials in order): the norm is deterministic.

override WG: u32 = 256;   // a power of two
override PER: u32 = 8u;   // elements per invocation in sumsq (the launcher: 8 on GPUs, 64 on CPU
                          // adapters, whose sumsq / grad_norm run 4-wide: SwiftShader runs a
                          // workgroup's barriers as context switches, 8 + 1 of them at 256)
var<workgroup> red: array<f32, WG>;

fn reduce(li: u32, v: f32) -> f32 {
  red[li] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (li < s) { red[li] += red[li + s]; }
    workgroupBarrier();
  }
  return red[0];
}

// ---- sum of squares of one gradient buffer, one partial per chunk of WG * PER elements ---------
struct SumParams {
  n: u32,
  offset: u32,   // first partial of this buffer
  groupsX: u32,  // workgroups along x (group index = wid.x + wid.y * groupsX)
  _pad: u32,
}

@group(0) @binding(0) var<storage, read> sgrad: array<f32>;              // [n]
@group(0) @binding(1) var<storage, read_write> spartials: array<f32>;    // [total partials]
@group(0) @binding(2) var<uniform> ps: SumParams;

@compute @workgroup_size(WG)
fn sumsq(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let g = wid.x + wid.y * ps.groupsX;
  let base = g * WG * PER;
  var acc = 0.0;
  for (var j = 0u; j < PER; j++) {
    let i = base + j * WG + li;
    if (i < ps.n) { let v = sgrad[i]; acc += v * v; }
  }
  let total = reduce(li, acc);
  if (li == 0u && base < ps.n) { spartials[ps.offset + g] = total; }
}

// ---- global norm and clip coefficient -----------------------------------------------------------
struct NormParams {
  count: u32,     // partials
  maxNorm: f32,   // <= 0: no clipping
  _p0: u32,
  _p1: u32,
}

@group(0) @binding(0) var<storage, read> npartials: array<f32>;          // [count]
@group(0) @binding(1) var<storage, read_write> nstats: array<f32>;       // [2]: norm, coef
@group(0) @binding(2) var<uniform> pn: NormParams;

@compute @workgroup_size(WG)
fn grad_norm(@builtin(local_invocation_index) li: u32) {
  var acc = 0.0;
  for (var i = li; i < pn.count; i += WG) { acc += npartials[i]; }
  let norm = sqrt(reduce(li, acc));
  if (li == 0u) {
    nstats[0] = norm;
    nstats[1] = select(1.0, min(1.0, pn.maxNorm / (norm + 1e-6)), pn.maxNorm > 0.0);
  }
}

// ---- AdamW update of one parameter buffer -------------------------------------------------------
struct AdamParams {
  n: u32,
  rowStride: u32,   // elements per grid row (workgroups.x * WG)
  zeroGrad: u32,    // 1: grad = 0 after use
  _pad: u32,
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weightDecay: f32,
  stepSize: f32,    // lr / (1 - beta1^t)
  bc2sqrt: f32,     // sqrt(1 - beta2^t)
  _pad2: f32,
}

@group(0) @binding(0) var<storage, read> astats: array<f32>;             // [2]: norm, coef
@group(0) @binding(1) var<storage, read_write> agrad: array<f32>;        // [n] (zeroed on flag)
@group(0) @binding(2) var<storage, read_write> aparam: array<f32>;       // [n]
@group(0) @binding(3) var<storage, read_write> am: array<f32>;           // [n] first moment
@group(0) @binding(4) var<storage, read_write> av: array<f32>;           // [n] second moment
@group(0) @binding(5) var<uniform> pa: AdamParams;

@compute @workgroup_size(WG)
fn adamw(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * pa.rowStride + gid.x;
  if (i >= pa.n) { return; }
  let g = agrad[i] * astats[1];
  let p = aparam[i] * (1.0 - pa.lr * pa.weightDecay);
  let m = pa.beta1 * am[i] + (1.0 - pa.beta1) * g;
  let v = pa.beta2 * av[i] + (1.0 - pa.beta2) * g * g;
  am[i] = m;
  av[i] = v;
  aparam[i] = p - pa.stepSize * m / (sqrt(v) / pa.bc2sqrt + pa.eps);
  if (pa.zeroGrad != 0u) { agrad[i] = 0.0; }
}

// ---- zero fill ----------------------------------------------------------------------------------
struct FillParams {
  n: u32,
  rowStride: u32,
  _p0: u32,
  _p1: u32,
}

@group(0) @binding(0) var<storage, read_write> fbuf: array<f32>;         // [n]
@group(0) @binding(1) var<uniform> pf: FillParams;

@compute @workgroup_size(WG)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * pf.rowStride + gid.x;
  if (i < pf.n) { fbuf[i] = 0.0; }
}
