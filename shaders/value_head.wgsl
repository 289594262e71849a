// PPO's value head: one linear unit on the last hidden state, and its backward.
//   value_fwd: v[n] = dot(h[n, :], w) + b                 (one workgroup per row, reduced in
//                                                          workgroup memory)
//   value_dh:  dh[n, c] (=|+=) dv[n] w[c]                 (one invocation per 4 channels of a row)
//   value_dw:  dw[c] += sum_n dv[n] h[n, c]; db += sum_n dv[n]   (one invocation per 4 channels;
//                                                          invocation 0 also sums db)
// N = rows (tokens), C = channels (a multiple of 4).
// CPU twin: src/reference/value_head.ts. Launcher: src/gpu/kernels/value-head.ts.
// Tested by tests/unit/reference/value-head.test.ts.
// Write contract: v is overwritten (=); dh is overwritten (=) or accumulated (+=, flags bit 0:
// it joins the LM head's gradient on the same hidden state); dw and db accumulate (+=) in a fixed
// row order (deterministic).

struct Params {
  N: u32,
  C: u32,
  flags: u32,   // bit 0: dh += ; else dh =
  _pad: u32,
}

override WG: u32 = 64;   // a power of two
var<workgroup> partial: array<f32, WG>;

// ---- forward -------------------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> fh: array<vec4<f32>>;        // [N, C/4] hidden state
@group(0) @binding(1) var<storage, read> fw: array<vec4<f32>>;        // [C/4] head weight
@group(0) @binding(2) var<storage, read> fb: array<f32>;              // [1] head bias
@group(0) @binding(3) var<storage, read_write> fv: array<f32>;        // [N] values
@group(0) @binding(4) var<uniform> pf: Params;

@compute @workgroup_size(WG)
fn value_fwd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x + wid.y * 65535u;   // rows beyond 65535 use a second grid dimension
  let C4 = pf.C / 4u;
  var acc = 0.0;
  if (n < pf.N) {
    for (var c = li; c < C4; c += WG) { acc += dot(fh[n * C4 + c], fw[c]); }
  }
  partial[li] = acc;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (li < s) { partial[li] += partial[li + s]; }
    workgroupBarrier();
  }
  if (n < pf.N && li == 0u) { fv[n] = partial[0] + fb[0]; }
}

// ---- backward: dh ------------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> hdv: array<f32>;              // [N] d loss / d v
@group(0) @binding(1) var<storage, read> hw: array<vec4<f32>>;         // [C/4]
@group(0) @binding(2) var<storage, read_write> hdh: array<vec4<f32>>;  // [N, C/4]
@group(0) @binding(3) var<uniform> ph: Params;

@compute @workgroup_size(WG)
fn value_dh(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  let C4 = ph.C / 4u;
  if (i >= ph.N * C4) { return; }
  let v = hdv[i / C4] * hw[i % C4];
  if ((ph.flags & 1u) != 0u) { hdh[i] += v; } else { hdh[i] = v; }
}

// ---- backward: dw, db --------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> wdv: array<f32>;              // [N]
@group(0) @binding(1) var<storage, read> wh: array<vec4<f32>>;         // [N, C/4]
@group(0) @binding(2) var<storage, read_write> wdw: array<vec4<f32>>;  // [C/4]
@group(0) @binding(3) var<storage, read_write> wdb: array<f32>;        // [1]
@group(0) @binding(4) var<uniform> pw: Params;

@compute @workgroup_size(WG)
fn value_dw(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = gid.x;
  let C4 = pw.C / 4u;
  if (c == 0u) {
    var s = 0.0;
    for (var n = 0u; n < pw.N; n++) { s += wdv[n]; }
    wdb[0] += s;
  }
  if (c >= C4) { return; }
  var acc = vec4<f32>();
  for (var n = 0u; n < pw.N; n++) { acc += wdv[n] * wh[n * C4 + c]; }
  wdw[c] += acc;
}
