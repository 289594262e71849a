// Shared prefixes in a training pass (TrainStep's prefix sharing): sequences of a pass that start
// with the same tokens (a GRPO group's prompt) run those rows once, in their root slot. The
// attention still sees every slot whole, so the KV cache's sharer slots get the root's keys and
// values (kv_share_copy, after RoPE wrote them), and in the backward the sharers' key / value
// gradients on those positions are added into the root's (kv_share_sum, before the RoPE
// backward reads the root's rows).
//   share[b] = (root slot, shared positions n): slot b's positions [0, n) are root's (n = 0: none).
//   A root may share a shorter prefix of its own (a group's first episode shares the system prompt
//   with an earlier group's): the owner of (b, t) follows the roots while t is shared; roots come
//   before their sharers, so the walk ends.
//   copy: K[b, h, t, :] = K[owner(b, t), h, t, :] and the same for V, where owner(b, t) != b
//   sum:  dK[a, h, t, :] += sum over b != a with owner(b, t) = a of dK[b, h, t, :]; dV too
// The copy reads only owned positions and writes only shared ones; the sum reads the sharers' and
// writes the owners', so no invocation reads what another writes.
// CPU twins: kvShareCopy / kvShareSum (src/reference/kv-share.ts). Launcher: src/gpu/kernels/kv-share.ts.
// Tested by tests/unit/gpu/kv-share.test.ts. One invocation per vec4 of a slot's first maxN
// positions: a few hundred KiB per layer and pass, far below the layer's linears.

struct Params {
  B: u32,       // slots
  KVH: u32,     // key / value heads
  Tmax: u32,    // positions per slot
  HS4: u32,     // vec4s per head row (HS / 4)
  maxN: u32,    // most shared positions of any slot (the grid covers [B, KVH, maxN, HS4])
  stride: u32,  // invocations per row of the dispatch grid (x groups * WG)
  _p0: u32,
  _p1: u32,
}

override WG: u32 = 64;

@group(0) @binding(0) var<storage, read_write> k: array<vec4<f32>>;  // [B, KVH, Tmax, HS] (dK in kv_share_sum)
@group(0) @binding(1) var<storage, read_write> v: array<vec4<f32>>;  // [B, KVH, Tmax, HS] (dV in kv_share_sum)
@group(0) @binding(2) var<storage, read> share: array<vec2<u32>>;    // [B] (root slot, shared positions)
@group(0) @binding(3) var<uniform> p: Params;

struct Cell {
  ok: bool,
  b: u32,   // slot
  off: u32, // vec4 offset of (b, h, t, d4) in a [B, KVH, Tmax, HS4] buffer, less b's slot base
}

fn cell(gid: vec3<u32>) -> Cell {
  let e = gid.y * p.stride + gid.x;
  let per = p.KVH * p.maxN * p.HS4;
  var c: Cell;
  c.ok = e < p.B * per;
  c.b = e / per;
  let r = e % per;
  let h = r / (p.maxN * p.HS4);
  let t = (r / p.HS4) % p.maxN;
  c.off = (h * p.Tmax + t) * p.HS4 + r % p.HS4;
  return c;
}

fn slotBase(b: u32) -> u32 {
  return b * p.KVH * p.Tmax * p.HS4;
}

fn position(off: u32) -> u32 {
  return (off / p.HS4) % p.Tmax;
}

/** The slot whose rows computed position t of slot b (b itself when t is not shared). */
fn owner(b: u32, t: u32) -> u32 {
  var r = b;
  for (var i = 0u; i < p.B; i++) {
    let s = share[r];
    if (s.x == r || t >= s.y) { break; }
    r = s.x;
  }
  return r;
}

@compute @workgroup_size(WG)
fn kv_share_copy(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cell(gid);
  if (!c.ok) { return; }
  let o = owner(c.b, position(c.off));
  if (o == c.b) { return; }
  k[slotBase(c.b) + c.off] = k[slotBase(o) + c.off];
  v[slotBase(c.b) + c.off] = v[slotBase(o) + c.off];
}

@compute @workgroup_size(WG)
fn kv_share_sum(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cell(gid);
  if (!c.ok) { return; }
  let t = position(c.off);
  if (owner(c.b, t) != c.b) { return; }
  var dk = k[slotBase(c.b) + c.off];
  var dv = v[slotBase(c.b) + c.off];
  var any = false;
  for (var b = 0u; b < p.B; b++) {
    if (b == c.b || owner(b, t) != c.b) { continue; }
    dk += k[slotBase(b) + c.off];
    dv += v[slotBase(b) + c.off];
    any = true;
  }
  if (any) {
    k[slotBase(c.b) + c.off] = dk;
    v[slotBase(c.b) + c.off] = dv;
  }
}
