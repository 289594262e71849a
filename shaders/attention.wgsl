// Causal grouped-query attention over the KV cache, for packed rows of many sequences:
//   Q [M, NH, HS], rows [M, 2] u32 (sequence s, position p), Kc/Vc [B, KVH, Tmax, HS]
//   -> O [M, NH * HS];  row (s, p), head h attends over cache keys 0..p of sequence s with kv
//   head h / (NH / KVH), scale 1/sqrt(HS) (a uniform). Causal by construction: prefill rows
//   (many per sequence) and decode rows (one per sequence) go through the same kernel, and the
//   row's own key must already be in the cache (qkv_rope runs first in the same step).
// HS must be a multiple of 4 and at most 128 (HS4_MAX vec4s).
// CPU twin: src/reference/attention.ts (attention_forward). Launcher: src/gpu/kernels/attention.ts.
// Two entry points, chosen per adapter:
//   attn_thread  one invocation per (row, head), online softmax in registers, no workgroup
//                memory or barriers (best on CPU adapters such as SwiftShader);
//   attn_wg      one workgroup per (row, head): keys split across the invocations, chunk max
//                and sum by workgroup-memory reductions, online softmax across chunks, the
//                value sum split over (dimension, key slice) pairs (decode on real GPUs).
//   attn_thread_lse / attn_wg_lse  the same, also writing LSE [M, NH] = log sum_j exp(s_j) of
//                the scaled scores (for the backward); bindings 5 = LSE, 6 = uniforms.
//   attn_thread_hs8[_lse], attn_thread_hs16[_lse]  attn_thread for HS = 8 / 16 with named
//                registers instead of arrays (the launcher picks them for those head sizes; the
//                backward has _hs8 / _hs16 twins of its _thread entries).
//   attn_thread_hs8_h2, attn_thread_hs16_h2  two query heads of one kv head per invocation (NH /
//                KVH even), each key and value loaded once for both; O equals the one-head
//                forms' bit for bit (decode and inference prefill on CPU adapters).
//   attn_train_hs8_lse  the _lse form for packed training rows given as the slot table (binding
//                1), four query positions per invocation (HS = 8, thread variant; HS = 16, and
//                32, 48 and 64 in the generated section below).
// Write contract: O overwritten (=); LSE overwritten (=) by the _lse entry points.
// The backward (attn_bwd_*) follows the forward in this file, with its own header.

// #include attention_params

@group(0) @binding(0) var<storage, read> Q: array<vec4<f32>>;        // [M, NH, HS/4]
@group(0) @binding(1) var<storage, read> rows: array<u32>;           // [M, 2] (sequence, position)
@group(0) @binding(2) var<storage, read> Kc: array<vec4<f32>>;       // [B, KVH, Tmax, HS/4]
@group(0) @binding(3) var<storage, read> Vc: array<vec4<f32>>;       // [B, KVH, Tmax, HS/4]
@group(0) @binding(4) var<storage, read_write> O: array<vec4<f32>>;  // [M, NH * HS/4]
@group(0) @binding(5) var<uniform> p: Params;
// The _lse entry points (binding 5 aliases p: WGSL allows it across entry points).
@group(0) @binding(5) var<storage, read_write> LSE: array<f32>;    // [M, NH] log-sum-exp
@group(0) @binding(6) var<uniform> pl: Params;
// attn_train_hs{32,48,64}_lse_s, attn_thread_lse_s: also the scaled scores [B, NH, TP, TP / 4] (TP =
// Tmax rounded up to 16) for the tile backward; their uniforms at 7 (pq, declared with the
// backward's bindings).
@group(0) @binding(6) var<storage, read_write> Sk: array<vec4<f32>>;

const HS4_MAX: u32 = 32u;      // largest HS / 4 supported
const NEG_BIG: f32 = -3.0e38;  // stands for -inf (exp of it minus anything is 0)

// Invocations per workgroup (attn_thread: any; attn_wg: a power of two >= HS/4).
override WG: u32 = 64;
// Head size, a multiple of 4 and <= 4 * HS4_MAX: a constant so the loops over it unroll.
override HS: u32 = 64;

// First vec4 of the cache line (sequence, kv head, key 0).
fn cache_base(pp: Params, seq: u32, kh: u32) -> u32 {
  return (seq * pp.KVH + kh) * pp.Tmax * (HS / 4u);
}

// ---- one invocation per (row, head) -------------------------------------------------------
@compute @workgroup_size(WG)
fn attn_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= p.M * p.NH) { return; }
  _ = attend_thread(p, idx);
}

@compute @workgroup_size(WG)
fn attn_thread_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pl.M * pl.NH) { return; }
  LSE[idx] = attend_thread(pl, idx);
}

// attend_thread (and attend_thread_s, which also keeps the scores): in the generated section below.

// ---- one invocation per (row, head), HS = 8 in named registers ------------------------------
// The same maths as attend_thread for 8-wide heads (stories260K-class models): the query and
// the running output in two named vec4s each. SwiftShader keeps private arrays (attend_thread's q, acc)
// in memory and reaches them lane by lane: this form is about 5x faster there.
@compute @workgroup_size(WG)
fn attn_thread_hs8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= p.M * p.NH) { return; }
  _ = attend_thread_hs8(p, idx);
}

@compute @workgroup_size(WG)
fn attn_thread_hs8_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pl.M * pl.NH) { return; }
  LSE[idx] = attend_thread_hs8(pl, idx);
}

fn attend_thread_hs8(pp: Params, idx: u32) -> f32 {
  let m = idx / pp.NH;
  let h = idx % pp.NH;
  let seq = min(rows[2u * m], pp.B - 1u);
  let last = min(rows[2u * m + 1u], pp.Tmax - 1u);
  let base = cache_base(pp, seq, h / (pp.NH / pp.KVH));
  let qo = idx * 2u;
  let qa = Q[qo] * pp.scale;
  let qb = Q[qo + 1u] * pp.scale;
  var st = Soft8(NEG_BIG, 0.0, vec4<f32>(0.0), vec4<f32>(0.0));
  var j = 0u;
  for (; j + 3u <= last; j += 4u) { st = soft8_block(st, qa, qb, base + j * 2u); }
  for (; j <= last; j++) { st = soft8_key(st, qa, qb, base + j * 2u); }
  store_o8(idx, st);
  return st.m + log(st.l);
}

// Online-softmax state of one HS = 8 query: running max, sum, and output (two vec4s).
struct Soft8 { m: f32, l: f32, a: vec4<f32>, b: vec4<f32> }

// One key at cache vec4 offset ko.
fn soft8_key(st: Soft8, qa: vec4<f32>, qb: vec4<f32>, ko: u32) -> Soft8 {
  return soft8_key_sv(st, dot(qa, Kc[ko]) + dot(qb, Kc[ko + 1u]), Vc[ko], Vc[ko + 1u]);
}

// The same step given the key's score s and value (va, vb).
fn soft8_key_sv(st: Soft8, s: f32, va: vec4<f32>, vb: vec4<f32>) -> Soft8 {
  let mnew = max(st.m, s);
  let c = exp(st.m - mnew);
  let e = exp(s - mnew);
  let y = vec2<f32>(c, e);
  return Soft8(mnew, st.l * c + e, mat2x4<f32>(st.a, va) * y, mat2x4<f32>(st.b, vb) * y);
}

// Four consecutive HS = 8 cache rows (keys or values) from vec4 offset ko: row i in x(2i), x(2i+1).
struct Block8 { x0: vec4<f32>, x1: vec4<f32>, x2: vec4<f32>, x3: vec4<f32>, x4: vec4<f32>, x5: vec4<f32>, x6: vec4<f32>, x7: vec4<f32> }

fn key_block8(ko: u32) -> Block8 {
  return Block8(Kc[ko], Kc[ko + 1u], Kc[ko + 2u], Kc[ko + 3u], Kc[ko + 4u], Kc[ko + 5u], Kc[ko + 6u], Kc[ko + 7u]);
}
fn value_block8(ko: u32) -> Block8 {
  return Block8(Vc[ko], Vc[ko + 1u], Vc[ko + 2u], Vc[ko + 3u], Vc[ko + 4u], Vc[ko + 5u], Vc[ko + 6u], Vc[ko + 7u]);
}

// The scores of query (qa, qb) against a block of four keys.
fn scores8(qa: vec4<f32>, qb: vec4<f32>, k: Block8) -> vec4<f32> {
  return vec4<f32>(dot(qa, k.x0) + dot(qb, k.x1), dot(qa, k.x2) + dot(qb, k.x3),
                   dot(qa, k.x4) + dot(qb, k.x5), dot(qa, k.x6) + dot(qb, k.x7));
}

// Four consecutive keys from cache vec4 offset ko, one rescale for the four.
fn soft8_block(st: Soft8, qa: vec4<f32>, qb: vec4<f32>, ko: u32) -> Soft8 {
  return soft8_block_sv(st, scores8(qa, qb, key_block8(ko)), value_block8(ko));
}

// The same step given the block's scores s4 and values v (loaded once for several queries).
fn soft8_block_sv(st: Soft8, s4: vec4<f32>, v: Block8) -> Soft8 {
  let mnew = max(st.m, max(max(s4.x, s4.y), max(s4.z, s4.w)));
  let c = exp(st.m - mnew);
  let e = exp(s4 - vec4<f32>(mnew));
  let y = vec4<f32>(c, e.x, e.y, e.z);
  return Soft8(mnew, st.l * c + (e.x + e.y) + (e.z + e.w),
               mat4x4<f32>(st.a, v.x0, v.x2, v.x4) * y + v.x6 * e.w,
               mat4x4<f32>(st.b, v.x1, v.x3, v.x5) * y + v.x7 * e.w);
}

// O of (row, head) index r from its final state, as attend_thread_hs8 writes it.
fn store_o8(r: u32, st: Soft8) {
  let inv = 1.0 / st.l;
  O[r * 2u] = st.a * inv;
  O[r * 2u + 1u] = st.b * inv;
}

// The two (row, head) indices r, r + 1 of invocation idx in the _h2 forms, their row's last
// key position and cache line (r is even and NH / KVH even, so both heads share the kv head).
struct HeadPair { ok: bool, r: u32, last: u32, base: u32 }

fn head_pair(idx: u32) -> HeadPair {
  let r = 2u * idx;
  let m = min(r, p.M * p.NH - 1u) / p.NH;
  let seq = min(rows[2u * m], p.B - 1u);
  let last = min(rows[2u * m + 1u], p.Tmax - 1u);
  return HeadPair(r < p.M * p.NH, r, last, cache_base(p, seq, (r % p.NH) / (p.NH / p.KVH)));
}

// ---- two query heads of one kv head per invocation, HS = 8 (decode and prefill rows) --------
// attn_thread_hs16_h2's scheme for 8-wide heads (stories260K: 8 / 4 heads): each key block and
// value block loaded once for heads 2i and 2i + 1, each head's state taking attend_thread_hs8's
// steps (O bit-identical to attn_thread_hs8). Grid: M * NH / 2.
@compute @workgroup_size(WG)
fn attn_thread_hs8_h2(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let hp = head_pair(gid.x + gid.y * nwg.x * WG);
  if (!hp.ok) { return; }
  let r = hp.r;
  let qa0 = Q[2u * r] * p.scale;
  let qb0 = Q[2u * r + 1u] * p.scale;
  let qa1 = Q[2u * r + 2u] * p.scale;
  let qb1 = Q[2u * r + 3u] * p.scale;
  var s0 = Soft8(NEG_BIG, 0.0, vec4<f32>(0.0), vec4<f32>(0.0));
  var s1 = s0;
  var j = 0u;
  for (; j + 3u <= hp.last; j += 4u) {
    let ko = hp.base + j * 2u;
    let k = key_block8(ko);
    let v = value_block8(ko);
    s0 = soft8_block_sv(s0, scores8(qa0, qb0, k), v);
    s1 = soft8_block_sv(s1, scores8(qa1, qb1, k), v);
  }
  for (; j <= hp.last; j++) {
    let ko = hp.base + j * 2u;
    let ka = Kc[ko];
    let kb = Kc[ko + 1u];
    let va = Vc[ko];
    let vb = Vc[ko + 1u];
    s0 = soft8_key_sv(s0, dot(qa0, ka) + dot(qb0, kb), va, vb);
    s1 = soft8_key_sv(s1, dot(qa1, ka) + dot(qb1, kb), va, vb);
  }
  store_o8(r, s0);
  store_o8(r + 1u, s1);
}

// The (slot, head, four positions i0 .. i0 + 3) of invocation idx in the training kernels (HS = 8
// and 16; grid B * NH * ceil(Tmax / 4), slot table seqs at binding 1): ok when i0 is inside the
// slot and at or past its start (slot_start); rows[q] = the (row, head) index of position i0 + q, past the length the last one's;
// cell = (slot * NH + head) * ceil(Tmax / 4) + i0 / 4 (the PS layout). Adjacent invocations take
// the same positions of different (slot, head) lines, and so loops of the same length: a CPU
// adapter runs them as the lanes of one SIMD group, which waits for its longest lane (the
// line-major order had lanes of 4 to 16 more keys than their neighbours; 10-20 % slower). The
// last positions (the longest loops) come first, so the CPU threads end together (3-4 % at the
// default agent's GRPO passes). The four-key dK/dV kernels order their invocations the same way
// (their first keys have the longest loops).
struct QueryQuad { ok: bool, i0: u32, len: u32, base: u32, rows: vec4<u32>, cell: u32, live: vec4<bool> }

fn query_quad(pp: Params, idx: u32) -> QueryQuad {
  let lines = pp.B * pp.NH;
  let quads = (pp.Tmax + 3u) / 4u;
  // The last quads (the longest loops) first.
  return quad_at(pp, idx % lines, select(quads, quads - 1u - idx / lines, idx / lines < quads));
}

// Quad t (positions 4t .. 4t + 3) of line = seq * NH + h; not ok from t = ceil(Tmax / 4).
fn quad_at(pp: Params, line: u32, t: u32) -> QueryQuad {
  let quads = (pp.Tmax + 3u) / 4u;
  let h = line % pp.NH;
  let seq = line / pp.NH;
  let first = seqs[2u * seq];
  let len = min(slot_len(seqs[2u * seq + 1u]), pp.Tmax);
  let i0 = t * 4u;
  let pos = min(vec4<u32>(i0, i0 + 1u, i0 + 2u, i0 + 3u), vec4<u32>(max(len, 1u) - 1u));
  // Quads below the slot's start are skipped (the start is a multiple of 16: whole octets and
  // sixteen-position groups with them).
  let ok = t < quads && i0 < len && i0 >= slot_start(seqs[2u * seq + 1u]);
  let live = vec4<u32>(i0) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(len);
  return QueryQuad(ok, i0, len, cache_base(pp, seq, h / (pp.NH / pp.KVH)), (vec4<u32>(first) + pos) * pp.NH + h, line * quads + t, live);
}

// The last key the quad's queries reach, and which of them reach key j (live ones only).
fn quad_last(qq: QueryQuad) -> u32 { return min(qq.i0 + 3u, qq.len - 1u); }
fn quad_reach(qq: QueryQuad, j: u32) -> vec4<bool> { return (vec4<u32>(j) <= vec4<u32>(qq.i0) + vec4<u32>(0u, 1u, 2u, 3u)) & qq.live; }

// The four scaled queries (two vec4s each, HS = 8) of a quad's (row, head) indices r.
struct Quad8 { a0: vec4<f32>, b0: vec4<f32>, a1: vec4<f32>, b1: vec4<f32>, a2: vec4<f32>, b2: vec4<f32>, a3: vec4<f32>, b3: vec4<f32> }

fn quad_queries(r: vec4<u32>, scale: f32) -> Quad8 {
  return Quad8(Q[r.x * 2u] * scale, Q[r.x * 2u + 1u] * scale, Q[r.y * 2u] * scale, Q[r.y * 2u + 1u] * scale,
               Q[r.z * 2u] * scale, Q[r.z * 2u + 1u] * scale, Q[r.w * 2u] * scale, Q[r.w * 2u + 1u] * scale);
}

// ---- training rows, HS = 8: four query positions per invocation -----------------------------
// The lse forward for packed training rows (the slot table seqs [B, 2] (first row, length) at
// binding 1 instead of rows: contiguous rows, positions 0..T-1, as the backward needs): one
// invocation per (slot, head, four adjacent positions i0 = 4t .. 4t + 3). The key blocks below
// i0 are shared by the four queries (their loads hit cache lines the first query brought in);
// at the diagonal each query takes the steps attend_thread_hs8 takes (the block i0..i0+3 for
// the fourth, single keys for the others), so O and LSE equal the row-table form bit for bit.
// Positions past the slot's length repeat its last row and are not stored.
// Grid: B * NH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_train_hs8_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let x = quad_queries(qq.rows, pl.scale);
  var st = soft8_quad_zero();
  for (var j = 0u; j < qq.i0; j += 4u) { st = soft8_quad_block(st, x, qq.base + j * 2u); }
  store_train_quad8(qq, soft8_quad_diagonal(st, x, qq.base + qq.i0 * 2u));
}

// attn_train_hs8_lse with sixteen adjacent positions per invocation (four query quads A..D, i0 =
// 16t): each key block below i0 is loaded once for sixteen queries (on a CPU adapter every load is
// a per-lane gather; a timing-only ablation without the loop's loads ran 40 -> 25 ms). Block i0
// then goes to B, C and D while A takes its diagonal, block i0 + 4 to C and D while B takes its
// own, and so on: every query takes attend_thread_hs8's steps in its order, so O and LSE equal the
// four-position and row-table forms bit for bit. Grid: B * NH * ceil(Tmax / 16).
@compute @workgroup_size(WG)
fn attn_train_hs8_lse16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let q = query_quads4(pl, gid.x + gid.y * nwg.x * WG);
  if (!q.a.ok) { return; }
  let xa = quad_queries(q.a.rows, pl.scale);
  let xb = quad_queries(q.b.rows, pl.scale);
  let xc = quad_queries(q.c.rows, pl.scale);
  let xd = quad_queries(q.d.rows, pl.scale);
  var a = soft8_quad_zero();
  var b = a;
  var c = a;
  var d = a;
  for (var j = 0u; j < q.a.i0; j += 4u) {
    let ko = q.a.base + j * 2u;
    let k = key_block8(ko);
    let v = value_block8(ko);
    a = soft8_quad_kv(a, xa, k, v);
    b = soft8_quad_kv(b, xb, k, v);
    c = soft8_quad_kv(c, xc, k, v);
    d = soft8_quad_kv(d, xd, k, v);
  }
  let d0 = q.a.base + q.a.i0 * 2u;
  store_train_quad8(q.a, soft8_quad_diagonal(a, xa, d0));
  if (!q.b.ok) { return; }
  var k = key_block8(d0);
  var v = value_block8(d0);
  b = soft8_quad_kv(b, xb, k, v);
  c = soft8_quad_kv(c, xc, k, v);
  d = soft8_quad_kv(d, xd, k, v);
  store_train_quad8(q.b, soft8_quad_diagonal(b, xb, d0 + 8u));
  if (!q.c.ok) { return; }
  k = key_block8(d0 + 8u);
  v = value_block8(d0 + 8u);
  c = soft8_quad_kv(c, xc, k, v);
  d = soft8_quad_kv(d, xd, k, v);
  store_train_quad8(q.c, soft8_quad_diagonal(c, xc, d0 + 16u));
  if (!q.d.ok) { return; }
  d = soft8_quad_block(d, xd, d0 + 16u);
  store_train_quad8(q.d, soft8_quad_diagonal(d, xd, d0 + 24u));
}

// The online-softmax states of a query quad's four queries, HS = 8.
struct Soft8Quad { s0: Soft8, s1: Soft8, s2: Soft8, s3: Soft8 }

fn soft8_quad_zero() -> Soft8Quad {
  let z = Soft8(NEG_BIG, 0.0, vec4<f32>(0.0), vec4<f32>(0.0));
  return Soft8Quad(z, z, z, z);
}

// The four keys of block k (values v) for each query of quad x, one rescale each.
fn soft8_quad_kv(st: Soft8Quad, x: Quad8, k: Block8, v: Block8) -> Soft8Quad {
  return Soft8Quad(soft8_block_sv(st.s0, scores8(x.a0, x.b0, k), v), soft8_block_sv(st.s1, scores8(x.a1, x.b1, k), v),
                   soft8_block_sv(st.s2, scores8(x.a2, x.b2, k), v), soft8_block_sv(st.s3, scores8(x.a3, x.b3, k), v));
}

// The same for the block at cache vec4 offset ko (loaded once for the four).
fn soft8_quad_block(st: Soft8Quad, x: Quad8, ko: u32) -> Soft8Quad {
  return soft8_quad_kv(st, x, key_block8(ko), value_block8(ko));
}

// The quad's diagonal from cache vec4 offset d (its first position's key): keys i0 .. i0 + q
// for query q, in attend_thread_hs8's steps (single keys, the block for the fourth). Keys past
// the length only feed positions past it, whose results are not stored; robust access keeps
// such reads in bounds.
fn soft8_quad_diagonal(st: Soft8Quad, x: Quad8, d: u32) -> Soft8Quad {
  return Soft8Quad(soft8_key(st.s0, x.a0, x.b0, d),
                   soft8_key(soft8_key(st.s1, x.a1, x.b1, d), x.a1, x.b1, d + 2u),
                   soft8_key(soft8_key(soft8_key(st.s2, x.a2, x.b2, d), x.a2, x.b2, d + 2u), x.a2, x.b2, d + 4u),
                   soft8_block(st.s3, x.a3, x.b3, d));
}

// O and LSE of a quad's positions below the length.
fn store_train_quad8(qq: QueryQuad, st: Soft8Quad) {
  store_train_hs8(qq.rows.x, st.s0);
  if (qq.i0 + 1u < qq.len) { store_train_hs8(qq.rows.y, st.s1); }
  if (qq.i0 + 2u < qq.len) { store_train_hs8(qq.rows.z, st.s2); }
  if (qq.i0 + 3u < qq.len) { store_train_hs8(qq.rows.w, st.s3); }
}

// O and LSE of (row, head) index r from its final state, as attend_thread_hs8 writes them.
fn store_train_hs8(r: u32, st: Soft8) {
  store_o8(r, st);
  LSE[r] = st.m + log(st.l);
}

// ---- one invocation per (row, head), HS = 16 in named registers ------------------------------
// attend_thread_hs8 widened to 16 (the shipped agent-tiny: C = 64, 4 heads of 16): the query and
// the running output in four named vec4s each, keys two at a time (one rescale per pair).
@compute @workgroup_size(WG)
fn attn_thread_hs16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= p.M * p.NH) { return; }
  _ = attend_thread_hs16(p, idx);
}

@compute @workgroup_size(WG)
fn attn_thread_hs16_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pl.M * pl.NH) { return; }
  LSE[idx] = attend_thread_hs16(pl, idx);
}

fn attend_thread_hs16(pp: Params, idx: u32) -> f32 {
  let m = idx / pp.NH;
  let h = idx % pp.NH;
  let seq = min(rows[2u * m], pp.B - 1u);
  let last = min(rows[2u * m + 1u], pp.Tmax - 1u);
  let base = cache_base(pp, seq, h / (pp.NH / pp.KVH));
  let q = query16(idx, pp.scale);
  var st = Soft16(NEG_BIG, 0.0, vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
  var j = 0u;
  for (; j + 1u <= last; j += 2u) { st = soft16_pair(st, q, base + j * 4u); }
  for (; j <= last; j++) { st = soft16_key(st, q, base + j * 4u); }
  store_o16(idx, st);
  return st.m + log(st.l);
}

// An HS = 16 row (query, key, value, gradient or a sum of them) in four vec4s, and the online-
// softmax state of one query: running max, sum and output.
struct Q16 { x0: vec4<f32>, x1: vec4<f32>, x2: vec4<f32>, x3: vec4<f32> }
struct Soft16 { m: f32, l: f32, a0: vec4<f32>, a1: vec4<f32>, a2: vec4<f32>, a3: vec4<f32> }

// The scaled query of (row, head) index r.
fn query16(r: u32, scale: f32) -> Q16 {
  return Q16(Q[r * 4u] * scale, Q[r * 4u + 1u] * scale, Q[r * 4u + 2u] * scale, Q[r * 4u + 3u] * scale);
}

fn score16(q: Q16, ko: u32) -> f32 { return dot16(q, kc16(ko)); }

// The cached key / value at vec4 offset ko (dot16: the backward's, below).
fn kc16(ko: u32) -> Q16 { return Q16(Kc[ko], Kc[ko + 1u], Kc[ko + 2u], Kc[ko + 3u]); }
fn vc16(ko: u32) -> Q16 { return Q16(Vc[ko], Vc[ko + 1u], Vc[ko + 2u], Vc[ko + 3u]); }

// Two consecutive keys from cache vec4 offset k0, one rescale for both.
fn soft16_pair(st: Soft16, q: Q16, k0: u32) -> Soft16 {
  let k1 = k0 + 4u;
  return soft16_pair_sv(st, vec2<f32>(score16(q, k0), score16(q, k1)), vc16(k0), vc16(k1));
}

// The same step given the pair's scores s2 and values v0, v1 (loaded once for several queries).
// O a + e.x v0 + e.y v1 is one matrix-vector product per vec4: SwiftShader sums its products in
// that order (the same O bit for bit) and keeps them in registers, where the written-out sum
// made five SPIR-V results, each through the stack. The other forms' O steps do the same.
fn soft16_pair_sv(st: Soft16, s2: vec2<f32>, v0: Q16, v1: Q16) -> Soft16 {
  let mnew = max(st.m, max(s2.x, s2.y));
  let a = exp(st.m - mnew);
  let e = exp(s2 - vec2<f32>(mnew));
  let y = vec3<f32>(a, e.x, e.y);
  return Soft16(mnew, st.l * a + (e.x + e.y),
                mat3x4<f32>(st.a0, v0.x0, v1.x0) * y, mat3x4<f32>(st.a1, v0.x1, v1.x1) * y,
                mat3x4<f32>(st.a2, v0.x2, v1.x2) * y, mat3x4<f32>(st.a3, v0.x3, v1.x3) * y);
}

// One key at cache vec4 offset ko.
fn soft16_key(st: Soft16, q: Q16, ko: u32) -> Soft16 { return soft16_key_sv(st, score16(q, ko), vc16(ko)); }

// The same step given the key's score s and value v.
fn soft16_key_sv(st: Soft16, s: f32, v: Q16) -> Soft16 {
  let mnew = max(st.m, s);
  let a = exp(st.m - mnew);
  let e = exp(s - mnew);
  let y = vec2<f32>(a, e);
  return Soft16(mnew, st.l * a + e, mat2x4<f32>(st.a0, v.x0) * y, mat2x4<f32>(st.a1, v.x1) * y,
                mat2x4<f32>(st.a2, v.x2) * y, mat2x4<f32>(st.a3, v.x3) * y);
}

// ---- two query heads of one kv head per invocation, HS = 16 (decode and prefill rows) -------
// Heads 2i and 2i + 1 of a row share their kv head when NH / KVH is even (agent-tiny: 4 / 2):
// each key and value is loaded once for both, and each head's state takes attend_thread_hs16's
// steps, so O equals attn_thread_hs16's bit for bit. On a CPU adapter every key / value load is
// a gather across the SIMD lanes, so half the invocations means half the gathers for the same
// arithmetic. Grid: M * NH / 2 (invocation i: (row, head) indices 2i and 2i + 1).
@compute @workgroup_size(WG)
fn attn_thread_hs16_h2(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let hp = head_pair(gid.x + gid.y * nwg.x * WG);
  if (!hp.ok) { return; }
  let r = hp.r;
  let qa = query16(r, p.scale);
  let qb = query16(r + 1u, p.scale);
  var sa = Soft16(NEG_BIG, 0.0, vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
  var sb = sa;
  var j = 0u;
  for (; j + 1u <= hp.last; j += 2u) {
    let k0 = hp.base + j * 4u;
    let ka = kc16(k0);
    let kb = kc16(k0 + 4u);
    let v0 = vc16(k0);
    let v1 = vc16(k0 + 4u);
    sa = soft16_pair_sv(sa, vec2<f32>(dot16(qa, ka), dot16(qa, kb)), v0, v1);
    sb = soft16_pair_sv(sb, vec2<f32>(dot16(qb, ka), dot16(qb, kb)), v0, v1);
  }
  if (j <= hp.last) {
    let ko = hp.base + j * 4u;
    let k = kc16(ko);
    let v = vc16(ko);
    sa = soft16_key_sv(sa, dot16(qa, k), v);
    sb = soft16_key_sv(sb, dot16(qb, k), v);
  }
  store_o16(r, sa);
  store_o16(r + 1u, sb);
}

// O of (row, head) index r from its final state, as attend_thread_hs16 writes it.
fn store_o16(r: u32, st: Soft16) {
  let inv = 1.0 / st.l;
  O[r * 4u] = st.a0 * inv;
  O[r * 4u + 1u] = st.a1 * inv;
  O[r * 4u + 2u] = st.a2 * inv;
  O[r * 4u + 3u] = st.a3 * inv;
}

// ---- training rows, HS = 16: four query positions per invocation ----------------------------
// attn_train_hs8_lse's scheme for 16-wide heads (the shipped agent-tiny): four adjacent positions
// i0 = 4t .. 4t + 3 per invocation share the key pairs below i0 (SwiftShader spills part of the
// four states to the stack, which still beats loading every key four times; two positions per
// invocation measured 25 % slower). At the diagonal each query takes attend_thread_hs16's steps
// (pairs from i0, then a single key for an even position), so O and LSE equal the row-table
// form bit for bit. Grid: B * NH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_train_hs16_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let x = quad_queries16(qq.rows, pl.scale);
  var st = soft16_quad_zero();
  for (var j = 0u; j < qq.i0; j += 2u) { st = soft16_quad_pair(st, x, qq.base + j * 4u); }
  store_train_quad16(qq, soft16_quad_diagonal(st, x, qq.base + qq.i0 * 4u));
}

// attn_train_hs16_lse with sixteen adjacent positions per invocation, as attn_train_hs8_lse16:
// each key pair below i0 is loaded once for sixteen queries; then the pairs of keys i0 .. i0 + 3
// go to B, C and D while A takes its diagonal, and so on. O and LSE equal the four-position and
// row-table forms bit for bit. Grid: B * NH * ceil(Tmax / 16).
@compute @workgroup_size(WG)
fn attn_train_hs16_lse16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let q = query_quads4(pl, gid.x + gid.y * nwg.x * WG);
  if (!q.a.ok) { return; }
  let xa = quad_queries16(q.a.rows, pl.scale);
  let xb = quad_queries16(q.b.rows, pl.scale);
  let xc = quad_queries16(q.c.rows, pl.scale);
  let xd = quad_queries16(q.d.rows, pl.scale);
  var a = soft16_quad_zero();
  var b = a;
  var c = a;
  var d = a;
  for (var j = 0u; j < q.a.i0; j += 2u) {
    let p = key_pair16(q.a.base + j * 4u);
    a = soft16_quad_kv(a, xa, p);
    b = soft16_quad_kv(b, xb, p);
    c = soft16_quad_kv(c, xc, p);
    d = soft16_quad_kv(d, xd, p);
  }
  let d0 = q.a.base + q.a.i0 * 4u;
  store_train_quad16(q.a, soft16_quad_diagonal(a, xa, d0));
  if (!q.b.ok) { return; }
  for (var j = 0u; j < 4u; j += 2u) {
    let p = key_pair16(d0 + j * 4u);
    b = soft16_quad_kv(b, xb, p);
    c = soft16_quad_kv(c, xc, p);
    d = soft16_quad_kv(d, xd, p);
  }
  store_train_quad16(q.b, soft16_quad_diagonal(b, xb, d0 + 16u));
  if (!q.c.ok) { return; }
  for (var j = 4u; j < 8u; j += 2u) {
    let p = key_pair16(d0 + j * 4u);
    c = soft16_quad_kv(c, xc, p);
    d = soft16_quad_kv(d, xd, p);
  }
  store_train_quad16(q.c, soft16_quad_diagonal(c, xc, d0 + 32u));
  if (!q.d.ok) { return; }
  for (var j = 8u; j < 12u; j += 2u) { d = soft16_quad_pair(d, xd, d0 + j * 4u); }
  store_train_quad16(q.d, soft16_quad_diagonal(d, xd, d0 + 48u));
}

// The online-softmax states of a query quad's four queries, HS = 16, and its scaled queries.
struct Soft16Quad { a: Soft16, b: Soft16, c: Soft16, d: Soft16 }

fn soft16_quad_zero() -> Soft16Quad {
  let z = Soft16(NEG_BIG, 0.0, vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
  return Soft16Quad(z, z, z, z);
}

fn quad_queries16(r: vec4<u32>, scale: f32) -> Quad16 {
  return Quad16(query16(r.x, scale), query16(r.y, scale), query16(r.z, scale), query16(r.w, scale));
}

// Two consecutive keys and their values (loaded once for several queries).
struct KeyPair16 { k0: Q16, k1: Q16, v0: Q16, v1: Q16 }

fn key_pair16(ko: u32) -> KeyPair16 { return KeyPair16(kc16(ko), kc16(ko + 4u), vc16(ko), vc16(ko + 4u)); }

// The key pair p for each query of quad x, one rescale each (attend_thread_hs16's pair step).
fn soft16_quad_kv(st: Soft16Quad, x: Quad16, p: KeyPair16) -> Soft16Quad {
  return Soft16Quad(soft16_pair_sv(st.a, vec2<f32>(dot16(x.a, p.k0), dot16(x.a, p.k1)), p.v0, p.v1),
                    soft16_pair_sv(st.b, vec2<f32>(dot16(x.b, p.k0), dot16(x.b, p.k1)), p.v0, p.v1),
                    soft16_pair_sv(st.c, vec2<f32>(dot16(x.c, p.k0), dot16(x.c, p.k1)), p.v0, p.v1),
                    soft16_pair_sv(st.d, vec2<f32>(dot16(x.d, p.k0), dot16(x.d, p.k1)), p.v0, p.v1));
}

fn soft16_quad_pair(st: Soft16Quad, x: Quad16, ko: u32) -> Soft16Quad { return soft16_quad_kv(st, x, key_pair16(ko)); }

// The quad's diagonal from cache vec4 offset d: attend_thread_hs16's steps for keys i0 .. i0 + q
// (pairs from i0, then a single key for an even position).
fn soft16_quad_diagonal(st: Soft16Quad, x: Quad16, d: u32) -> Soft16Quad {
  return Soft16Quad(soft16_key(st.a, x.a, d), soft16_pair(st.b, x.b, d),
                    soft16_key(soft16_pair(st.c, x.c, d), x.c, d + 8u),
                    soft16_pair(soft16_pair(st.d, x.d, d), x.d, d + 8u));
}

// O and LSE of a quad's positions below the length.
fn store_train_quad16(qq: QueryQuad, st: Soft16Quad) {
  store_train_hs16(qq.rows.x, st.a);
  if (qq.i0 + 1u < qq.len) { store_train_hs16(qq.rows.y, st.b); }
  if (qq.i0 + 2u < qq.len) { store_train_hs16(qq.rows.z, st.c); }
  if (qq.i0 + 3u < qq.len) { store_train_hs16(qq.rows.w, st.d); }
}

// O and LSE of (row, head) index r from its final state, as attend_thread_hs16 writes them.
fn store_train_hs16(r: u32, st: Soft16) {
  store_o16(r, st);
  LSE[r] = st.m + log(st.l);
}

// ---- one workgroup per (row, head) --------------------------------------------------------
var<workgroup> qs: array<vec4<f32>, HS4_MAX>;   // the query, pre-scaled
var<workgroup> pr: array<f32, WG>;              // this chunk's probabilities (unnormalised)
var<workgroup> red: array<f32, WG>;             // reduction scratch
var<workgroup> part: array<vec4<f32>, WG>;      // value partial sums per (dimension, key slice)
var<workgroup> acc_s: array<vec4<f32>, HS4_MAX>; // running output, rescaled per chunk

fn wg_max(lid: u32, v: f32) -> f32 {
  red[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { red[lid] = max(red[lid], red[lid + s]); }
  }
  return workgroupUniformLoad(&red[0]);
}

fn wg_sum(lid: u32, v: f32) -> f32 {
  workgroupBarrier();   // earlier readers of red[0] are done
  red[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { red[lid] += red[lid + s]; }
  }
  return workgroupUniformLoad(&red[0]);
}

@compute @workgroup_size(WG)
fn attn_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  _ = attend_wg(p, wid.x, wid.y, lid);
}

@compute @workgroup_size(WG)
fn attn_wg_lse(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let lse = attend_wg(pl, wid.x, wid.y, lid);
  if (lid == 0u) { LSE[wid.y * pl.NH + wid.x] = lse; }
}

// Workgroup (row m, head h) writes O for it; returns the log-sum-exp of its scaled scores.
fn attend_wg(pp: Params, h: u32, m: u32, lid: u32) -> f32 {
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], pp.B - 1u);
  let last = min(rows[2u * m + 1u], pp.Tmax - 1u);
  let kh = h / (pp.NH / pp.KVH);
  let base = cache_base(pp, seq, kh);
  let qo = (m * pp.NH + h) * HS4;
  for (var d = lid; d < HS4; d += WG) {
    qs[d] = Q[qo + d] * pp.scale;
    acc_s[d] = vec4<f32>(0.0);
  }
  workgroupBarrier();
  // Value phase: invocation lid sums dimension dd over key slice ks (keys ks, ks + slices, ...).
  let slices = WG / HS4;
  let dd = lid % HS4;
  let ks = lid / HS4;
  var mx = NEG_BIG;
  var l = 0.0;
  for (var j0 = 0u; j0 <= last; j0 += WG) {
    let j = j0 + lid;
    var s = NEG_BIG;
    if (j <= last) {
      let ko = base + j * HS4;
      s = 0.0;
      for (var d = 0u; d < HS4; d++) { s += dot(qs[d], Kc[ko + d]); }
    }
    let mnew = max(mx, wg_max(lid, s));
    let alpha = exp(mx - mnew);
    let e = select(0.0, exp(s - mnew), j <= last);
    pr[lid] = e;
    l = l * alpha + wg_sum(lid, e);   // its barriers also publish pr
    mx = mnew;
    let n = min(WG, last + 1u - j0);
    var v = vec4<f32>(0.0);
    if (ks < slices) {
      for (var k = ks; k < n; k += slices) { v += pr[k] * Vc[base + (j0 + k) * HS4 + dd]; }
    }
    part[lid] = v;
    workgroupBarrier();
    if (lid < HS4) {
      var t = acc_s[lid] * alpha;
      for (var k = 0u; k < slices; k++) { t += part[k * HS4 + lid]; }
      acc_s[lid] = t;
    }
    workgroupBarrier();
  }
  let inv = 1.0 / l;
  for (var d = lid; d < HS4; d += WG) { O[qo + d] = acc_s[d] * inv; }
  return mx + log(l);
}

// =============================================================================================
// Backward of the causal GQA attention, for training batches: B sequences packed as rows (the
// rows of slot s are contiguous, first row f_s, positions 0..T_s-1), K/V in the cache layout.
//   Q [M, NH, HS], Kc/Vc [B, KVH, Tmax, HS], O and dO [M, NH * HS], LSE [M, NH] (from the
//   _lse forward), rows [M, 2] (slot, position), seqs [B, 2] (first row, length T_s)
//   -> dQ [M, NH, HS];  dKc/dVc [B, KVH, Tmax, HS] (the gradients of the cache contents).
// With s_ij = scale q_i . k_j, P_ij = exp(s_ij - LSE_i), D_i = dO_i . O_i (= sum_j P_ij dP_ij):
//   dP_ij = dO_i . v_j,  dS_ij = P_ij (dP_ij - D_i),
//   dq_i = scale sum_{j <= pos_i} dS_ij k_j,
//   dk_j = scale sum_{i: pos_i >= j} sum_{h in group} dS_ij q_i,  dv_j = sum ... P_ij dO_i.
// Three dispatches, no atomics, deterministic:
//   attn_bwd_stats   one invocation per (row, head): ST = (LSE, D);
//   attn_bwd_dq_*    per query (row, head), a loop over its keys j <= pos;
//   attn_bwd_dkv_*   per key (slot, kv head, position j < Tmax), a loop over the query rows of
//                    the same sequence with position >= j and the NH/KVH heads of the group.
// At HS = 8, 16 and 64 (thread variant) the dQ kernel can also keep each pair's P and dS in a
// scratch PS (attn_bwd_dq_thread_hs*_ps) for attn_bwd_dkv_ps_hs*, which then sums dK and dV
// from it instead of recomputing the scores (the launcher picks this when PS fits its budget).
// Variants as in the forward: _thread (one invocation per item, registers only: CPU adapters)
// and _wg (one workgroup per item, the loop split across it with workgroup-memory sums: GPUs).
// CPU twin: src/reference/attention.ts (attention_backward, per sequence).
// Launcher: src/gpu/kernels/attention-backward.ts. Test: tests/unit/gpu/attention-backward.test.ts.
// Write contract: ST, dQ overwritten (=) for all M rows; dKc/dVc overwritten (=) everywhere:
// positions >= T_s (and unused slots) get 0; PS written where attn_bwd_dkv_ps_* reads it.
// Bindings alias the forward's across entry points (inputs, outputs, then the uniforms).

// attn_bwd_stats
@group(0) @binding(0) var<storage, read> sO: array<vec4<f32>>;        // O [M, NH * HS/4]
@group(0) @binding(1) var<storage, read> sdO: array<vec4<f32>>;       // dO [M, NH * HS/4]
@group(0) @binding(2) var<storage, read> sLSE: array<f32>;            // [M, NH]
@group(0) @binding(3) var<storage, read_write> sST: array<vec2<f32>>; // [M, NH] (LSE, D)
@group(0) @binding(4) var<uniform> ps: Params;
// attn_bwd_dq_* (also Q at 0, rows at 1 (the _hs8 / _hs16 forms: seqs), Kc at 2, Vc at 3)
@group(0) @binding(4) var<storage, read> dO: array<vec4<f32>>;        // [M, NH * HS/4]
@group(0) @binding(5) var<storage, read> ST: array<vec2<f32>>;        // [M, NH] (LSE, D)
@group(0) @binding(6) var<storage, read_write> dQ: array<vec4<f32>>;  // [M, NH, HS/4]
@group(0) @binding(7) var<uniform> pq: Params;
// attn_bwd_dkv_* (also Q at 0, Kc at 2, Vc at 3, dO at 4, ST at 5)
@group(0) @binding(1) var<storage, read> seqs: array<u32>;            // [B, 2] (first row, length)
@group(0) @binding(6) var<storage, read_write> dKc: array<vec4<f32>>; // [B, KVH, Tmax, HS/4]
@group(0) @binding(7) var<storage, read_write> dVc: array<vec4<f32>>; // [B, KVH, Tmax, HS/4]
@group(0) @binding(8) var<uniform> pk: Params;
// The _ps forms (HS = 8 / 16 / 64, thread variant), which keep each (query, key) pair's P and dS:
//   attn_bwd_dq_thread_hs*_ps   as attn_bwd_dq_thread_hs*, plus PSw at 7; uniforms pk at 8
//                               (the eight-query _ps8 forms bind the same);
//   attn_bwd_dkv_ps_hs*         Q 0, seqs 1, PSr 2, gO (dO) 3, dKo 4, dVo 5; uniforms pl at 6
//                               (the eight-key _ps8_ forms bind the same).
// PS [B, NH, ceil(Tmax / 4), Tmax, 2] vec4: for (slot, head, query quad u, key j) the P and dS
// of the quad's four queries (0 where a query does not reach the key or is past the length).
@group(0) @binding(7) var<storage, read_write> PSw: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> PSr: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> gO: array<vec4<f32>>;        // dO [M, NH * HS/4]
@group(0) @binding(4) var<storage, read_write> dKo: array<vec4<f32>>; // [B, KVH, Tmax, HS/4]
@group(0) @binding(5) var<storage, read_write> dVo: array<vec4<f32>>; // [B, KVH, Tmax, HS/4]

@compute @workgroup_size(WG)
fn attn_bwd_stats(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= ps.M * ps.NH) { return; }
  let HS4 = HS / 4u;
  var d4 = vec4<f32>(0.0);
  for (var d = 0u; d < HS4; d++) { d4 += sdO[idx * HS4 + d] * sO[idx * HS4 + d]; }
  sST[idx] = vec2<f32>(sLSE[idx], (d4.x + d4.y) + (d4.z + d4.w));
}

// ---- dQ, one invocation per (row, head) ---------------------------------------------------
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pq.M * pq.NH) { return; }
  let m = idx / pq.NH;
  let h = idx % pq.NH;
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], pq.B - 1u);
  let last = min(rows[2u * m + 1u], pq.Tmax - 1u);
  let base = cache_base(pq, seq, h / (pq.NH / pq.KVH));
  let st = ST[idx];
  let qo = idx * HS4;
  var q: array<vec4<f32>, HS4_MAX>;
  var g: array<vec4<f32>, HS4_MAX>;
  var acc: array<vec4<f32>, HS4_MAX>;
  for (var d = 0u; d < HS4; d++) {
    q[d] = Q[qo + d] * pq.scale;
    g[d] = dO[qo + d];
    acc[d] = vec4<f32>(0.0);
  }
  for (var j = 0u; j <= last; j++) {
    let ko = base + j * HS4;
    var s = 0.0;
    var dp = 0.0;
    for (var d = 0u; d < HS4; d++) {
      s += dot(q[d], Kc[ko + d]);
      dp += dot(g[d], Vc[ko + d]);
    }
    let ds = exp(s - st.x) * (dp - st.y);
    for (var d = 0u; d < HS4; d++) { acc[d] += ds * Kc[ko + d]; }
  }
  for (var d = 0u; d < HS4; d++) { dQ[qo + d] = acc[d] * pq.scale; }
}

// ---- dK/dV, one invocation per (slot, kv head, position) ------------------------------------
@compute @workgroup_size(WG)
fn attn_bwd_dkv_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pk.B * pk.KVH * pk.Tmax) { return; }
  let j = idx % pk.Tmax;
  let kh = (idx / pk.Tmax) % pk.KVH;
  let seq = idx / (pk.Tmax * pk.KVH);
  let HS4 = HS / 4u;
  let G = pk.NH / pk.KVH;
  let first = seqs[2u * seq];
  let len = min(slot_len(seqs[2u * seq + 1u]), pk.Tmax);
  let q0 = max(j, slot_start(seqs[2u * seq + 1u]));   // the first query read
  let ko = idx * HS4;   // (seq, kh, j) in the cache layout
  var k: array<vec4<f32>, HS4_MAX>;
  var v: array<vec4<f32>, HS4_MAX>;
  var dk: array<vec4<f32>, HS4_MAX>;
  var dv: array<vec4<f32>, HS4_MAX>;
  for (var d = 0u; d < HS4; d++) {
    k[d] = Kc[ko + d];
    v[d] = Vc[ko + d];
    dk[d] = vec4<f32>(0.0);
    dv[d] = vec4<f32>(0.0);
  }
  // Query rows first + i, i in [max(j, start), len): empty when j >= len, leaving zeros.
  for (var i = q0; i < len; i++) {
    for (var hg = 0u; hg < G; hg++) {
      let qi = (first + i) * pk.NH + kh * G + hg;
      let qo = qi * HS4;
      var s = 0.0;
      var dp = 0.0;
      for (var d = 0u; d < HS4; d++) {
        s += dot(Q[qo + d] * pk.scale, k[d]);
        dp += dot(dO[qo + d], v[d]);
      }
      let st = ST[qi];
      let pr = exp(s - st.x);
      let ds = pr * (dp - st.y);
      for (var d = 0u; d < HS4; d++) {
        dk[d] += ds * Q[qo + d];
        dv[d] += pr * dO[qo + d];
      }
    }
  }
  for (var d = 0u; d < HS4; d++) {
    dKc[ko + d] = dk[d] * pk.scale;
    dVc[ko + d] = dv[d];
  }
}

// ---- HS = 8 in named registers (see attn_thread_hs8): dQ and dK/dV ---------------------------
// dQ for HS = 8, four adjacent query positions (i0 = 4t .. 4t + 3) of one (slot, head) per
// invocation, from the slot table like the dK/dV kernels (training rows: contiguous, positions
// 0..T-1): each key's K and V are loaded once for the four queries; query i0 + q reaches key j
// when j <= i0 + q. Positions past the slot's length repeat its last row and are not stored.
// Binds seqs (not rows) at 1. Grid: B * NH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pq, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let x = dq_in8(qq.rows, pq.scale);
  var acc = dq_zero8();
  for (var j = 0u; j <= quad_last(qq); j++) { acc = dq8_key(acc, x, key8(qq.base + j * 2u), quad_reach(qq, j)); }
  store_dq8(qq.rows, qq.live, acc, pq.scale);
}

// dO of a quad's four (row, head) indices r, HS = 8 (two vec4s each).
fn quad_grads8(r: vec4<u32>) -> Quad8 {
  return Quad8(dO[r.x * 2u], dO[r.x * 2u + 1u], dO[r.y * 2u], dO[r.y * 2u + 1u],
               dO[r.z * 2u], dO[r.z * 2u + 1u], dO[r.w * 2u], dO[r.w * 2u + 1u]);
}

// A query's running dQ sum (two vec4s) with its last key's P and dS, HS = 8.
struct Dq8 { a: vec4<f32>, b: vec4<f32>, p: f32, ds: f32 }

// One key's term of a query's dQ sum (as dq16_step): q = (qa, qb) scaled, g = (ga, gb) its dO,
// st = (LSE, D), k = the key (ka, kb) and value (va, vb); P = dS = 0 when on = false.
fn dq8_step(acc: Dq8, qa: vec4<f32>, qb: vec4<f32>, ga: vec4<f32>, gb: vec4<f32>, st: vec2<f32>, k: Dkv8, on: bool) -> Dq8 {
  let p = select(0.0, exp(dot(qa, k.ka) + dot(qb, k.kb) - st.x), on);
  let ds = p * (dot(ga, k.va) + dot(gb, k.vb) - st.y);
  return Dq8(acc.a + ds * k.ka, acc.b + ds * k.kb, p, ds);
}

// A quad's four scaled queries, their dO rows and stats (LSE, D), HS = 8; and its four dQ sums.
struct DqIn8 { q: Quad8, g: Quad8, s0: vec2<f32>, s1: vec2<f32>, s2: vec2<f32>, s3: vec2<f32> }
struct DqQuad8 { a0: Dq8, a1: Dq8, a2: Dq8, a3: Dq8 }

fn dq_in8(r: vec4<u32>, scale: f32) -> DqIn8 { return DqIn8(quad_queries(r, scale), quad_grads8(r), ST[r.x], ST[r.y], ST[r.z], ST[r.w]); }

fn dq_zero8() -> DqQuad8 {
  let z = Dq8(vec4<f32>(0.0), vec4<f32>(0.0), 0.0, 0.0);
  return DqQuad8(z, z, z, z);
}

// Key k's terms of the four sums; on = which queries reach it.
fn dq8_key(a: DqQuad8, x: DqIn8, k: Dkv8, on: vec4<bool>) -> DqQuad8 {
  return DqQuad8(dq8_step(a.a0, x.q.a0, x.q.b0, x.g.a0, x.g.b0, x.s0, k, on.x), dq8_step(a.a1, x.q.a1, x.q.b1, x.g.a1, x.g.b1, x.s1, k, on.y),
                 dq8_step(a.a2, x.q.a2, x.q.b2, x.g.a2, x.g.b2, x.s2, k, on.z), dq8_step(a.a3, x.q.a3, x.q.b3, x.g.a3, x.g.b3, x.s3, k, on.w));
}

// Key and value at cache vec4 offset ko, HS = 8.
fn key8(ko: u32) -> Dkv8 { return Dkv8(Kc[ko], Kc[ko + 1u], Vc[ko], Vc[ko + 1u]); }

// The dQ rows of a quad's (row, head) indices r where live, times scale.
fn store_dq8(r: vec4<u32>, live: vec4<bool>, a: DqQuad8, scale: f32) {
  if (live.x) {
    dQ[r.x * 2u] = a.a0.a * scale;
    dQ[r.x * 2u + 1u] = a.a0.b * scale;
  }
  if (live.y) {
    dQ[r.y * 2u] = a.a1.a * scale;
    dQ[r.y * 2u + 1u] = a.a1.b * scale;
  }
  if (live.z) {
    dQ[r.z * 2u] = a.a2.a * scale;
    dQ[r.z * 2u + 1u] = a.a2.b * scale;
  }
  if (live.w) {
    dQ[r.w * 2u] = a.a3.a * scale;
    dQ[r.w * 2u + 1u] = a.a3.b * scale;
  }
}

// Two vec4s each of an HS = 8 key's (or its gradient's) K and V part.
struct Dkv8 { ka: vec4<f32>, kb: vec4<f32>, va: vec4<f32>, vb: vec4<f32> }

// dK/dV for HS = 8, four adjacent key positions (j0 = 4t .. 4t + 3) per invocation, named
// registers (SwiftShader spills indexed private arrays): each query row's Q, dO and stats are
// loaded once for the four keys. Row i reaches key j0 + q when i >= j0 + q (causal); keys past
// Tmax repeat the last one and are not stored. Grid: B * KVH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dkv_thread_hs8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quad(pk, gid.x + gid.y * nwg.x * WG);
  if (!kq.ok) { return; }
  let o = (vec4<u32>(kq.line * pk.Tmax) + kq.pos) * 2u;
  let k0a = Kc[o.x] * pk.scale;
  let k0b = Kc[o.x + 1u] * pk.scale;
  let k1a = Kc[o.y] * pk.scale;
  let k1b = Kc[o.y + 1u] * pk.scale;
  let k2a = Kc[o.z] * pk.scale;
  let k2b = Kc[o.z + 1u] * pk.scale;
  let k3a = Kc[o.w] * pk.scale;
  let k3b = Kc[o.w + 1u] * pk.scale;
  let v0a = Vc[o.x];
  let v0b = Vc[o.x + 1u];
  let v1a = Vc[o.y];
  let v1b = Vc[o.y + 1u];
  let v2a = Vc[o.z];
  let v2b = Vc[o.z + 1u];
  let v3a = Vc[o.w];
  let v3b = Vc[o.w + 1u];
  var dk0a = vec4<f32>(0.0);
  var dk0b = vec4<f32>(0.0);
  var dv0a = vec4<f32>(0.0);
  var dv0b = vec4<f32>(0.0);
  var dk1a = vec4<f32>(0.0);
  var dk1b = vec4<f32>(0.0);
  var dv1a = vec4<f32>(0.0);
  var dv1b = vec4<f32>(0.0);
  var dk2a = vec4<f32>(0.0);
  var dk2b = vec4<f32>(0.0);
  var dv2a = vec4<f32>(0.0);
  var dv2b = vec4<f32>(0.0);
  var dk3a = vec4<f32>(0.0);
  var dk3b = vec4<f32>(0.0);
  var dv3a = vec4<f32>(0.0);
  var dv3b = vec4<f32>(0.0);
  for (var i = max(kq.j0, kq.start); i < kq.len; i++) {
    for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
      let qi = (kq.first + i) * pk.NH + h;
      let qo = qi * 2u;
      let x0 = Q[qo];
      let x1 = Q[qo + 1u];
      let g0 = dO[qo];
      let g1 = dO[qo + 1u];
      let st = ST[qi];
      let p0 = exp(dot(x0, k0a) + dot(x1, k0b) - st.x);
      let d0 = p0 * (dot(g0, v0a) + dot(g1, v0b) - st.y);
      let p1 = select(0.0, exp(dot(x0, k1a) + dot(x1, k1b) - st.x), i >= kq.j0 + 1u);
      let d1 = p1 * (dot(g0, v1a) + dot(g1, v1b) - st.y);
      let p2 = select(0.0, exp(dot(x0, k2a) + dot(x1, k2b) - st.x), i >= kq.j0 + 2u);
      let d2 = p2 * (dot(g0, v2a) + dot(g1, v2b) - st.y);
      let p3 = select(0.0, exp(dot(x0, k3a) + dot(x1, k3b) - st.x), i >= kq.j0 + 3u);
      let d3 = p3 * (dot(g0, v3a) + dot(g1, v3b) - st.y);
      dk0a += d0 * x0;
      dk0b += d0 * x1;
      dv0a += p0 * g0;
      dv0b += p0 * g1;
      dk1a += d1 * x0;
      dk1b += d1 * x1;
      dv1a += p1 * g0;
      dv1b += p1 * g1;
      dk2a += d2 * x0;
      dk2b += d2 * x1;
      dv2a += p2 * g0;
      dv2b += p2 * g1;
      dk3a += d3 * x0;
      dk3b += d3 * x1;
      dv3a += p3 * g0;
      dv3b += p3 * g1;
    }
  }
  store_dkv8(o.x, dk0a, dk0b, dv0a, dv0b);
  if (kq.j0 + 1u < pk.Tmax) { store_dkv8(o.y, dk1a, dk1b, dv1a, dv1b); }
  if (kq.j0 + 2u < pk.Tmax) { store_dkv8(o.z, dk2a, dk2b, dv2a, dv2b); }
  if (kq.j0 + 3u < pk.Tmax) { store_dkv8(o.w, dk3a, dk3b, dv3a, dv3b); }
}

// One key's dK (scaled) and dV at cache vec4 offset o, HS = 8.
fn store_dkv8(o: u32, dka: vec4<f32>, dkb: vec4<f32>, dva: vec4<f32>, dvb: vec4<f32>) {
  dKc[o] = dka * pk.scale;
  dKc[o + 1u] = dkb * pk.scale;
  dVc[o] = dva;
  dVc[o + 1u] = dvb;
}

// ---- HS = 16 in named registers (see attn_thread_hs16): dQ and dK/dV --------------------------
// dQ for HS = 16, four adjacent query positions (i0 = 4t .. 4t + 3) of one (slot, head) per
// invocation from the slot table (as attn_bwd_dq_thread_hs8), by key quads (keys16): each key's K
// and V are loaded once for the four queries; query i0 + q reaches key j when j <= i0 + q. Binds
// seqs (not rows) at 1. Grid: B * NH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pq, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let x = dq_in16(qq.rows, pq.scale);
  var acc = dq_zero16();
  for (var j0 = 0u; j0 <= qq.i0; j0 += 4u) { acc = dq16_keys(acc, x, keys16(qq, j0), j0, qq); }
  store_dq16(qq.rows, qq.live, acc, pq.scale);
}

// dO of (row, head) index r, HS = 16.
fn grad16(r: u32) -> Q16 { return Q16(dO[r * 4u], dO[r * 4u + 1u], dO[r * 4u + 2u], dO[r * 4u + 3u]); }

fn dot16(a: Q16, b: Q16) -> f32 { return (dot(a.x0, b.x0) + dot(a.x1, b.x1)) + (dot(a.x2, b.x2) + dot(a.x3, b.x3)); }

// Four adjacent keys (j0 .. j0 + 3, a key quad) and their values, HS = 16, as matrices whose
// column n is key n's vec4 block: k0 = (key 0 .x0, key 1 .x0, ..), k1 the .x1 blocks, and so on.
// A query's four scores are then vector-matrix products summed as dot16 sums (the same P and dS
// bit for bit), and its dQ step one matrix-vector product and one sum per block for the four
// keys instead of a product and a sum per key (SwiftShader keeps each SPIR-V result on the stack).
struct Keys16 { k0: mat4x4<f32>, k1: mat4x4<f32>, k2: mat4x4<f32>, k3: mat4x4<f32>,
                v0: mat4x4<f32>, v1: mat4x4<f32>, v2: mat4x4<f32>, v3: mat4x4<f32> }

// The key quad from j0 of the quad's cache line; keys past the slot's length repeat its last one
// (no query reaches them).
fn keys16(qq: QueryQuad, j0: u32) -> Keys16 {
  let o = vec4<u32>(qq.base) + min(vec4<u32>(j0) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(qq.len - 1u)) * 4u;
  let a = raw_key16(o.x);
  let b = raw_key16(o.y);
  let c = raw_key16(o.z);
  let d = raw_key16(o.w);
  let e = raw_value16(o.x);
  let f = raw_value16(o.y);
  let g = raw_value16(o.z);
  let h = raw_value16(o.w);
  return Keys16(mat4x4<f32>(a.x0, b.x0, c.x0, d.x0), mat4x4<f32>(a.x1, b.x1, c.x1, d.x1),
                mat4x4<f32>(a.x2, b.x2, c.x2, d.x2), mat4x4<f32>(a.x3, b.x3, c.x3, d.x3),
                mat4x4<f32>(e.x0, f.x0, g.x0, h.x0), mat4x4<f32>(e.x1, f.x1, g.x1, h.x1),
                mat4x4<f32>(e.x2, f.x2, g.x2, h.x2), mat4x4<f32>(e.x3, f.x3, g.x3, h.x3));
}

// A query's dQ sum with the P and dS of its last key quad (one per key).
struct Dq16 { acc: Q16, p: vec4<f32>, ds: vec4<f32> }

// A key quad's terms of a query's dQ sum: acc + sum_n dS_n k_n with dS = P (dO . v - D),
// P = exp(s - LSE); st = (LSE, D); P = dS = 0 where the query does not reach the key (on = false).
// Within the quad the terms are summed key by key before they join acc.
fn dq16_step(a: Dq16, q: Q16, g: Q16, st: vec2<f32>, k: Keys16, on: vec4<bool>) -> Dq16 {
  let s = (q.x0 * k.k0 + q.x1 * k.k1) + (q.x2 * k.k2 + q.x3 * k.k3);
  let p = select(vec4<f32>(0.0), exp(s - st.x), on);
  let ds = p * (((g.x0 * k.v0 + g.x1 * k.v1) + (g.x2 * k.v2 + g.x3 * k.v3)) - st.y);
  return Dq16(Q16(a.acc.x0 + k.k0 * ds, a.acc.x1 + k.k1 * ds, a.acc.x2 + k.k2 * ds, a.acc.x3 + k.k3 * ds), p, ds);
}

// A quad's four scaled queries, their dO rows and stats (LSE, D), HS = 16; and its four dQ sums.
struct DqIn16 { qa: Q16, qb: Q16, qc: Q16, qd: Q16, ga: Q16, gb: Q16, gc: Q16, gd: Q16, st: mat4x2<f32> }
struct DqQuad16 { a: Dq16, b: Dq16, c: Dq16, d: Dq16 }

fn dq_in16(r: vec4<u32>, scale: f32) -> DqIn16 {
  return DqIn16(query16(r.x, scale), query16(r.y, scale), query16(r.z, scale), query16(r.w, scale),
                grad16(r.x), grad16(r.y), grad16(r.z), grad16(r.w), mat4x2<f32>(ST[r.x], ST[r.y], ST[r.z], ST[r.w]));
}

fn dq_zero16() -> DqQuad16 {
  let z = vec4<f32>(0.0);
  let d = Dq16(Q16(z, z, z, z), z, z);
  return DqQuad16(d, d, d, d);
}

// Key (unscaled) and value at cache vec4 offset ko, HS = 16.
fn raw_key16(ko: u32) -> Q16 { return Q16(Kc[ko], Kc[ko + 1u], Kc[ko + 2u], Kc[ko + 3u]); }
fn raw_value16(ko: u32) -> Q16 { return Q16(Vc[ko], Vc[ko + 1u], Vc[ko + 2u], Vc[ko + 3u]); }

// The key quad j0's terms of a query quad's four sums: query i0 + q reaches key j0 + n when
// j0 + n <= i0 + q and the query is live.
fn dq16_keys(a: DqQuad16, x: DqIn16, k: Keys16, j0: u32, qq: QueryQuad) -> DqQuad16 {
  let j = vec4<u32>(j0) + vec4<u32>(0u, 1u, 2u, 3u);
  return DqQuad16(dq16_step(a.a, x.qa, x.ga, x.st[0], k, (j <= vec4<u32>(qq.i0)) & vec4<bool>(qq.live.x)),
                  dq16_step(a.b, x.qb, x.gb, x.st[1], k, (j <= vec4<u32>(qq.i0 + 1u)) & vec4<bool>(qq.live.y)),
                  dq16_step(a.c, x.qc, x.gc, x.st[2], k, (j <= vec4<u32>(qq.i0 + 2u)) & vec4<bool>(qq.live.z)),
                  dq16_step(a.d, x.qd, x.gd, x.st[3], k, (j <= vec4<u32>(qq.i0 + 3u)) & vec4<bool>(qq.live.w)));
}

// The dQ rows of a quad's (row, head) indices r where live, times scale.
fn store_dq16(r: vec4<u32>, live: vec4<bool>, a: DqQuad16, scale: f32) {
  if (live.x) { store_dq16_row(r.x, a.a.acc, scale); }
  if (live.y) { store_dq16_row(r.y, a.b.acc, scale); }
  if (live.z) { store_dq16_row(r.z, a.c.acc, scale); }
  if (live.w) { store_dq16_row(r.w, a.d.acc, scale); }
}

fn store_dq16_row(r: u32, a: Q16, scale: f32) {
  dQ[r * 4u] = a.x0 * scale;
  dQ[r * 4u + 1u] = a.x1 * scale;
  dQ[r * 4u + 2u] = a.x2 * scale;
  dQ[r * 4u + 3u] = a.x3 * scale;
}

// dK/dV for HS = 16, four adjacent key positions (j0 = 4t .. 4t + 3) per invocation (as
// attn_bwd_dkv_thread_hs8): each query row's Q, dO and stats are loaded once for the four keys.
// Row i reaches key j0 + q when i >= j0 + q (causal); keys past Tmax repeat the last one and are
// not stored. Grid: B * KVH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dkv_thread_hs16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quad(pk, gid.x + gid.y * nwg.x * WG);
  if (!kq.ok) { return; }
  let o = (vec4<u32>(kq.line * pk.Tmax) + kq.pos) * 4u;
  let k0 = key16(o.x, pk.scale);
  let k1 = key16(o.y, pk.scale);
  let k2 = key16(o.z, pk.scale);
  let k3 = key16(o.w, pk.scale);
  let v0 = Q16(Vc[o.x], Vc[o.x + 1u], Vc[o.x + 2u], Vc[o.x + 3u]);
  let v1 = Q16(Vc[o.y], Vc[o.y + 1u], Vc[o.y + 2u], Vc[o.y + 3u]);
  let v2 = Q16(Vc[o.z], Vc[o.z + 1u], Vc[o.z + 2u], Vc[o.z + 3u]);
  let v3 = Q16(Vc[o.w], Vc[o.w + 1u], Vc[o.w + 2u], Vc[o.w + 3u]);
  let zero = Q16(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
  var a0 = Dkv16(zero, zero);
  var a1 = a0;
  var a2 = a0;
  var a3 = a0;
  for (var i = max(kq.j0, kq.start); i < kq.len; i++) {
    for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
      let qi = (kq.first + i) * pk.NH + h;
      let x = Q16(Q[qi * 4u], Q[qi * 4u + 1u], Q[qi * 4u + 2u], Q[qi * 4u + 3u]);
      let g = grad16(qi);
      let st = ST[qi];
      a0 = dkv16_step(a0, x, g, st, k0, v0, true);
      a1 = dkv16_step(a1, x, g, st, k1, v1, i >= kq.j0 + 1u);
      a2 = dkv16_step(a2, x, g, st, k2, v2, i >= kq.j0 + 2u);
      a3 = dkv16_step(a3, x, g, st, k3, v3, i >= kq.j0 + 3u);
    }
  }
  store_dkv16(o.x, a0);
  if (kq.j0 + 1u < pk.Tmax) { store_dkv16(o.y, a1); }
  if (kq.j0 + 2u < pk.Tmax) { store_dkv16(o.z, a2); }
  if (kq.j0 + 3u < pk.Tmax) { store_dkv16(o.w, a3); }
}

// A key's dK (unscaled) and dV sums, HS = 16.
struct Dkv16 { dk: Q16, dv: Q16 }

// The scaled key at cache vec4 offset o.
fn key16(o: u32, scale: f32) -> Q16 { return Q16(Kc[o] * scale, Kc[o + 1u] * scale, Kc[o + 2u] * scale, Kc[o + 3u] * scale); }

// One query row's term of a key's sums: P = exp(x . k - LSE), dS = P (dO . v - D); dK += dS x,
// dV += P dO; st = (LSE, D); nothing where the row does not reach the key (on = false).
fn dkv16_step(a: Dkv16, x: Q16, g: Q16, st: vec2<f32>, k: Q16, v: Q16, on: bool) -> Dkv16 {
  let p = select(0.0, exp(dot16(x, k) - st.x), on);
  let d = p * (dot16(g, v) - st.y);
  return Dkv16(Q16(a.dk.x0 + d * x.x0, a.dk.x1 + d * x.x1, a.dk.x2 + d * x.x2, a.dk.x3 + d * x.x3),
               Q16(a.dv.x0 + p * g.x0, a.dv.x1 + p * g.x1, a.dv.x2 + p * g.x2, a.dv.x3 + p * g.x3));
}

// One key's dK (scaled) and dV at cache vec4 offset o, HS = 16.
fn store_dkv16(o: u32, a: Dkv16) {
  dKc[o] = a.dk.x0 * pk.scale;
  dKc[o + 1u] = a.dk.x1 * pk.scale;
  dKc[o + 2u] = a.dk.x2 * pk.scale;
  dKc[o + 3u] = a.dk.x3 * pk.scale;
  dVc[o] = a.dv.x0;
  dVc[o + 1u] = a.dv.x1;
  dVc[o + 2u] = a.dv.x2;
  dVc[o + 3u] = a.dv.x3;
}

// ---- HS = 8, P and dS kept (as the HS = 16 pair below) ---------------------------------------
// attn_bwd_dq_thread_hs8 that also stores each key's P and dS of its four queries in PS.
// Grid: B * NH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs8_ps(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pk, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let x = dq_in8(qq.rows, pk.scale);
  var acc = dq_zero8();
  let line = qq.cell * pk.Tmax * 2u;
  for (var j = 0u; j <= quad_last(qq); j++) {
    acc = dq8_key(acc, x, key8(qq.base + j * 2u), quad_reach(qq, j));
    store_ps8(line + j * 2u, acc);
  }
  zero_ps_tail(qq, line);
  store_dq8(qq.rows, qq.live, acc, pk.scale);
}

// attn_bwd_dq_thread_hs8_ps with eight query positions per invocation (two query quads: A at
// i0 = 8t, B at 8t + 4), so each key's K and V loads feed eight queries instead of four. Every
// query sums its keys in the same order with the same steps, so dQ, P and dS are bit-identical
// to the four-query form; quad B alone takes the keys past A's last. Grid: B * NH * ceil(Tmax / 8).
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs8_ps8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qo = query_octet(pk, gid.x + gid.y * nwg.x * WG);
  if (!qo.a.ok) { return; }
  let xa = dq_in8(qo.a.rows, pk.scale);
  let xb = dq_in8(qo.b.rows, pk.scale);
  var a = dq_zero8();
  var b = a;
  let la = qo.a.cell * pk.Tmax * 2u;
  let lb = qo.b.cell * pk.Tmax * 2u;
  for (var j = 0u; j <= quad_last(qo.a); j++) {
    let k = key8(qo.a.base + j * 2u);
    a = dq8_key(a, xa, k, quad_reach(qo.a, j));
    b = dq8_key(b, xb, k, quad_reach(qo.b, j));
    store_ps8(la + j * 2u, a);
    if (qo.b.ok) { store_ps8(lb + j * 2u, b); }
  }
  zero_ps_tail(qo.a, la);
  store_dq8(qo.a.rows, qo.a.live, a, pk.scale);
  if (!qo.b.ok) { return; }
  for (var j = quad_last(qo.a) + 1u; j <= quad_last(qo.b); j++) {
    b = dq8_key(b, xb, key8(qo.b.base + j * 2u), quad_reach(qo.b, j));
    store_ps8(lb + j * 2u, b);
  }
  zero_ps_tail(qo.b, lb);
  store_dq8(qo.b.rows, qo.b.live, b, pk.scale);
}

// The P and dS of a quad's four queries at their last key, into PS at vec4 offset o.
fn store_ps8(o: u32, a: DqQuad8) {
  PSw[o] = vec4<f32>(a.a0.p, a.a1.p, a.a2.p, a.a3.p);
  PSw[o + 1u] = vec4<f32>(a.a0.ds, a.a1.ds, a.a2.ds, a.a3.ds);
}

// The two query quads (2t, 2t + 1) of one (slot, head) line of invocation idx in the eight-query
// dQ kernels (grid B * NH * ceil(Tmax / 8)): query_quad of quads 2t and 2t + 1 of the line (B not
// ok when it starts past the length or the cache).
struct QueryOctet { a: QueryQuad, b: QueryQuad }

fn query_octet(pp: Params, idx: u32) -> QueryOctet {
  let lines = pp.B * pp.NH;
  let octets = (pp.Tmax + 7u) / 8u;
  let o = select(octets, octets - 1u - idx / lines, idx / lines < octets);
  return QueryOctet(quad_at(pp, idx % lines, 2u * o), quad_at(pp, idx % lines, 2u * o + 1u));
}

// The four query quads (4t .. 4t + 3) of one (slot, head) line of invocation idx in the
// sixteen-query dQ kernels (grid B * NH * ceil(Tmax / 16)); a quad that starts past the length
// or the cache is not ok, nor are the ones after it.
struct QueryQuads4 { a: QueryQuad, b: QueryQuad, c: QueryQuad, d: QueryQuad }

fn query_quads4(pp: Params, idx: u32) -> QueryQuads4 {
  let lines = pp.B * pp.NH;
  let groups = (pp.Tmax + 15u) / 16u;
  let g = select(groups, groups - 1u - idx / lines, idx / lines < groups);
  let line = idx % lines;
  return QueryQuads4(quad_at(pp, line, 4u * g), quad_at(pp, line, 4u * g + 1u), quad_at(pp, line, 4u * g + 2u), quad_at(pp, line, 4u * g + 3u));
}

// Zeros in PS for the keys past the slot's length up to the quad's last position (the loop
// stops at the length; attn_bwd_dkv_ps_* reads them).
fn zero_ps_tail(qq: QueryQuad, line: u32) {
  for (var j = quad_last(qq) + 1u; j <= min(qq.i0 + 3u, pk.Tmax - 1u); j++) {
    PSw[line + j * 2u] = vec4<f32>(0.0);
    PSw[line + j * 2u + 1u] = vec4<f32>(0.0);
  }
}

// dK/dV for HS = 8 from PS (as attn_bwd_dkv_ps_hs16). Grid: B * KVH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dkv_ps_hs8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!kq.ok) { return; }
  var a = dkv8_quad_zero();
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(kq.j0, kq.start) / 4u; u * 4u < kq.len; u++) {
      let r = quad_rows(pl, kq, h, u);
      a = dkv8_ps_quad(a, ps_cell(pl, kq, h, u), kq.pos, quad_queries(r, 1.0), quad_grads8o(r));
    }
  }
  store_dkv8_quad(kq.line, kq.j0, a);
}

// attn_bwd_dkv_ps_hs8 with eight keys per invocation (two key quads), as attn_bwd_dkv_ps8_hs16:
// dK and dV bit-identical to the four-key form. Grid: B * KVH * ceil(Tmax / 8).
@compute @workgroup_size(WG)
fn attn_bwd_dkv_ps8_hs8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quads(pl, gid.x + gid.y * nwg.x * WG, 2u);
  if (!kq.ok) { return; }
  let j1 = kq.j0 + 4u;
  let pos1 = key_positions(pl, j1);
  var a = dkv8_quad_zero();
  var b = a;
  let u0 = kq.j0 / 4u;
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(u0, kq.start / 4u); u * 4u < kq.len; u++) {
      let pb = ps_cell(pl, kq, h, u);
      let r = quad_rows(pl, kq, h, u);
      let x = quad_queries(r, 1.0);
      let g = quad_grads8o(r);
      a = dkv8_ps_quad(a, pb, kq.pos, x, g);
      if (u > u0) { b = dkv8_ps_quad(b, pb, pos1, x, g); }
    }
  }
  store_dkv8_quad(kq.line, kq.j0, a);
  store_dkv8_quad(kq.line, j1, b);
}

// The dO rows of a query quad's (row, head) indices r, HS = 8, through the _ps binding gO.
fn quad_grads8o(r: vec4<u32>) -> Quad8 {
  return Quad8(gO[r.x * 2u], gO[r.x * 2u + 1u], gO[r.y * 2u], gO[r.y * 2u + 1u],
               gO[r.z * 2u], gO[r.z * 2u + 1u], gO[r.w * 2u], gO[r.w * 2u + 1u]);
}

// The sums of four keys (dK, dV each), HS = 8.
struct DkvQuad8 { a: Dkv8, b: Dkv8, c: Dkv8, d: Dkv8 }

fn dkv8_quad_zero() -> DkvQuad8 {
  let z = vec4<f32>(0.0);
  let a = Dkv8(z, z, z, z);
  return DkvQuad8(a, a, a, a);
}

// A query quad's terms (its Q rows x, dO rows g; PS cell pb) of the four keys at positions pos.
fn dkv8_ps_quad(a: DkvQuad8, pb: u32, pos: vec4<u32>, x: Quad8, g: Quad8) -> DkvQuad8 {
  return DkvQuad8(dkv8_ps_step(a.a, PSr[pb + pos.x * 2u], PSr[pb + pos.x * 2u + 1u], x, g),
                  dkv8_ps_step(a.b, PSr[pb + pos.y * 2u], PSr[pb + pos.y * 2u + 1u], x, g),
                  dkv8_ps_step(a.c, PSr[pb + pos.z * 2u], PSr[pb + pos.z * 2u + 1u], x, g),
                  dkv8_ps_step(a.d, PSr[pb + pos.w * 2u], PSr[pb + pos.w * 2u + 1u], x, g));
}

// dK (scaled) and dV of the four keys j0 .. j0 + 3 of cache line `line` (those below Tmax).
fn store_dkv8_quad(line: u32, j0: u32, a: DkvQuad8) {
  let o = (line * pl.Tmax + j0) * 2u;
  if (j0 < pl.Tmax) { store_dkv8_ps(o, a.a); }
  if (j0 + 1u < pl.Tmax) { store_dkv8_ps(o + 2u, a.b); }
  if (j0 + 2u < pl.Tmax) { store_dkv8_ps(o + 4u, a.c); }
  if (j0 + 3u < pl.Tmax) { store_dkv8_ps(o + 6u, a.d); }
}

// The (slot, kv head, four keys j0 = 4t .. 4t + 3) of invocation idx in the four-key dK/dV
// kernels, in query_quad's order (t-major): line = slot * KVH + kv head, its query heads h0 ..
// h0 + G - 1, the slot's first row and length, the four key positions (past Tmax the last), and
// the slot's start (slot_start: the kernels' query loops begin at max(j0, start)).
struct KeyQuad { ok: bool, j0: u32, line: u32, seq: u32, h0: u32, G: u32, first: u32, len: u32, pos: vec4<u32>, start: u32 }

fn key_quad(pp: Params, idx: u32) -> KeyQuad {
  let lines = pp.B * pp.KVH;
  let j0 = (idx / lines) * 4u;
  let line = idx % lines;
  let seq = line / pp.KVH;
  let G = pp.NH / pp.KVH;
  let pos = min(vec4<u32>(j0) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(pp.Tmax - 1u));
  let w = seqs[2u * seq + 1u];
  return KeyQuad(j0 < pp.Tmax, j0, line, seq, (line % pp.KVH) * G, G, seqs[2u * seq], min(slot_len(w), pp.Tmax), pos, slot_start(w));
}

// The first of the n key quads (nt .. nt + n - 1) of invocation idx in the eight- (n = 2) and
// sixteen-key (n = 4) dK/dV kernels (grid B * KVH * ceil(Tmax / 4n)): key_quad of quad nt of
// the same line.
fn key_quads(pp: Params, idx: u32, n: u32) -> KeyQuad {
  let lines = pp.B * pp.KVH;
  return key_quad(pp, n * (idx / lines) * lines + idx % lines);
}

// The four key positions j .. j + 3 (past Tmax the last).
fn key_positions(pp: Params, j: u32) -> vec4<u32> {
  return min(vec4<u32>(j) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(pp.Tmax - 1u));
}

// The PS cell (vec4 offset) of head h's query quad u, and the quad's (row, head) indices
// (positions past the length: the last row's, whose P and dS are 0).
fn ps_cell(pp: Params, kq: KeyQuad, h: u32, u: u32) -> u32 { return ((kq.seq * pp.NH + h) * ((pp.Tmax + 3u) / 4u) + u) * pp.Tmax * 2u; }

fn quad_rows(pp: Params, kq: KeyQuad, h: u32, u: u32) -> vec4<u32> {
  let pos = min(vec4<u32>(4u * u) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(kq.len - 1u));
  return (vec4<u32>(kq.first) + pos) * pp.NH + h;
}

// Four queries' terms of one key's sums, HS = 8: dK += sum dS_q x_q, dV += sum P_q g_q.
fn dkv8_ps_step(a: Dkv8, p: vec4<f32>, d: vec4<f32>, x: Quad8, g: Quad8) -> Dkv8 {
  return Dkv8(a.ka + d.x * x.a0 + d.y * x.a1 + d.z * x.a2 + d.w * x.a3,
              a.kb + d.x * x.b0 + d.y * x.b1 + d.z * x.b2 + d.w * x.b3,
              a.va + p.x * g.a0 + p.y * g.a1 + p.z * g.a2 + p.w * g.a3,
              a.vb + p.x * g.b0 + p.y * g.b1 + p.z * g.b2 + p.w * g.b3);
}

fn store_dkv8_ps(o: u32, a: Dkv8) {
  dKo[o] = a.ka * pl.scale;
  dKo[o + 1u] = a.kb * pl.scale;
  dVo[o] = a.va;
  dVo[o + 1u] = a.vb;
}

// ---- HS = 16, P and dS kept: dQ writes them, dK/dV reads them -------------------------------
// attn_bwd_dq_thread_hs16 that also stores, per key j, the P and dS of its four queries in PS
// (one vec4 each, up to the quad's last position below Tmax; zeros where a query does not reach
// the key, as for the keys past the length), so that
// attn_bwd_dkv_ps_hs16 sums dK = dS^T Q and dV = P^T dO without recomputing the scores: the
// backward then does 10 HS multiply-adds per pair instead of 14. Grid: B * NH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs16_ps(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pk, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let x = dq_in16(qq.rows, pk.scale);
  var acc = dq_zero16();
  let line = qq.cell * pk.Tmax * 2u;
  for (var j0 = 0u; j0 <= qq.i0; j0 += 4u) {
    acc = dq16_keys(acc, x, keys16(qq, j0), j0, qq);
    store_ps16(line, j0, acc);
  }
  store_dq16(qq.rows, qq.live, acc, pk.scale);
}

// attn_bwd_dq_thread_hs16_ps with eight query positions per invocation (two query quads), as
// attn_bwd_dq_thread_hs8_ps8: dQ, P and dS bit-identical to the four-query form.
// Grid: B * NH * ceil(Tmax / 8).
@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs16_ps8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qo = query_octet(pk, gid.x + gid.y * nwg.x * WG);
  if (!qo.a.ok) { return; }
  dq16_octet(qo, dq_in16(qo.a.rows, pk.scale), dq_in16(qo.b.rows, pk.scale));
}

// The eight queries' key loop of the _ps8 forms, from their inputs xa (first quad), xb. The
// second quad's own key quad (b.i0 = a.i0 + 4) is the loop's last step: the first quad's queries
// reach none of its keys, so their sums take zeros there (dQ unchanged) and their P/dS line gets
// the zeros of keys it does not reach (as the keys past a length); one copy of the step instead of
// a second one after the loop keeps SwiftShader's compile shorter.
fn dq16_octet(qo: QueryOctet, xa: DqIn16, xb: DqIn16) {
  var a = dq_zero16();
  var b = a;
  let la = qo.a.cell * pk.Tmax * 2u;
  let lb = qo.b.cell * pk.Tmax * 2u;
  let last = select(qo.a.i0, qo.b.i0, qo.b.ok);
  for (var j0 = 0u; j0 <= last; j0 += 4u) {
    let k = keys16(qo.a, j0);
    a = dq16_keys(a, xa, k, j0, qo.a);
    b = dq16_keys(b, xb, k, j0, qo.b);
    store_ps16(la, j0, a);
    if (qo.b.ok) { store_ps16(lb, j0, b); }
  }
  store_dq16(qo.a.rows, qo.a.live, a, pk.scale);
  if (qo.b.ok) { store_dq16(qo.b.rows, qo.b.live, b, pk.scale); }
}

// attn_bwd_dq_thread_hs16_ps8 with attn_bwd_stats folded in (one dispatch fewer per backward):
// each query's (LSE, D) from the forward's LSE (at 5, in place of the stats) and O (at 9, after
// the uniforms at 8), D summed in attn_bwd_stats' order, so dQ, P and dS are the same bit for
// bit. Nine storage buffers: the WebGPU default allows eight per stage, so where the device has
// fewer the launcher runs the stats kernel and _ps8.
@group(0) @binding(5) var<storage, read> fLSE: array<f32>;          // [M, NH]
@group(0) @binding(9) var<storage, read> fO: array<vec4<f32>>;       // O [M, NH * HS/4]

// (LSE, D) of (row, head) index r with dO row g.
fn stat16(r: u32, g: Q16) -> vec2<f32> {
  let d4 = ((g.x0 * fO[r * 4u] + g.x1 * fO[r * 4u + 1u]) + g.x2 * fO[r * 4u + 2u]) + g.x3 * fO[r * 4u + 3u];
  return vec2<f32>(fLSE[r], (d4.x + d4.y) + (d4.z + d4.w));
}

fn dq_in16_folded(r: vec4<u32>, scale: f32) -> DqIn16 {
  let ga = grad16(r.x); let gb = grad16(r.y); let gc = grad16(r.z); let gd = grad16(r.w);
  return DqIn16(query16(r.x, scale), query16(r.y, scale), query16(r.z, scale), query16(r.w, scale),
                ga, gb, gc, gd, mat4x2<f32>(stat16(r.x, ga), stat16(r.y, gb), stat16(r.z, gc), stat16(r.w, gd)));
}

@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs16_ps8_stats(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qo = query_octet(pk, gid.x + gid.y * nwg.x * WG);
  if (!qo.a.ok) { return; }
  dq16_octet(qo, dq_in16_folded(qo.a.rows, pk.scale), dq_in16_folded(qo.b.rows, pk.scale));
}

// The P and dS of a quad's four queries at the key quad j0 (the keys below Tmax; P = dS = 0 where
// a query does not reach the key), into the quad's PS line: per key one vec4 of each.
fn store_ps16(line: u32, j0: u32, a: DqQuad16) {
  let p = transpose(mat4x4<f32>(a.a.p, a.b.p, a.c.p, a.d.p));
  let d = transpose(mat4x4<f32>(a.a.ds, a.b.ds, a.c.ds, a.d.ds));
  let o = line + j0 * 2u;
  PSw[o] = p[0];
  PSw[o + 1u] = d[0];
  if (j0 + 1u < pk.Tmax) { PSw[o + 2u] = p[1]; PSw[o + 3u] = d[1]; }
  if (j0 + 2u < pk.Tmax) { PSw[o + 4u] = p[2]; PSw[o + 5u] = d[2]; }
  if (j0 + 3u < pk.Tmax) { PSw[o + 6u] = p[3]; PSw[o + 7u] = d[3]; }
}

// dK/dV for HS = 16 from PS, four adjacent keys (j0 = 4t .. 4t + 3) of one (slot, kv head) per
// invocation: for each head of the group and query quad u >= t, the four keys' P and dS vec4s
// and the quad's Q and dO rows; dK_j = scale sum dS q, dV_j = sum P dO. Keys past Tmax repeat the
// last one and are not stored; keys past the length sum zeros. Grid: B * KVH * ceil(Tmax / 4).
@compute @workgroup_size(WG)
fn attn_bwd_dkv_ps_hs16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!kq.ok) { return; }
  var a = dkv16_quad_zero();
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(kq.j0, kq.start) / 4u; u * 4u < kq.len; u++) {
      let r = quad_rows(pl, kq, h, u);
      a = dkv16_ps_quad(a, ps_cell(pl, kq, h, u), kq.pos, quad_rows16(r), quad_grads16o(r));
    }
  }
  store_dkv16_quad(kq.line, kq.j0, a);
}

// The sums of four keys (dK, dV each), HS = 16.
struct DkvQuad16 { a: Dkv16, b: Dkv16, c: Dkv16, d: Dkv16 }

fn dkv16_quad_zero() -> DkvQuad16 {
  let z = vec4<f32>(0.0);
  let a = Dkv16(Q16(z, z, z, z), Q16(z, z, z, z));
  return DkvQuad16(a, a, a, a);
}

// A query quad's terms (its Q rows x, dO rows g; PS cell pb) of the four keys at positions pos.
fn dkv16_ps_quad(a: DkvQuad16, pb: u32, pos: vec4<u32>, x: Quad16, g: Quad16) -> DkvQuad16 {
  return DkvQuad16(dkv16_ps_step(a.a, PSr[pb + pos.x * 2u], PSr[pb + pos.x * 2u + 1u], x, g),
                   dkv16_ps_step(a.b, PSr[pb + pos.y * 2u], PSr[pb + pos.y * 2u + 1u], x, g),
                   dkv16_ps_step(a.c, PSr[pb + pos.z * 2u], PSr[pb + pos.z * 2u + 1u], x, g),
                   dkv16_ps_step(a.d, PSr[pb + pos.w * 2u], PSr[pb + pos.w * 2u + 1u], x, g));
}

// dK (scaled) and dV of the four keys j0 .. j0 + 3 of cache line `line` (those below Tmax).
fn store_dkv16_quad(line: u32, j0: u32, a: DkvQuad16) {
  let o = (line * pl.Tmax + j0) * 4u;
  if (j0 < pl.Tmax) { store_dkv16_ps(o, a.a); }
  if (j0 + 1u < pl.Tmax) { store_dkv16_ps(o + 4u, a.b); }
  if (j0 + 2u < pl.Tmax) { store_dkv16_ps(o + 8u, a.c); }
  if (j0 + 3u < pl.Tmax) { store_dkv16_ps(o + 12u, a.d); }
}

// attn_bwd_dkv_ps_hs16 with eight keys per invocation (j0 = 8t .. 8t + 7: two key quads), so
// each query quad's Q and dO rows (32 vec4 loads) feed 8 keys instead of 4. Per key the terms
// are summed in attn_bwd_dkv_ps_hs16's order (heads, then query quads from the key's own), so
// dK and dV are bit-identical to it; the second quad starts one query quad later, where the
// first quad's diagonal cells hold no P or dS for it. Grid: B * KVH * ceil(Tmax / 8).
@compute @workgroup_size(WG)
fn attn_bwd_dkv_ps8_hs16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quads(pl, gid.x + gid.y * nwg.x * WG, 2u);
  if (!kq.ok) { return; }
  let j1 = kq.j0 + 4u;
  let pos1 = key_positions(pl, j1);
  var a = dkv16_quad_zero();
  var b = a;
  let u0 = kq.j0 / 4u;
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(u0, kq.start / 4u); u * 4u < kq.len; u++) {
      let pb = ps_cell(pl, kq, h, u);
      let r = quad_rows(pl, kq, h, u);
      let x = quad_rows16(r);
      let g = quad_grads16o(r);
      a = dkv16_ps_quad(a, pb, kq.pos, x, g);
      if (u > u0) { b = dkv16_ps_quad(b, pb, pos1, x, g); }
    }
  }
  store_dkv16_quad(kq.line, kq.j0, a);
  store_dkv16_quad(kq.line, j1, b);
}

// Four HS = 16 rows (a query quad's Q or dO).
struct Quad16 { a: Q16, b: Q16, c: Q16, d: Q16 }

// Q of (row, head) index r, unscaled; dO read through the _ps binding.
fn row16(r: u32) -> Q16 { return Q16(Q[r * 4u], Q[r * 4u + 1u], Q[r * 4u + 2u], Q[r * 4u + 3u]); }
fn grad16o(r: u32) -> Q16 { return Q16(gO[r * 4u], gO[r * 4u + 1u], gO[r * 4u + 2u], gO[r * 4u + 3u]); }

// The Q (unscaled) and dO rows of a query quad's (row, head) indices r, HS = 16.
fn quad_rows16(r: vec4<u32>) -> Quad16 { return Quad16(row16(r.x), row16(r.y), row16(r.z), row16(r.w)); }
fn quad_grads16o(r: vec4<u32>) -> Quad16 { return Quad16(grad16o(r.x), grad16o(r.y), grad16o(r.z), grad16o(r.w)); }

// Four queries' terms of one key's sums: dK += sum dS_q x_q, dV += sum P_q g_q.
fn dkv16_ps_step(a: Dkv16, p: vec4<f32>, d: vec4<f32>, x: Quad16, g: Quad16) -> Dkv16 {
  return Dkv16(Q16(a.dk.x0 + d.x * x.a.x0 + d.y * x.b.x0 + d.z * x.c.x0 + d.w * x.d.x0,
                   a.dk.x1 + d.x * x.a.x1 + d.y * x.b.x1 + d.z * x.c.x1 + d.w * x.d.x1,
                   a.dk.x2 + d.x * x.a.x2 + d.y * x.b.x2 + d.z * x.c.x2 + d.w * x.d.x2,
                   a.dk.x3 + d.x * x.a.x3 + d.y * x.b.x3 + d.z * x.c.x3 + d.w * x.d.x3),
               Q16(a.dv.x0 + p.x * g.a.x0 + p.y * g.b.x0 + p.z * g.c.x0 + p.w * g.d.x0,
                   a.dv.x1 + p.x * g.a.x1 + p.y * g.b.x1 + p.z * g.c.x1 + p.w * g.d.x1,
                   a.dv.x2 + p.x * g.a.x2 + p.y * g.b.x2 + p.z * g.c.x2 + p.w * g.d.x2,
                   a.dv.x3 + p.x * g.a.x3 + p.y * g.b.x3 + p.z * g.c.x3 + p.w * g.d.x3));
}

fn store_dkv16_ps(o: u32, a: Dkv16) {
  dKo[o] = a.dk.x0 * pl.scale;
  dKo[o + 1u] = a.dk.x1 * pl.scale;
  dKo[o + 2u] = a.dk.x2 * pl.scale;
  dKo[o + 3u] = a.dk.x3 * pl.scale;
  dVo[o] = a.dv.x0;
  dVo[o + 1u] = a.dv.x1;
  dVo[o + 2u] = a.dv.x2;
  dVo[o + 3u] = a.dv.x3;
}

// ---- workgroup variants -------------------------------------------------------------------
var<workgroup> bq: array<vec4<f32>, HS4_MAX>;    // dq: the scaled query / dkv: the key
var<workgroup> bg: array<vec4<f32>, HS4_MAX>;    // dq: dO of the row / dkv: the value
var<workgroup> bw1: array<f32, WG>;              // dq: dS per key / dkv: P per (row, head)
var<workgroup> bw2: array<f32, WG>;              // dkv: dS per (row, head)
var<workgroup> bpart1: array<vec4<f32>, WG>;     // partial sums per (dimension, slice)
var<workgroup> bpart2: array<vec4<f32>, WG>;
var<workgroup> bacc1: array<vec4<f32>, HS4_MAX>; // dq / dk running sums
var<workgroup> bacc2: array<vec4<f32>, HS4_MAX>; // dv running sums

// One workgroup per (head h = wid.x, row m = wid.y); keys split across the invocations.
@compute @workgroup_size(WG)
fn attn_bwd_dq_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.x;
  let m = wid.y;
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], pq.B - 1u);
  let last = min(rows[2u * m + 1u], pq.Tmax - 1u);
  let base = cache_base(pq, seq, h / (pq.NH / pq.KVH));
  let idx = m * pq.NH + h;
  let st = ST[idx];
  let qo = idx * HS4;
  for (var d = lid; d < HS4; d += WG) {
    bq[d] = Q[qo + d] * pq.scale;
    bg[d] = dO[qo + d];
    bacc1[d] = vec4<f32>(0.0);
  }
  workgroupBarrier();
  let slices = WG / HS4;
  let dd = lid % HS4;
  let ks = lid / HS4;
  for (var j0 = 0u; j0 <= last; j0 += WG) {
    let j = j0 + lid;
    var ds = 0.0;
    if (j <= last) {
      let ko = base + j * HS4;
      var s = 0.0;
      var dp = 0.0;
      for (var d = 0u; d < HS4; d++) {
        s += dot(bq[d], Kc[ko + d]);
        dp += dot(bg[d], Vc[ko + d]);
      }
      ds = exp(s - st.x) * (dp - st.y);
    }
    bw1[lid] = ds;
    workgroupBarrier();
    let n = min(WG, last + 1u - j0);
    var a = vec4<f32>(0.0);
    if (ks < slices) {
      for (var k = ks; k < n; k += slices) { a += bw1[k] * Kc[base + (j0 + k) * HS4 + dd]; }
    }
    bpart1[lid] = a;
    workgroupBarrier();
    if (lid < HS4) {
      var t = bacc1[lid];
      for (var k = 0u; k < slices; k++) { t += bpart1[k * HS4 + lid]; }
      bacc1[lid] = t;
    }
    workgroupBarrier();
  }
  for (var d = lid; d < HS4; d += WG) { dQ[qo + d] = bacc1[d] * pq.scale; }
}

// One workgroup per (position j = wid.x, slot * KVH + kv head = wid.y); the (row, head) pairs
// of the group's query heads over rows of positions >= j split across the invocations.
@compute @workgroup_size(WG)
fn attn_bwd_dkv_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let j = wid.x;
  let kh = wid.y % pk.KVH;
  let seq = wid.y / pk.KVH;
  let HS4 = HS / 4u;
  let G = pk.NH / pk.KVH;
  let first = seqs[2u * seq];
  let len = min(slot_len(seqs[2u * seq + 1u]), pk.Tmax);
  let q0 = max(j, slot_start(seqs[2u * seq + 1u]));   // the first query read
  let ko = (wid.y * pk.Tmax + j) * HS4;
  for (var d = lid; d < HS4; d += WG) {
    bq[d] = Kc[ko + d];
    bg[d] = Vc[ko + d];
    bacc1[d] = vec4<f32>(0.0);
    bacc2[d] = vec4<f32>(0.0);
  }
  workgroupBarrier();
  let slices = WG / HS4;
  let dd = lid % HS4;
  let ks = lid / HS4;
  // Pair t = (i - q0) * G + hg: query row first + i, head kh * G + hg; none when q0 >= len.
  let pairs = select(0u, (len - q0) * G, q0 < len);
  for (var t0 = 0u; t0 < pairs; t0 += WG) {
    let t = t0 + lid;
    var pr = 0.0;
    var ds = 0.0;
    if (t < pairs) {
      let qi = (first + q0 + t / G) * pk.NH + kh * G + t % G;
      let qo = qi * HS4;
      var s = 0.0;
      var dp = 0.0;
      for (var d = 0u; d < HS4; d++) {
        s += dot(Q[qo + d] * pk.scale, bq[d]);
        dp += dot(dO[qo + d], bg[d]);
      }
      let st = ST[qi];
      pr = exp(s - st.x);
      ds = pr * (dp - st.y);
    }
    bw1[lid] = pr;
    bw2[lid] = ds;
    workgroupBarrier();
    let n = min(WG, pairs - t0);
    var ak = vec4<f32>(0.0);
    var av = vec4<f32>(0.0);
    if (ks < slices) {
      for (var k = ks; k < n; k += slices) {
        let tk = t0 + k;
        let qo = ((first + q0 + tk / G) * pk.NH + kh * G + tk % G) * HS4 + dd;
        ak += bw2[k] * Q[qo];
        av += bw1[k] * dO[qo];
      }
    }
    bpart1[lid] = ak;
    bpart2[lid] = av;
    workgroupBarrier();
    if (lid < HS4) {
      var tk = bacc1[lid];
      var tv = bacc2[lid];
      for (var k = 0u; k < slices; k++) {
        tk += bpart1[k * HS4 + lid];
        tv += bpart2[k * HS4 + lid];
      }
      bacc1[lid] = tk;
      bacc2[lid] = tv;
    }
    workgroupBarrier();
  }
  for (var d = lid; d < HS4; d += WG) {
    dKc[ko + d] = bacc1[d] * pk.scale;
    dVc[ko + d] = bacc2[d];
  }
}

// ---- fused dK/dV + dQ partials (HS = 8, thread variant, training rows) ----------------------
// attn_bwd_fused16_hs8: one invocation per (slot, kv head, sixteen keys j0 = 16t .. 16t + 15),
// the keys' scaled K and V in registers. For each query head of the group and each query quad
// from the keys' own quad to the length, it loads the quad's Q, dO and (LSE, D) once and, per
// (query, key) pair, recomputes s, P = exp(s - LSE), dP = dO . V and dS = P (dP - D), adding to
// the keys' dK, dV sums and to the quad's dQ sum over these sixteen keys, which it stores as
// partial t of each query (dQP below). attn_bwd_dq_reduce then sums each query's partials. No
// P/dS scratch: on a CPU adapter every load is a per-lane gather, and the kept-P/dS pair of
// kernels spent most of their time storing and loading two floats per pair. Pairs with the key
// past the query or the query past the length add nothing. dKc/dVc are overwritten for every
// position (zeros past each slot's length). Grid: B * KVH * ceil(Tmax / 16). (An HS = 16 twin
// measured 1.08x the kept-P/dS kernels for 7 s of SwiftShader compile time; in the matrix form
// below 1.05-1.11x for 2.5-4 s more than the kept pair: neither kept.)
// Bindings: Q 0, seqs 1, Kc 2, Vc 3, dO 4, ST 5, dKc 6, dVc 7, dQP 8; uniforms pf at 9.
// dQP [ceil(Tmax / 16), M, NH, HS/4] vec4: partial t of (row, head) = scale sum over keys
// 16t .. 16t + 15 of dS K (written for t <= position / 16).
@group(0) @binding(8) var<storage, read_write> dQP: array<vec4<f32>>;
@group(0) @binding(9) var<uniform> pf: Params;

// A query quad's (LSE, D) as two vec4s over its four queries.
struct QuadStats { lse: vec4<f32>, d: vec4<f32> }

fn quad_stats(r: vec4<u32>) -> QuadStats {
  let s0 = ST[r.x];
  let s1 = ST[r.y];
  let s2 = ST[r.z];
  let s3 = ST[r.w];
  return QuadStats(vec4<f32>(s0.x, s1.x, s2.x, s3.x), vec4<f32>(s0.y, s1.y, s2.y, s3.y));
}

// Which (query, key) pairs of query positions qpos (live: below the length) reach key j.
fn pair_on(j: u32, qpos: vec4<u32>, live: vec4<bool>) -> vec4<bool> { return (vec4<u32>(j) <= qpos) & live; }

// dQP offset (vec4) of partial t of (row, head) index r; n = vec4s per head.
fn dqp_offset(t: u32, r: u32, n: u32) -> u32 { return (t * pf.M * pf.NH + r) * n; }

// The kernel works on 4 x 4 blocks (a key quad against a query quad) as matrix products: each
// SPIR-V result goes through the stack on SwiftShader, and a matrix product is one result where
// the same sums written per pair were dozens (1.12-1.17x on the kernel inside training).
// A key quad's scaled K and V, dims 0-3 (ka, va) and 4-7 (kb, vb); columns: the four keys. The
// keys' dK, dV sums take the same shape.
struct KeyMats8 { ka: mat4x4<f32>, kb: mat4x4<f32>, va: mat4x4<f32>, vb: mat4x4<f32> }

// The key quad from position j of cache line `line` (past Tmax the last key).
fn key_mats8(line: u32, j: u32) -> KeyMats8 {
  let o = (vec4<u32>(line * pf.Tmax) + min(vec4<u32>(j) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(pf.Tmax - 1u))) * 2u;
  let s = pf.scale;
  return KeyMats8(mat4x4<f32>(Kc[o.x], Kc[o.y], Kc[o.z], Kc[o.w]) * s, mat4x4<f32>(Kc[o.x + 1u], Kc[o.y + 1u], Kc[o.z + 1u], Kc[o.w + 1u]) * s,
                  mat4x4<f32>(Vc[o.x], Vc[o.y], Vc[o.z], Vc[o.w]), mat4x4<f32>(Vc[o.x + 1u], Vc[o.y + 1u], Vc[o.z + 1u], Vc[o.w + 1u]));
}

// A query quad's Q rows (x, unscaled) and dO rows (g), dims 0-3 (a) and 4-7 (b), columns the
// four queries; and their transposes (t).
struct QuadMats8 { xa: mat4x4<f32>, xb: mat4x4<f32>, ga: mat4x4<f32>, gb: mat4x4<f32>,
                   xat: mat4x4<f32>, xbt: mat4x4<f32>, gat: mat4x4<f32>, gbt: mat4x4<f32> }

fn quad_mats8(r: vec4<u32>) -> QuadMats8 {
  let x = quad_queries(r, 1.0);
  let g = quad_grads8(r);
  let xa = mat4x4<f32>(x.a0, x.a1, x.a2, x.a3);
  let xb = mat4x4<f32>(x.b0, x.b1, x.b2, x.b3);
  let ga = mat4x4<f32>(g.a0, g.a1, g.a2, g.a3);
  let gb = mat4x4<f32>(g.b0, g.b1, g.b2, g.b3);
  return QuadMats8(xa, xb, ga, gb, transpose(xa), transpose(xb), transpose(ga), transpose(gb));
}

// A query quad's dQ sums over the keys so far, dims 0-3 (a) and 4-7 (b); columns the queries.
struct DqMats8 { a: mat4x4<f32>, b: mat4x4<f32> }
struct FusedM8 { acc: KeyMats8, dq: DqMats8 }

// A key quad (k, from position j; sums a) against a query quad q at positions qpos (live: below
// the length): column n of s and dp is key n's scores and dO . V over the four queries; dK += x
// dS, dV += g P; the quad's dQ += k dS^T.
fn fused8_block(a: KeyMats8, k: KeyMats8, j: u32, q: QuadMats8, st: QuadStats, qpos: vec4<u32>, live: vec4<bool>, dq: DqMats8) -> FusedM8 {
  let s = q.xat * k.ka + q.xbt * k.kb;
  let dp = q.gat * k.va + q.gbt * k.vb;
  let z = vec4<f32>(0.0);
  let p0 = select(z, exp(s[0] - st.lse), pair_on(j, qpos, live));
  let p1 = select(z, exp(s[1] - st.lse), pair_on(j + 1u, qpos, live));
  let p2 = select(z, exp(s[2] - st.lse), pair_on(j + 2u, qpos, live));
  let p3 = select(z, exp(s[3] - st.lse), pair_on(j + 3u, qpos, live));
  let p = mat4x4<f32>(p0, p1, p2, p3);
  let ds = mat4x4<f32>(p0 * (dp[0] - st.d), p1 * (dp[1] - st.d), p2 * (dp[2] - st.d), p3 * (dp[3] - st.d));
  let dst = transpose(ds);
  return FusedM8(KeyMats8(a.ka + q.xa * ds, a.kb + q.xb * ds, a.va + q.ga * p, a.vb + q.gb * p),
                 DqMats8(dq.a + k.ka * dst, dq.b + k.kb * dst));
}

@compute @workgroup_size(WG)
fn attn_bwd_fused16_hs8(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quads(pf, gid.x + gid.y * nwg.x * WG, 4u);
  if (!kq.ok) { return; }
  let t = kq.j0 / 16u;
  let kA = key_mats8(kq.line, kq.j0);
  let kB = key_mats8(kq.line, kq.j0 + 4u);
  let kC = key_mats8(kq.line, kq.j0 + 8u);
  let kD = key_mats8(kq.line, kq.j0 + 12u);
  let zm = mat4x4<f32>();
  var aA = KeyMats8(zm, zm, zm, zm);
  var aB = aA;
  var aC = aA;
  var aD = aA;
  let u0 = kq.j0 / 4u;
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(u0, kq.start / 4u); u * 4u < kq.len; u++) {
      let r = quad_rows(pf, kq, h, u);
      let qpos = vec4<u32>(4u * u) + vec4<u32>(0u, 1u, 2u, 3u);
      let live = qpos < vec4<u32>(kq.len);
      let q = quad_mats8(r);
      let st = quad_stats(r);
      // Key quad k only reaches query quads from its own on (u > u0 + k - 1).
      var f = fused8_block(aA, kA, kq.j0, q, st, qpos, live, DqMats8(zm, zm));
      aA = f.acc;
      if (u > u0) { f = fused8_block(aB, kB, kq.j0 + 4u, q, st, qpos, live, f.dq); aB = f.acc; }
      if (u > u0 + 1u) { f = fused8_block(aC, kC, kq.j0 + 8u, q, st, qpos, live, f.dq); aC = f.acc; }
      if (u > u0 + 2u) { f = fused8_block(aD, kD, kq.j0 + 12u, q, st, qpos, live, f.dq); aD = f.acc; }
      store_dqp8(t, r.x, f.dq, 0u);
      if (live.y) { store_dqp8(t, r.y, f.dq, 1u); }
      if (live.z) { store_dqp8(t, r.z, f.dq, 2u); }
      if (live.w) { store_dqp8(t, r.w, f.dq, 3u); }
    }
  }
  store_fused8(kq.line, kq.j0, aA);
  store_fused8(kq.line, kq.j0 + 4u, aB);
  store_fused8(kq.line, kq.j0 + 8u, aC);
  store_fused8(kq.line, kq.j0 + 12u, aD);
}

// Query i's column of the quad's dQ sums as partial t of (row, head) index r.
fn store_dqp8(t: u32, r: u32, dq: DqMats8, i: u32) {
  let o = dqp_offset(t, r, 2u);
  dQP[o] = dq.a[i];
  dQP[o + 1u] = dq.b[i];
}

// dK (scaled) and dV of the four keys from position j of cache line `line` (those below Tmax).
fn store_fused8(line: u32, j: u32, a: KeyMats8) {
  for (var i = 0u; i < 4u; i++) {
    if (j + i < pf.Tmax) {
      let o = (line * pf.Tmax + j + i) * 2u;
      dKc[o] = a.ka[i] * pf.scale;
      dKc[o + 1u] = a.kb[i] * pf.scale;
      dVc[o] = a.va[i];
      dVc[o + 1u] = a.vb[i];
    }
  }
}

// attn_bwd_dq_reduce: dQ of (row, head) = the sum of its partials t = 0 .. position / 16 in dQP
// (in t order). Bindings: dQR (dQP) 0, rows 1, dQ out 2; uniforms pr2 at 3. Grid: M * NH.
@group(0) @binding(0) var<storage, read> dQR: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dQout: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> pr2: Params;

@compute @workgroup_size(WG)
fn attn_bwd_dq_reduce(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pr2.M * pr2.NH) { return; }
  let HS4 = HS / 4u;
  let parts = min(rows[2u * (idx / pr2.NH) + 1u], pr2.Tmax - 1u) / 16u + 1u;
  let plane = pr2.M * pr2.NH * HS4;
  for (var d = 0u; d < HS4; d++) {
    var acc = vec4<f32>(0.0);
    for (var t = 0u; t < parts; t++) { acc += dQR[t * plane + idx * HS4 + d]; }
    dQout[idx * HS4 + d] = acc;
  }
}

// ---- generated by scripts/gen-attention-hs64.ts: begin (do not edit by hand) ----
// HS = 64 in named registers (Qwen2.5, Llama 3.2, SmolLM2 heads): q<t>_<c>, o<t>_<c>, ... are
// vec4 c of query (or key) t. The backward sums a dot product's sixteen vec4 products pairwise.
//   attn_train_hs64_lse  the slot-table training forward: four positions of one (slot, head)
//     per invocation (query_quad), each key block loaded once for the four; every query takes
//     attend_thread's steps in its order, so O and LSE equal the generic row-table kernel's
//     (decode and inference prefill run that one: one query per invocation in named registers
//     measured 1.3-1.5x slower than its arrays) bit for bit.
//   attn_train_hs32_lse, attn_train_hs48_lse (and _s)  the same at heads of 32 and 48 (8 and 12
//     vec4 per query; 2.1x the generic kernel at heads of 32 and 48). Heads of 80-128 keep the
//     generic kernel: four queries of 32 vec4 each took SwiftShader 15 s to compile.
//   attn_train_hs64_lse_s  the same, also keeping the scaled scores in Sk for the tile
//     backward (attn_bwd_tile_sdp_s in shaders/attention_tiles.wgsl).
//   attn_bwd_dq_thread_hs64, attn_bwd_dkv_thread_hs64  as the _hs16 forms: four query (key)
//     positions per invocation from the slot table, each key / value (query / dO) loaded once
//     for the four. Grids: B * NH * ceil(Tmax / 4), B * KVH * ceil(Tmax / 4).
//   attn_bwd_dq_thread_hs64_ps, attn_bwd_dkv_ps_hs64  the P/dS-kept pair (as the _hs16 _ps
//     forms, four positions each): dQ also keeps each pair's P and dS in PS, and dK/dV sums
//     from them instead of recomputing the scores and dP (256 multiply-adds per pair fewer).
//   attend_thread, attend_thread_s, attn_thread_lse_s  the generic row-table attention (any
//     head size), and its twin that keeps the scores for the tile backward at the head sizes
//     without a register training form (80, 96, 112, 128).
fn hsum4(v: vec4<f32>) -> f32 { return (v.x + v.y) + (v.z + v.w); }

// Writes O for (row, head) idx = m * NH + h and returns the log-sum-exp of its scaled scores.
fn attend_thread(pp: Params, idx: u32) -> f32 {
  let m = idx / pp.NH;
  let h = idx % pp.NH;
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], pp.B - 1u);
  let last = min(rows[2u * m + 1u], pp.Tmax - 1u);
  let kh = h / (pp.NH / pp.KVH);
  let base = cache_base(pp, seq, kh);
  var q: array<vec4<f32>, HS4_MAX>;
  var acc: array<vec4<f32>, HS4_MAX>;
  let qo = (m * pp.NH + h) * HS4;
  for (var d = 0u; d < HS4; d++) { q[d] = Q[qo + d] * pp.scale; }
  var mx = NEG_BIG;
  var l = 0.0;
  // Keys four at a time: one max update and one rescale per block.
  var j = 0u;
  for (; j + 3u <= last; j += 4u) {
    let k0 = base + j * HS4;
    let k1 = k0 + HS4;
    let k2 = k1 + HS4;
    let k3 = k2 + HS4;
    var s4 = vec4<f32>(0.0);
    for (var d = 0u; d < HS4; d++) {
      let qd = q[d];
      s4 += vec4<f32>(dot(qd, Kc[k0 + d]), dot(qd, Kc[k1 + d]), dot(qd, Kc[k2 + d]), dot(qd, Kc[k3 + d]));
    }
    let mnew = max(mx, max(max(s4.x, s4.y), max(s4.z, s4.w)));
    let a = exp(mx - mnew);
    let e = exp(s4 - vec4<f32>(mnew));
    l = l * a + (e.x + e.y) + (e.z + e.w);
    let y = vec4<f32>(a, e.x, e.y, e.z);
    for (var d = 0u; d < HS4; d++) {
      acc[d] = mat4x4<f32>(acc[d], Vc[k0 + d], Vc[k1 + d], Vc[k2 + d]) * y + Vc[k3 + d] * e.w;
    }
    mx = mnew;
  }
  for (; j <= last; j++) {
    let ko = base + j * HS4;
    var s = 0.0;
    for (var d = 0u; d < HS4; d++) { s += dot(q[d], Kc[ko + d]); }
    let mnew = max(mx, s);
    let a = exp(mx - mnew);
    let e = exp(s - mnew);
    l = l * a + e;
    let y = vec2<f32>(a, e);
    for (var d = 0u; d < HS4; d++) { acc[d] = mat2x4<f32>(acc[d], Vc[ko + d]) * y; }
    mx = mnew;
  }
  let inv = 1.0 / l;
  for (var d = 0u; d < HS4; d++) { O[qo + d] = acc[d] * inv; }
  return mx + log(l);
}

// Writes O for (row, head) idx = m * NH + h and returns the log-sum-exp of its scaled scores; also
// stores the scores in Sk (attn_thread_lse_s).
fn attend_thread_s(pp: Params, idx: u32) -> f32 {
  let m = idx / pp.NH;
  let h = idx % pp.NH;
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], pp.B - 1u);
  let last = min(rows[2u * m + 1u], pp.Tmax - 1u);
  let kh = h / (pp.NH / pp.KVH);
  let base = cache_base(pp, seq, kh);
  // Row `last` of the (slot, head)'s score plane [TP, TP / 4] vec4.
  let tp4 = 4u * ((pp.Tmax + 15u) / 16u);
  let so = ((seq * pp.NH + h) * 4u * tp4 + last) * tp4;
  var q: array<vec4<f32>, HS4_MAX>;
  var acc: array<vec4<f32>, HS4_MAX>;
  let qo = (m * pp.NH + h) * HS4;
  for (var d = 0u; d < HS4; d++) { q[d] = Q[qo + d] * pp.scale; }
  var mx = NEG_BIG;
  var l = 0.0;
  // Keys four at a time: one max update and one rescale per block.
  var j = 0u;
  for (; j + 3u <= last; j += 4u) {
    let k0 = base + j * HS4;
    let k1 = k0 + HS4;
    let k2 = k1 + HS4;
    let k3 = k2 + HS4;
    var s4 = vec4<f32>(0.0);
    for (var d = 0u; d < HS4; d++) {
      let qd = q[d];
      s4 += vec4<f32>(dot(qd, Kc[k0 + d]), dot(qd, Kc[k1 + d]), dot(qd, Kc[k2 + d]), dot(qd, Kc[k3 + d]));
    }
    Sk[so + j / 4u] = s4;
    let mnew = max(mx, max(max(s4.x, s4.y), max(s4.z, s4.w)));
    let a = exp(mx - mnew);
    let e = exp(s4 - vec4<f32>(mnew));
    l = l * a + (e.x + e.y) + (e.z + e.w);
    let y = vec4<f32>(a, e.x, e.y, e.z);
    for (var d = 0u; d < HS4; d++) {
      acc[d] = mat4x4<f32>(acc[d], Vc[k0 + d], Vc[k1 + d], Vc[k2 + d]) * y + Vc[k3 + d] * e.w;
    }
    mx = mnew;
  }
  let jt = j;
  var st = vec4<f32>(0.0);
  for (; j <= last; j++) {
    let ko = base + j * HS4;
    var s = 0.0;
    for (var d = 0u; d < HS4; d++) { s += dot(q[d], Kc[ko + d]); }
    st[j - jt] = s;
    let mnew = max(mx, s);
    let a = exp(mx - mnew);
    let e = exp(s - mnew);
    l = l * a + e;
    let y = vec2<f32>(a, e);
    for (var d = 0u; d < HS4; d++) { acc[d] = mat2x4<f32>(acc[d], Vc[ko + d]) * y; }
    mx = mnew;
  }
  if (jt <= last) { Sk[so + jt / 4u] = st; }
  let inv = 1.0 / l;
  for (var d = 0u; d < HS4; d++) { O[qo + d] = acc[d] * inv; }
  return mx + log(l);
}

@compute @workgroup_size(WG)
fn attn_thread_lse_s(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= pq.M * pq.NH) { return; }
  LSE[idx] = attend_thread_s(pq, idx);
}

@compute @workgroup_size(WG)
fn attn_train_hs64_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let r0 = qq.rows.x; let qo0 = r0 * 16u;
  let q0_0 = Q[qo0 + 0u] * pl.scale; var o0_0 = vec4<f32>();
  let q0_1 = Q[qo0 + 1u] * pl.scale; var o0_1 = vec4<f32>();
  let q0_2 = Q[qo0 + 2u] * pl.scale; var o0_2 = vec4<f32>();
  let q0_3 = Q[qo0 + 3u] * pl.scale; var o0_3 = vec4<f32>();
  let q0_4 = Q[qo0 + 4u] * pl.scale; var o0_4 = vec4<f32>();
  let q0_5 = Q[qo0 + 5u] * pl.scale; var o0_5 = vec4<f32>();
  let q0_6 = Q[qo0 + 6u] * pl.scale; var o0_6 = vec4<f32>();
  let q0_7 = Q[qo0 + 7u] * pl.scale; var o0_7 = vec4<f32>();
  let q0_8 = Q[qo0 + 8u] * pl.scale; var o0_8 = vec4<f32>();
  let q0_9 = Q[qo0 + 9u] * pl.scale; var o0_9 = vec4<f32>();
  let q0_10 = Q[qo0 + 10u] * pl.scale; var o0_10 = vec4<f32>();
  let q0_11 = Q[qo0 + 11u] * pl.scale; var o0_11 = vec4<f32>();
  let q0_12 = Q[qo0 + 12u] * pl.scale; var o0_12 = vec4<f32>();
  let q0_13 = Q[qo0 + 13u] * pl.scale; var o0_13 = vec4<f32>();
  let q0_14 = Q[qo0 + 14u] * pl.scale; var o0_14 = vec4<f32>();
  let q0_15 = Q[qo0 + 15u] * pl.scale; var o0_15 = vec4<f32>();
  var m0 = NEG_BIG; var l0 = 0.0;
  let r1 = qq.rows.y; let qo1 = r1 * 16u;
  let q1_0 = Q[qo1 + 0u] * pl.scale; var o1_0 = vec4<f32>();
  let q1_1 = Q[qo1 + 1u] * pl.scale; var o1_1 = vec4<f32>();
  let q1_2 = Q[qo1 + 2u] * pl.scale; var o1_2 = vec4<f32>();
  let q1_3 = Q[qo1 + 3u] * pl.scale; var o1_3 = vec4<f32>();
  let q1_4 = Q[qo1 + 4u] * pl.scale; var o1_4 = vec4<f32>();
  let q1_5 = Q[qo1 + 5u] * pl.scale; var o1_5 = vec4<f32>();
  let q1_6 = Q[qo1 + 6u] * pl.scale; var o1_6 = vec4<f32>();
  let q1_7 = Q[qo1 + 7u] * pl.scale; var o1_7 = vec4<f32>();
  let q1_8 = Q[qo1 + 8u] * pl.scale; var o1_8 = vec4<f32>();
  let q1_9 = Q[qo1 + 9u] * pl.scale; var o1_9 = vec4<f32>();
  let q1_10 = Q[qo1 + 10u] * pl.scale; var o1_10 = vec4<f32>();
  let q1_11 = Q[qo1 + 11u] * pl.scale; var o1_11 = vec4<f32>();
  let q1_12 = Q[qo1 + 12u] * pl.scale; var o1_12 = vec4<f32>();
  let q1_13 = Q[qo1 + 13u] * pl.scale; var o1_13 = vec4<f32>();
  let q1_14 = Q[qo1 + 14u] * pl.scale; var o1_14 = vec4<f32>();
  let q1_15 = Q[qo1 + 15u] * pl.scale; var o1_15 = vec4<f32>();
  var m1 = NEG_BIG; var l1 = 0.0;
  let r2 = qq.rows.z; let qo2 = r2 * 16u;
  let q2_0 = Q[qo2 + 0u] * pl.scale; var o2_0 = vec4<f32>();
  let q2_1 = Q[qo2 + 1u] * pl.scale; var o2_1 = vec4<f32>();
  let q2_2 = Q[qo2 + 2u] * pl.scale; var o2_2 = vec4<f32>();
  let q2_3 = Q[qo2 + 3u] * pl.scale; var o2_3 = vec4<f32>();
  let q2_4 = Q[qo2 + 4u] * pl.scale; var o2_4 = vec4<f32>();
  let q2_5 = Q[qo2 + 5u] * pl.scale; var o2_5 = vec4<f32>();
  let q2_6 = Q[qo2 + 6u] * pl.scale; var o2_6 = vec4<f32>();
  let q2_7 = Q[qo2 + 7u] * pl.scale; var o2_7 = vec4<f32>();
  let q2_8 = Q[qo2 + 8u] * pl.scale; var o2_8 = vec4<f32>();
  let q2_9 = Q[qo2 + 9u] * pl.scale; var o2_9 = vec4<f32>();
  let q2_10 = Q[qo2 + 10u] * pl.scale; var o2_10 = vec4<f32>();
  let q2_11 = Q[qo2 + 11u] * pl.scale; var o2_11 = vec4<f32>();
  let q2_12 = Q[qo2 + 12u] * pl.scale; var o2_12 = vec4<f32>();
  let q2_13 = Q[qo2 + 13u] * pl.scale; var o2_13 = vec4<f32>();
  let q2_14 = Q[qo2 + 14u] * pl.scale; var o2_14 = vec4<f32>();
  let q2_15 = Q[qo2 + 15u] * pl.scale; var o2_15 = vec4<f32>();
  var m2 = NEG_BIG; var l2 = 0.0;
  let r3 = qq.rows.w; let qo3 = r3 * 16u;
  let q3_0 = Q[qo3 + 0u] * pl.scale; var o3_0 = vec4<f32>();
  let q3_1 = Q[qo3 + 1u] * pl.scale; var o3_1 = vec4<f32>();
  let q3_2 = Q[qo3 + 2u] * pl.scale; var o3_2 = vec4<f32>();
  let q3_3 = Q[qo3 + 3u] * pl.scale; var o3_3 = vec4<f32>();
  let q3_4 = Q[qo3 + 4u] * pl.scale; var o3_4 = vec4<f32>();
  let q3_5 = Q[qo3 + 5u] * pl.scale; var o3_5 = vec4<f32>();
  let q3_6 = Q[qo3 + 6u] * pl.scale; var o3_6 = vec4<f32>();
  let q3_7 = Q[qo3 + 7u] * pl.scale; var o3_7 = vec4<f32>();
  let q3_8 = Q[qo3 + 8u] * pl.scale; var o3_8 = vec4<f32>();
  let q3_9 = Q[qo3 + 9u] * pl.scale; var o3_9 = vec4<f32>();
  let q3_10 = Q[qo3 + 10u] * pl.scale; var o3_10 = vec4<f32>();
  let q3_11 = Q[qo3 + 11u] * pl.scale; var o3_11 = vec4<f32>();
  let q3_12 = Q[qo3 + 12u] * pl.scale; var o3_12 = vec4<f32>();
  let q3_13 = Q[qo3 + 13u] * pl.scale; var o3_13 = vec4<f32>();
  let q3_14 = Q[qo3 + 14u] * pl.scale; var o3_14 = vec4<f32>();
  let q3_15 = Q[qo3 + 15u] * pl.scale; var o3_15 = vec4<f32>();
  var m3 = NEG_BIG; var l3 = 0.0;
  // Keys below the quad: blocks of four for all four queries.
  for (var j = 0u; j < qq.i0; j += 4u) {
    let k0 = qq.base + j * 16u; let k1 = k0 + 16u; let k2 = k1 + 16u; let k3 = k2 + 16u;
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q0_0, Kc[k0 + 0u]), dot(q0_0, Kc[k1 + 0u]), dot(q0_0, Kc[k2 + 0u]), dot(q0_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q0_1, Kc[k0 + 1u]), dot(q0_1, Kc[k1 + 1u]), dot(q0_1, Kc[k2 + 1u]), dot(q0_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q0_2, Kc[k0 + 2u]), dot(q0_2, Kc[k1 + 2u]), dot(q0_2, Kc[k2 + 2u]), dot(q0_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q0_3, Kc[k0 + 3u]), dot(q0_3, Kc[k1 + 3u]), dot(q0_3, Kc[k2 + 3u]), dot(q0_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q0_4, Kc[k0 + 4u]), dot(q0_4, Kc[k1 + 4u]), dot(q0_4, Kc[k2 + 4u]), dot(q0_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q0_5, Kc[k0 + 5u]), dot(q0_5, Kc[k1 + 5u]), dot(q0_5, Kc[k2 + 5u]), dot(q0_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q0_6, Kc[k0 + 6u]), dot(q0_6, Kc[k1 + 6u]), dot(q0_6, Kc[k2 + 6u]), dot(q0_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q0_7, Kc[k0 + 7u]), dot(q0_7, Kc[k1 + 7u]), dot(q0_7, Kc[k2 + 7u]), dot(q0_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q0_8, Kc[k0 + 8u]), dot(q0_8, Kc[k1 + 8u]), dot(q0_8, Kc[k2 + 8u]), dot(q0_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q0_9, Kc[k0 + 9u]), dot(q0_9, Kc[k1 + 9u]), dot(q0_9, Kc[k2 + 9u]), dot(q0_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q0_10, Kc[k0 + 10u]), dot(q0_10, Kc[k1 + 10u]), dot(q0_10, Kc[k2 + 10u]), dot(q0_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q0_11, Kc[k0 + 11u]), dot(q0_11, Kc[k1 + 11u]), dot(q0_11, Kc[k2 + 11u]), dot(q0_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q0_12, Kc[k0 + 12u]), dot(q0_12, Kc[k1 + 12u]), dot(q0_12, Kc[k2 + 12u]), dot(q0_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q0_13, Kc[k0 + 13u]), dot(q0_13, Kc[k1 + 13u]), dot(q0_13, Kc[k2 + 13u]), dot(q0_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q0_14, Kc[k0 + 14u]), dot(q0_14, Kc[k1 + 14u]), dot(q0_14, Kc[k2 + 14u]), dot(q0_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q0_15, Kc[k0 + 15u]), dot(q0_15, Kc[k1 + 15u]), dot(q0_15, Kc[k2 + 15u]), dot(q0_15, Kc[k3 + 15u]));
      let mn = max(m0, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m0 - mn); let e = exp(s - vec4<f32>(mn));
      l0 = l0 * a + (e.x + e.y) + (e.z + e.w); m0 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o0_0 = mat4x4<f32>(o0_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o0_1 = mat4x4<f32>(o0_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o0_2 = mat4x4<f32>(o0_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o0_3 = mat4x4<f32>(o0_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o0_4 = mat4x4<f32>(o0_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o0_5 = mat4x4<f32>(o0_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o0_6 = mat4x4<f32>(o0_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o0_7 = mat4x4<f32>(o0_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o0_8 = mat4x4<f32>(o0_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o0_9 = mat4x4<f32>(o0_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o0_10 = mat4x4<f32>(o0_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o0_11 = mat4x4<f32>(o0_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o0_12 = mat4x4<f32>(o0_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o0_13 = mat4x4<f32>(o0_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o0_14 = mat4x4<f32>(o0_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o0_15 = mat4x4<f32>(o0_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q1_0, Kc[k0 + 0u]), dot(q1_0, Kc[k1 + 0u]), dot(q1_0, Kc[k2 + 0u]), dot(q1_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q1_1, Kc[k0 + 1u]), dot(q1_1, Kc[k1 + 1u]), dot(q1_1, Kc[k2 + 1u]), dot(q1_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q1_2, Kc[k0 + 2u]), dot(q1_2, Kc[k1 + 2u]), dot(q1_2, Kc[k2 + 2u]), dot(q1_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q1_3, Kc[k0 + 3u]), dot(q1_3, Kc[k1 + 3u]), dot(q1_3, Kc[k2 + 3u]), dot(q1_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q1_4, Kc[k0 + 4u]), dot(q1_4, Kc[k1 + 4u]), dot(q1_4, Kc[k2 + 4u]), dot(q1_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q1_5, Kc[k0 + 5u]), dot(q1_5, Kc[k1 + 5u]), dot(q1_5, Kc[k2 + 5u]), dot(q1_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q1_6, Kc[k0 + 6u]), dot(q1_6, Kc[k1 + 6u]), dot(q1_6, Kc[k2 + 6u]), dot(q1_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q1_7, Kc[k0 + 7u]), dot(q1_7, Kc[k1 + 7u]), dot(q1_7, Kc[k2 + 7u]), dot(q1_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q1_8, Kc[k0 + 8u]), dot(q1_8, Kc[k1 + 8u]), dot(q1_8, Kc[k2 + 8u]), dot(q1_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q1_9, Kc[k0 + 9u]), dot(q1_9, Kc[k1 + 9u]), dot(q1_9, Kc[k2 + 9u]), dot(q1_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q1_10, Kc[k0 + 10u]), dot(q1_10, Kc[k1 + 10u]), dot(q1_10, Kc[k2 + 10u]), dot(q1_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q1_11, Kc[k0 + 11u]), dot(q1_11, Kc[k1 + 11u]), dot(q1_11, Kc[k2 + 11u]), dot(q1_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q1_12, Kc[k0 + 12u]), dot(q1_12, Kc[k1 + 12u]), dot(q1_12, Kc[k2 + 12u]), dot(q1_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q1_13, Kc[k0 + 13u]), dot(q1_13, Kc[k1 + 13u]), dot(q1_13, Kc[k2 + 13u]), dot(q1_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q1_14, Kc[k0 + 14u]), dot(q1_14, Kc[k1 + 14u]), dot(q1_14, Kc[k2 + 14u]), dot(q1_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q1_15, Kc[k0 + 15u]), dot(q1_15, Kc[k1 + 15u]), dot(q1_15, Kc[k2 + 15u]), dot(q1_15, Kc[k3 + 15u]));
      let mn = max(m1, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m1 - mn); let e = exp(s - vec4<f32>(mn));
      l1 = l1 * a + (e.x + e.y) + (e.z + e.w); m1 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o1_0 = mat4x4<f32>(o1_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o1_1 = mat4x4<f32>(o1_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o1_2 = mat4x4<f32>(o1_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o1_3 = mat4x4<f32>(o1_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o1_4 = mat4x4<f32>(o1_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o1_5 = mat4x4<f32>(o1_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o1_6 = mat4x4<f32>(o1_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o1_7 = mat4x4<f32>(o1_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o1_8 = mat4x4<f32>(o1_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o1_9 = mat4x4<f32>(o1_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o1_10 = mat4x4<f32>(o1_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o1_11 = mat4x4<f32>(o1_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o1_12 = mat4x4<f32>(o1_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o1_13 = mat4x4<f32>(o1_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o1_14 = mat4x4<f32>(o1_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o1_15 = mat4x4<f32>(o1_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q2_0, Kc[k0 + 0u]), dot(q2_0, Kc[k1 + 0u]), dot(q2_0, Kc[k2 + 0u]), dot(q2_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q2_1, Kc[k0 + 1u]), dot(q2_1, Kc[k1 + 1u]), dot(q2_1, Kc[k2 + 1u]), dot(q2_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q2_2, Kc[k0 + 2u]), dot(q2_2, Kc[k1 + 2u]), dot(q2_2, Kc[k2 + 2u]), dot(q2_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q2_3, Kc[k0 + 3u]), dot(q2_3, Kc[k1 + 3u]), dot(q2_3, Kc[k2 + 3u]), dot(q2_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q2_4, Kc[k0 + 4u]), dot(q2_4, Kc[k1 + 4u]), dot(q2_4, Kc[k2 + 4u]), dot(q2_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q2_5, Kc[k0 + 5u]), dot(q2_5, Kc[k1 + 5u]), dot(q2_5, Kc[k2 + 5u]), dot(q2_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q2_6, Kc[k0 + 6u]), dot(q2_6, Kc[k1 + 6u]), dot(q2_6, Kc[k2 + 6u]), dot(q2_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q2_7, Kc[k0 + 7u]), dot(q2_7, Kc[k1 + 7u]), dot(q2_7, Kc[k2 + 7u]), dot(q2_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q2_8, Kc[k0 + 8u]), dot(q2_8, Kc[k1 + 8u]), dot(q2_8, Kc[k2 + 8u]), dot(q2_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q2_9, Kc[k0 + 9u]), dot(q2_9, Kc[k1 + 9u]), dot(q2_9, Kc[k2 + 9u]), dot(q2_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q2_10, Kc[k0 + 10u]), dot(q2_10, Kc[k1 + 10u]), dot(q2_10, Kc[k2 + 10u]), dot(q2_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q2_11, Kc[k0 + 11u]), dot(q2_11, Kc[k1 + 11u]), dot(q2_11, Kc[k2 + 11u]), dot(q2_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q2_12, Kc[k0 + 12u]), dot(q2_12, Kc[k1 + 12u]), dot(q2_12, Kc[k2 + 12u]), dot(q2_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q2_13, Kc[k0 + 13u]), dot(q2_13, Kc[k1 + 13u]), dot(q2_13, Kc[k2 + 13u]), dot(q2_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q2_14, Kc[k0 + 14u]), dot(q2_14, Kc[k1 + 14u]), dot(q2_14, Kc[k2 + 14u]), dot(q2_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q2_15, Kc[k0 + 15u]), dot(q2_15, Kc[k1 + 15u]), dot(q2_15, Kc[k2 + 15u]), dot(q2_15, Kc[k3 + 15u]));
      let mn = max(m2, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m2 - mn); let e = exp(s - vec4<f32>(mn));
      l2 = l2 * a + (e.x + e.y) + (e.z + e.w); m2 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o2_0 = mat4x4<f32>(o2_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o2_1 = mat4x4<f32>(o2_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o2_2 = mat4x4<f32>(o2_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o2_3 = mat4x4<f32>(o2_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o2_4 = mat4x4<f32>(o2_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o2_5 = mat4x4<f32>(o2_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o2_6 = mat4x4<f32>(o2_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o2_7 = mat4x4<f32>(o2_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o2_8 = mat4x4<f32>(o2_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o2_9 = mat4x4<f32>(o2_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o2_10 = mat4x4<f32>(o2_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o2_11 = mat4x4<f32>(o2_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o2_12 = mat4x4<f32>(o2_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o2_13 = mat4x4<f32>(o2_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o2_14 = mat4x4<f32>(o2_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o2_15 = mat4x4<f32>(o2_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q3_0, Kc[k0 + 0u]), dot(q3_0, Kc[k1 + 0u]), dot(q3_0, Kc[k2 + 0u]), dot(q3_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q3_1, Kc[k0 + 1u]), dot(q3_1, Kc[k1 + 1u]), dot(q3_1, Kc[k2 + 1u]), dot(q3_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q3_2, Kc[k0 + 2u]), dot(q3_2, Kc[k1 + 2u]), dot(q3_2, Kc[k2 + 2u]), dot(q3_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q3_3, Kc[k0 + 3u]), dot(q3_3, Kc[k1 + 3u]), dot(q3_3, Kc[k2 + 3u]), dot(q3_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q3_4, Kc[k0 + 4u]), dot(q3_4, Kc[k1 + 4u]), dot(q3_4, Kc[k2 + 4u]), dot(q3_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q3_5, Kc[k0 + 5u]), dot(q3_5, Kc[k1 + 5u]), dot(q3_5, Kc[k2 + 5u]), dot(q3_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q3_6, Kc[k0 + 6u]), dot(q3_6, Kc[k1 + 6u]), dot(q3_6, Kc[k2 + 6u]), dot(q3_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q3_7, Kc[k0 + 7u]), dot(q3_7, Kc[k1 + 7u]), dot(q3_7, Kc[k2 + 7u]), dot(q3_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q3_8, Kc[k0 + 8u]), dot(q3_8, Kc[k1 + 8u]), dot(q3_8, Kc[k2 + 8u]), dot(q3_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q3_9, Kc[k0 + 9u]), dot(q3_9, Kc[k1 + 9u]), dot(q3_9, Kc[k2 + 9u]), dot(q3_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q3_10, Kc[k0 + 10u]), dot(q3_10, Kc[k1 + 10u]), dot(q3_10, Kc[k2 + 10u]), dot(q3_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q3_11, Kc[k0 + 11u]), dot(q3_11, Kc[k1 + 11u]), dot(q3_11, Kc[k2 + 11u]), dot(q3_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q3_12, Kc[k0 + 12u]), dot(q3_12, Kc[k1 + 12u]), dot(q3_12, Kc[k2 + 12u]), dot(q3_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q3_13, Kc[k0 + 13u]), dot(q3_13, Kc[k1 + 13u]), dot(q3_13, Kc[k2 + 13u]), dot(q3_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q3_14, Kc[k0 + 14u]), dot(q3_14, Kc[k1 + 14u]), dot(q3_14, Kc[k2 + 14u]), dot(q3_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q3_15, Kc[k0 + 15u]), dot(q3_15, Kc[k1 + 15u]), dot(q3_15, Kc[k2 + 15u]), dot(q3_15, Kc[k3 + 15u]));
      let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
      l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o3_0 = mat4x4<f32>(o3_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o3_1 = mat4x4<f32>(o3_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o3_2 = mat4x4<f32>(o3_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o3_3 = mat4x4<f32>(o3_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o3_4 = mat4x4<f32>(o3_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o3_5 = mat4x4<f32>(o3_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o3_6 = mat4x4<f32>(o3_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o3_7 = mat4x4<f32>(o3_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o3_8 = mat4x4<f32>(o3_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o3_9 = mat4x4<f32>(o3_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o3_10 = mat4x4<f32>(o3_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o3_11 = mat4x4<f32>(o3_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o3_12 = mat4x4<f32>(o3_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o3_13 = mat4x4<f32>(o3_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o3_14 = mat4x4<f32>(o3_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o3_15 = mat4x4<f32>(o3_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
  }
  // The quad's own keys as the row form takes them: position i0 + 3 a block of four, i0 + t
  // (t < 3) single keys i0 .. i0 + t. Key offsets stay inside the line (a query past the
  // length is not stored).
  let kl = qq.base + (qq.len - 1u) * 16u;
  let d0 = min(qq.base + qq.i0 * 16u, kl); let d1 = min(d0 + 16u, kl); let d2 = min(d0 + 32u, kl); let d3 = min(d0 + 48u, kl);
  { var s = vec4<f32>(0.0);
    s += vec4<f32>(dot(q3_0, Kc[d0 + 0u]), dot(q3_0, Kc[d1 + 0u]), dot(q3_0, Kc[d2 + 0u]), dot(q3_0, Kc[d3 + 0u]));
    s += vec4<f32>(dot(q3_1, Kc[d0 + 1u]), dot(q3_1, Kc[d1 + 1u]), dot(q3_1, Kc[d2 + 1u]), dot(q3_1, Kc[d3 + 1u]));
    s += vec4<f32>(dot(q3_2, Kc[d0 + 2u]), dot(q3_2, Kc[d1 + 2u]), dot(q3_2, Kc[d2 + 2u]), dot(q3_2, Kc[d3 + 2u]));
    s += vec4<f32>(dot(q3_3, Kc[d0 + 3u]), dot(q3_3, Kc[d1 + 3u]), dot(q3_3, Kc[d2 + 3u]), dot(q3_3, Kc[d3 + 3u]));
    s += vec4<f32>(dot(q3_4, Kc[d0 + 4u]), dot(q3_4, Kc[d1 + 4u]), dot(q3_4, Kc[d2 + 4u]), dot(q3_4, Kc[d3 + 4u]));
    s += vec4<f32>(dot(q3_5, Kc[d0 + 5u]), dot(q3_5, Kc[d1 + 5u]), dot(q3_5, Kc[d2 + 5u]), dot(q3_5, Kc[d3 + 5u]));
    s += vec4<f32>(dot(q3_6, Kc[d0 + 6u]), dot(q3_6, Kc[d1 + 6u]), dot(q3_6, Kc[d2 + 6u]), dot(q3_6, Kc[d3 + 6u]));
    s += vec4<f32>(dot(q3_7, Kc[d0 + 7u]), dot(q3_7, Kc[d1 + 7u]), dot(q3_7, Kc[d2 + 7u]), dot(q3_7, Kc[d3 + 7u]));
    s += vec4<f32>(dot(q3_8, Kc[d0 + 8u]), dot(q3_8, Kc[d1 + 8u]), dot(q3_8, Kc[d2 + 8u]), dot(q3_8, Kc[d3 + 8u]));
    s += vec4<f32>(dot(q3_9, Kc[d0 + 9u]), dot(q3_9, Kc[d1 + 9u]), dot(q3_9, Kc[d2 + 9u]), dot(q3_9, Kc[d3 + 9u]));
    s += vec4<f32>(dot(q3_10, Kc[d0 + 10u]), dot(q3_10, Kc[d1 + 10u]), dot(q3_10, Kc[d2 + 10u]), dot(q3_10, Kc[d3 + 10u]));
    s += vec4<f32>(dot(q3_11, Kc[d0 + 11u]), dot(q3_11, Kc[d1 + 11u]), dot(q3_11, Kc[d2 + 11u]), dot(q3_11, Kc[d3 + 11u]));
    s += vec4<f32>(dot(q3_12, Kc[d0 + 12u]), dot(q3_12, Kc[d1 + 12u]), dot(q3_12, Kc[d2 + 12u]), dot(q3_12, Kc[d3 + 12u]));
    s += vec4<f32>(dot(q3_13, Kc[d0 + 13u]), dot(q3_13, Kc[d1 + 13u]), dot(q3_13, Kc[d2 + 13u]), dot(q3_13, Kc[d3 + 13u]));
    s += vec4<f32>(dot(q3_14, Kc[d0 + 14u]), dot(q3_14, Kc[d1 + 14u]), dot(q3_14, Kc[d2 + 14u]), dot(q3_14, Kc[d3 + 14u]));
    s += vec4<f32>(dot(q3_15, Kc[d0 + 15u]), dot(q3_15, Kc[d1 + 15u]), dot(q3_15, Kc[d2 + 15u]), dot(q3_15, Kc[d3 + 15u]));
    let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
    let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
    l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
    let y = vec4<f32>(a, e.x, e.y, e.z);
    o3_0 = mat4x4<f32>(o3_0, Vc[d0 + 0u], Vc[d1 + 0u], Vc[d2 + 0u]) * y + Vc[d3 + 0u] * e.w;
    o3_1 = mat4x4<f32>(o3_1, Vc[d0 + 1u], Vc[d1 + 1u], Vc[d2 + 1u]) * y + Vc[d3 + 1u] * e.w;
    o3_2 = mat4x4<f32>(o3_2, Vc[d0 + 2u], Vc[d1 + 2u], Vc[d2 + 2u]) * y + Vc[d3 + 2u] * e.w;
    o3_3 = mat4x4<f32>(o3_3, Vc[d0 + 3u], Vc[d1 + 3u], Vc[d2 + 3u]) * y + Vc[d3 + 3u] * e.w;
    o3_4 = mat4x4<f32>(o3_4, Vc[d0 + 4u], Vc[d1 + 4u], Vc[d2 + 4u]) * y + Vc[d3 + 4u] * e.w;
    o3_5 = mat4x4<f32>(o3_5, Vc[d0 + 5u], Vc[d1 + 5u], Vc[d2 + 5u]) * y + Vc[d3 + 5u] * e.w;
    o3_6 = mat4x4<f32>(o3_6, Vc[d0 + 6u], Vc[d1 + 6u], Vc[d2 + 6u]) * y + Vc[d3 + 6u] * e.w;
    o3_7 = mat4x4<f32>(o3_7, Vc[d0 + 7u], Vc[d1 + 7u], Vc[d2 + 7u]) * y + Vc[d3 + 7u] * e.w;
    o3_8 = mat4x4<f32>(o3_8, Vc[d0 + 8u], Vc[d1 + 8u], Vc[d2 + 8u]) * y + Vc[d3 + 8u] * e.w;
    o3_9 = mat4x4<f32>(o3_9, Vc[d0 + 9u], Vc[d1 + 9u], Vc[d2 + 9u]) * y + Vc[d3 + 9u] * e.w;
    o3_10 = mat4x4<f32>(o3_10, Vc[d0 + 10u], Vc[d1 + 10u], Vc[d2 + 10u]) * y + Vc[d3 + 10u] * e.w;
    o3_11 = mat4x4<f32>(o3_11, Vc[d0 + 11u], Vc[d1 + 11u], Vc[d2 + 11u]) * y + Vc[d3 + 11u] * e.w;
    o3_12 = mat4x4<f32>(o3_12, Vc[d0 + 12u], Vc[d1 + 12u], Vc[d2 + 12u]) * y + Vc[d3 + 12u] * e.w;
    o3_13 = mat4x4<f32>(o3_13, Vc[d0 + 13u], Vc[d1 + 13u], Vc[d2 + 13u]) * y + Vc[d3 + 13u] * e.w;
    o3_14 = mat4x4<f32>(o3_14, Vc[d0 + 14u], Vc[d1 + 14u], Vc[d2 + 14u]) * y + Vc[d3 + 14u] * e.w;
    o3_15 = mat4x4<f32>(o3_15, Vc[d0 + 15u], Vc[d1 + 15u], Vc[d2 + 15u]) * y + Vc[d3 + 15u] * e.w;
  }
  { var s = 0.0;
    s += dot(q0_0, Kc[d0 + 0u]);
    s += dot(q0_1, Kc[d0 + 1u]);
    s += dot(q0_2, Kc[d0 + 2u]);
    s += dot(q0_3, Kc[d0 + 3u]);
    s += dot(q0_4, Kc[d0 + 4u]);
    s += dot(q0_5, Kc[d0 + 5u]);
    s += dot(q0_6, Kc[d0 + 6u]);
    s += dot(q0_7, Kc[d0 + 7u]);
    s += dot(q0_8, Kc[d0 + 8u]);
    s += dot(q0_9, Kc[d0 + 9u]);
    s += dot(q0_10, Kc[d0 + 10u]);
    s += dot(q0_11, Kc[d0 + 11u]);
    s += dot(q0_12, Kc[d0 + 12u]);
    s += dot(q0_13, Kc[d0 + 13u]);
    s += dot(q0_14, Kc[d0 + 14u]);
    s += dot(q0_15, Kc[d0 + 15u]);
    let mn = max(m0, s); let a = exp(m0 - mn); let e = exp(s - mn);
    l0 = l0 * a + e; m0 = mn;
    let y = vec2<f32>(a, e);
    o0_0 = mat2x4<f32>(o0_0, Vc[d0 + 0u]) * y;
    o0_1 = mat2x4<f32>(o0_1, Vc[d0 + 1u]) * y;
    o0_2 = mat2x4<f32>(o0_2, Vc[d0 + 2u]) * y;
    o0_3 = mat2x4<f32>(o0_3, Vc[d0 + 3u]) * y;
    o0_4 = mat2x4<f32>(o0_4, Vc[d0 + 4u]) * y;
    o0_5 = mat2x4<f32>(o0_5, Vc[d0 + 5u]) * y;
    o0_6 = mat2x4<f32>(o0_6, Vc[d0 + 6u]) * y;
    o0_7 = mat2x4<f32>(o0_7, Vc[d0 + 7u]) * y;
    o0_8 = mat2x4<f32>(o0_8, Vc[d0 + 8u]) * y;
    o0_9 = mat2x4<f32>(o0_9, Vc[d0 + 9u]) * y;
    o0_10 = mat2x4<f32>(o0_10, Vc[d0 + 10u]) * y;
    o0_11 = mat2x4<f32>(o0_11, Vc[d0 + 11u]) * y;
    o0_12 = mat2x4<f32>(o0_12, Vc[d0 + 12u]) * y;
    o0_13 = mat2x4<f32>(o0_13, Vc[d0 + 13u]) * y;
    o0_14 = mat2x4<f32>(o0_14, Vc[d0 + 14u]) * y;
    o0_15 = mat2x4<f32>(o0_15, Vc[d0 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d0 + 0u]);
    s += dot(q1_1, Kc[d0 + 1u]);
    s += dot(q1_2, Kc[d0 + 2u]);
    s += dot(q1_3, Kc[d0 + 3u]);
    s += dot(q1_4, Kc[d0 + 4u]);
    s += dot(q1_5, Kc[d0 + 5u]);
    s += dot(q1_6, Kc[d0 + 6u]);
    s += dot(q1_7, Kc[d0 + 7u]);
    s += dot(q1_8, Kc[d0 + 8u]);
    s += dot(q1_9, Kc[d0 + 9u]);
    s += dot(q1_10, Kc[d0 + 10u]);
    s += dot(q1_11, Kc[d0 + 11u]);
    s += dot(q1_12, Kc[d0 + 12u]);
    s += dot(q1_13, Kc[d0 + 13u]);
    s += dot(q1_14, Kc[d0 + 14u]);
    s += dot(q1_15, Kc[d0 + 15u]);
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d0 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d0 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d0 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d0 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d0 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d0 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d0 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d0 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d0 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d0 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d0 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d0 + 11u]) * y;
    o1_12 = mat2x4<f32>(o1_12, Vc[d0 + 12u]) * y;
    o1_13 = mat2x4<f32>(o1_13, Vc[d0 + 13u]) * y;
    o1_14 = mat2x4<f32>(o1_14, Vc[d0 + 14u]) * y;
    o1_15 = mat2x4<f32>(o1_15, Vc[d0 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d0 + 0u]);
    s += dot(q2_1, Kc[d0 + 1u]);
    s += dot(q2_2, Kc[d0 + 2u]);
    s += dot(q2_3, Kc[d0 + 3u]);
    s += dot(q2_4, Kc[d0 + 4u]);
    s += dot(q2_5, Kc[d0 + 5u]);
    s += dot(q2_6, Kc[d0 + 6u]);
    s += dot(q2_7, Kc[d0 + 7u]);
    s += dot(q2_8, Kc[d0 + 8u]);
    s += dot(q2_9, Kc[d0 + 9u]);
    s += dot(q2_10, Kc[d0 + 10u]);
    s += dot(q2_11, Kc[d0 + 11u]);
    s += dot(q2_12, Kc[d0 + 12u]);
    s += dot(q2_13, Kc[d0 + 13u]);
    s += dot(q2_14, Kc[d0 + 14u]);
    s += dot(q2_15, Kc[d0 + 15u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d0 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d0 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d0 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d0 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d0 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d0 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d0 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d0 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d0 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d0 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d0 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d0 + 11u]) * y;
    o2_12 = mat2x4<f32>(o2_12, Vc[d0 + 12u]) * y;
    o2_13 = mat2x4<f32>(o2_13, Vc[d0 + 13u]) * y;
    o2_14 = mat2x4<f32>(o2_14, Vc[d0 + 14u]) * y;
    o2_15 = mat2x4<f32>(o2_15, Vc[d0 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d1 + 0u]);
    s += dot(q1_1, Kc[d1 + 1u]);
    s += dot(q1_2, Kc[d1 + 2u]);
    s += dot(q1_3, Kc[d1 + 3u]);
    s += dot(q1_4, Kc[d1 + 4u]);
    s += dot(q1_5, Kc[d1 + 5u]);
    s += dot(q1_6, Kc[d1 + 6u]);
    s += dot(q1_7, Kc[d1 + 7u]);
    s += dot(q1_8, Kc[d1 + 8u]);
    s += dot(q1_9, Kc[d1 + 9u]);
    s += dot(q1_10, Kc[d1 + 10u]);
    s += dot(q1_11, Kc[d1 + 11u]);
    s += dot(q1_12, Kc[d1 + 12u]);
    s += dot(q1_13, Kc[d1 + 13u]);
    s += dot(q1_14, Kc[d1 + 14u]);
    s += dot(q1_15, Kc[d1 + 15u]);
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d1 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d1 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d1 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d1 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d1 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d1 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d1 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d1 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d1 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d1 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d1 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d1 + 11u]) * y;
    o1_12 = mat2x4<f32>(o1_12, Vc[d1 + 12u]) * y;
    o1_13 = mat2x4<f32>(o1_13, Vc[d1 + 13u]) * y;
    o1_14 = mat2x4<f32>(o1_14, Vc[d1 + 14u]) * y;
    o1_15 = mat2x4<f32>(o1_15, Vc[d1 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d1 + 0u]);
    s += dot(q2_1, Kc[d1 + 1u]);
    s += dot(q2_2, Kc[d1 + 2u]);
    s += dot(q2_3, Kc[d1 + 3u]);
    s += dot(q2_4, Kc[d1 + 4u]);
    s += dot(q2_5, Kc[d1 + 5u]);
    s += dot(q2_6, Kc[d1 + 6u]);
    s += dot(q2_7, Kc[d1 + 7u]);
    s += dot(q2_8, Kc[d1 + 8u]);
    s += dot(q2_9, Kc[d1 + 9u]);
    s += dot(q2_10, Kc[d1 + 10u]);
    s += dot(q2_11, Kc[d1 + 11u]);
    s += dot(q2_12, Kc[d1 + 12u]);
    s += dot(q2_13, Kc[d1 + 13u]);
    s += dot(q2_14, Kc[d1 + 14u]);
    s += dot(q2_15, Kc[d1 + 15u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d1 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d1 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d1 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d1 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d1 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d1 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d1 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d1 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d1 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d1 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d1 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d1 + 11u]) * y;
    o2_12 = mat2x4<f32>(o2_12, Vc[d1 + 12u]) * y;
    o2_13 = mat2x4<f32>(o2_13, Vc[d1 + 13u]) * y;
    o2_14 = mat2x4<f32>(o2_14, Vc[d1 + 14u]) * y;
    o2_15 = mat2x4<f32>(o2_15, Vc[d1 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d2 + 0u]);
    s += dot(q2_1, Kc[d2 + 1u]);
    s += dot(q2_2, Kc[d2 + 2u]);
    s += dot(q2_3, Kc[d2 + 3u]);
    s += dot(q2_4, Kc[d2 + 4u]);
    s += dot(q2_5, Kc[d2 + 5u]);
    s += dot(q2_6, Kc[d2 + 6u]);
    s += dot(q2_7, Kc[d2 + 7u]);
    s += dot(q2_8, Kc[d2 + 8u]);
    s += dot(q2_9, Kc[d2 + 9u]);
    s += dot(q2_10, Kc[d2 + 10u]);
    s += dot(q2_11, Kc[d2 + 11u]);
    s += dot(q2_12, Kc[d2 + 12u]);
    s += dot(q2_13, Kc[d2 + 13u]);
    s += dot(q2_14, Kc[d2 + 14u]);
    s += dot(q2_15, Kc[d2 + 15u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d2 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d2 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d2 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d2 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d2 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d2 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d2 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d2 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d2 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d2 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d2 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d2 + 11u]) * y;
    o2_12 = mat2x4<f32>(o2_12, Vc[d2 + 12u]) * y;
    o2_13 = mat2x4<f32>(o2_13, Vc[d2 + 13u]) * y;
    o2_14 = mat2x4<f32>(o2_14, Vc[d2 + 14u]) * y;
    o2_15 = mat2x4<f32>(o2_15, Vc[d2 + 15u]) * y;
  }
  if (qq.live.x) {
    let inv0 = 1.0 / l0;
    O[qo0 + 0u] = o0_0 * inv0;
    O[qo0 + 1u] = o0_1 * inv0;
    O[qo0 + 2u] = o0_2 * inv0;
    O[qo0 + 3u] = o0_3 * inv0;
    O[qo0 + 4u] = o0_4 * inv0;
    O[qo0 + 5u] = o0_5 * inv0;
    O[qo0 + 6u] = o0_6 * inv0;
    O[qo0 + 7u] = o0_7 * inv0;
    O[qo0 + 8u] = o0_8 * inv0;
    O[qo0 + 9u] = o0_9 * inv0;
    O[qo0 + 10u] = o0_10 * inv0;
    O[qo0 + 11u] = o0_11 * inv0;
    O[qo0 + 12u] = o0_12 * inv0;
    O[qo0 + 13u] = o0_13 * inv0;
    O[qo0 + 14u] = o0_14 * inv0;
    O[qo0 + 15u] = o0_15 * inv0;
    LSE[r0] = m0 + log(l0);
  }
  if (qq.live.y) {
    let inv1 = 1.0 / l1;
    O[qo1 + 0u] = o1_0 * inv1;
    O[qo1 + 1u] = o1_1 * inv1;
    O[qo1 + 2u] = o1_2 * inv1;
    O[qo1 + 3u] = o1_3 * inv1;
    O[qo1 + 4u] = o1_4 * inv1;
    O[qo1 + 5u] = o1_5 * inv1;
    O[qo1 + 6u] = o1_6 * inv1;
    O[qo1 + 7u] = o1_7 * inv1;
    O[qo1 + 8u] = o1_8 * inv1;
    O[qo1 + 9u] = o1_9 * inv1;
    O[qo1 + 10u] = o1_10 * inv1;
    O[qo1 + 11u] = o1_11 * inv1;
    O[qo1 + 12u] = o1_12 * inv1;
    O[qo1 + 13u] = o1_13 * inv1;
    O[qo1 + 14u] = o1_14 * inv1;
    O[qo1 + 15u] = o1_15 * inv1;
    LSE[r1] = m1 + log(l1);
  }
  if (qq.live.z) {
    let inv2 = 1.0 / l2;
    O[qo2 + 0u] = o2_0 * inv2;
    O[qo2 + 1u] = o2_1 * inv2;
    O[qo2 + 2u] = o2_2 * inv2;
    O[qo2 + 3u] = o2_3 * inv2;
    O[qo2 + 4u] = o2_4 * inv2;
    O[qo2 + 5u] = o2_5 * inv2;
    O[qo2 + 6u] = o2_6 * inv2;
    O[qo2 + 7u] = o2_7 * inv2;
    O[qo2 + 8u] = o2_8 * inv2;
    O[qo2 + 9u] = o2_9 * inv2;
    O[qo2 + 10u] = o2_10 * inv2;
    O[qo2 + 11u] = o2_11 * inv2;
    O[qo2 + 12u] = o2_12 * inv2;
    O[qo2 + 13u] = o2_13 * inv2;
    O[qo2 + 14u] = o2_14 * inv2;
    O[qo2 + 15u] = o2_15 * inv2;
    LSE[r2] = m2 + log(l2);
  }
  if (qq.live.w) {
    let inv3 = 1.0 / l3;
    O[qo3 + 0u] = o3_0 * inv3;
    O[qo3 + 1u] = o3_1 * inv3;
    O[qo3 + 2u] = o3_2 * inv3;
    O[qo3 + 3u] = o3_3 * inv3;
    O[qo3 + 4u] = o3_4 * inv3;
    O[qo3 + 5u] = o3_5 * inv3;
    O[qo3 + 6u] = o3_6 * inv3;
    O[qo3 + 7u] = o3_7 * inv3;
    O[qo3 + 8u] = o3_8 * inv3;
    O[qo3 + 9u] = o3_9 * inv3;
    O[qo3 + 10u] = o3_10 * inv3;
    O[qo3 + 11u] = o3_11 * inv3;
    O[qo3 + 12u] = o3_12 * inv3;
    O[qo3 + 13u] = o3_13 * inv3;
    O[qo3 + 14u] = o3_14 * inv3;
    O[qo3 + 15u] = o3_15 * inv3;
    LSE[r3] = m3 + log(l3);
  }
}

@compute @workgroup_size(WG)
fn attn_train_hs64_lse_s(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pq, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let r0 = qq.rows.x; let qo0 = r0 * 16u;
  let q0_0 = Q[qo0 + 0u] * pq.scale; var o0_0 = vec4<f32>();
  let q0_1 = Q[qo0 + 1u] * pq.scale; var o0_1 = vec4<f32>();
  let q0_2 = Q[qo0 + 2u] * pq.scale; var o0_2 = vec4<f32>();
  let q0_3 = Q[qo0 + 3u] * pq.scale; var o0_3 = vec4<f32>();
  let q0_4 = Q[qo0 + 4u] * pq.scale; var o0_4 = vec4<f32>();
  let q0_5 = Q[qo0 + 5u] * pq.scale; var o0_5 = vec4<f32>();
  let q0_6 = Q[qo0 + 6u] * pq.scale; var o0_6 = vec4<f32>();
  let q0_7 = Q[qo0 + 7u] * pq.scale; var o0_7 = vec4<f32>();
  let q0_8 = Q[qo0 + 8u] * pq.scale; var o0_8 = vec4<f32>();
  let q0_9 = Q[qo0 + 9u] * pq.scale; var o0_9 = vec4<f32>();
  let q0_10 = Q[qo0 + 10u] * pq.scale; var o0_10 = vec4<f32>();
  let q0_11 = Q[qo0 + 11u] * pq.scale; var o0_11 = vec4<f32>();
  let q0_12 = Q[qo0 + 12u] * pq.scale; var o0_12 = vec4<f32>();
  let q0_13 = Q[qo0 + 13u] * pq.scale; var o0_13 = vec4<f32>();
  let q0_14 = Q[qo0 + 14u] * pq.scale; var o0_14 = vec4<f32>();
  let q0_15 = Q[qo0 + 15u] * pq.scale; var o0_15 = vec4<f32>();
  var m0 = NEG_BIG; var l0 = 0.0;
  let r1 = qq.rows.y; let qo1 = r1 * 16u;
  let q1_0 = Q[qo1 + 0u] * pq.scale; var o1_0 = vec4<f32>();
  let q1_1 = Q[qo1 + 1u] * pq.scale; var o1_1 = vec4<f32>();
  let q1_2 = Q[qo1 + 2u] * pq.scale; var o1_2 = vec4<f32>();
  let q1_3 = Q[qo1 + 3u] * pq.scale; var o1_3 = vec4<f32>();
  let q1_4 = Q[qo1 + 4u] * pq.scale; var o1_4 = vec4<f32>();
  let q1_5 = Q[qo1 + 5u] * pq.scale; var o1_5 = vec4<f32>();
  let q1_6 = Q[qo1 + 6u] * pq.scale; var o1_6 = vec4<f32>();
  let q1_7 = Q[qo1 + 7u] * pq.scale; var o1_7 = vec4<f32>();
  let q1_8 = Q[qo1 + 8u] * pq.scale; var o1_8 = vec4<f32>();
  let q1_9 = Q[qo1 + 9u] * pq.scale; var o1_9 = vec4<f32>();
  let q1_10 = Q[qo1 + 10u] * pq.scale; var o1_10 = vec4<f32>();
  let q1_11 = Q[qo1 + 11u] * pq.scale; var o1_11 = vec4<f32>();
  let q1_12 = Q[qo1 + 12u] * pq.scale; var o1_12 = vec4<f32>();
  let q1_13 = Q[qo1 + 13u] * pq.scale; var o1_13 = vec4<f32>();
  let q1_14 = Q[qo1 + 14u] * pq.scale; var o1_14 = vec4<f32>();
  let q1_15 = Q[qo1 + 15u] * pq.scale; var o1_15 = vec4<f32>();
  var m1 = NEG_BIG; var l1 = 0.0;
  let r2 = qq.rows.z; let qo2 = r2 * 16u;
  let q2_0 = Q[qo2 + 0u] * pq.scale; var o2_0 = vec4<f32>();
  let q2_1 = Q[qo2 + 1u] * pq.scale; var o2_1 = vec4<f32>();
  let q2_2 = Q[qo2 + 2u] * pq.scale; var o2_2 = vec4<f32>();
  let q2_3 = Q[qo2 + 3u] * pq.scale; var o2_3 = vec4<f32>();
  let q2_4 = Q[qo2 + 4u] * pq.scale; var o2_4 = vec4<f32>();
  let q2_5 = Q[qo2 + 5u] * pq.scale; var o2_5 = vec4<f32>();
  let q2_6 = Q[qo2 + 6u] * pq.scale; var o2_6 = vec4<f32>();
  let q2_7 = Q[qo2 + 7u] * pq.scale; var o2_7 = vec4<f32>();
  let q2_8 = Q[qo2 + 8u] * pq.scale; var o2_8 = vec4<f32>();
  let q2_9 = Q[qo2 + 9u] * pq.scale; var o2_9 = vec4<f32>();
  let q2_10 = Q[qo2 + 10u] * pq.scale; var o2_10 = vec4<f32>();
  let q2_11 = Q[qo2 + 11u] * pq.scale; var o2_11 = vec4<f32>();
  let q2_12 = Q[qo2 + 12u] * pq.scale; var o2_12 = vec4<f32>();
  let q2_13 = Q[qo2 + 13u] * pq.scale; var o2_13 = vec4<f32>();
  let q2_14 = Q[qo2 + 14u] * pq.scale; var o2_14 = vec4<f32>();
  let q2_15 = Q[qo2 + 15u] * pq.scale; var o2_15 = vec4<f32>();
  var m2 = NEG_BIG; var l2 = 0.0;
  let r3 = qq.rows.w; let qo3 = r3 * 16u;
  let q3_0 = Q[qo3 + 0u] * pq.scale; var o3_0 = vec4<f32>();
  let q3_1 = Q[qo3 + 1u] * pq.scale; var o3_1 = vec4<f32>();
  let q3_2 = Q[qo3 + 2u] * pq.scale; var o3_2 = vec4<f32>();
  let q3_3 = Q[qo3 + 3u] * pq.scale; var o3_3 = vec4<f32>();
  let q3_4 = Q[qo3 + 4u] * pq.scale; var o3_4 = vec4<f32>();
  let q3_5 = Q[qo3 + 5u] * pq.scale; var o3_5 = vec4<f32>();
  let q3_6 = Q[qo3 + 6u] * pq.scale; var o3_6 = vec4<f32>();
  let q3_7 = Q[qo3 + 7u] * pq.scale; var o3_7 = vec4<f32>();
  let q3_8 = Q[qo3 + 8u] * pq.scale; var o3_8 = vec4<f32>();
  let q3_9 = Q[qo3 + 9u] * pq.scale; var o3_9 = vec4<f32>();
  let q3_10 = Q[qo3 + 10u] * pq.scale; var o3_10 = vec4<f32>();
  let q3_11 = Q[qo3 + 11u] * pq.scale; var o3_11 = vec4<f32>();
  let q3_12 = Q[qo3 + 12u] * pq.scale; var o3_12 = vec4<f32>();
  let q3_13 = Q[qo3 + 13u] * pq.scale; var o3_13 = vec4<f32>();
  let q3_14 = Q[qo3 + 14u] * pq.scale; var o3_14 = vec4<f32>();
  let q3_15 = Q[qo3 + 15u] * pq.scale; var o3_15 = vec4<f32>();
  var m3 = NEG_BIG; var l3 = 0.0;
  // Row i0 + t of the (slot, head)'s score plane: line = cell / quads.
  let tp4 = 4u * ((pq.Tmax + 15u) / 16u);
  let so0 = ((qq.cell / ((pq.Tmax + 3u) / 4u)) * 4u * tp4 + qq.i0) * tp4;
  let so1 = so0 + tp4; let so2 = so1 + tp4; let so3 = so2 + tp4;
  // Keys below the quad: blocks of four for all four queries.
  for (var j = 0u; j < qq.i0; j += 4u) {
    let k0 = qq.base + j * 16u; let k1 = k0 + 16u; let k2 = k1 + 16u; let k3 = k2 + 16u;
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q0_0, Kc[k0 + 0u]), dot(q0_0, Kc[k1 + 0u]), dot(q0_0, Kc[k2 + 0u]), dot(q0_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q0_1, Kc[k0 + 1u]), dot(q0_1, Kc[k1 + 1u]), dot(q0_1, Kc[k2 + 1u]), dot(q0_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q0_2, Kc[k0 + 2u]), dot(q0_2, Kc[k1 + 2u]), dot(q0_2, Kc[k2 + 2u]), dot(q0_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q0_3, Kc[k0 + 3u]), dot(q0_3, Kc[k1 + 3u]), dot(q0_3, Kc[k2 + 3u]), dot(q0_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q0_4, Kc[k0 + 4u]), dot(q0_4, Kc[k1 + 4u]), dot(q0_4, Kc[k2 + 4u]), dot(q0_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q0_5, Kc[k0 + 5u]), dot(q0_5, Kc[k1 + 5u]), dot(q0_5, Kc[k2 + 5u]), dot(q0_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q0_6, Kc[k0 + 6u]), dot(q0_6, Kc[k1 + 6u]), dot(q0_6, Kc[k2 + 6u]), dot(q0_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q0_7, Kc[k0 + 7u]), dot(q0_7, Kc[k1 + 7u]), dot(q0_7, Kc[k2 + 7u]), dot(q0_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q0_8, Kc[k0 + 8u]), dot(q0_8, Kc[k1 + 8u]), dot(q0_8, Kc[k2 + 8u]), dot(q0_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q0_9, Kc[k0 + 9u]), dot(q0_9, Kc[k1 + 9u]), dot(q0_9, Kc[k2 + 9u]), dot(q0_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q0_10, Kc[k0 + 10u]), dot(q0_10, Kc[k1 + 10u]), dot(q0_10, Kc[k2 + 10u]), dot(q0_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q0_11, Kc[k0 + 11u]), dot(q0_11, Kc[k1 + 11u]), dot(q0_11, Kc[k2 + 11u]), dot(q0_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q0_12, Kc[k0 + 12u]), dot(q0_12, Kc[k1 + 12u]), dot(q0_12, Kc[k2 + 12u]), dot(q0_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q0_13, Kc[k0 + 13u]), dot(q0_13, Kc[k1 + 13u]), dot(q0_13, Kc[k2 + 13u]), dot(q0_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q0_14, Kc[k0 + 14u]), dot(q0_14, Kc[k1 + 14u]), dot(q0_14, Kc[k2 + 14u]), dot(q0_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q0_15, Kc[k0 + 15u]), dot(q0_15, Kc[k1 + 15u]), dot(q0_15, Kc[k2 + 15u]), dot(q0_15, Kc[k3 + 15u]));
      Sk[so0 + j / 4u] = s;
      let mn = max(m0, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m0 - mn); let e = exp(s - vec4<f32>(mn));
      l0 = l0 * a + (e.x + e.y) + (e.z + e.w); m0 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o0_0 = mat4x4<f32>(o0_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o0_1 = mat4x4<f32>(o0_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o0_2 = mat4x4<f32>(o0_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o0_3 = mat4x4<f32>(o0_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o0_4 = mat4x4<f32>(o0_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o0_5 = mat4x4<f32>(o0_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o0_6 = mat4x4<f32>(o0_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o0_7 = mat4x4<f32>(o0_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o0_8 = mat4x4<f32>(o0_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o0_9 = mat4x4<f32>(o0_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o0_10 = mat4x4<f32>(o0_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o0_11 = mat4x4<f32>(o0_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o0_12 = mat4x4<f32>(o0_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o0_13 = mat4x4<f32>(o0_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o0_14 = mat4x4<f32>(o0_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o0_15 = mat4x4<f32>(o0_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q1_0, Kc[k0 + 0u]), dot(q1_0, Kc[k1 + 0u]), dot(q1_0, Kc[k2 + 0u]), dot(q1_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q1_1, Kc[k0 + 1u]), dot(q1_1, Kc[k1 + 1u]), dot(q1_1, Kc[k2 + 1u]), dot(q1_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q1_2, Kc[k0 + 2u]), dot(q1_2, Kc[k1 + 2u]), dot(q1_2, Kc[k2 + 2u]), dot(q1_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q1_3, Kc[k0 + 3u]), dot(q1_3, Kc[k1 + 3u]), dot(q1_3, Kc[k2 + 3u]), dot(q1_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q1_4, Kc[k0 + 4u]), dot(q1_4, Kc[k1 + 4u]), dot(q1_4, Kc[k2 + 4u]), dot(q1_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q1_5, Kc[k0 + 5u]), dot(q1_5, Kc[k1 + 5u]), dot(q1_5, Kc[k2 + 5u]), dot(q1_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q1_6, Kc[k0 + 6u]), dot(q1_6, Kc[k1 + 6u]), dot(q1_6, Kc[k2 + 6u]), dot(q1_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q1_7, Kc[k0 + 7u]), dot(q1_7, Kc[k1 + 7u]), dot(q1_7, Kc[k2 + 7u]), dot(q1_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q1_8, Kc[k0 + 8u]), dot(q1_8, Kc[k1 + 8u]), dot(q1_8, Kc[k2 + 8u]), dot(q1_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q1_9, Kc[k0 + 9u]), dot(q1_9, Kc[k1 + 9u]), dot(q1_9, Kc[k2 + 9u]), dot(q1_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q1_10, Kc[k0 + 10u]), dot(q1_10, Kc[k1 + 10u]), dot(q1_10, Kc[k2 + 10u]), dot(q1_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q1_11, Kc[k0 + 11u]), dot(q1_11, Kc[k1 + 11u]), dot(q1_11, Kc[k2 + 11u]), dot(q1_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q1_12, Kc[k0 + 12u]), dot(q1_12, Kc[k1 + 12u]), dot(q1_12, Kc[k2 + 12u]), dot(q1_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q1_13, Kc[k0 + 13u]), dot(q1_13, Kc[k1 + 13u]), dot(q1_13, Kc[k2 + 13u]), dot(q1_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q1_14, Kc[k0 + 14u]), dot(q1_14, Kc[k1 + 14u]), dot(q1_14, Kc[k2 + 14u]), dot(q1_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q1_15, Kc[k0 + 15u]), dot(q1_15, Kc[k1 + 15u]), dot(q1_15, Kc[k2 + 15u]), dot(q1_15, Kc[k3 + 15u]));
      Sk[so1 + j / 4u] = s;
      let mn = max(m1, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m1 - mn); let e = exp(s - vec4<f32>(mn));
      l1 = l1 * a + (e.x + e.y) + (e.z + e.w); m1 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o1_0 = mat4x4<f32>(o1_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o1_1 = mat4x4<f32>(o1_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o1_2 = mat4x4<f32>(o1_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o1_3 = mat4x4<f32>(o1_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o1_4 = mat4x4<f32>(o1_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o1_5 = mat4x4<f32>(o1_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o1_6 = mat4x4<f32>(o1_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o1_7 = mat4x4<f32>(o1_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o1_8 = mat4x4<f32>(o1_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o1_9 = mat4x4<f32>(o1_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o1_10 = mat4x4<f32>(o1_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o1_11 = mat4x4<f32>(o1_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o1_12 = mat4x4<f32>(o1_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o1_13 = mat4x4<f32>(o1_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o1_14 = mat4x4<f32>(o1_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o1_15 = mat4x4<f32>(o1_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q2_0, Kc[k0 + 0u]), dot(q2_0, Kc[k1 + 0u]), dot(q2_0, Kc[k2 + 0u]), dot(q2_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q2_1, Kc[k0 + 1u]), dot(q2_1, Kc[k1 + 1u]), dot(q2_1, Kc[k2 + 1u]), dot(q2_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q2_2, Kc[k0 + 2u]), dot(q2_2, Kc[k1 + 2u]), dot(q2_2, Kc[k2 + 2u]), dot(q2_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q2_3, Kc[k0 + 3u]), dot(q2_3, Kc[k1 + 3u]), dot(q2_3, Kc[k2 + 3u]), dot(q2_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q2_4, Kc[k0 + 4u]), dot(q2_4, Kc[k1 + 4u]), dot(q2_4, Kc[k2 + 4u]), dot(q2_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q2_5, Kc[k0 + 5u]), dot(q2_5, Kc[k1 + 5u]), dot(q2_5, Kc[k2 + 5u]), dot(q2_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q2_6, Kc[k0 + 6u]), dot(q2_6, Kc[k1 + 6u]), dot(q2_6, Kc[k2 + 6u]), dot(q2_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q2_7, Kc[k0 + 7u]), dot(q2_7, Kc[k1 + 7u]), dot(q2_7, Kc[k2 + 7u]), dot(q2_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q2_8, Kc[k0 + 8u]), dot(q2_8, Kc[k1 + 8u]), dot(q2_8, Kc[k2 + 8u]), dot(q2_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q2_9, Kc[k0 + 9u]), dot(q2_9, Kc[k1 + 9u]), dot(q2_9, Kc[k2 + 9u]), dot(q2_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q2_10, Kc[k0 + 10u]), dot(q2_10, Kc[k1 + 10u]), dot(q2_10, Kc[k2 + 10u]), dot(q2_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q2_11, Kc[k0 + 11u]), dot(q2_11, Kc[k1 + 11u]), dot(q2_11, Kc[k2 + 11u]), dot(q2_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q2_12, Kc[k0 + 12u]), dot(q2_12, Kc[k1 + 12u]), dot(q2_12, Kc[k2 + 12u]), dot(q2_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q2_13, Kc[k0 + 13u]), dot(q2_13, Kc[k1 + 13u]), dot(q2_13, Kc[k2 + 13u]), dot(q2_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q2_14, Kc[k0 + 14u]), dot(q2_14, Kc[k1 + 14u]), dot(q2_14, Kc[k2 + 14u]), dot(q2_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q2_15, Kc[k0 + 15u]), dot(q2_15, Kc[k1 + 15u]), dot(q2_15, Kc[k2 + 15u]), dot(q2_15, Kc[k3 + 15u]));
      Sk[so2 + j / 4u] = s;
      let mn = max(m2, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m2 - mn); let e = exp(s - vec4<f32>(mn));
      l2 = l2 * a + (e.x + e.y) + (e.z + e.w); m2 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o2_0 = mat4x4<f32>(o2_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o2_1 = mat4x4<f32>(o2_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o2_2 = mat4x4<f32>(o2_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o2_3 = mat4x4<f32>(o2_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o2_4 = mat4x4<f32>(o2_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o2_5 = mat4x4<f32>(o2_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o2_6 = mat4x4<f32>(o2_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o2_7 = mat4x4<f32>(o2_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o2_8 = mat4x4<f32>(o2_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o2_9 = mat4x4<f32>(o2_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o2_10 = mat4x4<f32>(o2_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o2_11 = mat4x4<f32>(o2_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o2_12 = mat4x4<f32>(o2_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o2_13 = mat4x4<f32>(o2_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o2_14 = mat4x4<f32>(o2_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o2_15 = mat4x4<f32>(o2_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q3_0, Kc[k0 + 0u]), dot(q3_0, Kc[k1 + 0u]), dot(q3_0, Kc[k2 + 0u]), dot(q3_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q3_1, Kc[k0 + 1u]), dot(q3_1, Kc[k1 + 1u]), dot(q3_1, Kc[k2 + 1u]), dot(q3_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q3_2, Kc[k0 + 2u]), dot(q3_2, Kc[k1 + 2u]), dot(q3_2, Kc[k2 + 2u]), dot(q3_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q3_3, Kc[k0 + 3u]), dot(q3_3, Kc[k1 + 3u]), dot(q3_3, Kc[k2 + 3u]), dot(q3_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q3_4, Kc[k0 + 4u]), dot(q3_4, Kc[k1 + 4u]), dot(q3_4, Kc[k2 + 4u]), dot(q3_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q3_5, Kc[k0 + 5u]), dot(q3_5, Kc[k1 + 5u]), dot(q3_5, Kc[k2 + 5u]), dot(q3_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q3_6, Kc[k0 + 6u]), dot(q3_6, Kc[k1 + 6u]), dot(q3_6, Kc[k2 + 6u]), dot(q3_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q3_7, Kc[k0 + 7u]), dot(q3_7, Kc[k1 + 7u]), dot(q3_7, Kc[k2 + 7u]), dot(q3_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q3_8, Kc[k0 + 8u]), dot(q3_8, Kc[k1 + 8u]), dot(q3_8, Kc[k2 + 8u]), dot(q3_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q3_9, Kc[k0 + 9u]), dot(q3_9, Kc[k1 + 9u]), dot(q3_9, Kc[k2 + 9u]), dot(q3_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q3_10, Kc[k0 + 10u]), dot(q3_10, Kc[k1 + 10u]), dot(q3_10, Kc[k2 + 10u]), dot(q3_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q3_11, Kc[k0 + 11u]), dot(q3_11, Kc[k1 + 11u]), dot(q3_11, Kc[k2 + 11u]), dot(q3_11, Kc[k3 + 11u]));
      s += vec4<f32>(dot(q3_12, Kc[k0 + 12u]), dot(q3_12, Kc[k1 + 12u]), dot(q3_12, Kc[k2 + 12u]), dot(q3_12, Kc[k3 + 12u]));
      s += vec4<f32>(dot(q3_13, Kc[k0 + 13u]), dot(q3_13, Kc[k1 + 13u]), dot(q3_13, Kc[k2 + 13u]), dot(q3_13, Kc[k3 + 13u]));
      s += vec4<f32>(dot(q3_14, Kc[k0 + 14u]), dot(q3_14, Kc[k1 + 14u]), dot(q3_14, Kc[k2 + 14u]), dot(q3_14, Kc[k3 + 14u]));
      s += vec4<f32>(dot(q3_15, Kc[k0 + 15u]), dot(q3_15, Kc[k1 + 15u]), dot(q3_15, Kc[k2 + 15u]), dot(q3_15, Kc[k3 + 15u]));
      Sk[so3 + j / 4u] = s;
      let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
      l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o3_0 = mat4x4<f32>(o3_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o3_1 = mat4x4<f32>(o3_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o3_2 = mat4x4<f32>(o3_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o3_3 = mat4x4<f32>(o3_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o3_4 = mat4x4<f32>(o3_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o3_5 = mat4x4<f32>(o3_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o3_6 = mat4x4<f32>(o3_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o3_7 = mat4x4<f32>(o3_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o3_8 = mat4x4<f32>(o3_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o3_9 = mat4x4<f32>(o3_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o3_10 = mat4x4<f32>(o3_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o3_11 = mat4x4<f32>(o3_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
      o3_12 = mat4x4<f32>(o3_12, Vc[k0 + 12u], Vc[k1 + 12u], Vc[k2 + 12u]) * y + Vc[k3 + 12u] * e.w;
      o3_13 = mat4x4<f32>(o3_13, Vc[k0 + 13u], Vc[k1 + 13u], Vc[k2 + 13u]) * y + Vc[k3 + 13u] * e.w;
      o3_14 = mat4x4<f32>(o3_14, Vc[k0 + 14u], Vc[k1 + 14u], Vc[k2 + 14u]) * y + Vc[k3 + 14u] * e.w;
      o3_15 = mat4x4<f32>(o3_15, Vc[k0 + 15u], Vc[k1 + 15u], Vc[k2 + 15u]) * y + Vc[k3 + 15u] * e.w;
    }
  }
  // The quad's own keys as the row form takes them: position i0 + 3 a block of four, i0 + t
  // (t < 3) single keys i0 .. i0 + t. Key offsets stay inside the line (a query past the
  // length is not stored).
  let kl = qq.base + (qq.len - 1u) * 16u;
  let d0 = min(qq.base + qq.i0 * 16u, kl); let d1 = min(d0 + 16u, kl); let d2 = min(d0 + 32u, kl); let d3 = min(d0 + 48u, kl);
  var sd0 = vec4<f32>(); var sd1 = vec4<f32>(); var sd2 = vec4<f32>();
  { var s = vec4<f32>(0.0);
    s += vec4<f32>(dot(q3_0, Kc[d0 + 0u]), dot(q3_0, Kc[d1 + 0u]), dot(q3_0, Kc[d2 + 0u]), dot(q3_0, Kc[d3 + 0u]));
    s += vec4<f32>(dot(q3_1, Kc[d0 + 1u]), dot(q3_1, Kc[d1 + 1u]), dot(q3_1, Kc[d2 + 1u]), dot(q3_1, Kc[d3 + 1u]));
    s += vec4<f32>(dot(q3_2, Kc[d0 + 2u]), dot(q3_2, Kc[d1 + 2u]), dot(q3_2, Kc[d2 + 2u]), dot(q3_2, Kc[d3 + 2u]));
    s += vec4<f32>(dot(q3_3, Kc[d0 + 3u]), dot(q3_3, Kc[d1 + 3u]), dot(q3_3, Kc[d2 + 3u]), dot(q3_3, Kc[d3 + 3u]));
    s += vec4<f32>(dot(q3_4, Kc[d0 + 4u]), dot(q3_4, Kc[d1 + 4u]), dot(q3_4, Kc[d2 + 4u]), dot(q3_4, Kc[d3 + 4u]));
    s += vec4<f32>(dot(q3_5, Kc[d0 + 5u]), dot(q3_5, Kc[d1 + 5u]), dot(q3_5, Kc[d2 + 5u]), dot(q3_5, Kc[d3 + 5u]));
    s += vec4<f32>(dot(q3_6, Kc[d0 + 6u]), dot(q3_6, Kc[d1 + 6u]), dot(q3_6, Kc[d2 + 6u]), dot(q3_6, Kc[d3 + 6u]));
    s += vec4<f32>(dot(q3_7, Kc[d0 + 7u]), dot(q3_7, Kc[d1 + 7u]), dot(q3_7, Kc[d2 + 7u]), dot(q3_7, Kc[d3 + 7u]));
    s += vec4<f32>(dot(q3_8, Kc[d0 + 8u]), dot(q3_8, Kc[d1 + 8u]), dot(q3_8, Kc[d2 + 8u]), dot(q3_8, Kc[d3 + 8u]));
    s += vec4<f32>(dot(q3_9, Kc[d0 + 9u]), dot(q3_9, Kc[d1 + 9u]), dot(q3_9, Kc[d2 + 9u]), dot(q3_9, Kc[d3 + 9u]));
    s += vec4<f32>(dot(q3_10, Kc[d0 + 10u]), dot(q3_10, Kc[d1 + 10u]), dot(q3_10, Kc[d2 + 10u]), dot(q3_10, Kc[d3 + 10u]));
    s += vec4<f32>(dot(q3_11, Kc[d0 + 11u]), dot(q3_11, Kc[d1 + 11u]), dot(q3_11, Kc[d2 + 11u]), dot(q3_11, Kc[d3 + 11u]));
    s += vec4<f32>(dot(q3_12, Kc[d0 + 12u]), dot(q3_12, Kc[d1 + 12u]), dot(q3_12, Kc[d2 + 12u]), dot(q3_12, Kc[d3 + 12u]));
    s += vec4<f32>(dot(q3_13, Kc[d0 + 13u]), dot(q3_13, Kc[d1 + 13u]), dot(q3_13, Kc[d2 + 13u]), dot(q3_13, Kc[d3 + 13u]));
    s += vec4<f32>(dot(q3_14, Kc[d0 + 14u]), dot(q3_14, Kc[d1 + 14u]), dot(q3_14, Kc[d2 + 14u]), dot(q3_14, Kc[d3 + 14u]));
    s += vec4<f32>(dot(q3_15, Kc[d0 + 15u]), dot(q3_15, Kc[d1 + 15u]), dot(q3_15, Kc[d2 + 15u]), dot(q3_15, Kc[d3 + 15u]));
    Sk[so3 + qq.i0 / 4u] = s;
    let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
    let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
    l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
    let y = vec4<f32>(a, e.x, e.y, e.z);
    o3_0 = mat4x4<f32>(o3_0, Vc[d0 + 0u], Vc[d1 + 0u], Vc[d2 + 0u]) * y + Vc[d3 + 0u] * e.w;
    o3_1 = mat4x4<f32>(o3_1, Vc[d0 + 1u], Vc[d1 + 1u], Vc[d2 + 1u]) * y + Vc[d3 + 1u] * e.w;
    o3_2 = mat4x4<f32>(o3_2, Vc[d0 + 2u], Vc[d1 + 2u], Vc[d2 + 2u]) * y + Vc[d3 + 2u] * e.w;
    o3_3 = mat4x4<f32>(o3_3, Vc[d0 + 3u], Vc[d1 + 3u], Vc[d2 + 3u]) * y + Vc[d3 + 3u] * e.w;
    o3_4 = mat4x4<f32>(o3_4, Vc[d0 + 4u], Vc[d1 + 4u], Vc[d2 + 4u]) * y + Vc[d3 + 4u] * e.w;
    o3_5 = mat4x4<f32>(o3_5, Vc[d0 + 5u], Vc[d1 + 5u], Vc[d2 + 5u]) * y + Vc[d3 + 5u] * e.w;
    o3_6 = mat4x4<f32>(o3_6, Vc[d0 + 6u], Vc[d1 + 6u], Vc[d2 + 6u]) * y + Vc[d3 + 6u] * e.w;
    o3_7 = mat4x4<f32>(o3_7, Vc[d0 + 7u], Vc[d1 + 7u], Vc[d2 + 7u]) * y + Vc[d3 + 7u] * e.w;
    o3_8 = mat4x4<f32>(o3_8, Vc[d0 + 8u], Vc[d1 + 8u], Vc[d2 + 8u]) * y + Vc[d3 + 8u] * e.w;
    o3_9 = mat4x4<f32>(o3_9, Vc[d0 + 9u], Vc[d1 + 9u], Vc[d2 + 9u]) * y + Vc[d3 + 9u] * e.w;
    o3_10 = mat4x4<f32>(o3_10, Vc[d0 + 10u], Vc[d1 + 10u], Vc[d2 + 10u]) * y + Vc[d3 + 10u] * e.w;
    o3_11 = mat4x4<f32>(o3_11, Vc[d0 + 11u], Vc[d1 + 11u], Vc[d2 + 11u]) * y + Vc[d3 + 11u] * e.w;
    o3_12 = mat4x4<f32>(o3_12, Vc[d0 + 12u], Vc[d1 + 12u], Vc[d2 + 12u]) * y + Vc[d3 + 12u] * e.w;
    o3_13 = mat4x4<f32>(o3_13, Vc[d0 + 13u], Vc[d1 + 13u], Vc[d2 + 13u]) * y + Vc[d3 + 13u] * e.w;
    o3_14 = mat4x4<f32>(o3_14, Vc[d0 + 14u], Vc[d1 + 14u], Vc[d2 + 14u]) * y + Vc[d3 + 14u] * e.w;
    o3_15 = mat4x4<f32>(o3_15, Vc[d0 + 15u], Vc[d1 + 15u], Vc[d2 + 15u]) * y + Vc[d3 + 15u] * e.w;
  }
  { var s = 0.0;
    s += dot(q0_0, Kc[d0 + 0u]);
    s += dot(q0_1, Kc[d0 + 1u]);
    s += dot(q0_2, Kc[d0 + 2u]);
    s += dot(q0_3, Kc[d0 + 3u]);
    s += dot(q0_4, Kc[d0 + 4u]);
    s += dot(q0_5, Kc[d0 + 5u]);
    s += dot(q0_6, Kc[d0 + 6u]);
    s += dot(q0_7, Kc[d0 + 7u]);
    s += dot(q0_8, Kc[d0 + 8u]);
    s += dot(q0_9, Kc[d0 + 9u]);
    s += dot(q0_10, Kc[d0 + 10u]);
    s += dot(q0_11, Kc[d0 + 11u]);
    s += dot(q0_12, Kc[d0 + 12u]);
    s += dot(q0_13, Kc[d0 + 13u]);
    s += dot(q0_14, Kc[d0 + 14u]);
    s += dot(q0_15, Kc[d0 + 15u]);
    sd0.x = s;
    let mn = max(m0, s); let a = exp(m0 - mn); let e = exp(s - mn);
    l0 = l0 * a + e; m0 = mn;
    let y = vec2<f32>(a, e);
    o0_0 = mat2x4<f32>(o0_0, Vc[d0 + 0u]) * y;
    o0_1 = mat2x4<f32>(o0_1, Vc[d0 + 1u]) * y;
    o0_2 = mat2x4<f32>(o0_2, Vc[d0 + 2u]) * y;
    o0_3 = mat2x4<f32>(o0_3, Vc[d0 + 3u]) * y;
    o0_4 = mat2x4<f32>(o0_4, Vc[d0 + 4u]) * y;
    o0_5 = mat2x4<f32>(o0_5, Vc[d0 + 5u]) * y;
    o0_6 = mat2x4<f32>(o0_6, Vc[d0 + 6u]) * y;
    o0_7 = mat2x4<f32>(o0_7, Vc[d0 + 7u]) * y;
    o0_8 = mat2x4<f32>(o0_8, Vc[d0 + 8u]) * y;
    o0_9 = mat2x4<f32>(o0_9, Vc[d0 + 9u]) * y;
    o0_10 = mat2x4<f32>(o0_10, Vc[d0 + 10u]) * y;
    o0_11 = mat2x4<f32>(o0_11, Vc[d0 + 11u]) * y;
    o0_12 = mat2x4<f32>(o0_12, Vc[d0 + 12u]) * y;
    o0_13 = mat2x4<f32>(o0_13, Vc[d0 + 13u]) * y;
    o0_14 = mat2x4<f32>(o0_14, Vc[d0 + 14u]) * y;
    o0_15 = mat2x4<f32>(o0_15, Vc[d0 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d0 + 0u]);
    s += dot(q1_1, Kc[d0 + 1u]);
    s += dot(q1_2, Kc[d0 + 2u]);
    s += dot(q1_3, Kc[d0 + 3u]);
    s += dot(q1_4, Kc[d0 + 4u]);
    s += dot(q1_5, Kc[d0 + 5u]);
    s += dot(q1_6, Kc[d0 + 6u]);
    s += dot(q1_7, Kc[d0 + 7u]);
    s += dot(q1_8, Kc[d0 + 8u]);
    s += dot(q1_9, Kc[d0 + 9u]);
    s += dot(q1_10, Kc[d0 + 10u]);
    s += dot(q1_11, Kc[d0 + 11u]);
    s += dot(q1_12, Kc[d0 + 12u]);
    s += dot(q1_13, Kc[d0 + 13u]);
    s += dot(q1_14, Kc[d0 + 14u]);
    s += dot(q1_15, Kc[d0 + 15u]);
    sd1.x = s;
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d0 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d0 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d0 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d0 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d0 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d0 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d0 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d0 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d0 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d0 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d0 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d0 + 11u]) * y;
    o1_12 = mat2x4<f32>(o1_12, Vc[d0 + 12u]) * y;
    o1_13 = mat2x4<f32>(o1_13, Vc[d0 + 13u]) * y;
    o1_14 = mat2x4<f32>(o1_14, Vc[d0 + 14u]) * y;
    o1_15 = mat2x4<f32>(o1_15, Vc[d0 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d0 + 0u]);
    s += dot(q2_1, Kc[d0 + 1u]);
    s += dot(q2_2, Kc[d0 + 2u]);
    s += dot(q2_3, Kc[d0 + 3u]);
    s += dot(q2_4, Kc[d0 + 4u]);
    s += dot(q2_5, Kc[d0 + 5u]);
    s += dot(q2_6, Kc[d0 + 6u]);
    s += dot(q2_7, Kc[d0 + 7u]);
    s += dot(q2_8, Kc[d0 + 8u]);
    s += dot(q2_9, Kc[d0 + 9u]);
    s += dot(q2_10, Kc[d0 + 10u]);
    s += dot(q2_11, Kc[d0 + 11u]);
    s += dot(q2_12, Kc[d0 + 12u]);
    s += dot(q2_13, Kc[d0 + 13u]);
    s += dot(q2_14, Kc[d0 + 14u]);
    s += dot(q2_15, Kc[d0 + 15u]);
    sd2.x = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d0 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d0 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d0 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d0 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d0 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d0 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d0 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d0 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d0 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d0 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d0 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d0 + 11u]) * y;
    o2_12 = mat2x4<f32>(o2_12, Vc[d0 + 12u]) * y;
    o2_13 = mat2x4<f32>(o2_13, Vc[d0 + 13u]) * y;
    o2_14 = mat2x4<f32>(o2_14, Vc[d0 + 14u]) * y;
    o2_15 = mat2x4<f32>(o2_15, Vc[d0 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d1 + 0u]);
    s += dot(q1_1, Kc[d1 + 1u]);
    s += dot(q1_2, Kc[d1 + 2u]);
    s += dot(q1_3, Kc[d1 + 3u]);
    s += dot(q1_4, Kc[d1 + 4u]);
    s += dot(q1_5, Kc[d1 + 5u]);
    s += dot(q1_6, Kc[d1 + 6u]);
    s += dot(q1_7, Kc[d1 + 7u]);
    s += dot(q1_8, Kc[d1 + 8u]);
    s += dot(q1_9, Kc[d1 + 9u]);
    s += dot(q1_10, Kc[d1 + 10u]);
    s += dot(q1_11, Kc[d1 + 11u]);
    s += dot(q1_12, Kc[d1 + 12u]);
    s += dot(q1_13, Kc[d1 + 13u]);
    s += dot(q1_14, Kc[d1 + 14u]);
    s += dot(q1_15, Kc[d1 + 15u]);
    sd1.y = s;
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d1 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d1 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d1 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d1 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d1 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d1 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d1 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d1 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d1 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d1 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d1 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d1 + 11u]) * y;
    o1_12 = mat2x4<f32>(o1_12, Vc[d1 + 12u]) * y;
    o1_13 = mat2x4<f32>(o1_13, Vc[d1 + 13u]) * y;
    o1_14 = mat2x4<f32>(o1_14, Vc[d1 + 14u]) * y;
    o1_15 = mat2x4<f32>(o1_15, Vc[d1 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d1 + 0u]);
    s += dot(q2_1, Kc[d1 + 1u]);
    s += dot(q2_2, Kc[d1 + 2u]);
    s += dot(q2_3, Kc[d1 + 3u]);
    s += dot(q2_4, Kc[d1 + 4u]);
    s += dot(q2_5, Kc[d1 + 5u]);
    s += dot(q2_6, Kc[d1 + 6u]);
    s += dot(q2_7, Kc[d1 + 7u]);
    s += dot(q2_8, Kc[d1 + 8u]);
    s += dot(q2_9, Kc[d1 + 9u]);
    s += dot(q2_10, Kc[d1 + 10u]);
    s += dot(q2_11, Kc[d1 + 11u]);
    s += dot(q2_12, Kc[d1 + 12u]);
    s += dot(q2_13, Kc[d1 + 13u]);
    s += dot(q2_14, Kc[d1 + 14u]);
    s += dot(q2_15, Kc[d1 + 15u]);
    sd2.y = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d1 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d1 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d1 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d1 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d1 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d1 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d1 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d1 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d1 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d1 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d1 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d1 + 11u]) * y;
    o2_12 = mat2x4<f32>(o2_12, Vc[d1 + 12u]) * y;
    o2_13 = mat2x4<f32>(o2_13, Vc[d1 + 13u]) * y;
    o2_14 = mat2x4<f32>(o2_14, Vc[d1 + 14u]) * y;
    o2_15 = mat2x4<f32>(o2_15, Vc[d1 + 15u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d2 + 0u]);
    s += dot(q2_1, Kc[d2 + 1u]);
    s += dot(q2_2, Kc[d2 + 2u]);
    s += dot(q2_3, Kc[d2 + 3u]);
    s += dot(q2_4, Kc[d2 + 4u]);
    s += dot(q2_5, Kc[d2 + 5u]);
    s += dot(q2_6, Kc[d2 + 6u]);
    s += dot(q2_7, Kc[d2 + 7u]);
    s += dot(q2_8, Kc[d2 + 8u]);
    s += dot(q2_9, Kc[d2 + 9u]);
    s += dot(q2_10, Kc[d2 + 10u]);
    s += dot(q2_11, Kc[d2 + 11u]);
    s += dot(q2_12, Kc[d2 + 12u]);
    s += dot(q2_13, Kc[d2 + 13u]);
    s += dot(q2_14, Kc[d2 + 14u]);
    s += dot(q2_15, Kc[d2 + 15u]);
    sd2.z = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d2 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d2 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d2 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d2 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d2 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d2 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d2 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d2 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d2 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d2 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d2 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d2 + 11u]) * y;
    o2_12 = mat2x4<f32>(o2_12, Vc[d2 + 12u]) * y;
    o2_13 = mat2x4<f32>(o2_13, Vc[d2 + 13u]) * y;
    o2_14 = mat2x4<f32>(o2_14, Vc[d2 + 14u]) * y;
    o2_15 = mat2x4<f32>(o2_15, Vc[d2 + 15u]) * y;
  }
  Sk[so0 + qq.i0 / 4u] = sd0; Sk[so1 + qq.i0 / 4u] = sd1; Sk[so2 + qq.i0 / 4u] = sd2;
  if (qq.live.x) {
    let inv0 = 1.0 / l0;
    O[qo0 + 0u] = o0_0 * inv0;
    O[qo0 + 1u] = o0_1 * inv0;
    O[qo0 + 2u] = o0_2 * inv0;
    O[qo0 + 3u] = o0_3 * inv0;
    O[qo0 + 4u] = o0_4 * inv0;
    O[qo0 + 5u] = o0_5 * inv0;
    O[qo0 + 6u] = o0_6 * inv0;
    O[qo0 + 7u] = o0_7 * inv0;
    O[qo0 + 8u] = o0_8 * inv0;
    O[qo0 + 9u] = o0_9 * inv0;
    O[qo0 + 10u] = o0_10 * inv0;
    O[qo0 + 11u] = o0_11 * inv0;
    O[qo0 + 12u] = o0_12 * inv0;
    O[qo0 + 13u] = o0_13 * inv0;
    O[qo0 + 14u] = o0_14 * inv0;
    O[qo0 + 15u] = o0_15 * inv0;
    LSE[r0] = m0 + log(l0);
  }
  if (qq.live.y) {
    let inv1 = 1.0 / l1;
    O[qo1 + 0u] = o1_0 * inv1;
    O[qo1 + 1u] = o1_1 * inv1;
    O[qo1 + 2u] = o1_2 * inv1;
    O[qo1 + 3u] = o1_3 * inv1;
    O[qo1 + 4u] = o1_4 * inv1;
    O[qo1 + 5u] = o1_5 * inv1;
    O[qo1 + 6u] = o1_6 * inv1;
    O[qo1 + 7u] = o1_7 * inv1;
    O[qo1 + 8u] = o1_8 * inv1;
    O[qo1 + 9u] = o1_9 * inv1;
    O[qo1 + 10u] = o1_10 * inv1;
    O[qo1 + 11u] = o1_11 * inv1;
    O[qo1 + 12u] = o1_12 * inv1;
    O[qo1 + 13u] = o1_13 * inv1;
    O[qo1 + 14u] = o1_14 * inv1;
    O[qo1 + 15u] = o1_15 * inv1;
    LSE[r1] = m1 + log(l1);
  }
  if (qq.live.z) {
    let inv2 = 1.0 / l2;
    O[qo2 + 0u] = o2_0 * inv2;
    O[qo2 + 1u] = o2_1 * inv2;
    O[qo2 + 2u] = o2_2 * inv2;
    O[qo2 + 3u] = o2_3 * inv2;
    O[qo2 + 4u] = o2_4 * inv2;
    O[qo2 + 5u] = o2_5 * inv2;
    O[qo2 + 6u] = o2_6 * inv2;
    O[qo2 + 7u] = o2_7 * inv2;
    O[qo2 + 8u] = o2_8 * inv2;
    O[qo2 + 9u] = o2_9 * inv2;
    O[qo2 + 10u] = o2_10 * inv2;
    O[qo2 + 11u] = o2_11 * inv2;
    O[qo2 + 12u] = o2_12 * inv2;
    O[qo2 + 13u] = o2_13 * inv2;
    O[qo2 + 14u] = o2_14 * inv2;
    O[qo2 + 15u] = o2_15 * inv2;
    LSE[r2] = m2 + log(l2);
  }
  if (qq.live.w) {
    let inv3 = 1.0 / l3;
    O[qo3 + 0u] = o3_0 * inv3;
    O[qo3 + 1u] = o3_1 * inv3;
    O[qo3 + 2u] = o3_2 * inv3;
    O[qo3 + 3u] = o3_3 * inv3;
    O[qo3 + 4u] = o3_4 * inv3;
    O[qo3 + 5u] = o3_5 * inv3;
    O[qo3 + 6u] = o3_6 * inv3;
    O[qo3 + 7u] = o3_7 * inv3;
    O[qo3 + 8u] = o3_8 * inv3;
    O[qo3 + 9u] = o3_9 * inv3;
    O[qo3 + 10u] = o3_10 * inv3;
    O[qo3 + 11u] = o3_11 * inv3;
    O[qo3 + 12u] = o3_12 * inv3;
    O[qo3 + 13u] = o3_13 * inv3;
    O[qo3 + 14u] = o3_14 * inv3;
    O[qo3 + 15u] = o3_15 * inv3;
    LSE[r3] = m3 + log(l3);
  }
}

@compute @workgroup_size(WG)
fn attn_train_hs32_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let r0 = qq.rows.x; let qo0 = r0 * 8u;
  let q0_0 = Q[qo0 + 0u] * pl.scale; var o0_0 = vec4<f32>();
  let q0_1 = Q[qo0 + 1u] * pl.scale; var o0_1 = vec4<f32>();
  let q0_2 = Q[qo0 + 2u] * pl.scale; var o0_2 = vec4<f32>();
  let q0_3 = Q[qo0 + 3u] * pl.scale; var o0_3 = vec4<f32>();
  let q0_4 = Q[qo0 + 4u] * pl.scale; var o0_4 = vec4<f32>();
  let q0_5 = Q[qo0 + 5u] * pl.scale; var o0_5 = vec4<f32>();
  let q0_6 = Q[qo0 + 6u] * pl.scale; var o0_6 = vec4<f32>();
  let q0_7 = Q[qo0 + 7u] * pl.scale; var o0_7 = vec4<f32>();
  var m0 = NEG_BIG; var l0 = 0.0;
  let r1 = qq.rows.y; let qo1 = r1 * 8u;
  let q1_0 = Q[qo1 + 0u] * pl.scale; var o1_0 = vec4<f32>();
  let q1_1 = Q[qo1 + 1u] * pl.scale; var o1_1 = vec4<f32>();
  let q1_2 = Q[qo1 + 2u] * pl.scale; var o1_2 = vec4<f32>();
  let q1_3 = Q[qo1 + 3u] * pl.scale; var o1_3 = vec4<f32>();
  let q1_4 = Q[qo1 + 4u] * pl.scale; var o1_4 = vec4<f32>();
  let q1_5 = Q[qo1 + 5u] * pl.scale; var o1_5 = vec4<f32>();
  let q1_6 = Q[qo1 + 6u] * pl.scale; var o1_6 = vec4<f32>();
  let q1_7 = Q[qo1 + 7u] * pl.scale; var o1_7 = vec4<f32>();
  var m1 = NEG_BIG; var l1 = 0.0;
  let r2 = qq.rows.z; let qo2 = r2 * 8u;
  let q2_0 = Q[qo2 + 0u] * pl.scale; var o2_0 = vec4<f32>();
  let q2_1 = Q[qo2 + 1u] * pl.scale; var o2_1 = vec4<f32>();
  let q2_2 = Q[qo2 + 2u] * pl.scale; var o2_2 = vec4<f32>();
  let q2_3 = Q[qo2 + 3u] * pl.scale; var o2_3 = vec4<f32>();
  let q2_4 = Q[qo2 + 4u] * pl.scale; var o2_4 = vec4<f32>();
  let q2_5 = Q[qo2 + 5u] * pl.scale; var o2_5 = vec4<f32>();
  let q2_6 = Q[qo2 + 6u] * pl.scale; var o2_6 = vec4<f32>();
  let q2_7 = Q[qo2 + 7u] * pl.scale; var o2_7 = vec4<f32>();
  var m2 = NEG_BIG; var l2 = 0.0;
  let r3 = qq.rows.w; let qo3 = r3 * 8u;
  let q3_0 = Q[qo3 + 0u] * pl.scale; var o3_0 = vec4<f32>();
  let q3_1 = Q[qo3 + 1u] * pl.scale; var o3_1 = vec4<f32>();
  let q3_2 = Q[qo3 + 2u] * pl.scale; var o3_2 = vec4<f32>();
  let q3_3 = Q[qo3 + 3u] * pl.scale; var o3_3 = vec4<f32>();
  let q3_4 = Q[qo3 + 4u] * pl.scale; var o3_4 = vec4<f32>();
  let q3_5 = Q[qo3 + 5u] * pl.scale; var o3_5 = vec4<f32>();
  let q3_6 = Q[qo3 + 6u] * pl.scale; var o3_6 = vec4<f32>();
  let q3_7 = Q[qo3 + 7u] * pl.scale; var o3_7 = vec4<f32>();
  var m3 = NEG_BIG; var l3 = 0.0;
  // Keys below the quad: blocks of four for all four queries.
  for (var j = 0u; j < qq.i0; j += 4u) {
    let k0 = qq.base + j * 8u; let k1 = k0 + 8u; let k2 = k1 + 8u; let k3 = k2 + 8u;
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q0_0, Kc[k0 + 0u]), dot(q0_0, Kc[k1 + 0u]), dot(q0_0, Kc[k2 + 0u]), dot(q0_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q0_1, Kc[k0 + 1u]), dot(q0_1, Kc[k1 + 1u]), dot(q0_1, Kc[k2 + 1u]), dot(q0_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q0_2, Kc[k0 + 2u]), dot(q0_2, Kc[k1 + 2u]), dot(q0_2, Kc[k2 + 2u]), dot(q0_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q0_3, Kc[k0 + 3u]), dot(q0_3, Kc[k1 + 3u]), dot(q0_3, Kc[k2 + 3u]), dot(q0_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q0_4, Kc[k0 + 4u]), dot(q0_4, Kc[k1 + 4u]), dot(q0_4, Kc[k2 + 4u]), dot(q0_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q0_5, Kc[k0 + 5u]), dot(q0_5, Kc[k1 + 5u]), dot(q0_5, Kc[k2 + 5u]), dot(q0_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q0_6, Kc[k0 + 6u]), dot(q0_6, Kc[k1 + 6u]), dot(q0_6, Kc[k2 + 6u]), dot(q0_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q0_7, Kc[k0 + 7u]), dot(q0_7, Kc[k1 + 7u]), dot(q0_7, Kc[k2 + 7u]), dot(q0_7, Kc[k3 + 7u]));
      let mn = max(m0, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m0 - mn); let e = exp(s - vec4<f32>(mn));
      l0 = l0 * a + (e.x + e.y) + (e.z + e.w); m0 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o0_0 = mat4x4<f32>(o0_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o0_1 = mat4x4<f32>(o0_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o0_2 = mat4x4<f32>(o0_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o0_3 = mat4x4<f32>(o0_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o0_4 = mat4x4<f32>(o0_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o0_5 = mat4x4<f32>(o0_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o0_6 = mat4x4<f32>(o0_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o0_7 = mat4x4<f32>(o0_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q1_0, Kc[k0 + 0u]), dot(q1_0, Kc[k1 + 0u]), dot(q1_0, Kc[k2 + 0u]), dot(q1_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q1_1, Kc[k0 + 1u]), dot(q1_1, Kc[k1 + 1u]), dot(q1_1, Kc[k2 + 1u]), dot(q1_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q1_2, Kc[k0 + 2u]), dot(q1_2, Kc[k1 + 2u]), dot(q1_2, Kc[k2 + 2u]), dot(q1_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q1_3, Kc[k0 + 3u]), dot(q1_3, Kc[k1 + 3u]), dot(q1_3, Kc[k2 + 3u]), dot(q1_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q1_4, Kc[k0 + 4u]), dot(q1_4, Kc[k1 + 4u]), dot(q1_4, Kc[k2 + 4u]), dot(q1_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q1_5, Kc[k0 + 5u]), dot(q1_5, Kc[k1 + 5u]), dot(q1_5, Kc[k2 + 5u]), dot(q1_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q1_6, Kc[k0 + 6u]), dot(q1_6, Kc[k1 + 6u]), dot(q1_6, Kc[k2 + 6u]), dot(q1_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q1_7, Kc[k0 + 7u]), dot(q1_7, Kc[k1 + 7u]), dot(q1_7, Kc[k2 + 7u]), dot(q1_7, Kc[k3 + 7u]));
      let mn = max(m1, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m1 - mn); let e = exp(s - vec4<f32>(mn));
      l1 = l1 * a + (e.x + e.y) + (e.z + e.w); m1 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o1_0 = mat4x4<f32>(o1_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o1_1 = mat4x4<f32>(o1_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o1_2 = mat4x4<f32>(o1_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o1_3 = mat4x4<f32>(o1_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o1_4 = mat4x4<f32>(o1_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o1_5 = mat4x4<f32>(o1_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o1_6 = mat4x4<f32>(o1_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o1_7 = mat4x4<f32>(o1_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q2_0, Kc[k0 + 0u]), dot(q2_0, Kc[k1 + 0u]), dot(q2_0, Kc[k2 + 0u]), dot(q2_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q2_1, Kc[k0 + 1u]), dot(q2_1, Kc[k1 + 1u]), dot(q2_1, Kc[k2 + 1u]), dot(q2_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q2_2, Kc[k0 + 2u]), dot(q2_2, Kc[k1 + 2u]), dot(q2_2, Kc[k2 + 2u]), dot(q2_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q2_3, Kc[k0 + 3u]), dot(q2_3, Kc[k1 + 3u]), dot(q2_3, Kc[k2 + 3u]), dot(q2_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q2_4, Kc[k0 + 4u]), dot(q2_4, Kc[k1 + 4u]), dot(q2_4, Kc[k2 + 4u]), dot(q2_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q2_5, Kc[k0 + 5u]), dot(q2_5, Kc[k1 + 5u]), dot(q2_5, Kc[k2 + 5u]), dot(q2_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q2_6, Kc[k0 + 6u]), dot(q2_6, Kc[k1 + 6u]), dot(q2_6, Kc[k2 + 6u]), dot(q2_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q2_7, Kc[k0 + 7u]), dot(q2_7, Kc[k1 + 7u]), dot(q2_7, Kc[k2 + 7u]), dot(q2_7, Kc[k3 + 7u]));
      let mn = max(m2, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m2 - mn); let e = exp(s - vec4<f32>(mn));
      l2 = l2 * a + (e.x + e.y) + (e.z + e.w); m2 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o2_0 = mat4x4<f32>(o2_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o2_1 = mat4x4<f32>(o2_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o2_2 = mat4x4<f32>(o2_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o2_3 = mat4x4<f32>(o2_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o2_4 = mat4x4<f32>(o2_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o2_5 = mat4x4<f32>(o2_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o2_6 = mat4x4<f32>(o2_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o2_7 = mat4x4<f32>(o2_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q3_0, Kc[k0 + 0u]), dot(q3_0, Kc[k1 + 0u]), dot(q3_0, Kc[k2 + 0u]), dot(q3_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q3_1, Kc[k0 + 1u]), dot(q3_1, Kc[k1 + 1u]), dot(q3_1, Kc[k2 + 1u]), dot(q3_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q3_2, Kc[k0 + 2u]), dot(q3_2, Kc[k1 + 2u]), dot(q3_2, Kc[k2 + 2u]), dot(q3_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q3_3, Kc[k0 + 3u]), dot(q3_3, Kc[k1 + 3u]), dot(q3_3, Kc[k2 + 3u]), dot(q3_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q3_4, Kc[k0 + 4u]), dot(q3_4, Kc[k1 + 4u]), dot(q3_4, Kc[k2 + 4u]), dot(q3_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q3_5, Kc[k0 + 5u]), dot(q3_5, Kc[k1 + 5u]), dot(q3_5, Kc[k2 + 5u]), dot(q3_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q3_6, Kc[k0 + 6u]), dot(q3_6, Kc[k1 + 6u]), dot(q3_6, Kc[k2 + 6u]), dot(q3_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q3_7, Kc[k0 + 7u]), dot(q3_7, Kc[k1 + 7u]), dot(q3_7, Kc[k2 + 7u]), dot(q3_7, Kc[k3 + 7u]));
      let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
      l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o3_0 = mat4x4<f32>(o3_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o3_1 = mat4x4<f32>(o3_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o3_2 = mat4x4<f32>(o3_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o3_3 = mat4x4<f32>(o3_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o3_4 = mat4x4<f32>(o3_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o3_5 = mat4x4<f32>(o3_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o3_6 = mat4x4<f32>(o3_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o3_7 = mat4x4<f32>(o3_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
  }
  // The quad's own keys as the row form takes them: position i0 + 3 a block of four, i0 + t
  // (t < 3) single keys i0 .. i0 + t. Key offsets stay inside the line (a query past the
  // length is not stored).
  let kl = qq.base + (qq.len - 1u) * 8u;
  let d0 = min(qq.base + qq.i0 * 8u, kl); let d1 = min(d0 + 8u, kl); let d2 = min(d0 + 16u, kl); let d3 = min(d0 + 24u, kl);
  { var s = vec4<f32>(0.0);
    s += vec4<f32>(dot(q3_0, Kc[d0 + 0u]), dot(q3_0, Kc[d1 + 0u]), dot(q3_0, Kc[d2 + 0u]), dot(q3_0, Kc[d3 + 0u]));
    s += vec4<f32>(dot(q3_1, Kc[d0 + 1u]), dot(q3_1, Kc[d1 + 1u]), dot(q3_1, Kc[d2 + 1u]), dot(q3_1, Kc[d3 + 1u]));
    s += vec4<f32>(dot(q3_2, Kc[d0 + 2u]), dot(q3_2, Kc[d1 + 2u]), dot(q3_2, Kc[d2 + 2u]), dot(q3_2, Kc[d3 + 2u]));
    s += vec4<f32>(dot(q3_3, Kc[d0 + 3u]), dot(q3_3, Kc[d1 + 3u]), dot(q3_3, Kc[d2 + 3u]), dot(q3_3, Kc[d3 + 3u]));
    s += vec4<f32>(dot(q3_4, Kc[d0 + 4u]), dot(q3_4, Kc[d1 + 4u]), dot(q3_4, Kc[d2 + 4u]), dot(q3_4, Kc[d3 + 4u]));
    s += vec4<f32>(dot(q3_5, Kc[d0 + 5u]), dot(q3_5, Kc[d1 + 5u]), dot(q3_5, Kc[d2 + 5u]), dot(q3_5, Kc[d3 + 5u]));
    s += vec4<f32>(dot(q3_6, Kc[d0 + 6u]), dot(q3_6, Kc[d1 + 6u]), dot(q3_6, Kc[d2 + 6u]), dot(q3_6, Kc[d3 + 6u]));
    s += vec4<f32>(dot(q3_7, Kc[d0 + 7u]), dot(q3_7, Kc[d1 + 7u]), dot(q3_7, Kc[d2 + 7u]), dot(q3_7, Kc[d3 + 7u]));
    let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
    let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
    l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
    let y = vec4<f32>(a, e.x, e.y, e.z);
    o3_0 = mat4x4<f32>(o3_0, Vc[d0 + 0u], Vc[d1 + 0u], Vc[d2 + 0u]) * y + Vc[d3 + 0u] * e.w;
    o3_1 = mat4x4<f32>(o3_1, Vc[d0 + 1u], Vc[d1 + 1u], Vc[d2 + 1u]) * y + Vc[d3 + 1u] * e.w;
    o3_2 = mat4x4<f32>(o3_2, Vc[d0 + 2u], Vc[d1 + 2u], Vc[d2 + 2u]) * y + Vc[d3 + 2u] * e.w;
    o3_3 = mat4x4<f32>(o3_3, Vc[d0 + 3u], Vc[d1 + 3u], Vc[d2 + 3u]) * y + Vc[d3 + 3u] * e.w;
    o3_4 = mat4x4<f32>(o3_4, Vc[d0 + 4u], Vc[d1 + 4u], Vc[d2 + 4u]) * y + Vc[d3 + 4u] * e.w;
    o3_5 = mat4x4<f32>(o3_5, Vc[d0 + 5u], Vc[d1 + 5u], Vc[d2 + 5u]) * y + Vc[d3 + 5u] * e.w;
    o3_6 = mat4x4<f32>(o3_6, Vc[d0 + 6u], Vc[d1 + 6u], Vc[d2 + 6u]) * y + Vc[d3 + 6u] * e.w;
    o3_7 = mat4x4<f32>(o3_7, Vc[d0 + 7u], Vc[d1 + 7u], Vc[d2 + 7u]) * y + Vc[d3 + 7u] * e.w;
  }
  { var s = 0.0;
    s += dot(q0_0, Kc[d0 + 0u]);
    s += dot(q0_1, Kc[d0 + 1u]);
    s += dot(q0_2, Kc[d0 + 2u]);
    s += dot(q0_3, Kc[d0 + 3u]);
    s += dot(q0_4, Kc[d0 + 4u]);
    s += dot(q0_5, Kc[d0 + 5u]);
    s += dot(q0_6, Kc[d0 + 6u]);
    s += dot(q0_7, Kc[d0 + 7u]);
    let mn = max(m0, s); let a = exp(m0 - mn); let e = exp(s - mn);
    l0 = l0 * a + e; m0 = mn;
    let y = vec2<f32>(a, e);
    o0_0 = mat2x4<f32>(o0_0, Vc[d0 + 0u]) * y;
    o0_1 = mat2x4<f32>(o0_1, Vc[d0 + 1u]) * y;
    o0_2 = mat2x4<f32>(o0_2, Vc[d0 + 2u]) * y;
    o0_3 = mat2x4<f32>(o0_3, Vc[d0 + 3u]) * y;
    o0_4 = mat2x4<f32>(o0_4, Vc[d0 + 4u]) * y;
    o0_5 = mat2x4<f32>(o0_5, Vc[d0 + 5u]) * y;
    o0_6 = mat2x4<f32>(o0_6, Vc[d0 + 6u]) * y;
    o0_7 = mat2x4<f32>(o0_7, Vc[d0 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d0 + 0u]);
    s += dot(q1_1, Kc[d0 + 1u]);
    s += dot(q1_2, Kc[d0 + 2u]);
    s += dot(q1_3, Kc[d0 + 3u]);
    s += dot(q1_4, Kc[d0 + 4u]);
    s += dot(q1_5, Kc[d0 + 5u]);
    s += dot(q1_6, Kc[d0 + 6u]);
    s += dot(q1_7, Kc[d0 + 7u]);
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d0 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d0 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d0 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d0 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d0 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d0 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d0 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d0 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d0 + 0u]);
    s += dot(q2_1, Kc[d0 + 1u]);
    s += dot(q2_2, Kc[d0 + 2u]);
    s += dot(q2_3, Kc[d0 + 3u]);
    s += dot(q2_4, Kc[d0 + 4u]);
    s += dot(q2_5, Kc[d0 + 5u]);
    s += dot(q2_6, Kc[d0 + 6u]);
    s += dot(q2_7, Kc[d0 + 7u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d0 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d0 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d0 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d0 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d0 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d0 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d0 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d0 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d1 + 0u]);
    s += dot(q1_1, Kc[d1 + 1u]);
    s += dot(q1_2, Kc[d1 + 2u]);
    s += dot(q1_3, Kc[d1 + 3u]);
    s += dot(q1_4, Kc[d1 + 4u]);
    s += dot(q1_5, Kc[d1 + 5u]);
    s += dot(q1_6, Kc[d1 + 6u]);
    s += dot(q1_7, Kc[d1 + 7u]);
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d1 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d1 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d1 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d1 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d1 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d1 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d1 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d1 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d1 + 0u]);
    s += dot(q2_1, Kc[d1 + 1u]);
    s += dot(q2_2, Kc[d1 + 2u]);
    s += dot(q2_3, Kc[d1 + 3u]);
    s += dot(q2_4, Kc[d1 + 4u]);
    s += dot(q2_5, Kc[d1 + 5u]);
    s += dot(q2_6, Kc[d1 + 6u]);
    s += dot(q2_7, Kc[d1 + 7u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d1 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d1 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d1 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d1 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d1 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d1 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d1 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d1 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d2 + 0u]);
    s += dot(q2_1, Kc[d2 + 1u]);
    s += dot(q2_2, Kc[d2 + 2u]);
    s += dot(q2_3, Kc[d2 + 3u]);
    s += dot(q2_4, Kc[d2 + 4u]);
    s += dot(q2_5, Kc[d2 + 5u]);
    s += dot(q2_6, Kc[d2 + 6u]);
    s += dot(q2_7, Kc[d2 + 7u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d2 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d2 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d2 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d2 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d2 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d2 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d2 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d2 + 7u]) * y;
  }
  if (qq.live.x) {
    let inv0 = 1.0 / l0;
    O[qo0 + 0u] = o0_0 * inv0;
    O[qo0 + 1u] = o0_1 * inv0;
    O[qo0 + 2u] = o0_2 * inv0;
    O[qo0 + 3u] = o0_3 * inv0;
    O[qo0 + 4u] = o0_4 * inv0;
    O[qo0 + 5u] = o0_5 * inv0;
    O[qo0 + 6u] = o0_6 * inv0;
    O[qo0 + 7u] = o0_7 * inv0;
    LSE[r0] = m0 + log(l0);
  }
  if (qq.live.y) {
    let inv1 = 1.0 / l1;
    O[qo1 + 0u] = o1_0 * inv1;
    O[qo1 + 1u] = o1_1 * inv1;
    O[qo1 + 2u] = o1_2 * inv1;
    O[qo1 + 3u] = o1_3 * inv1;
    O[qo1 + 4u] = o1_4 * inv1;
    O[qo1 + 5u] = o1_5 * inv1;
    O[qo1 + 6u] = o1_6 * inv1;
    O[qo1 + 7u] = o1_7 * inv1;
    LSE[r1] = m1 + log(l1);
  }
  if (qq.live.z) {
    let inv2 = 1.0 / l2;
    O[qo2 + 0u] = o2_0 * inv2;
    O[qo2 + 1u] = o2_1 * inv2;
    O[qo2 + 2u] = o2_2 * inv2;
    O[qo2 + 3u] = o2_3 * inv2;
    O[qo2 + 4u] = o2_4 * inv2;
    O[qo2 + 5u] = o2_5 * inv2;
    O[qo2 + 6u] = o2_6 * inv2;
    O[qo2 + 7u] = o2_7 * inv2;
    LSE[r2] = m2 + log(l2);
  }
  if (qq.live.w) {
    let inv3 = 1.0 / l3;
    O[qo3 + 0u] = o3_0 * inv3;
    O[qo3 + 1u] = o3_1 * inv3;
    O[qo3 + 2u] = o3_2 * inv3;
    O[qo3 + 3u] = o3_3 * inv3;
    O[qo3 + 4u] = o3_4 * inv3;
    O[qo3 + 5u] = o3_5 * inv3;
    O[qo3 + 6u] = o3_6 * inv3;
    O[qo3 + 7u] = o3_7 * inv3;
    LSE[r3] = m3 + log(l3);
  }
}

@compute @workgroup_size(WG)
fn attn_train_hs32_lse_s(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pq, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let r0 = qq.rows.x; let qo0 = r0 * 8u;
  let q0_0 = Q[qo0 + 0u] * pq.scale; var o0_0 = vec4<f32>();
  let q0_1 = Q[qo0 + 1u] * pq.scale; var o0_1 = vec4<f32>();
  let q0_2 = Q[qo0 + 2u] * pq.scale; var o0_2 = vec4<f32>();
  let q0_3 = Q[qo0 + 3u] * pq.scale; var o0_3 = vec4<f32>();
  let q0_4 = Q[qo0 + 4u] * pq.scale; var o0_4 = vec4<f32>();
  let q0_5 = Q[qo0 + 5u] * pq.scale; var o0_5 = vec4<f32>();
  let q0_6 = Q[qo0 + 6u] * pq.scale; var o0_6 = vec4<f32>();
  let q0_7 = Q[qo0 + 7u] * pq.scale; var o0_7 = vec4<f32>();
  var m0 = NEG_BIG; var l0 = 0.0;
  let r1 = qq.rows.y; let qo1 = r1 * 8u;
  let q1_0 = Q[qo1 + 0u] * pq.scale; var o1_0 = vec4<f32>();
  let q1_1 = Q[qo1 + 1u] * pq.scale; var o1_1 = vec4<f32>();
  let q1_2 = Q[qo1 + 2u] * pq.scale; var o1_2 = vec4<f32>();
  let q1_3 = Q[qo1 + 3u] * pq.scale; var o1_3 = vec4<f32>();
  let q1_4 = Q[qo1 + 4u] * pq.scale; var o1_4 = vec4<f32>();
  let q1_5 = Q[qo1 + 5u] * pq.scale; var o1_5 = vec4<f32>();
  let q1_6 = Q[qo1 + 6u] * pq.scale; var o1_6 = vec4<f32>();
  let q1_7 = Q[qo1 + 7u] * pq.scale; var o1_7 = vec4<f32>();
  var m1 = NEG_BIG; var l1 = 0.0;
  let r2 = qq.rows.z; let qo2 = r2 * 8u;
  let q2_0 = Q[qo2 + 0u] * pq.scale; var o2_0 = vec4<f32>();
  let q2_1 = Q[qo2 + 1u] * pq.scale; var o2_1 = vec4<f32>();
  let q2_2 = Q[qo2 + 2u] * pq.scale; var o2_2 = vec4<f32>();
  let q2_3 = Q[qo2 + 3u] * pq.scale; var o2_3 = vec4<f32>();
  let q2_4 = Q[qo2 + 4u] * pq.scale; var o2_4 = vec4<f32>();
  let q2_5 = Q[qo2 + 5u] * pq.scale; var o2_5 = vec4<f32>();
  let q2_6 = Q[qo2 + 6u] * pq.scale; var o2_6 = vec4<f32>();
  let q2_7 = Q[qo2 + 7u] * pq.scale; var o2_7 = vec4<f32>();
  var m2 = NEG_BIG; var l2 = 0.0;
  let r3 = qq.rows.w; let qo3 = r3 * 8u;
  let q3_0 = Q[qo3 + 0u] * pq.scale; var o3_0 = vec4<f32>();
  let q3_1 = Q[qo3 + 1u] * pq.scale; var o3_1 = vec4<f32>();
  let q3_2 = Q[qo3 + 2u] * pq.scale; var o3_2 = vec4<f32>();
  let q3_3 = Q[qo3 + 3u] * pq.scale; var o3_3 = vec4<f32>();
  let q3_4 = Q[qo3 + 4u] * pq.scale; var o3_4 = vec4<f32>();
  let q3_5 = Q[qo3 + 5u] * pq.scale; var o3_5 = vec4<f32>();
  let q3_6 = Q[qo3 + 6u] * pq.scale; var o3_6 = vec4<f32>();
  let q3_7 = Q[qo3 + 7u] * pq.scale; var o3_7 = vec4<f32>();
  var m3 = NEG_BIG; var l3 = 0.0;
  // Row i0 + t of the (slot, head)'s score plane: line = cell / quads.
  let tp4 = 4u * ((pq.Tmax + 15u) / 16u);
  let so0 = ((qq.cell / ((pq.Tmax + 3u) / 4u)) * 4u * tp4 + qq.i0) * tp4;
  let so1 = so0 + tp4; let so2 = so1 + tp4; let so3 = so2 + tp4;
  // Keys below the quad: blocks of four for all four queries.
  for (var j = 0u; j < qq.i0; j += 4u) {
    let k0 = qq.base + j * 8u; let k1 = k0 + 8u; let k2 = k1 + 8u; let k3 = k2 + 8u;
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q0_0, Kc[k0 + 0u]), dot(q0_0, Kc[k1 + 0u]), dot(q0_0, Kc[k2 + 0u]), dot(q0_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q0_1, Kc[k0 + 1u]), dot(q0_1, Kc[k1 + 1u]), dot(q0_1, Kc[k2 + 1u]), dot(q0_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q0_2, Kc[k0 + 2u]), dot(q0_2, Kc[k1 + 2u]), dot(q0_2, Kc[k2 + 2u]), dot(q0_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q0_3, Kc[k0 + 3u]), dot(q0_3, Kc[k1 + 3u]), dot(q0_3, Kc[k2 + 3u]), dot(q0_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q0_4, Kc[k0 + 4u]), dot(q0_4, Kc[k1 + 4u]), dot(q0_4, Kc[k2 + 4u]), dot(q0_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q0_5, Kc[k0 + 5u]), dot(q0_5, Kc[k1 + 5u]), dot(q0_5, Kc[k2 + 5u]), dot(q0_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q0_6, Kc[k0 + 6u]), dot(q0_6, Kc[k1 + 6u]), dot(q0_6, Kc[k2 + 6u]), dot(q0_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q0_7, Kc[k0 + 7u]), dot(q0_7, Kc[k1 + 7u]), dot(q0_7, Kc[k2 + 7u]), dot(q0_7, Kc[k3 + 7u]));
      Sk[so0 + j / 4u] = s;
      let mn = max(m0, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m0 - mn); let e = exp(s - vec4<f32>(mn));
      l0 = l0 * a + (e.x + e.y) + (e.z + e.w); m0 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o0_0 = mat4x4<f32>(o0_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o0_1 = mat4x4<f32>(o0_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o0_2 = mat4x4<f32>(o0_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o0_3 = mat4x4<f32>(o0_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o0_4 = mat4x4<f32>(o0_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o0_5 = mat4x4<f32>(o0_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o0_6 = mat4x4<f32>(o0_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o0_7 = mat4x4<f32>(o0_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q1_0, Kc[k0 + 0u]), dot(q1_0, Kc[k1 + 0u]), dot(q1_0, Kc[k2 + 0u]), dot(q1_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q1_1, Kc[k0 + 1u]), dot(q1_1, Kc[k1 + 1u]), dot(q1_1, Kc[k2 + 1u]), dot(q1_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q1_2, Kc[k0 + 2u]), dot(q1_2, Kc[k1 + 2u]), dot(q1_2, Kc[k2 + 2u]), dot(q1_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q1_3, Kc[k0 + 3u]), dot(q1_3, Kc[k1 + 3u]), dot(q1_3, Kc[k2 + 3u]), dot(q1_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q1_4, Kc[k0 + 4u]), dot(q1_4, Kc[k1 + 4u]), dot(q1_4, Kc[k2 + 4u]), dot(q1_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q1_5, Kc[k0 + 5u]), dot(q1_5, Kc[k1 + 5u]), dot(q1_5, Kc[k2 + 5u]), dot(q1_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q1_6, Kc[k0 + 6u]), dot(q1_6, Kc[k1 + 6u]), dot(q1_6, Kc[k2 + 6u]), dot(q1_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q1_7, Kc[k0 + 7u]), dot(q1_7, Kc[k1 + 7u]), dot(q1_7, Kc[k2 + 7u]), dot(q1_7, Kc[k3 + 7u]));
      Sk[so1 + j / 4u] = s;
      let mn = max(m1, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m1 - mn); let e = exp(s - vec4<f32>(mn));
      l1 = l1 * a + (e.x + e.y) + (e.z + e.w); m1 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o1_0 = mat4x4<f32>(o1_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o1_1 = mat4x4<f32>(o1_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o1_2 = mat4x4<f32>(o1_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o1_3 = mat4x4<f32>(o1_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o1_4 = mat4x4<f32>(o1_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o1_5 = mat4x4<f32>(o1_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o1_6 = mat4x4<f32>(o1_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o1_7 = mat4x4<f32>(o1_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q2_0, Kc[k0 + 0u]), dot(q2_0, Kc[k1 + 0u]), dot(q2_0, Kc[k2 + 0u]), dot(q2_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q2_1, Kc[k0 + 1u]), dot(q2_1, Kc[k1 + 1u]), dot(q2_1, Kc[k2 + 1u]), dot(q2_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q2_2, Kc[k0 + 2u]), dot(q2_2, Kc[k1 + 2u]), dot(q2_2, Kc[k2 + 2u]), dot(q2_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q2_3, Kc[k0 + 3u]), dot(q2_3, Kc[k1 + 3u]), dot(q2_3, Kc[k2 + 3u]), dot(q2_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q2_4, Kc[k0 + 4u]), dot(q2_4, Kc[k1 + 4u]), dot(q2_4, Kc[k2 + 4u]), dot(q2_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q2_5, Kc[k0 + 5u]), dot(q2_5, Kc[k1 + 5u]), dot(q2_5, Kc[k2 + 5u]), dot(q2_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q2_6, Kc[k0 + 6u]), dot(q2_6, Kc[k1 + 6u]), dot(q2_6, Kc[k2 + 6u]), dot(q2_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q2_7, Kc[k0 + 7u]), dot(q2_7, Kc[k1 + 7u]), dot(q2_7, Kc[k2 + 7u]), dot(q2_7, Kc[k3 + 7u]));
      Sk[so2 + j / 4u] = s;
      let mn = max(m2, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m2 - mn); let e = exp(s - vec4<f32>(mn));
      l2 = l2 * a + (e.x + e.y) + (e.z + e.w); m2 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o2_0 = mat4x4<f32>(o2_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o2_1 = mat4x4<f32>(o2_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o2_2 = mat4x4<f32>(o2_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o2_3 = mat4x4<f32>(o2_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o2_4 = mat4x4<f32>(o2_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o2_5 = mat4x4<f32>(o2_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o2_6 = mat4x4<f32>(o2_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o2_7 = mat4x4<f32>(o2_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q3_0, Kc[k0 + 0u]), dot(q3_0, Kc[k1 + 0u]), dot(q3_0, Kc[k2 + 0u]), dot(q3_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q3_1, Kc[k0 + 1u]), dot(q3_1, Kc[k1 + 1u]), dot(q3_1, Kc[k2 + 1u]), dot(q3_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q3_2, Kc[k0 + 2u]), dot(q3_2, Kc[k1 + 2u]), dot(q3_2, Kc[k2 + 2u]), dot(q3_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q3_3, Kc[k0 + 3u]), dot(q3_3, Kc[k1 + 3u]), dot(q3_3, Kc[k2 + 3u]), dot(q3_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q3_4, Kc[k0 + 4u]), dot(q3_4, Kc[k1 + 4u]), dot(q3_4, Kc[k2 + 4u]), dot(q3_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q3_5, Kc[k0 + 5u]), dot(q3_5, Kc[k1 + 5u]), dot(q3_5, Kc[k2 + 5u]), dot(q3_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q3_6, Kc[k0 + 6u]), dot(q3_6, Kc[k1 + 6u]), dot(q3_6, Kc[k2 + 6u]), dot(q3_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q3_7, Kc[k0 + 7u]), dot(q3_7, Kc[k1 + 7u]), dot(q3_7, Kc[k2 + 7u]), dot(q3_7, Kc[k3 + 7u]));
      Sk[so3 + j / 4u] = s;
      let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
      l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o3_0 = mat4x4<f32>(o3_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o3_1 = mat4x4<f32>(o3_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o3_2 = mat4x4<f32>(o3_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o3_3 = mat4x4<f32>(o3_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o3_4 = mat4x4<f32>(o3_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o3_5 = mat4x4<f32>(o3_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o3_6 = mat4x4<f32>(o3_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o3_7 = mat4x4<f32>(o3_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
    }
  }
  // The quad's own keys as the row form takes them: position i0 + 3 a block of four, i0 + t
  // (t < 3) single keys i0 .. i0 + t. Key offsets stay inside the line (a query past the
  // length is not stored).
  let kl = qq.base + (qq.len - 1u) * 8u;
  let d0 = min(qq.base + qq.i0 * 8u, kl); let d1 = min(d0 + 8u, kl); let d2 = min(d0 + 16u, kl); let d3 = min(d0 + 24u, kl);
  var sd0 = vec4<f32>(); var sd1 = vec4<f32>(); var sd2 = vec4<f32>();
  { var s = vec4<f32>(0.0);
    s += vec4<f32>(dot(q3_0, Kc[d0 + 0u]), dot(q3_0, Kc[d1 + 0u]), dot(q3_0, Kc[d2 + 0u]), dot(q3_0, Kc[d3 + 0u]));
    s += vec4<f32>(dot(q3_1, Kc[d0 + 1u]), dot(q3_1, Kc[d1 + 1u]), dot(q3_1, Kc[d2 + 1u]), dot(q3_1, Kc[d3 + 1u]));
    s += vec4<f32>(dot(q3_2, Kc[d0 + 2u]), dot(q3_2, Kc[d1 + 2u]), dot(q3_2, Kc[d2 + 2u]), dot(q3_2, Kc[d3 + 2u]));
    s += vec4<f32>(dot(q3_3, Kc[d0 + 3u]), dot(q3_3, Kc[d1 + 3u]), dot(q3_3, Kc[d2 + 3u]), dot(q3_3, Kc[d3 + 3u]));
    s += vec4<f32>(dot(q3_4, Kc[d0 + 4u]), dot(q3_4, Kc[d1 + 4u]), dot(q3_4, Kc[d2 + 4u]), dot(q3_4, Kc[d3 + 4u]));
    s += vec4<f32>(dot(q3_5, Kc[d0 + 5u]), dot(q3_5, Kc[d1 + 5u]), dot(q3_5, Kc[d2 + 5u]), dot(q3_5, Kc[d3 + 5u]));
    s += vec4<f32>(dot(q3_6, Kc[d0 + 6u]), dot(q3_6, Kc[d1 + 6u]), dot(q3_6, Kc[d2 + 6u]), dot(q3_6, Kc[d3 + 6u]));
    s += vec4<f32>(dot(q3_7, Kc[d0 + 7u]), dot(q3_7, Kc[d1 + 7u]), dot(q3_7, Kc[d2 + 7u]), dot(q3_7, Kc[d3 + 7u]));
    Sk[so3 + qq.i0 / 4u] = s;
    let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
    let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
    l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
    let y = vec4<f32>(a, e.x, e.y, e.z);
    o3_0 = mat4x4<f32>(o3_0, Vc[d0 + 0u], Vc[d1 + 0u], Vc[d2 + 0u]) * y + Vc[d3 + 0u] * e.w;
    o3_1 = mat4x4<f32>(o3_1, Vc[d0 + 1u], Vc[d1 + 1u], Vc[d2 + 1u]) * y + Vc[d3 + 1u] * e.w;
    o3_2 = mat4x4<f32>(o3_2, Vc[d0 + 2u], Vc[d1 + 2u], Vc[d2 + 2u]) * y + Vc[d3 + 2u] * e.w;
    o3_3 = mat4x4<f32>(o3_3, Vc[d0 + 3u], Vc[d1 + 3u], Vc[d2 + 3u]) * y + Vc[d3 + 3u] * e.w;
    o3_4 = mat4x4<f32>(o3_4, Vc[d0 + 4u], Vc[d1 + 4u], Vc[d2 + 4u]) * y + Vc[d3 + 4u] * e.w;
    o3_5 = mat4x4<f32>(o3_5, Vc[d0 + 5u], Vc[d1 + 5u], Vc[d2 + 5u]) * y + Vc[d3 + 5u] * e.w;
    o3_6 = mat4x4<f32>(o3_6, Vc[d0 + 6u], Vc[d1 + 6u], Vc[d2 + 6u]) * y + Vc[d3 + 6u] * e.w;
    o3_7 = mat4x4<f32>(o3_7, Vc[d0 + 7u], Vc[d1 + 7u], Vc[d2 + 7u]) * y + Vc[d3 + 7u] * e.w;
  }
  { var s = 0.0;
    s += dot(q0_0, Kc[d0 + 0u]);
    s += dot(q0_1, Kc[d0 + 1u]);
    s += dot(q0_2, Kc[d0 + 2u]);
    s += dot(q0_3, Kc[d0 + 3u]);
    s += dot(q0_4, Kc[d0 + 4u]);
    s += dot(q0_5, Kc[d0 + 5u]);
    s += dot(q0_6, Kc[d0 + 6u]);
    s += dot(q0_7, Kc[d0 + 7u]);
    sd0.x = s;
    let mn = max(m0, s); let a = exp(m0 - mn); let e = exp(s - mn);
    l0 = l0 * a + e; m0 = mn;
    let y = vec2<f32>(a, e);
    o0_0 = mat2x4<f32>(o0_0, Vc[d0 + 0u]) * y;
    o0_1 = mat2x4<f32>(o0_1, Vc[d0 + 1u]) * y;
    o0_2 = mat2x4<f32>(o0_2, Vc[d0 + 2u]) * y;
    o0_3 = mat2x4<f32>(o0_3, Vc[d0 + 3u]) * y;
    o0_4 = mat2x4<f32>(o0_4, Vc[d0 + 4u]) * y;
    o0_5 = mat2x4<f32>(o0_5, Vc[d0 + 5u]) * y;
    o0_6 = mat2x4<f32>(o0_6, Vc[d0 + 6u]) * y;
    o0_7 = mat2x4<f32>(o0_7, Vc[d0 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d0 + 0u]);
    s += dot(q1_1, Kc[d0 + 1u]);
    s += dot(q1_2, Kc[d0 + 2u]);
    s += dot(q1_3, Kc[d0 + 3u]);
    s += dot(q1_4, Kc[d0 + 4u]);
    s += dot(q1_5, Kc[d0 + 5u]);
    s += dot(q1_6, Kc[d0 + 6u]);
    s += dot(q1_7, Kc[d0 + 7u]);
    sd1.x = s;
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d0 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d0 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d0 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d0 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d0 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d0 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d0 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d0 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d0 + 0u]);
    s += dot(q2_1, Kc[d0 + 1u]);
    s += dot(q2_2, Kc[d0 + 2u]);
    s += dot(q2_3, Kc[d0 + 3u]);
    s += dot(q2_4, Kc[d0 + 4u]);
    s += dot(q2_5, Kc[d0 + 5u]);
    s += dot(q2_6, Kc[d0 + 6u]);
    s += dot(q2_7, Kc[d0 + 7u]);
    sd2.x = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d0 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d0 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d0 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d0 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d0 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d0 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d0 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d0 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d1 + 0u]);
    s += dot(q1_1, Kc[d1 + 1u]);
    s += dot(q1_2, Kc[d1 + 2u]);
    s += dot(q1_3, Kc[d1 + 3u]);
    s += dot(q1_4, Kc[d1 + 4u]);
    s += dot(q1_5, Kc[d1 + 5u]);
    s += dot(q1_6, Kc[d1 + 6u]);
    s += dot(q1_7, Kc[d1 + 7u]);
    sd1.y = s;
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d1 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d1 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d1 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d1 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d1 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d1 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d1 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d1 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d1 + 0u]);
    s += dot(q2_1, Kc[d1 + 1u]);
    s += dot(q2_2, Kc[d1 + 2u]);
    s += dot(q2_3, Kc[d1 + 3u]);
    s += dot(q2_4, Kc[d1 + 4u]);
    s += dot(q2_5, Kc[d1 + 5u]);
    s += dot(q2_6, Kc[d1 + 6u]);
    s += dot(q2_7, Kc[d1 + 7u]);
    sd2.y = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d1 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d1 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d1 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d1 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d1 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d1 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d1 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d1 + 7u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d2 + 0u]);
    s += dot(q2_1, Kc[d2 + 1u]);
    s += dot(q2_2, Kc[d2 + 2u]);
    s += dot(q2_3, Kc[d2 + 3u]);
    s += dot(q2_4, Kc[d2 + 4u]);
    s += dot(q2_5, Kc[d2 + 5u]);
    s += dot(q2_6, Kc[d2 + 6u]);
    s += dot(q2_7, Kc[d2 + 7u]);
    sd2.z = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d2 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d2 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d2 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d2 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d2 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d2 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d2 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d2 + 7u]) * y;
  }
  Sk[so0 + qq.i0 / 4u] = sd0; Sk[so1 + qq.i0 / 4u] = sd1; Sk[so2 + qq.i0 / 4u] = sd2;
  if (qq.live.x) {
    let inv0 = 1.0 / l0;
    O[qo0 + 0u] = o0_0 * inv0;
    O[qo0 + 1u] = o0_1 * inv0;
    O[qo0 + 2u] = o0_2 * inv0;
    O[qo0 + 3u] = o0_3 * inv0;
    O[qo0 + 4u] = o0_4 * inv0;
    O[qo0 + 5u] = o0_5 * inv0;
    O[qo0 + 6u] = o0_6 * inv0;
    O[qo0 + 7u] = o0_7 * inv0;
    LSE[r0] = m0 + log(l0);
  }
  if (qq.live.y) {
    let inv1 = 1.0 / l1;
    O[qo1 + 0u] = o1_0 * inv1;
    O[qo1 + 1u] = o1_1 * inv1;
    O[qo1 + 2u] = o1_2 * inv1;
    O[qo1 + 3u] = o1_3 * inv1;
    O[qo1 + 4u] = o1_4 * inv1;
    O[qo1 + 5u] = o1_5 * inv1;
    O[qo1 + 6u] = o1_6 * inv1;
    O[qo1 + 7u] = o1_7 * inv1;
    LSE[r1] = m1 + log(l1);
  }
  if (qq.live.z) {
    let inv2 = 1.0 / l2;
    O[qo2 + 0u] = o2_0 * inv2;
    O[qo2 + 1u] = o2_1 * inv2;
    O[qo2 + 2u] = o2_2 * inv2;
    O[qo2 + 3u] = o2_3 * inv2;
    O[qo2 + 4u] = o2_4 * inv2;
    O[qo2 + 5u] = o2_5 * inv2;
    O[qo2 + 6u] = o2_6 * inv2;
    O[qo2 + 7u] = o2_7 * inv2;
    LSE[r2] = m2 + log(l2);
  }
  if (qq.live.w) {
    let inv3 = 1.0 / l3;
    O[qo3 + 0u] = o3_0 * inv3;
    O[qo3 + 1u] = o3_1 * inv3;
    O[qo3 + 2u] = o3_2 * inv3;
    O[qo3 + 3u] = o3_3 * inv3;
    O[qo3 + 4u] = o3_4 * inv3;
    O[qo3 + 5u] = o3_5 * inv3;
    O[qo3 + 6u] = o3_6 * inv3;
    O[qo3 + 7u] = o3_7 * inv3;
    LSE[r3] = m3 + log(l3);
  }
}

@compute @workgroup_size(WG)
fn attn_train_hs48_lse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let r0 = qq.rows.x; let qo0 = r0 * 12u;
  let q0_0 = Q[qo0 + 0u] * pl.scale; var o0_0 = vec4<f32>();
  let q0_1 = Q[qo0 + 1u] * pl.scale; var o0_1 = vec4<f32>();
  let q0_2 = Q[qo0 + 2u] * pl.scale; var o0_2 = vec4<f32>();
  let q0_3 = Q[qo0 + 3u] * pl.scale; var o0_3 = vec4<f32>();
  let q0_4 = Q[qo0 + 4u] * pl.scale; var o0_4 = vec4<f32>();
  let q0_5 = Q[qo0 + 5u] * pl.scale; var o0_5 = vec4<f32>();
  let q0_6 = Q[qo0 + 6u] * pl.scale; var o0_6 = vec4<f32>();
  let q0_7 = Q[qo0 + 7u] * pl.scale; var o0_7 = vec4<f32>();
  let q0_8 = Q[qo0 + 8u] * pl.scale; var o0_8 = vec4<f32>();
  let q0_9 = Q[qo0 + 9u] * pl.scale; var o0_9 = vec4<f32>();
  let q0_10 = Q[qo0 + 10u] * pl.scale; var o0_10 = vec4<f32>();
  let q0_11 = Q[qo0 + 11u] * pl.scale; var o0_11 = vec4<f32>();
  var m0 = NEG_BIG; var l0 = 0.0;
  let r1 = qq.rows.y; let qo1 = r1 * 12u;
  let q1_0 = Q[qo1 + 0u] * pl.scale; var o1_0 = vec4<f32>();
  let q1_1 = Q[qo1 + 1u] * pl.scale; var o1_1 = vec4<f32>();
  let q1_2 = Q[qo1 + 2u] * pl.scale; var o1_2 = vec4<f32>();
  let q1_3 = Q[qo1 + 3u] * pl.scale; var o1_3 = vec4<f32>();
  let q1_4 = Q[qo1 + 4u] * pl.scale; var o1_4 = vec4<f32>();
  let q1_5 = Q[qo1 + 5u] * pl.scale; var o1_5 = vec4<f32>();
  let q1_6 = Q[qo1 + 6u] * pl.scale; var o1_6 = vec4<f32>();
  let q1_7 = Q[qo1 + 7u] * pl.scale; var o1_7 = vec4<f32>();
  let q1_8 = Q[qo1 + 8u] * pl.scale; var o1_8 = vec4<f32>();
  let q1_9 = Q[qo1 + 9u] * pl.scale; var o1_9 = vec4<f32>();
  let q1_10 = Q[qo1 + 10u] * pl.scale; var o1_10 = vec4<f32>();
  let q1_11 = Q[qo1 + 11u] * pl.scale; var o1_11 = vec4<f32>();
  var m1 = NEG_BIG; var l1 = 0.0;
  let r2 = qq.rows.z; let qo2 = r2 * 12u;
  let q2_0 = Q[qo2 + 0u] * pl.scale; var o2_0 = vec4<f32>();
  let q2_1 = Q[qo2 + 1u] * pl.scale; var o2_1 = vec4<f32>();
  let q2_2 = Q[qo2 + 2u] * pl.scale; var o2_2 = vec4<f32>();
  let q2_3 = Q[qo2 + 3u] * pl.scale; var o2_3 = vec4<f32>();
  let q2_4 = Q[qo2 + 4u] * pl.scale; var o2_4 = vec4<f32>();
  let q2_5 = Q[qo2 + 5u] * pl.scale; var o2_5 = vec4<f32>();
  let q2_6 = Q[qo2 + 6u] * pl.scale; var o2_6 = vec4<f32>();
  let q2_7 = Q[qo2 + 7u] * pl.scale; var o2_7 = vec4<f32>();
  let q2_8 = Q[qo2 + 8u] * pl.scale; var o2_8 = vec4<f32>();
  let q2_9 = Q[qo2 + 9u] * pl.scale; var o2_9 = vec4<f32>();
  let q2_10 = Q[qo2 + 10u] * pl.scale; var o2_10 = vec4<f32>();
  let q2_11 = Q[qo2 + 11u] * pl.scale; var o2_11 = vec4<f32>();
  var m2 = NEG_BIG; var l2 = 0.0;
  let r3 = qq.rows.w; let qo3 = r3 * 12u;
  let q3_0 = Q[qo3 + 0u] * pl.scale; var o3_0 = vec4<f32>();
  let q3_1 = Q[qo3 + 1u] * pl.scale; var o3_1 = vec4<f32>();
  let q3_2 = Q[qo3 + 2u] * pl.scale; var o3_2 = vec4<f32>();
  let q3_3 = Q[qo3 + 3u] * pl.scale; var o3_3 = vec4<f32>();
  let q3_4 = Q[qo3 + 4u] * pl.scale; var o3_4 = vec4<f32>();
  let q3_5 = Q[qo3 + 5u] * pl.scale; var o3_5 = vec4<f32>();
  let q3_6 = Q[qo3 + 6u] * pl.scale; var o3_6 = vec4<f32>();
  let q3_7 = Q[qo3 + 7u] * pl.scale; var o3_7 = vec4<f32>();
  let q3_8 = Q[qo3 + 8u] * pl.scale; var o3_8 = vec4<f32>();
  let q3_9 = Q[qo3 + 9u] * pl.scale; var o3_9 = vec4<f32>();
  let q3_10 = Q[qo3 + 10u] * pl.scale; var o3_10 = vec4<f32>();
  let q3_11 = Q[qo3 + 11u] * pl.scale; var o3_11 = vec4<f32>();
  var m3 = NEG_BIG; var l3 = 0.0;
  // Keys below the quad: blocks of four for all four queries.
  for (var j = 0u; j < qq.i0; j += 4u) {
    let k0 = qq.base + j * 12u; let k1 = k0 + 12u; let k2 = k1 + 12u; let k3 = k2 + 12u;
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q0_0, Kc[k0 + 0u]), dot(q0_0, Kc[k1 + 0u]), dot(q0_0, Kc[k2 + 0u]), dot(q0_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q0_1, Kc[k0 + 1u]), dot(q0_1, Kc[k1 + 1u]), dot(q0_1, Kc[k2 + 1u]), dot(q0_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q0_2, Kc[k0 + 2u]), dot(q0_2, Kc[k1 + 2u]), dot(q0_2, Kc[k2 + 2u]), dot(q0_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q0_3, Kc[k0 + 3u]), dot(q0_3, Kc[k1 + 3u]), dot(q0_3, Kc[k2 + 3u]), dot(q0_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q0_4, Kc[k0 + 4u]), dot(q0_4, Kc[k1 + 4u]), dot(q0_4, Kc[k2 + 4u]), dot(q0_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q0_5, Kc[k0 + 5u]), dot(q0_5, Kc[k1 + 5u]), dot(q0_5, Kc[k2 + 5u]), dot(q0_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q0_6, Kc[k0 + 6u]), dot(q0_6, Kc[k1 + 6u]), dot(q0_6, Kc[k2 + 6u]), dot(q0_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q0_7, Kc[k0 + 7u]), dot(q0_7, Kc[k1 + 7u]), dot(q0_7, Kc[k2 + 7u]), dot(q0_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q0_8, Kc[k0 + 8u]), dot(q0_8, Kc[k1 + 8u]), dot(q0_8, Kc[k2 + 8u]), dot(q0_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q0_9, Kc[k0 + 9u]), dot(q0_9, Kc[k1 + 9u]), dot(q0_9, Kc[k2 + 9u]), dot(q0_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q0_10, Kc[k0 + 10u]), dot(q0_10, Kc[k1 + 10u]), dot(q0_10, Kc[k2 + 10u]), dot(q0_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q0_11, Kc[k0 + 11u]), dot(q0_11, Kc[k1 + 11u]), dot(q0_11, Kc[k2 + 11u]), dot(q0_11, Kc[k3 + 11u]));
      let mn = max(m0, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m0 - mn); let e = exp(s - vec4<f32>(mn));
      l0 = l0 * a + (e.x + e.y) + (e.z + e.w); m0 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o0_0 = mat4x4<f32>(o0_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o0_1 = mat4x4<f32>(o0_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o0_2 = mat4x4<f32>(o0_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o0_3 = mat4x4<f32>(o0_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o0_4 = mat4x4<f32>(o0_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o0_5 = mat4x4<f32>(o0_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o0_6 = mat4x4<f32>(o0_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o0_7 = mat4x4<f32>(o0_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o0_8 = mat4x4<f32>(o0_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o0_9 = mat4x4<f32>(o0_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o0_10 = mat4x4<f32>(o0_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o0_11 = mat4x4<f32>(o0_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q1_0, Kc[k0 + 0u]), dot(q1_0, Kc[k1 + 0u]), dot(q1_0, Kc[k2 + 0u]), dot(q1_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q1_1, Kc[k0 + 1u]), dot(q1_1, Kc[k1 + 1u]), dot(q1_1, Kc[k2 + 1u]), dot(q1_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q1_2, Kc[k0 + 2u]), dot(q1_2, Kc[k1 + 2u]), dot(q1_2, Kc[k2 + 2u]), dot(q1_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q1_3, Kc[k0 + 3u]), dot(q1_3, Kc[k1 + 3u]), dot(q1_3, Kc[k2 + 3u]), dot(q1_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q1_4, Kc[k0 + 4u]), dot(q1_4, Kc[k1 + 4u]), dot(q1_4, Kc[k2 + 4u]), dot(q1_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q1_5, Kc[k0 + 5u]), dot(q1_5, Kc[k1 + 5u]), dot(q1_5, Kc[k2 + 5u]), dot(q1_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q1_6, Kc[k0 + 6u]), dot(q1_6, Kc[k1 + 6u]), dot(q1_6, Kc[k2 + 6u]), dot(q1_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q1_7, Kc[k0 + 7u]), dot(q1_7, Kc[k1 + 7u]), dot(q1_7, Kc[k2 + 7u]), dot(q1_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q1_8, Kc[k0 + 8u]), dot(q1_8, Kc[k1 + 8u]), dot(q1_8, Kc[k2 + 8u]), dot(q1_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q1_9, Kc[k0 + 9u]), dot(q1_9, Kc[k1 + 9u]), dot(q1_9, Kc[k2 + 9u]), dot(q1_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q1_10, Kc[k0 + 10u]), dot(q1_10, Kc[k1 + 10u]), dot(q1_10, Kc[k2 + 10u]), dot(q1_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q1_11, Kc[k0 + 11u]), dot(q1_11, Kc[k1 + 11u]), dot(q1_11, Kc[k2 + 11u]), dot(q1_11, Kc[k3 + 11u]));
      let mn = max(m1, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m1 - mn); let e = exp(s - vec4<f32>(mn));
      l1 = l1 * a + (e.x + e.y) + (e.z + e.w); m1 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o1_0 = mat4x4<f32>(o1_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o1_1 = mat4x4<f32>(o1_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o1_2 = mat4x4<f32>(o1_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o1_3 = mat4x4<f32>(o1_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o1_4 = mat4x4<f32>(o1_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o1_5 = mat4x4<f32>(o1_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o1_6 = mat4x4<f32>(o1_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o1_7 = mat4x4<f32>(o1_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o1_8 = mat4x4<f32>(o1_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o1_9 = mat4x4<f32>(o1_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o1_10 = mat4x4<f32>(o1_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o1_11 = mat4x4<f32>(o1_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q2_0, Kc[k0 + 0u]), dot(q2_0, Kc[k1 + 0u]), dot(q2_0, Kc[k2 + 0u]), dot(q2_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q2_1, Kc[k0 + 1u]), dot(q2_1, Kc[k1 + 1u]), dot(q2_1, Kc[k2 + 1u]), dot(q2_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q2_2, Kc[k0 + 2u]), dot(q2_2, Kc[k1 + 2u]), dot(q2_2, Kc[k2 + 2u]), dot(q2_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q2_3, Kc[k0 + 3u]), dot(q2_3, Kc[k1 + 3u]), dot(q2_3, Kc[k2 + 3u]), dot(q2_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q2_4, Kc[k0 + 4u]), dot(q2_4, Kc[k1 + 4u]), dot(q2_4, Kc[k2 + 4u]), dot(q2_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q2_5, Kc[k0 + 5u]), dot(q2_5, Kc[k1 + 5u]), dot(q2_5, Kc[k2 + 5u]), dot(q2_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q2_6, Kc[k0 + 6u]), dot(q2_6, Kc[k1 + 6u]), dot(q2_6, Kc[k2 + 6u]), dot(q2_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q2_7, Kc[k0 + 7u]), dot(q2_7, Kc[k1 + 7u]), dot(q2_7, Kc[k2 + 7u]), dot(q2_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q2_8, Kc[k0 + 8u]), dot(q2_8, Kc[k1 + 8u]), dot(q2_8, Kc[k2 + 8u]), dot(q2_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q2_9, Kc[k0 + 9u]), dot(q2_9, Kc[k1 + 9u]), dot(q2_9, Kc[k2 + 9u]), dot(q2_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q2_10, Kc[k0 + 10u]), dot(q2_10, Kc[k1 + 10u]), dot(q2_10, Kc[k2 + 10u]), dot(q2_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q2_11, Kc[k0 + 11u]), dot(q2_11, Kc[k1 + 11u]), dot(q2_11, Kc[k2 + 11u]), dot(q2_11, Kc[k3 + 11u]));
      let mn = max(m2, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m2 - mn); let e = exp(s - vec4<f32>(mn));
      l2 = l2 * a + (e.x + e.y) + (e.z + e.w); m2 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o2_0 = mat4x4<f32>(o2_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o2_1 = mat4x4<f32>(o2_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o2_2 = mat4x4<f32>(o2_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o2_3 = mat4x4<f32>(o2_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o2_4 = mat4x4<f32>(o2_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o2_5 = mat4x4<f32>(o2_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o2_6 = mat4x4<f32>(o2_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o2_7 = mat4x4<f32>(o2_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o2_8 = mat4x4<f32>(o2_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o2_9 = mat4x4<f32>(o2_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o2_10 = mat4x4<f32>(o2_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o2_11 = mat4x4<f32>(o2_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q3_0, Kc[k0 + 0u]), dot(q3_0, Kc[k1 + 0u]), dot(q3_0, Kc[k2 + 0u]), dot(q3_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q3_1, Kc[k0 + 1u]), dot(q3_1, Kc[k1 + 1u]), dot(q3_1, Kc[k2 + 1u]), dot(q3_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q3_2, Kc[k0 + 2u]), dot(q3_2, Kc[k1 + 2u]), dot(q3_2, Kc[k2 + 2u]), dot(q3_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q3_3, Kc[k0 + 3u]), dot(q3_3, Kc[k1 + 3u]), dot(q3_3, Kc[k2 + 3u]), dot(q3_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q3_4, Kc[k0 + 4u]), dot(q3_4, Kc[k1 + 4u]), dot(q3_4, Kc[k2 + 4u]), dot(q3_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q3_5, Kc[k0 + 5u]), dot(q3_5, Kc[k1 + 5u]), dot(q3_5, Kc[k2 + 5u]), dot(q3_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q3_6, Kc[k0 + 6u]), dot(q3_6, Kc[k1 + 6u]), dot(q3_6, Kc[k2 + 6u]), dot(q3_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q3_7, Kc[k0 + 7u]), dot(q3_7, Kc[k1 + 7u]), dot(q3_7, Kc[k2 + 7u]), dot(q3_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q3_8, Kc[k0 + 8u]), dot(q3_8, Kc[k1 + 8u]), dot(q3_8, Kc[k2 + 8u]), dot(q3_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q3_9, Kc[k0 + 9u]), dot(q3_9, Kc[k1 + 9u]), dot(q3_9, Kc[k2 + 9u]), dot(q3_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q3_10, Kc[k0 + 10u]), dot(q3_10, Kc[k1 + 10u]), dot(q3_10, Kc[k2 + 10u]), dot(q3_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q3_11, Kc[k0 + 11u]), dot(q3_11, Kc[k1 + 11u]), dot(q3_11, Kc[k2 + 11u]), dot(q3_11, Kc[k3 + 11u]));
      let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
      l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o3_0 = mat4x4<f32>(o3_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o3_1 = mat4x4<f32>(o3_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o3_2 = mat4x4<f32>(o3_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o3_3 = mat4x4<f32>(o3_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o3_4 = mat4x4<f32>(o3_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o3_5 = mat4x4<f32>(o3_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o3_6 = mat4x4<f32>(o3_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o3_7 = mat4x4<f32>(o3_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o3_8 = mat4x4<f32>(o3_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o3_9 = mat4x4<f32>(o3_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o3_10 = mat4x4<f32>(o3_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o3_11 = mat4x4<f32>(o3_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
  }
  // The quad's own keys as the row form takes them: position i0 + 3 a block of four, i0 + t
  // (t < 3) single keys i0 .. i0 + t. Key offsets stay inside the line (a query past the
  // length is not stored).
  let kl = qq.base + (qq.len - 1u) * 12u;
  let d0 = min(qq.base + qq.i0 * 12u, kl); let d1 = min(d0 + 12u, kl); let d2 = min(d0 + 24u, kl); let d3 = min(d0 + 36u, kl);
  { var s = vec4<f32>(0.0);
    s += vec4<f32>(dot(q3_0, Kc[d0 + 0u]), dot(q3_0, Kc[d1 + 0u]), dot(q3_0, Kc[d2 + 0u]), dot(q3_0, Kc[d3 + 0u]));
    s += vec4<f32>(dot(q3_1, Kc[d0 + 1u]), dot(q3_1, Kc[d1 + 1u]), dot(q3_1, Kc[d2 + 1u]), dot(q3_1, Kc[d3 + 1u]));
    s += vec4<f32>(dot(q3_2, Kc[d0 + 2u]), dot(q3_2, Kc[d1 + 2u]), dot(q3_2, Kc[d2 + 2u]), dot(q3_2, Kc[d3 + 2u]));
    s += vec4<f32>(dot(q3_3, Kc[d0 + 3u]), dot(q3_3, Kc[d1 + 3u]), dot(q3_3, Kc[d2 + 3u]), dot(q3_3, Kc[d3 + 3u]));
    s += vec4<f32>(dot(q3_4, Kc[d0 + 4u]), dot(q3_4, Kc[d1 + 4u]), dot(q3_4, Kc[d2 + 4u]), dot(q3_4, Kc[d3 + 4u]));
    s += vec4<f32>(dot(q3_5, Kc[d0 + 5u]), dot(q3_5, Kc[d1 + 5u]), dot(q3_5, Kc[d2 + 5u]), dot(q3_5, Kc[d3 + 5u]));
    s += vec4<f32>(dot(q3_6, Kc[d0 + 6u]), dot(q3_6, Kc[d1 + 6u]), dot(q3_6, Kc[d2 + 6u]), dot(q3_6, Kc[d3 + 6u]));
    s += vec4<f32>(dot(q3_7, Kc[d0 + 7u]), dot(q3_7, Kc[d1 + 7u]), dot(q3_7, Kc[d2 + 7u]), dot(q3_7, Kc[d3 + 7u]));
    s += vec4<f32>(dot(q3_8, Kc[d0 + 8u]), dot(q3_8, Kc[d1 + 8u]), dot(q3_8, Kc[d2 + 8u]), dot(q3_8, Kc[d3 + 8u]));
    s += vec4<f32>(dot(q3_9, Kc[d0 + 9u]), dot(q3_9, Kc[d1 + 9u]), dot(q3_9, Kc[d2 + 9u]), dot(q3_9, Kc[d3 + 9u]));
    s += vec4<f32>(dot(q3_10, Kc[d0 + 10u]), dot(q3_10, Kc[d1 + 10u]), dot(q3_10, Kc[d2 + 10u]), dot(q3_10, Kc[d3 + 10u]));
    s += vec4<f32>(dot(q3_11, Kc[d0 + 11u]), dot(q3_11, Kc[d1 + 11u]), dot(q3_11, Kc[d2 + 11u]), dot(q3_11, Kc[d3 + 11u]));
    let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
    let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
    l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
    let y = vec4<f32>(a, e.x, e.y, e.z);
    o3_0 = mat4x4<f32>(o3_0, Vc[d0 + 0u], Vc[d1 + 0u], Vc[d2 + 0u]) * y + Vc[d3 + 0u] * e.w;
    o3_1 = mat4x4<f32>(o3_1, Vc[d0 + 1u], Vc[d1 + 1u], Vc[d2 + 1u]) * y + Vc[d3 + 1u] * e.w;
    o3_2 = mat4x4<f32>(o3_2, Vc[d0 + 2u], Vc[d1 + 2u], Vc[d2 + 2u]) * y + Vc[d3 + 2u] * e.w;
    o3_3 = mat4x4<f32>(o3_3, Vc[d0 + 3u], Vc[d1 + 3u], Vc[d2 + 3u]) * y + Vc[d3 + 3u] * e.w;
    o3_4 = mat4x4<f32>(o3_4, Vc[d0 + 4u], Vc[d1 + 4u], Vc[d2 + 4u]) * y + Vc[d3 + 4u] * e.w;
    o3_5 = mat4x4<f32>(o3_5, Vc[d0 + 5u], Vc[d1 + 5u], Vc[d2 + 5u]) * y + Vc[d3 + 5u] * e.w;
    o3_6 = mat4x4<f32>(o3_6, Vc[d0 + 6u], Vc[d1 + 6u], Vc[d2 + 6u]) * y + Vc[d3 + 6u] * e.w;
    o3_7 = mat4x4<f32>(o3_7, Vc[d0 + 7u], Vc[d1 + 7u], Vc[d2 + 7u]) * y + Vc[d3 + 7u] * e.w;
    o3_8 = mat4x4<f32>(o3_8, Vc[d0 + 8u], Vc[d1 + 8u], Vc[d2 + 8u]) * y + Vc[d3 + 8u] * e.w;
    o3_9 = mat4x4<f32>(o3_9, Vc[d0 + 9u], Vc[d1 + 9u], Vc[d2 + 9u]) * y + Vc[d3 + 9u] * e.w;
    o3_10 = mat4x4<f32>(o3_10, Vc[d0 + 10u], Vc[d1 + 10u], Vc[d2 + 10u]) * y + Vc[d3 + 10u] * e.w;
    o3_11 = mat4x4<f32>(o3_11, Vc[d0 + 11u], Vc[d1 + 11u], Vc[d2 + 11u]) * y + Vc[d3 + 11u] * e.w;
  }
  { var s = 0.0;
    s += dot(q0_0, Kc[d0 + 0u]);
    s += dot(q0_1, Kc[d0 + 1u]);
    s += dot(q0_2, Kc[d0 + 2u]);
    s += dot(q0_3, Kc[d0 + 3u]);
    s += dot(q0_4, Kc[d0 + 4u]);
    s += dot(q0_5, Kc[d0 + 5u]);
    s += dot(q0_6, Kc[d0 + 6u]);
    s += dot(q0_7, Kc[d0 + 7u]);
    s += dot(q0_8, Kc[d0 + 8u]);
    s += dot(q0_9, Kc[d0 + 9u]);
    s += dot(q0_10, Kc[d0 + 10u]);
    s += dot(q0_11, Kc[d0 + 11u]);
    let mn = max(m0, s); let a = exp(m0 - mn); let e = exp(s - mn);
    l0 = l0 * a + e; m0 = mn;
    let y = vec2<f32>(a, e);
    o0_0 = mat2x4<f32>(o0_0, Vc[d0 + 0u]) * y;
    o0_1 = mat2x4<f32>(o0_1, Vc[d0 + 1u]) * y;
    o0_2 = mat2x4<f32>(o0_2, Vc[d0 + 2u]) * y;
    o0_3 = mat2x4<f32>(o0_3, Vc[d0 + 3u]) * y;
    o0_4 = mat2x4<f32>(o0_4, Vc[d0 + 4u]) * y;
    o0_5 = mat2x4<f32>(o0_5, Vc[d0 + 5u]) * y;
    o0_6 = mat2x4<f32>(o0_6, Vc[d0 + 6u]) * y;
    o0_7 = mat2x4<f32>(o0_7, Vc[d0 + 7u]) * y;
    o0_8 = mat2x4<f32>(o0_8, Vc[d0 + 8u]) * y;
    o0_9 = mat2x4<f32>(o0_9, Vc[d0 + 9u]) * y;
    o0_10 = mat2x4<f32>(o0_10, Vc[d0 + 10u]) * y;
    o0_11 = mat2x4<f32>(o0_11, Vc[d0 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d0 + 0u]);
    s += dot(q1_1, Kc[d0 + 1u]);
    s += dot(q1_2, Kc[d0 + 2u]);
    s += dot(q1_3, Kc[d0 + 3u]);
    s += dot(q1_4, Kc[d0 + 4u]);
    s += dot(q1_5, Kc[d0 + 5u]);
    s += dot(q1_6, Kc[d0 + 6u]);
    s += dot(q1_7, Kc[d0 + 7u]);
    s += dot(q1_8, Kc[d0 + 8u]);
    s += dot(q1_9, Kc[d0 + 9u]);
    s += dot(q1_10, Kc[d0 + 10u]);
    s += dot(q1_11, Kc[d0 + 11u]);
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d0 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d0 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d0 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d0 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d0 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d0 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d0 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d0 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d0 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d0 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d0 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d0 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d0 + 0u]);
    s += dot(q2_1, Kc[d0 + 1u]);
    s += dot(q2_2, Kc[d0 + 2u]);
    s += dot(q2_3, Kc[d0 + 3u]);
    s += dot(q2_4, Kc[d0 + 4u]);
    s += dot(q2_5, Kc[d0 + 5u]);
    s += dot(q2_6, Kc[d0 + 6u]);
    s += dot(q2_7, Kc[d0 + 7u]);
    s += dot(q2_8, Kc[d0 + 8u]);
    s += dot(q2_9, Kc[d0 + 9u]);
    s += dot(q2_10, Kc[d0 + 10u]);
    s += dot(q2_11, Kc[d0 + 11u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d0 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d0 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d0 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d0 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d0 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d0 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d0 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d0 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d0 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d0 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d0 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d0 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d1 + 0u]);
    s += dot(q1_1, Kc[d1 + 1u]);
    s += dot(q1_2, Kc[d1 + 2u]);
    s += dot(q1_3, Kc[d1 + 3u]);
    s += dot(q1_4, Kc[d1 + 4u]);
    s += dot(q1_5, Kc[d1 + 5u]);
    s += dot(q1_6, Kc[d1 + 6u]);
    s += dot(q1_7, Kc[d1 + 7u]);
    s += dot(q1_8, Kc[d1 + 8u]);
    s += dot(q1_9, Kc[d1 + 9u]);
    s += dot(q1_10, Kc[d1 + 10u]);
    s += dot(q1_11, Kc[d1 + 11u]);
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d1 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d1 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d1 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d1 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d1 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d1 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d1 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d1 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d1 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d1 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d1 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d1 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d1 + 0u]);
    s += dot(q2_1, Kc[d1 + 1u]);
    s += dot(q2_2, Kc[d1 + 2u]);
    s += dot(q2_3, Kc[d1 + 3u]);
    s += dot(q2_4, Kc[d1 + 4u]);
    s += dot(q2_5, Kc[d1 + 5u]);
    s += dot(q2_6, Kc[d1 + 6u]);
    s += dot(q2_7, Kc[d1 + 7u]);
    s += dot(q2_8, Kc[d1 + 8u]);
    s += dot(q2_9, Kc[d1 + 9u]);
    s += dot(q2_10, Kc[d1 + 10u]);
    s += dot(q2_11, Kc[d1 + 11u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d1 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d1 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d1 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d1 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d1 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d1 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d1 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d1 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d1 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d1 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d1 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d1 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d2 + 0u]);
    s += dot(q2_1, Kc[d2 + 1u]);
    s += dot(q2_2, Kc[d2 + 2u]);
    s += dot(q2_3, Kc[d2 + 3u]);
    s += dot(q2_4, Kc[d2 + 4u]);
    s += dot(q2_5, Kc[d2 + 5u]);
    s += dot(q2_6, Kc[d2 + 6u]);
    s += dot(q2_7, Kc[d2 + 7u]);
    s += dot(q2_8, Kc[d2 + 8u]);
    s += dot(q2_9, Kc[d2 + 9u]);
    s += dot(q2_10, Kc[d2 + 10u]);
    s += dot(q2_11, Kc[d2 + 11u]);
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d2 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d2 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d2 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d2 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d2 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d2 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d2 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d2 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d2 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d2 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d2 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d2 + 11u]) * y;
  }
  if (qq.live.x) {
    let inv0 = 1.0 / l0;
    O[qo0 + 0u] = o0_0 * inv0;
    O[qo0 + 1u] = o0_1 * inv0;
    O[qo0 + 2u] = o0_2 * inv0;
    O[qo0 + 3u] = o0_3 * inv0;
    O[qo0 + 4u] = o0_4 * inv0;
    O[qo0 + 5u] = o0_5 * inv0;
    O[qo0 + 6u] = o0_6 * inv0;
    O[qo0 + 7u] = o0_7 * inv0;
    O[qo0 + 8u] = o0_8 * inv0;
    O[qo0 + 9u] = o0_9 * inv0;
    O[qo0 + 10u] = o0_10 * inv0;
    O[qo0 + 11u] = o0_11 * inv0;
    LSE[r0] = m0 + log(l0);
  }
  if (qq.live.y) {
    let inv1 = 1.0 / l1;
    O[qo1 + 0u] = o1_0 * inv1;
    O[qo1 + 1u] = o1_1 * inv1;
    O[qo1 + 2u] = o1_2 * inv1;
    O[qo1 + 3u] = o1_3 * inv1;
    O[qo1 + 4u] = o1_4 * inv1;
    O[qo1 + 5u] = o1_5 * inv1;
    O[qo1 + 6u] = o1_6 * inv1;
    O[qo1 + 7u] = o1_7 * inv1;
    O[qo1 + 8u] = o1_8 * inv1;
    O[qo1 + 9u] = o1_9 * inv1;
    O[qo1 + 10u] = o1_10 * inv1;
    O[qo1 + 11u] = o1_11 * inv1;
    LSE[r1] = m1 + log(l1);
  }
  if (qq.live.z) {
    let inv2 = 1.0 / l2;
    O[qo2 + 0u] = o2_0 * inv2;
    O[qo2 + 1u] = o2_1 * inv2;
    O[qo2 + 2u] = o2_2 * inv2;
    O[qo2 + 3u] = o2_3 * inv2;
    O[qo2 + 4u] = o2_4 * inv2;
    O[qo2 + 5u] = o2_5 * inv2;
    O[qo2 + 6u] = o2_6 * inv2;
    O[qo2 + 7u] = o2_7 * inv2;
    O[qo2 + 8u] = o2_8 * inv2;
    O[qo2 + 9u] = o2_9 * inv2;
    O[qo2 + 10u] = o2_10 * inv2;
    O[qo2 + 11u] = o2_11 * inv2;
    LSE[r2] = m2 + log(l2);
  }
  if (qq.live.w) {
    let inv3 = 1.0 / l3;
    O[qo3 + 0u] = o3_0 * inv3;
    O[qo3 + 1u] = o3_1 * inv3;
    O[qo3 + 2u] = o3_2 * inv3;
    O[qo3 + 3u] = o3_3 * inv3;
    O[qo3 + 4u] = o3_4 * inv3;
    O[qo3 + 5u] = o3_5 * inv3;
    O[qo3 + 6u] = o3_6 * inv3;
    O[qo3 + 7u] = o3_7 * inv3;
    O[qo3 + 8u] = o3_8 * inv3;
    O[qo3 + 9u] = o3_9 * inv3;
    O[qo3 + 10u] = o3_10 * inv3;
    O[qo3 + 11u] = o3_11 * inv3;
    LSE[r3] = m3 + log(l3);
  }
}

@compute @workgroup_size(WG)
fn attn_train_hs48_lse_s(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pq, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let r0 = qq.rows.x; let qo0 = r0 * 12u;
  let q0_0 = Q[qo0 + 0u] * pq.scale; var o0_0 = vec4<f32>();
  let q0_1 = Q[qo0 + 1u] * pq.scale; var o0_1 = vec4<f32>();
  let q0_2 = Q[qo0 + 2u] * pq.scale; var o0_2 = vec4<f32>();
  let q0_3 = Q[qo0 + 3u] * pq.scale; var o0_3 = vec4<f32>();
  let q0_4 = Q[qo0 + 4u] * pq.scale; var o0_4 = vec4<f32>();
  let q0_5 = Q[qo0 + 5u] * pq.scale; var o0_5 = vec4<f32>();
  let q0_6 = Q[qo0 + 6u] * pq.scale; var o0_6 = vec4<f32>();
  let q0_7 = Q[qo0 + 7u] * pq.scale; var o0_7 = vec4<f32>();
  let q0_8 = Q[qo0 + 8u] * pq.scale; var o0_8 = vec4<f32>();
  let q0_9 = Q[qo0 + 9u] * pq.scale; var o0_9 = vec4<f32>();
  let q0_10 = Q[qo0 + 10u] * pq.scale; var o0_10 = vec4<f32>();
  let q0_11 = Q[qo0 + 11u] * pq.scale; var o0_11 = vec4<f32>();
  var m0 = NEG_BIG; var l0 = 0.0;
  let r1 = qq.rows.y; let qo1 = r1 * 12u;
  let q1_0 = Q[qo1 + 0u] * pq.scale; var o1_0 = vec4<f32>();
  let q1_1 = Q[qo1 + 1u] * pq.scale; var o1_1 = vec4<f32>();
  let q1_2 = Q[qo1 + 2u] * pq.scale; var o1_2 = vec4<f32>();
  let q1_3 = Q[qo1 + 3u] * pq.scale; var o1_3 = vec4<f32>();
  let q1_4 = Q[qo1 + 4u] * pq.scale; var o1_4 = vec4<f32>();
  let q1_5 = Q[qo1 + 5u] * pq.scale; var o1_5 = vec4<f32>();
  let q1_6 = Q[qo1 + 6u] * pq.scale; var o1_6 = vec4<f32>();
  let q1_7 = Q[qo1 + 7u] * pq.scale; var o1_7 = vec4<f32>();
  let q1_8 = Q[qo1 + 8u] * pq.scale; var o1_8 = vec4<f32>();
  let q1_9 = Q[qo1 + 9u] * pq.scale; var o1_9 = vec4<f32>();
  let q1_10 = Q[qo1 + 10u] * pq.scale; var o1_10 = vec4<f32>();
  let q1_11 = Q[qo1 + 11u] * pq.scale; var o1_11 = vec4<f32>();
  var m1 = NEG_BIG; var l1 = 0.0;
  let r2 = qq.rows.z; let qo2 = r2 * 12u;
  let q2_0 = Q[qo2 + 0u] * pq.scale; var o2_0 = vec4<f32>();
  let q2_1 = Q[qo2 + 1u] * pq.scale; var o2_1 = vec4<f32>();
  let q2_2 = Q[qo2 + 2u] * pq.scale; var o2_2 = vec4<f32>();
  let q2_3 = Q[qo2 + 3u] * pq.scale; var o2_3 = vec4<f32>();
  let q2_4 = Q[qo2 + 4u] * pq.scale; var o2_4 = vec4<f32>();
  let q2_5 = Q[qo2 + 5u] * pq.scale; var o2_5 = vec4<f32>();
  let q2_6 = Q[qo2 + 6u] * pq.scale; var o2_6 = vec4<f32>();
  let q2_7 = Q[qo2 + 7u] * pq.scale; var o2_7 = vec4<f32>();
  let q2_8 = Q[qo2 + 8u] * pq.scale; var o2_8 = vec4<f32>();
  let q2_9 = Q[qo2 + 9u] * pq.scale; var o2_9 = vec4<f32>();
  let q2_10 = Q[qo2 + 10u] * pq.scale; var o2_10 = vec4<f32>();
  let q2_11 = Q[qo2 + 11u] * pq.scale; var o2_11 = vec4<f32>();
  var m2 = NEG_BIG; var l2 = 0.0;
  let r3 = qq.rows.w; let qo3 = r3 * 12u;
  let q3_0 = Q[qo3 + 0u] * pq.scale; var o3_0 = vec4<f32>();
  let q3_1 = Q[qo3 + 1u] * pq.scale; var o3_1 = vec4<f32>();
  let q3_2 = Q[qo3 + 2u] * pq.scale; var o3_2 = vec4<f32>();
  let q3_3 = Q[qo3 + 3u] * pq.scale; var o3_3 = vec4<f32>();
  let q3_4 = Q[qo3 + 4u] * pq.scale; var o3_4 = vec4<f32>();
  let q3_5 = Q[qo3 + 5u] * pq.scale; var o3_5 = vec4<f32>();
  let q3_6 = Q[qo3 + 6u] * pq.scale; var o3_6 = vec4<f32>();
  let q3_7 = Q[qo3 + 7u] * pq.scale; var o3_7 = vec4<f32>();
  let q3_8 = Q[qo3 + 8u] * pq.scale; var o3_8 = vec4<f32>();
  let q3_9 = Q[qo3 + 9u] * pq.scale; var o3_9 = vec4<f32>();
  let q3_10 = Q[qo3 + 10u] * pq.scale; var o3_10 = vec4<f32>();
  let q3_11 = Q[qo3 + 11u] * pq.scale; var o3_11 = vec4<f32>();
  var m3 = NEG_BIG; var l3 = 0.0;
  // Row i0 + t of the (slot, head)'s score plane: line = cell / quads.
  let tp4 = 4u * ((pq.Tmax + 15u) / 16u);
  let so0 = ((qq.cell / ((pq.Tmax + 3u) / 4u)) * 4u * tp4 + qq.i0) * tp4;
  let so1 = so0 + tp4; let so2 = so1 + tp4; let so3 = so2 + tp4;
  // Keys below the quad: blocks of four for all four queries.
  for (var j = 0u; j < qq.i0; j += 4u) {
    let k0 = qq.base + j * 12u; let k1 = k0 + 12u; let k2 = k1 + 12u; let k3 = k2 + 12u;
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q0_0, Kc[k0 + 0u]), dot(q0_0, Kc[k1 + 0u]), dot(q0_0, Kc[k2 + 0u]), dot(q0_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q0_1, Kc[k0 + 1u]), dot(q0_1, Kc[k1 + 1u]), dot(q0_1, Kc[k2 + 1u]), dot(q0_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q0_2, Kc[k0 + 2u]), dot(q0_2, Kc[k1 + 2u]), dot(q0_2, Kc[k2 + 2u]), dot(q0_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q0_3, Kc[k0 + 3u]), dot(q0_3, Kc[k1 + 3u]), dot(q0_3, Kc[k2 + 3u]), dot(q0_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q0_4, Kc[k0 + 4u]), dot(q0_4, Kc[k1 + 4u]), dot(q0_4, Kc[k2 + 4u]), dot(q0_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q0_5, Kc[k0 + 5u]), dot(q0_5, Kc[k1 + 5u]), dot(q0_5, Kc[k2 + 5u]), dot(q0_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q0_6, Kc[k0 + 6u]), dot(q0_6, Kc[k1 + 6u]), dot(q0_6, Kc[k2 + 6u]), dot(q0_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q0_7, Kc[k0 + 7u]), dot(q0_7, Kc[k1 + 7u]), dot(q0_7, Kc[k2 + 7u]), dot(q0_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q0_8, Kc[k0 + 8u]), dot(q0_8, Kc[k1 + 8u]), dot(q0_8, Kc[k2 + 8u]), dot(q0_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q0_9, Kc[k0 + 9u]), dot(q0_9, Kc[k1 + 9u]), dot(q0_9, Kc[k2 + 9u]), dot(q0_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q0_10, Kc[k0 + 10u]), dot(q0_10, Kc[k1 + 10u]), dot(q0_10, Kc[k2 + 10u]), dot(q0_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q0_11, Kc[k0 + 11u]), dot(q0_11, Kc[k1 + 11u]), dot(q0_11, Kc[k2 + 11u]), dot(q0_11, Kc[k3 + 11u]));
      Sk[so0 + j / 4u] = s;
      let mn = max(m0, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m0 - mn); let e = exp(s - vec4<f32>(mn));
      l0 = l0 * a + (e.x + e.y) + (e.z + e.w); m0 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o0_0 = mat4x4<f32>(o0_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o0_1 = mat4x4<f32>(o0_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o0_2 = mat4x4<f32>(o0_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o0_3 = mat4x4<f32>(o0_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o0_4 = mat4x4<f32>(o0_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o0_5 = mat4x4<f32>(o0_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o0_6 = mat4x4<f32>(o0_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o0_7 = mat4x4<f32>(o0_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o0_8 = mat4x4<f32>(o0_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o0_9 = mat4x4<f32>(o0_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o0_10 = mat4x4<f32>(o0_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o0_11 = mat4x4<f32>(o0_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q1_0, Kc[k0 + 0u]), dot(q1_0, Kc[k1 + 0u]), dot(q1_0, Kc[k2 + 0u]), dot(q1_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q1_1, Kc[k0 + 1u]), dot(q1_1, Kc[k1 + 1u]), dot(q1_1, Kc[k2 + 1u]), dot(q1_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q1_2, Kc[k0 + 2u]), dot(q1_2, Kc[k1 + 2u]), dot(q1_2, Kc[k2 + 2u]), dot(q1_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q1_3, Kc[k0 + 3u]), dot(q1_3, Kc[k1 + 3u]), dot(q1_3, Kc[k2 + 3u]), dot(q1_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q1_4, Kc[k0 + 4u]), dot(q1_4, Kc[k1 + 4u]), dot(q1_4, Kc[k2 + 4u]), dot(q1_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q1_5, Kc[k0 + 5u]), dot(q1_5, Kc[k1 + 5u]), dot(q1_5, Kc[k2 + 5u]), dot(q1_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q1_6, Kc[k0 + 6u]), dot(q1_6, Kc[k1 + 6u]), dot(q1_6, Kc[k2 + 6u]), dot(q1_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q1_7, Kc[k0 + 7u]), dot(q1_7, Kc[k1 + 7u]), dot(q1_7, Kc[k2 + 7u]), dot(q1_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q1_8, Kc[k0 + 8u]), dot(q1_8, Kc[k1 + 8u]), dot(q1_8, Kc[k2 + 8u]), dot(q1_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q1_9, Kc[k0 + 9u]), dot(q1_9, Kc[k1 + 9u]), dot(q1_9, Kc[k2 + 9u]), dot(q1_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q1_10, Kc[k0 + 10u]), dot(q1_10, Kc[k1 + 10u]), dot(q1_10, Kc[k2 + 10u]), dot(q1_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q1_11, Kc[k0 + 11u]), dot(q1_11, Kc[k1 + 11u]), dot(q1_11, Kc[k2 + 11u]), dot(q1_11, Kc[k3 + 11u]));
      Sk[so1 + j / 4u] = s;
      let mn = max(m1, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m1 - mn); let e = exp(s - vec4<f32>(mn));
      l1 = l1 * a + (e.x + e.y) + (e.z + e.w); m1 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o1_0 = mat4x4<f32>(o1_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o1_1 = mat4x4<f32>(o1_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o1_2 = mat4x4<f32>(o1_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o1_3 = mat4x4<f32>(o1_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o1_4 = mat4x4<f32>(o1_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o1_5 = mat4x4<f32>(o1_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o1_6 = mat4x4<f32>(o1_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o1_7 = mat4x4<f32>(o1_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o1_8 = mat4x4<f32>(o1_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o1_9 = mat4x4<f32>(o1_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o1_10 = mat4x4<f32>(o1_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o1_11 = mat4x4<f32>(o1_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q2_0, Kc[k0 + 0u]), dot(q2_0, Kc[k1 + 0u]), dot(q2_0, Kc[k2 + 0u]), dot(q2_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q2_1, Kc[k0 + 1u]), dot(q2_1, Kc[k1 + 1u]), dot(q2_1, Kc[k2 + 1u]), dot(q2_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q2_2, Kc[k0 + 2u]), dot(q2_2, Kc[k1 + 2u]), dot(q2_2, Kc[k2 + 2u]), dot(q2_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q2_3, Kc[k0 + 3u]), dot(q2_3, Kc[k1 + 3u]), dot(q2_3, Kc[k2 + 3u]), dot(q2_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q2_4, Kc[k0 + 4u]), dot(q2_4, Kc[k1 + 4u]), dot(q2_4, Kc[k2 + 4u]), dot(q2_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q2_5, Kc[k0 + 5u]), dot(q2_5, Kc[k1 + 5u]), dot(q2_5, Kc[k2 + 5u]), dot(q2_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q2_6, Kc[k0 + 6u]), dot(q2_6, Kc[k1 + 6u]), dot(q2_6, Kc[k2 + 6u]), dot(q2_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q2_7, Kc[k0 + 7u]), dot(q2_7, Kc[k1 + 7u]), dot(q2_7, Kc[k2 + 7u]), dot(q2_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q2_8, Kc[k0 + 8u]), dot(q2_8, Kc[k1 + 8u]), dot(q2_8, Kc[k2 + 8u]), dot(q2_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q2_9, Kc[k0 + 9u]), dot(q2_9, Kc[k1 + 9u]), dot(q2_9, Kc[k2 + 9u]), dot(q2_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q2_10, Kc[k0 + 10u]), dot(q2_10, Kc[k1 + 10u]), dot(q2_10, Kc[k2 + 10u]), dot(q2_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q2_11, Kc[k0 + 11u]), dot(q2_11, Kc[k1 + 11u]), dot(q2_11, Kc[k2 + 11u]), dot(q2_11, Kc[k3 + 11u]));
      Sk[so2 + j / 4u] = s;
      let mn = max(m2, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m2 - mn); let e = exp(s - vec4<f32>(mn));
      l2 = l2 * a + (e.x + e.y) + (e.z + e.w); m2 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o2_0 = mat4x4<f32>(o2_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o2_1 = mat4x4<f32>(o2_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o2_2 = mat4x4<f32>(o2_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o2_3 = mat4x4<f32>(o2_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o2_4 = mat4x4<f32>(o2_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o2_5 = mat4x4<f32>(o2_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o2_6 = mat4x4<f32>(o2_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o2_7 = mat4x4<f32>(o2_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o2_8 = mat4x4<f32>(o2_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o2_9 = mat4x4<f32>(o2_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o2_10 = mat4x4<f32>(o2_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o2_11 = mat4x4<f32>(o2_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
    { var s = vec4<f32>(0.0);
      s += vec4<f32>(dot(q3_0, Kc[k0 + 0u]), dot(q3_0, Kc[k1 + 0u]), dot(q3_0, Kc[k2 + 0u]), dot(q3_0, Kc[k3 + 0u]));
      s += vec4<f32>(dot(q3_1, Kc[k0 + 1u]), dot(q3_1, Kc[k1 + 1u]), dot(q3_1, Kc[k2 + 1u]), dot(q3_1, Kc[k3 + 1u]));
      s += vec4<f32>(dot(q3_2, Kc[k0 + 2u]), dot(q3_2, Kc[k1 + 2u]), dot(q3_2, Kc[k2 + 2u]), dot(q3_2, Kc[k3 + 2u]));
      s += vec4<f32>(dot(q3_3, Kc[k0 + 3u]), dot(q3_3, Kc[k1 + 3u]), dot(q3_3, Kc[k2 + 3u]), dot(q3_3, Kc[k3 + 3u]));
      s += vec4<f32>(dot(q3_4, Kc[k0 + 4u]), dot(q3_4, Kc[k1 + 4u]), dot(q3_4, Kc[k2 + 4u]), dot(q3_4, Kc[k3 + 4u]));
      s += vec4<f32>(dot(q3_5, Kc[k0 + 5u]), dot(q3_5, Kc[k1 + 5u]), dot(q3_5, Kc[k2 + 5u]), dot(q3_5, Kc[k3 + 5u]));
      s += vec4<f32>(dot(q3_6, Kc[k0 + 6u]), dot(q3_6, Kc[k1 + 6u]), dot(q3_6, Kc[k2 + 6u]), dot(q3_6, Kc[k3 + 6u]));
      s += vec4<f32>(dot(q3_7, Kc[k0 + 7u]), dot(q3_7, Kc[k1 + 7u]), dot(q3_7, Kc[k2 + 7u]), dot(q3_7, Kc[k3 + 7u]));
      s += vec4<f32>(dot(q3_8, Kc[k0 + 8u]), dot(q3_8, Kc[k1 + 8u]), dot(q3_8, Kc[k2 + 8u]), dot(q3_8, Kc[k3 + 8u]));
      s += vec4<f32>(dot(q3_9, Kc[k0 + 9u]), dot(q3_9, Kc[k1 + 9u]), dot(q3_9, Kc[k2 + 9u]), dot(q3_9, Kc[k3 + 9u]));
      s += vec4<f32>(dot(q3_10, Kc[k0 + 10u]), dot(q3_10, Kc[k1 + 10u]), dot(q3_10, Kc[k2 + 10u]), dot(q3_10, Kc[k3 + 10u]));
      s += vec4<f32>(dot(q3_11, Kc[k0 + 11u]), dot(q3_11, Kc[k1 + 11u]), dot(q3_11, Kc[k2 + 11u]), dot(q3_11, Kc[k3 + 11u]));
      Sk[so3 + j / 4u] = s;
      let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
      let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
      l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
      let y = vec4<f32>(a, e.x, e.y, e.z);
      o3_0 = mat4x4<f32>(o3_0, Vc[k0 + 0u], Vc[k1 + 0u], Vc[k2 + 0u]) * y + Vc[k3 + 0u] * e.w;
      o3_1 = mat4x4<f32>(o3_1, Vc[k0 + 1u], Vc[k1 + 1u], Vc[k2 + 1u]) * y + Vc[k3 + 1u] * e.w;
      o3_2 = mat4x4<f32>(o3_2, Vc[k0 + 2u], Vc[k1 + 2u], Vc[k2 + 2u]) * y + Vc[k3 + 2u] * e.w;
      o3_3 = mat4x4<f32>(o3_3, Vc[k0 + 3u], Vc[k1 + 3u], Vc[k2 + 3u]) * y + Vc[k3 + 3u] * e.w;
      o3_4 = mat4x4<f32>(o3_4, Vc[k0 + 4u], Vc[k1 + 4u], Vc[k2 + 4u]) * y + Vc[k3 + 4u] * e.w;
      o3_5 = mat4x4<f32>(o3_5, Vc[k0 + 5u], Vc[k1 + 5u], Vc[k2 + 5u]) * y + Vc[k3 + 5u] * e.w;
      o3_6 = mat4x4<f32>(o3_6, Vc[k0 + 6u], Vc[k1 + 6u], Vc[k2 + 6u]) * y + Vc[k3 + 6u] * e.w;
      o3_7 = mat4x4<f32>(o3_7, Vc[k0 + 7u], Vc[k1 + 7u], Vc[k2 + 7u]) * y + Vc[k3 + 7u] * e.w;
      o3_8 = mat4x4<f32>(o3_8, Vc[k0 + 8u], Vc[k1 + 8u], Vc[k2 + 8u]) * y + Vc[k3 + 8u] * e.w;
      o3_9 = mat4x4<f32>(o3_9, Vc[k0 + 9u], Vc[k1 + 9u], Vc[k2 + 9u]) * y + Vc[k3 + 9u] * e.w;
      o3_10 = mat4x4<f32>(o3_10, Vc[k0 + 10u], Vc[k1 + 10u], Vc[k2 + 10u]) * y + Vc[k3 + 10u] * e.w;
      o3_11 = mat4x4<f32>(o3_11, Vc[k0 + 11u], Vc[k1 + 11u], Vc[k2 + 11u]) * y + Vc[k3 + 11u] * e.w;
    }
  }
  // The quad's own keys as the row form takes them: position i0 + 3 a block of four, i0 + t
  // (t < 3) single keys i0 .. i0 + t. Key offsets stay inside the line (a query past the
  // length is not stored).
  let kl = qq.base + (qq.len - 1u) * 12u;
  let d0 = min(qq.base + qq.i0 * 12u, kl); let d1 = min(d0 + 12u, kl); let d2 = min(d0 + 24u, kl); let d3 = min(d0 + 36u, kl);
  var sd0 = vec4<f32>(); var sd1 = vec4<f32>(); var sd2 = vec4<f32>();
  { var s = vec4<f32>(0.0);
    s += vec4<f32>(dot(q3_0, Kc[d0 + 0u]), dot(q3_0, Kc[d1 + 0u]), dot(q3_0, Kc[d2 + 0u]), dot(q3_0, Kc[d3 + 0u]));
    s += vec4<f32>(dot(q3_1, Kc[d0 + 1u]), dot(q3_1, Kc[d1 + 1u]), dot(q3_1, Kc[d2 + 1u]), dot(q3_1, Kc[d3 + 1u]));
    s += vec4<f32>(dot(q3_2, Kc[d0 + 2u]), dot(q3_2, Kc[d1 + 2u]), dot(q3_2, Kc[d2 + 2u]), dot(q3_2, Kc[d3 + 2u]));
    s += vec4<f32>(dot(q3_3, Kc[d0 + 3u]), dot(q3_3, Kc[d1 + 3u]), dot(q3_3, Kc[d2 + 3u]), dot(q3_3, Kc[d3 + 3u]));
    s += vec4<f32>(dot(q3_4, Kc[d0 + 4u]), dot(q3_4, Kc[d1 + 4u]), dot(q3_4, Kc[d2 + 4u]), dot(q3_4, Kc[d3 + 4u]));
    s += vec4<f32>(dot(q3_5, Kc[d0 + 5u]), dot(q3_5, Kc[d1 + 5u]), dot(q3_5, Kc[d2 + 5u]), dot(q3_5, Kc[d3 + 5u]));
    s += vec4<f32>(dot(q3_6, Kc[d0 + 6u]), dot(q3_6, Kc[d1 + 6u]), dot(q3_6, Kc[d2 + 6u]), dot(q3_6, Kc[d3 + 6u]));
    s += vec4<f32>(dot(q3_7, Kc[d0 + 7u]), dot(q3_7, Kc[d1 + 7u]), dot(q3_7, Kc[d2 + 7u]), dot(q3_7, Kc[d3 + 7u]));
    s += vec4<f32>(dot(q3_8, Kc[d0 + 8u]), dot(q3_8, Kc[d1 + 8u]), dot(q3_8, Kc[d2 + 8u]), dot(q3_8, Kc[d3 + 8u]));
    s += vec4<f32>(dot(q3_9, Kc[d0 + 9u]), dot(q3_9, Kc[d1 + 9u]), dot(q3_9, Kc[d2 + 9u]), dot(q3_9, Kc[d3 + 9u]));
    s += vec4<f32>(dot(q3_10, Kc[d0 + 10u]), dot(q3_10, Kc[d1 + 10u]), dot(q3_10, Kc[d2 + 10u]), dot(q3_10, Kc[d3 + 10u]));
    s += vec4<f32>(dot(q3_11, Kc[d0 + 11u]), dot(q3_11, Kc[d1 + 11u]), dot(q3_11, Kc[d2 + 11u]), dot(q3_11, Kc[d3 + 11u]));
    Sk[so3 + qq.i0 / 4u] = s;
    let mn = max(m3, max(max(s.x, s.y), max(s.z, s.w)));
    let a = exp(m3 - mn); let e = exp(s - vec4<f32>(mn));
    l3 = l3 * a + (e.x + e.y) + (e.z + e.w); m3 = mn;
    let y = vec4<f32>(a, e.x, e.y, e.z);
    o3_0 = mat4x4<f32>(o3_0, Vc[d0 + 0u], Vc[d1 + 0u], Vc[d2 + 0u]) * y + Vc[d3 + 0u] * e.w;
    o3_1 = mat4x4<f32>(o3_1, Vc[d0 + 1u], Vc[d1 + 1u], Vc[d2 + 1u]) * y + Vc[d3 + 1u] * e.w;
    o3_2 = mat4x4<f32>(o3_2, Vc[d0 + 2u], Vc[d1 + 2u], Vc[d2 + 2u]) * y + Vc[d3 + 2u] * e.w;
    o3_3 = mat4x4<f32>(o3_3, Vc[d0 + 3u], Vc[d1 + 3u], Vc[d2 + 3u]) * y + Vc[d3 + 3u] * e.w;
    o3_4 = mat4x4<f32>(o3_4, Vc[d0 + 4u], Vc[d1 + 4u], Vc[d2 + 4u]) * y + Vc[d3 + 4u] * e.w;
    o3_5 = mat4x4<f32>(o3_5, Vc[d0 + 5u], Vc[d1 + 5u], Vc[d2 + 5u]) * y + Vc[d3 + 5u] * e.w;
    o3_6 = mat4x4<f32>(o3_6, Vc[d0 + 6u], Vc[d1 + 6u], Vc[d2 + 6u]) * y + Vc[d3 + 6u] * e.w;
    o3_7 = mat4x4<f32>(o3_7, Vc[d0 + 7u], Vc[d1 + 7u], Vc[d2 + 7u]) * y + Vc[d3 + 7u] * e.w;
    o3_8 = mat4x4<f32>(o3_8, Vc[d0 + 8u], Vc[d1 + 8u], Vc[d2 + 8u]) * y + Vc[d3 + 8u] * e.w;
    o3_9 = mat4x4<f32>(o3_9, Vc[d0 + 9u], Vc[d1 + 9u], Vc[d2 + 9u]) * y + Vc[d3 + 9u] * e.w;
    o3_10 = mat4x4<f32>(o3_10, Vc[d0 + 10u], Vc[d1 + 10u], Vc[d2 + 10u]) * y + Vc[d3 + 10u] * e.w;
    o3_11 = mat4x4<f32>(o3_11, Vc[d0 + 11u], Vc[d1 + 11u], Vc[d2 + 11u]) * y + Vc[d3 + 11u] * e.w;
  }
  { var s = 0.0;
    s += dot(q0_0, Kc[d0 + 0u]);
    s += dot(q0_1, Kc[d0 + 1u]);
    s += dot(q0_2, Kc[d0 + 2u]);
    s += dot(q0_3, Kc[d0 + 3u]);
    s += dot(q0_4, Kc[d0 + 4u]);
    s += dot(q0_5, Kc[d0 + 5u]);
    s += dot(q0_6, Kc[d0 + 6u]);
    s += dot(q0_7, Kc[d0 + 7u]);
    s += dot(q0_8, Kc[d0 + 8u]);
    s += dot(q0_9, Kc[d0 + 9u]);
    s += dot(q0_10, Kc[d0 + 10u]);
    s += dot(q0_11, Kc[d0 + 11u]);
    sd0.x = s;
    let mn = max(m0, s); let a = exp(m0 - mn); let e = exp(s - mn);
    l0 = l0 * a + e; m0 = mn;
    let y = vec2<f32>(a, e);
    o0_0 = mat2x4<f32>(o0_0, Vc[d0 + 0u]) * y;
    o0_1 = mat2x4<f32>(o0_1, Vc[d0 + 1u]) * y;
    o0_2 = mat2x4<f32>(o0_2, Vc[d0 + 2u]) * y;
    o0_3 = mat2x4<f32>(o0_3, Vc[d0 + 3u]) * y;
    o0_4 = mat2x4<f32>(o0_4, Vc[d0 + 4u]) * y;
    o0_5 = mat2x4<f32>(o0_5, Vc[d0 + 5u]) * y;
    o0_6 = mat2x4<f32>(o0_6, Vc[d0 + 6u]) * y;
    o0_7 = mat2x4<f32>(o0_7, Vc[d0 + 7u]) * y;
    o0_8 = mat2x4<f32>(o0_8, Vc[d0 + 8u]) * y;
    o0_9 = mat2x4<f32>(o0_9, Vc[d0 + 9u]) * y;
    o0_10 = mat2x4<f32>(o0_10, Vc[d0 + 10u]) * y;
    o0_11 = mat2x4<f32>(o0_11, Vc[d0 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d0 + 0u]);
    s += dot(q1_1, Kc[d0 + 1u]);
    s += dot(q1_2, Kc[d0 + 2u]);
    s += dot(q1_3, Kc[d0 + 3u]);
    s += dot(q1_4, Kc[d0 + 4u]);
    s += dot(q1_5, Kc[d0 + 5u]);
    s += dot(q1_6, Kc[d0 + 6u]);
    s += dot(q1_7, Kc[d0 + 7u]);
    s += dot(q1_8, Kc[d0 + 8u]);
    s += dot(q1_9, Kc[d0 + 9u]);
    s += dot(q1_10, Kc[d0 + 10u]);
    s += dot(q1_11, Kc[d0 + 11u]);
    sd1.x = s;
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d0 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d0 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d0 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d0 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d0 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d0 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d0 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d0 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d0 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d0 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d0 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d0 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d0 + 0u]);
    s += dot(q2_1, Kc[d0 + 1u]);
    s += dot(q2_2, Kc[d0 + 2u]);
    s += dot(q2_3, Kc[d0 + 3u]);
    s += dot(q2_4, Kc[d0 + 4u]);
    s += dot(q2_5, Kc[d0 + 5u]);
    s += dot(q2_6, Kc[d0 + 6u]);
    s += dot(q2_7, Kc[d0 + 7u]);
    s += dot(q2_8, Kc[d0 + 8u]);
    s += dot(q2_9, Kc[d0 + 9u]);
    s += dot(q2_10, Kc[d0 + 10u]);
    s += dot(q2_11, Kc[d0 + 11u]);
    sd2.x = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d0 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d0 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d0 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d0 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d0 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d0 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d0 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d0 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d0 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d0 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d0 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d0 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q1_0, Kc[d1 + 0u]);
    s += dot(q1_1, Kc[d1 + 1u]);
    s += dot(q1_2, Kc[d1 + 2u]);
    s += dot(q1_3, Kc[d1 + 3u]);
    s += dot(q1_4, Kc[d1 + 4u]);
    s += dot(q1_5, Kc[d1 + 5u]);
    s += dot(q1_6, Kc[d1 + 6u]);
    s += dot(q1_7, Kc[d1 + 7u]);
    s += dot(q1_8, Kc[d1 + 8u]);
    s += dot(q1_9, Kc[d1 + 9u]);
    s += dot(q1_10, Kc[d1 + 10u]);
    s += dot(q1_11, Kc[d1 + 11u]);
    sd1.y = s;
    let mn = max(m1, s); let a = exp(m1 - mn); let e = exp(s - mn);
    l1 = l1 * a + e; m1 = mn;
    let y = vec2<f32>(a, e);
    o1_0 = mat2x4<f32>(o1_0, Vc[d1 + 0u]) * y;
    o1_1 = mat2x4<f32>(o1_1, Vc[d1 + 1u]) * y;
    o1_2 = mat2x4<f32>(o1_2, Vc[d1 + 2u]) * y;
    o1_3 = mat2x4<f32>(o1_3, Vc[d1 + 3u]) * y;
    o1_4 = mat2x4<f32>(o1_4, Vc[d1 + 4u]) * y;
    o1_5 = mat2x4<f32>(o1_5, Vc[d1 + 5u]) * y;
    o1_6 = mat2x4<f32>(o1_6, Vc[d1 + 6u]) * y;
    o1_7 = mat2x4<f32>(o1_7, Vc[d1 + 7u]) * y;
    o1_8 = mat2x4<f32>(o1_8, Vc[d1 + 8u]) * y;
    o1_9 = mat2x4<f32>(o1_9, Vc[d1 + 9u]) * y;
    o1_10 = mat2x4<f32>(o1_10, Vc[d1 + 10u]) * y;
    o1_11 = mat2x4<f32>(o1_11, Vc[d1 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d1 + 0u]);
    s += dot(q2_1, Kc[d1 + 1u]);
    s += dot(q2_2, Kc[d1 + 2u]);
    s += dot(q2_3, Kc[d1 + 3u]);
    s += dot(q2_4, Kc[d1 + 4u]);
    s += dot(q2_5, Kc[d1 + 5u]);
    s += dot(q2_6, Kc[d1 + 6u]);
    s += dot(q2_7, Kc[d1 + 7u]);
    s += dot(q2_8, Kc[d1 + 8u]);
    s += dot(q2_9, Kc[d1 + 9u]);
    s += dot(q2_10, Kc[d1 + 10u]);
    s += dot(q2_11, Kc[d1 + 11u]);
    sd2.y = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d1 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d1 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d1 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d1 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d1 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d1 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d1 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d1 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d1 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d1 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d1 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d1 + 11u]) * y;
  }
  { var s = 0.0;
    s += dot(q2_0, Kc[d2 + 0u]);
    s += dot(q2_1, Kc[d2 + 1u]);
    s += dot(q2_2, Kc[d2 + 2u]);
    s += dot(q2_3, Kc[d2 + 3u]);
    s += dot(q2_4, Kc[d2 + 4u]);
    s += dot(q2_5, Kc[d2 + 5u]);
    s += dot(q2_6, Kc[d2 + 6u]);
    s += dot(q2_7, Kc[d2 + 7u]);
    s += dot(q2_8, Kc[d2 + 8u]);
    s += dot(q2_9, Kc[d2 + 9u]);
    s += dot(q2_10, Kc[d2 + 10u]);
    s += dot(q2_11, Kc[d2 + 11u]);
    sd2.z = s;
    let mn = max(m2, s); let a = exp(m2 - mn); let e = exp(s - mn);
    l2 = l2 * a + e; m2 = mn;
    let y = vec2<f32>(a, e);
    o2_0 = mat2x4<f32>(o2_0, Vc[d2 + 0u]) * y;
    o2_1 = mat2x4<f32>(o2_1, Vc[d2 + 1u]) * y;
    o2_2 = mat2x4<f32>(o2_2, Vc[d2 + 2u]) * y;
    o2_3 = mat2x4<f32>(o2_3, Vc[d2 + 3u]) * y;
    o2_4 = mat2x4<f32>(o2_4, Vc[d2 + 4u]) * y;
    o2_5 = mat2x4<f32>(o2_5, Vc[d2 + 5u]) * y;
    o2_6 = mat2x4<f32>(o2_6, Vc[d2 + 6u]) * y;
    o2_7 = mat2x4<f32>(o2_7, Vc[d2 + 7u]) * y;
    o2_8 = mat2x4<f32>(o2_8, Vc[d2 + 8u]) * y;
    o2_9 = mat2x4<f32>(o2_9, Vc[d2 + 9u]) * y;
    o2_10 = mat2x4<f32>(o2_10, Vc[d2 + 10u]) * y;
    o2_11 = mat2x4<f32>(o2_11, Vc[d2 + 11u]) * y;
  }
  Sk[so0 + qq.i0 / 4u] = sd0; Sk[so1 + qq.i0 / 4u] = sd1; Sk[so2 + qq.i0 / 4u] = sd2;
  if (qq.live.x) {
    let inv0 = 1.0 / l0;
    O[qo0 + 0u] = o0_0 * inv0;
    O[qo0 + 1u] = o0_1 * inv0;
    O[qo0 + 2u] = o0_2 * inv0;
    O[qo0 + 3u] = o0_3 * inv0;
    O[qo0 + 4u] = o0_4 * inv0;
    O[qo0 + 5u] = o0_5 * inv0;
    O[qo0 + 6u] = o0_6 * inv0;
    O[qo0 + 7u] = o0_7 * inv0;
    O[qo0 + 8u] = o0_8 * inv0;
    O[qo0 + 9u] = o0_9 * inv0;
    O[qo0 + 10u] = o0_10 * inv0;
    O[qo0 + 11u] = o0_11 * inv0;
    LSE[r0] = m0 + log(l0);
  }
  if (qq.live.y) {
    let inv1 = 1.0 / l1;
    O[qo1 + 0u] = o1_0 * inv1;
    O[qo1 + 1u] = o1_1 * inv1;
    O[qo1 + 2u] = o1_2 * inv1;
    O[qo1 + 3u] = o1_3 * inv1;
    O[qo1 + 4u] = o1_4 * inv1;
    O[qo1 + 5u] = o1_5 * inv1;
    O[qo1 + 6u] = o1_6 * inv1;
    O[qo1 + 7u] = o1_7 * inv1;
    O[qo1 + 8u] = o1_8 * inv1;
    O[qo1 + 9u] = o1_9 * inv1;
    O[qo1 + 10u] = o1_10 * inv1;
    O[qo1 + 11u] = o1_11 * inv1;
    LSE[r1] = m1 + log(l1);
  }
  if (qq.live.z) {
    let inv2 = 1.0 / l2;
    O[qo2 + 0u] = o2_0 * inv2;
    O[qo2 + 1u] = o2_1 * inv2;
    O[qo2 + 2u] = o2_2 * inv2;
    O[qo2 + 3u] = o2_3 * inv2;
    O[qo2 + 4u] = o2_4 * inv2;
    O[qo2 + 5u] = o2_5 * inv2;
    O[qo2 + 6u] = o2_6 * inv2;
    O[qo2 + 7u] = o2_7 * inv2;
    O[qo2 + 8u] = o2_8 * inv2;
    O[qo2 + 9u] = o2_9 * inv2;
    O[qo2 + 10u] = o2_10 * inv2;
    O[qo2 + 11u] = o2_11 * inv2;
    LSE[r2] = m2 + log(l2);
  }
  if (qq.live.w) {
    let inv3 = 1.0 / l3;
    O[qo3 + 0u] = o3_0 * inv3;
    O[qo3 + 1u] = o3_1 * inv3;
    O[qo3 + 2u] = o3_2 * inv3;
    O[qo3 + 3u] = o3_3 * inv3;
    O[qo3 + 4u] = o3_4 * inv3;
    O[qo3 + 5u] = o3_5 * inv3;
    O[qo3 + 6u] = o3_6 * inv3;
    O[qo3 + 7u] = o3_7 * inv3;
    O[qo3 + 8u] = o3_8 * inv3;
    O[qo3 + 9u] = o3_9 * inv3;
    O[qo3 + 10u] = o3_10 * inv3;
    O[qo3 + 11u] = o3_11 * inv3;
    LSE[r3] = m3 + log(l3);
  }
}

@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs64(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pq, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let sc = pq.scale;
  let o0 = qq.rows.x * 16u; let st0 = ST[qq.rows.x];
  let q0_0 = Q[o0 + 0u] * sc; let g0_0 = dO[o0 + 0u]; var a0_0 = vec4<f32>();
  let q0_1 = Q[o0 + 1u] * sc; let g0_1 = dO[o0 + 1u]; var a0_1 = vec4<f32>();
  let q0_2 = Q[o0 + 2u] * sc; let g0_2 = dO[o0 + 2u]; var a0_2 = vec4<f32>();
  let q0_3 = Q[o0 + 3u] * sc; let g0_3 = dO[o0 + 3u]; var a0_3 = vec4<f32>();
  let q0_4 = Q[o0 + 4u] * sc; let g0_4 = dO[o0 + 4u]; var a0_4 = vec4<f32>();
  let q0_5 = Q[o0 + 5u] * sc; let g0_5 = dO[o0 + 5u]; var a0_5 = vec4<f32>();
  let q0_6 = Q[o0 + 6u] * sc; let g0_6 = dO[o0 + 6u]; var a0_6 = vec4<f32>();
  let q0_7 = Q[o0 + 7u] * sc; let g0_7 = dO[o0 + 7u]; var a0_7 = vec4<f32>();
  let q0_8 = Q[o0 + 8u] * sc; let g0_8 = dO[o0 + 8u]; var a0_8 = vec4<f32>();
  let q0_9 = Q[o0 + 9u] * sc; let g0_9 = dO[o0 + 9u]; var a0_9 = vec4<f32>();
  let q0_10 = Q[o0 + 10u] * sc; let g0_10 = dO[o0 + 10u]; var a0_10 = vec4<f32>();
  let q0_11 = Q[o0 + 11u] * sc; let g0_11 = dO[o0 + 11u]; var a0_11 = vec4<f32>();
  let q0_12 = Q[o0 + 12u] * sc; let g0_12 = dO[o0 + 12u]; var a0_12 = vec4<f32>();
  let q0_13 = Q[o0 + 13u] * sc; let g0_13 = dO[o0 + 13u]; var a0_13 = vec4<f32>();
  let q0_14 = Q[o0 + 14u] * sc; let g0_14 = dO[o0 + 14u]; var a0_14 = vec4<f32>();
  let q0_15 = Q[o0 + 15u] * sc; let g0_15 = dO[o0 + 15u]; var a0_15 = vec4<f32>();
  let o1 = qq.rows.y * 16u; let st1 = ST[qq.rows.y];
  let q1_0 = Q[o1 + 0u] * sc; let g1_0 = dO[o1 + 0u]; var a1_0 = vec4<f32>();
  let q1_1 = Q[o1 + 1u] * sc; let g1_1 = dO[o1 + 1u]; var a1_1 = vec4<f32>();
  let q1_2 = Q[o1 + 2u] * sc; let g1_2 = dO[o1 + 2u]; var a1_2 = vec4<f32>();
  let q1_3 = Q[o1 + 3u] * sc; let g1_3 = dO[o1 + 3u]; var a1_3 = vec4<f32>();
  let q1_4 = Q[o1 + 4u] * sc; let g1_4 = dO[o1 + 4u]; var a1_4 = vec4<f32>();
  let q1_5 = Q[o1 + 5u] * sc; let g1_5 = dO[o1 + 5u]; var a1_5 = vec4<f32>();
  let q1_6 = Q[o1 + 6u] * sc; let g1_6 = dO[o1 + 6u]; var a1_6 = vec4<f32>();
  let q1_7 = Q[o1 + 7u] * sc; let g1_7 = dO[o1 + 7u]; var a1_7 = vec4<f32>();
  let q1_8 = Q[o1 + 8u] * sc; let g1_8 = dO[o1 + 8u]; var a1_8 = vec4<f32>();
  let q1_9 = Q[o1 + 9u] * sc; let g1_9 = dO[o1 + 9u]; var a1_9 = vec4<f32>();
  let q1_10 = Q[o1 + 10u] * sc; let g1_10 = dO[o1 + 10u]; var a1_10 = vec4<f32>();
  let q1_11 = Q[o1 + 11u] * sc; let g1_11 = dO[o1 + 11u]; var a1_11 = vec4<f32>();
  let q1_12 = Q[o1 + 12u] * sc; let g1_12 = dO[o1 + 12u]; var a1_12 = vec4<f32>();
  let q1_13 = Q[o1 + 13u] * sc; let g1_13 = dO[o1 + 13u]; var a1_13 = vec4<f32>();
  let q1_14 = Q[o1 + 14u] * sc; let g1_14 = dO[o1 + 14u]; var a1_14 = vec4<f32>();
  let q1_15 = Q[o1 + 15u] * sc; let g1_15 = dO[o1 + 15u]; var a1_15 = vec4<f32>();
  let o2 = qq.rows.z * 16u; let st2 = ST[qq.rows.z];
  let q2_0 = Q[o2 + 0u] * sc; let g2_0 = dO[o2 + 0u]; var a2_0 = vec4<f32>();
  let q2_1 = Q[o2 + 1u] * sc; let g2_1 = dO[o2 + 1u]; var a2_1 = vec4<f32>();
  let q2_2 = Q[o2 + 2u] * sc; let g2_2 = dO[o2 + 2u]; var a2_2 = vec4<f32>();
  let q2_3 = Q[o2 + 3u] * sc; let g2_3 = dO[o2 + 3u]; var a2_3 = vec4<f32>();
  let q2_4 = Q[o2 + 4u] * sc; let g2_4 = dO[o2 + 4u]; var a2_4 = vec4<f32>();
  let q2_5 = Q[o2 + 5u] * sc; let g2_5 = dO[o2 + 5u]; var a2_5 = vec4<f32>();
  let q2_6 = Q[o2 + 6u] * sc; let g2_6 = dO[o2 + 6u]; var a2_6 = vec4<f32>();
  let q2_7 = Q[o2 + 7u] * sc; let g2_7 = dO[o2 + 7u]; var a2_7 = vec4<f32>();
  let q2_8 = Q[o2 + 8u] * sc; let g2_8 = dO[o2 + 8u]; var a2_8 = vec4<f32>();
  let q2_9 = Q[o2 + 9u] * sc; let g2_9 = dO[o2 + 9u]; var a2_9 = vec4<f32>();
  let q2_10 = Q[o2 + 10u] * sc; let g2_10 = dO[o2 + 10u]; var a2_10 = vec4<f32>();
  let q2_11 = Q[o2 + 11u] * sc; let g2_11 = dO[o2 + 11u]; var a2_11 = vec4<f32>();
  let q2_12 = Q[o2 + 12u] * sc; let g2_12 = dO[o2 + 12u]; var a2_12 = vec4<f32>();
  let q2_13 = Q[o2 + 13u] * sc; let g2_13 = dO[o2 + 13u]; var a2_13 = vec4<f32>();
  let q2_14 = Q[o2 + 14u] * sc; let g2_14 = dO[o2 + 14u]; var a2_14 = vec4<f32>();
  let q2_15 = Q[o2 + 15u] * sc; let g2_15 = dO[o2 + 15u]; var a2_15 = vec4<f32>();
  let o3 = qq.rows.w * 16u; let st3 = ST[qq.rows.w];
  let q3_0 = Q[o3 + 0u] * sc; let g3_0 = dO[o3 + 0u]; var a3_0 = vec4<f32>();
  let q3_1 = Q[o3 + 1u] * sc; let g3_1 = dO[o3 + 1u]; var a3_1 = vec4<f32>();
  let q3_2 = Q[o3 + 2u] * sc; let g3_2 = dO[o3 + 2u]; var a3_2 = vec4<f32>();
  let q3_3 = Q[o3 + 3u] * sc; let g3_3 = dO[o3 + 3u]; var a3_3 = vec4<f32>();
  let q3_4 = Q[o3 + 4u] * sc; let g3_4 = dO[o3 + 4u]; var a3_4 = vec4<f32>();
  let q3_5 = Q[o3 + 5u] * sc; let g3_5 = dO[o3 + 5u]; var a3_5 = vec4<f32>();
  let q3_6 = Q[o3 + 6u] * sc; let g3_6 = dO[o3 + 6u]; var a3_6 = vec4<f32>();
  let q3_7 = Q[o3 + 7u] * sc; let g3_7 = dO[o3 + 7u]; var a3_7 = vec4<f32>();
  let q3_8 = Q[o3 + 8u] * sc; let g3_8 = dO[o3 + 8u]; var a3_8 = vec4<f32>();
  let q3_9 = Q[o3 + 9u] * sc; let g3_9 = dO[o3 + 9u]; var a3_9 = vec4<f32>();
  let q3_10 = Q[o3 + 10u] * sc; let g3_10 = dO[o3 + 10u]; var a3_10 = vec4<f32>();
  let q3_11 = Q[o3 + 11u] * sc; let g3_11 = dO[o3 + 11u]; var a3_11 = vec4<f32>();
  let q3_12 = Q[o3 + 12u] * sc; let g3_12 = dO[o3 + 12u]; var a3_12 = vec4<f32>();
  let q3_13 = Q[o3 + 13u] * sc; let g3_13 = dO[o3 + 13u]; var a3_13 = vec4<f32>();
  let q3_14 = Q[o3 + 14u] * sc; let g3_14 = dO[o3 + 14u]; var a3_14 = vec4<f32>();
  let q3_15 = Q[o3 + 15u] * sc; let g3_15 = dO[o3 + 15u]; var a3_15 = vec4<f32>();
  for (var j = 0u; j <= quad_last(qq); j++) {
    let ko = qq.base + j * 16u;
    let on = quad_reach(qq, j);
    let k0 = Kc[ko + 0u]; let v0 = Vc[ko + 0u];
    let k1 = Kc[ko + 1u]; let v1 = Vc[ko + 1u];
    let k2 = Kc[ko + 2u]; let v2 = Vc[ko + 2u];
    let k3 = Kc[ko + 3u]; let v3 = Vc[ko + 3u];
    let k4 = Kc[ko + 4u]; let v4 = Vc[ko + 4u];
    let k5 = Kc[ko + 5u]; let v5 = Vc[ko + 5u];
    let k6 = Kc[ko + 6u]; let v6 = Vc[ko + 6u];
    let k7 = Kc[ko + 7u]; let v7 = Vc[ko + 7u];
    let k8 = Kc[ko + 8u]; let v8 = Vc[ko + 8u];
    let k9 = Kc[ko + 9u]; let v9 = Vc[ko + 9u];
    let k10 = Kc[ko + 10u]; let v10 = Vc[ko + 10u];
    let k11 = Kc[ko + 11u]; let v11 = Vc[ko + 11u];
    let k12 = Kc[ko + 12u]; let v12 = Vc[ko + 12u];
    let k13 = Kc[ko + 13u]; let v13 = Vc[ko + 13u];
    let k14 = Kc[ko + 14u]; let v14 = Vc[ko + 14u];
    let k15 = Kc[ko + 15u]; let v15 = Vc[ko + 15u];
    let e0 = select(0.0, exp(hsum4(((((q0_0 * k0 + q0_1 * k1) + (q0_2 * k2 + q0_3 * k3)) + ((q0_4 * k4 + q0_5 * k5) + (q0_6 * k6 + q0_7 * k7))) + (((q0_8 * k8 + q0_9 * k9) + (q0_10 * k10 + q0_11 * k11)) + ((q0_12 * k12 + q0_13 * k13) + (q0_14 * k14 + q0_15 * k15))))) - st0.x), on.x);
    let d0 = e0 * (hsum4(((((g0_0 * v0 + g0_1 * v1) + (g0_2 * v2 + g0_3 * v3)) + ((g0_4 * v4 + g0_5 * v5) + (g0_6 * v6 + g0_7 * v7))) + (((g0_8 * v8 + g0_9 * v9) + (g0_10 * v10 + g0_11 * v11)) + ((g0_12 * v12 + g0_13 * v13) + (g0_14 * v14 + g0_15 * v15))))) - st0.y);
    a0_0 += d0 * k0; a0_1 += d0 * k1; a0_2 += d0 * k2; a0_3 += d0 * k3; a0_4 += d0 * k4; a0_5 += d0 * k5; a0_6 += d0 * k6; a0_7 += d0 * k7; a0_8 += d0 * k8; a0_9 += d0 * k9; a0_10 += d0 * k10; a0_11 += d0 * k11; a0_12 += d0 * k12; a0_13 += d0 * k13; a0_14 += d0 * k14; a0_15 += d0 * k15;
    let e1 = select(0.0, exp(hsum4(((((q1_0 * k0 + q1_1 * k1) + (q1_2 * k2 + q1_3 * k3)) + ((q1_4 * k4 + q1_5 * k5) + (q1_6 * k6 + q1_7 * k7))) + (((q1_8 * k8 + q1_9 * k9) + (q1_10 * k10 + q1_11 * k11)) + ((q1_12 * k12 + q1_13 * k13) + (q1_14 * k14 + q1_15 * k15))))) - st1.x), on.y);
    let d1 = e1 * (hsum4(((((g1_0 * v0 + g1_1 * v1) + (g1_2 * v2 + g1_3 * v3)) + ((g1_4 * v4 + g1_5 * v5) + (g1_6 * v6 + g1_7 * v7))) + (((g1_8 * v8 + g1_9 * v9) + (g1_10 * v10 + g1_11 * v11)) + ((g1_12 * v12 + g1_13 * v13) + (g1_14 * v14 + g1_15 * v15))))) - st1.y);
    a1_0 += d1 * k0; a1_1 += d1 * k1; a1_2 += d1 * k2; a1_3 += d1 * k3; a1_4 += d1 * k4; a1_5 += d1 * k5; a1_6 += d1 * k6; a1_7 += d1 * k7; a1_8 += d1 * k8; a1_9 += d1 * k9; a1_10 += d1 * k10; a1_11 += d1 * k11; a1_12 += d1 * k12; a1_13 += d1 * k13; a1_14 += d1 * k14; a1_15 += d1 * k15;
    let e2 = select(0.0, exp(hsum4(((((q2_0 * k0 + q2_1 * k1) + (q2_2 * k2 + q2_3 * k3)) + ((q2_4 * k4 + q2_5 * k5) + (q2_6 * k6 + q2_7 * k7))) + (((q2_8 * k8 + q2_9 * k9) + (q2_10 * k10 + q2_11 * k11)) + ((q2_12 * k12 + q2_13 * k13) + (q2_14 * k14 + q2_15 * k15))))) - st2.x), on.z);
    let d2 = e2 * (hsum4(((((g2_0 * v0 + g2_1 * v1) + (g2_2 * v2 + g2_3 * v3)) + ((g2_4 * v4 + g2_5 * v5) + (g2_6 * v6 + g2_7 * v7))) + (((g2_8 * v8 + g2_9 * v9) + (g2_10 * v10 + g2_11 * v11)) + ((g2_12 * v12 + g2_13 * v13) + (g2_14 * v14 + g2_15 * v15))))) - st2.y);
    a2_0 += d2 * k0; a2_1 += d2 * k1; a2_2 += d2 * k2; a2_3 += d2 * k3; a2_4 += d2 * k4; a2_5 += d2 * k5; a2_6 += d2 * k6; a2_7 += d2 * k7; a2_8 += d2 * k8; a2_9 += d2 * k9; a2_10 += d2 * k10; a2_11 += d2 * k11; a2_12 += d2 * k12; a2_13 += d2 * k13; a2_14 += d2 * k14; a2_15 += d2 * k15;
    let e3 = select(0.0, exp(hsum4(((((q3_0 * k0 + q3_1 * k1) + (q3_2 * k2 + q3_3 * k3)) + ((q3_4 * k4 + q3_5 * k5) + (q3_6 * k6 + q3_7 * k7))) + (((q3_8 * k8 + q3_9 * k9) + (q3_10 * k10 + q3_11 * k11)) + ((q3_12 * k12 + q3_13 * k13) + (q3_14 * k14 + q3_15 * k15))))) - st3.x), on.w);
    let d3 = e3 * (hsum4(((((g3_0 * v0 + g3_1 * v1) + (g3_2 * v2 + g3_3 * v3)) + ((g3_4 * v4 + g3_5 * v5) + (g3_6 * v6 + g3_7 * v7))) + (((g3_8 * v8 + g3_9 * v9) + (g3_10 * v10 + g3_11 * v11)) + ((g3_12 * v12 + g3_13 * v13) + (g3_14 * v14 + g3_15 * v15))))) - st3.y);
    a3_0 += d3 * k0; a3_1 += d3 * k1; a3_2 += d3 * k2; a3_3 += d3 * k3; a3_4 += d3 * k4; a3_5 += d3 * k5; a3_6 += d3 * k6; a3_7 += d3 * k7; a3_8 += d3 * k8; a3_9 += d3 * k9; a3_10 += d3 * k10; a3_11 += d3 * k11; a3_12 += d3 * k12; a3_13 += d3 * k13; a3_14 += d3 * k14; a3_15 += d3 * k15;
  }
  if (qq.live.x) {
    dQ[o0 + 0u] = a0_0 * sc;
    dQ[o0 + 1u] = a0_1 * sc;
    dQ[o0 + 2u] = a0_2 * sc;
    dQ[o0 + 3u] = a0_3 * sc;
    dQ[o0 + 4u] = a0_4 * sc;
    dQ[o0 + 5u] = a0_5 * sc;
    dQ[o0 + 6u] = a0_6 * sc;
    dQ[o0 + 7u] = a0_7 * sc;
    dQ[o0 + 8u] = a0_8 * sc;
    dQ[o0 + 9u] = a0_9 * sc;
    dQ[o0 + 10u] = a0_10 * sc;
    dQ[o0 + 11u] = a0_11 * sc;
    dQ[o0 + 12u] = a0_12 * sc;
    dQ[o0 + 13u] = a0_13 * sc;
    dQ[o0 + 14u] = a0_14 * sc;
    dQ[o0 + 15u] = a0_15 * sc;
  }
  if (qq.live.y) {
    dQ[o1 + 0u] = a1_0 * sc;
    dQ[o1 + 1u] = a1_1 * sc;
    dQ[o1 + 2u] = a1_2 * sc;
    dQ[o1 + 3u] = a1_3 * sc;
    dQ[o1 + 4u] = a1_4 * sc;
    dQ[o1 + 5u] = a1_5 * sc;
    dQ[o1 + 6u] = a1_6 * sc;
    dQ[o1 + 7u] = a1_7 * sc;
    dQ[o1 + 8u] = a1_8 * sc;
    dQ[o1 + 9u] = a1_9 * sc;
    dQ[o1 + 10u] = a1_10 * sc;
    dQ[o1 + 11u] = a1_11 * sc;
    dQ[o1 + 12u] = a1_12 * sc;
    dQ[o1 + 13u] = a1_13 * sc;
    dQ[o1 + 14u] = a1_14 * sc;
    dQ[o1 + 15u] = a1_15 * sc;
  }
  if (qq.live.z) {
    dQ[o2 + 0u] = a2_0 * sc;
    dQ[o2 + 1u] = a2_1 * sc;
    dQ[o2 + 2u] = a2_2 * sc;
    dQ[o2 + 3u] = a2_3 * sc;
    dQ[o2 + 4u] = a2_4 * sc;
    dQ[o2 + 5u] = a2_5 * sc;
    dQ[o2 + 6u] = a2_6 * sc;
    dQ[o2 + 7u] = a2_7 * sc;
    dQ[o2 + 8u] = a2_8 * sc;
    dQ[o2 + 9u] = a2_9 * sc;
    dQ[o2 + 10u] = a2_10 * sc;
    dQ[o2 + 11u] = a2_11 * sc;
    dQ[o2 + 12u] = a2_12 * sc;
    dQ[o2 + 13u] = a2_13 * sc;
    dQ[o2 + 14u] = a2_14 * sc;
    dQ[o2 + 15u] = a2_15 * sc;
  }
  if (qq.live.w) {
    dQ[o3 + 0u] = a3_0 * sc;
    dQ[o3 + 1u] = a3_1 * sc;
    dQ[o3 + 2u] = a3_2 * sc;
    dQ[o3 + 3u] = a3_3 * sc;
    dQ[o3 + 4u] = a3_4 * sc;
    dQ[o3 + 5u] = a3_5 * sc;
    dQ[o3 + 6u] = a3_6 * sc;
    dQ[o3 + 7u] = a3_7 * sc;
    dQ[o3 + 8u] = a3_8 * sc;
    dQ[o3 + 9u] = a3_9 * sc;
    dQ[o3 + 10u] = a3_10 * sc;
    dQ[o3 + 11u] = a3_11 * sc;
    dQ[o3 + 12u] = a3_12 * sc;
    dQ[o3 + 13u] = a3_13 * sc;
    dQ[o3 + 14u] = a3_14 * sc;
    dQ[o3 + 15u] = a3_15 * sc;
  }
}

@compute @workgroup_size(WG)
fn attn_bwd_dkv_thread_hs64(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quad(pk, gid.x + gid.y * nwg.x * WG);
  if (!kq.ok) { return; }
  let o = (vec4<u32>(kq.line * pk.Tmax) + kq.pos) * 16u;
  let sc = pk.scale;
  let k0_0 = Kc[o.x + 0u] * sc; let v0_0 = Vc[o.x + 0u]; var dk0_0 = vec4<f32>(); var dv0_0 = vec4<f32>();
  let k0_1 = Kc[o.x + 1u] * sc; let v0_1 = Vc[o.x + 1u]; var dk0_1 = vec4<f32>(); var dv0_1 = vec4<f32>();
  let k0_2 = Kc[o.x + 2u] * sc; let v0_2 = Vc[o.x + 2u]; var dk0_2 = vec4<f32>(); var dv0_2 = vec4<f32>();
  let k0_3 = Kc[o.x + 3u] * sc; let v0_3 = Vc[o.x + 3u]; var dk0_3 = vec4<f32>(); var dv0_3 = vec4<f32>();
  let k0_4 = Kc[o.x + 4u] * sc; let v0_4 = Vc[o.x + 4u]; var dk0_4 = vec4<f32>(); var dv0_4 = vec4<f32>();
  let k0_5 = Kc[o.x + 5u] * sc; let v0_5 = Vc[o.x + 5u]; var dk0_5 = vec4<f32>(); var dv0_5 = vec4<f32>();
  let k0_6 = Kc[o.x + 6u] * sc; let v0_6 = Vc[o.x + 6u]; var dk0_6 = vec4<f32>(); var dv0_6 = vec4<f32>();
  let k0_7 = Kc[o.x + 7u] * sc; let v0_7 = Vc[o.x + 7u]; var dk0_7 = vec4<f32>(); var dv0_7 = vec4<f32>();
  let k0_8 = Kc[o.x + 8u] * sc; let v0_8 = Vc[o.x + 8u]; var dk0_8 = vec4<f32>(); var dv0_8 = vec4<f32>();
  let k0_9 = Kc[o.x + 9u] * sc; let v0_9 = Vc[o.x + 9u]; var dk0_9 = vec4<f32>(); var dv0_9 = vec4<f32>();
  let k0_10 = Kc[o.x + 10u] * sc; let v0_10 = Vc[o.x + 10u]; var dk0_10 = vec4<f32>(); var dv0_10 = vec4<f32>();
  let k0_11 = Kc[o.x + 11u] * sc; let v0_11 = Vc[o.x + 11u]; var dk0_11 = vec4<f32>(); var dv0_11 = vec4<f32>();
  let k0_12 = Kc[o.x + 12u] * sc; let v0_12 = Vc[o.x + 12u]; var dk0_12 = vec4<f32>(); var dv0_12 = vec4<f32>();
  let k0_13 = Kc[o.x + 13u] * sc; let v0_13 = Vc[o.x + 13u]; var dk0_13 = vec4<f32>(); var dv0_13 = vec4<f32>();
  let k0_14 = Kc[o.x + 14u] * sc; let v0_14 = Vc[o.x + 14u]; var dk0_14 = vec4<f32>(); var dv0_14 = vec4<f32>();
  let k0_15 = Kc[o.x + 15u] * sc; let v0_15 = Vc[o.x + 15u]; var dk0_15 = vec4<f32>(); var dv0_15 = vec4<f32>();
  let k1_0 = Kc[o.y + 0u] * sc; let v1_0 = Vc[o.y + 0u]; var dk1_0 = vec4<f32>(); var dv1_0 = vec4<f32>();
  let k1_1 = Kc[o.y + 1u] * sc; let v1_1 = Vc[o.y + 1u]; var dk1_1 = vec4<f32>(); var dv1_1 = vec4<f32>();
  let k1_2 = Kc[o.y + 2u] * sc; let v1_2 = Vc[o.y + 2u]; var dk1_2 = vec4<f32>(); var dv1_2 = vec4<f32>();
  let k1_3 = Kc[o.y + 3u] * sc; let v1_3 = Vc[o.y + 3u]; var dk1_3 = vec4<f32>(); var dv1_3 = vec4<f32>();
  let k1_4 = Kc[o.y + 4u] * sc; let v1_4 = Vc[o.y + 4u]; var dk1_4 = vec4<f32>(); var dv1_4 = vec4<f32>();
  let k1_5 = Kc[o.y + 5u] * sc; let v1_5 = Vc[o.y + 5u]; var dk1_5 = vec4<f32>(); var dv1_5 = vec4<f32>();
  let k1_6 = Kc[o.y + 6u] * sc; let v1_6 = Vc[o.y + 6u]; var dk1_6 = vec4<f32>(); var dv1_6 = vec4<f32>();
  let k1_7 = Kc[o.y + 7u] * sc; let v1_7 = Vc[o.y + 7u]; var dk1_7 = vec4<f32>(); var dv1_7 = vec4<f32>();
  let k1_8 = Kc[o.y + 8u] * sc; let v1_8 = Vc[o.y + 8u]; var dk1_8 = vec4<f32>(); var dv1_8 = vec4<f32>();
  let k1_9 = Kc[o.y + 9u] * sc; let v1_9 = Vc[o.y + 9u]; var dk1_9 = vec4<f32>(); var dv1_9 = vec4<f32>();
  let k1_10 = Kc[o.y + 10u] * sc; let v1_10 = Vc[o.y + 10u]; var dk1_10 = vec4<f32>(); var dv1_10 = vec4<f32>();
  let k1_11 = Kc[o.y + 11u] * sc; let v1_11 = Vc[o.y + 11u]; var dk1_11 = vec4<f32>(); var dv1_11 = vec4<f32>();
  let k1_12 = Kc[o.y + 12u] * sc; let v1_12 = Vc[o.y + 12u]; var dk1_12 = vec4<f32>(); var dv1_12 = vec4<f32>();
  let k1_13 = Kc[o.y + 13u] * sc; let v1_13 = Vc[o.y + 13u]; var dk1_13 = vec4<f32>(); var dv1_13 = vec4<f32>();
  let k1_14 = Kc[o.y + 14u] * sc; let v1_14 = Vc[o.y + 14u]; var dk1_14 = vec4<f32>(); var dv1_14 = vec4<f32>();
  let k1_15 = Kc[o.y + 15u] * sc; let v1_15 = Vc[o.y + 15u]; var dk1_15 = vec4<f32>(); var dv1_15 = vec4<f32>();
  let k2_0 = Kc[o.z + 0u] * sc; let v2_0 = Vc[o.z + 0u]; var dk2_0 = vec4<f32>(); var dv2_0 = vec4<f32>();
  let k2_1 = Kc[o.z + 1u] * sc; let v2_1 = Vc[o.z + 1u]; var dk2_1 = vec4<f32>(); var dv2_1 = vec4<f32>();
  let k2_2 = Kc[o.z + 2u] * sc; let v2_2 = Vc[o.z + 2u]; var dk2_2 = vec4<f32>(); var dv2_2 = vec4<f32>();
  let k2_3 = Kc[o.z + 3u] * sc; let v2_3 = Vc[o.z + 3u]; var dk2_3 = vec4<f32>(); var dv2_3 = vec4<f32>();
  let k2_4 = Kc[o.z + 4u] * sc; let v2_4 = Vc[o.z + 4u]; var dk2_4 = vec4<f32>(); var dv2_4 = vec4<f32>();
  let k2_5 = Kc[o.z + 5u] * sc; let v2_5 = Vc[o.z + 5u]; var dk2_5 = vec4<f32>(); var dv2_5 = vec4<f32>();
  let k2_6 = Kc[o.z + 6u] * sc; let v2_6 = Vc[o.z + 6u]; var dk2_6 = vec4<f32>(); var dv2_6 = vec4<f32>();
  let k2_7 = Kc[o.z + 7u] * sc; let v2_7 = Vc[o.z + 7u]; var dk2_7 = vec4<f32>(); var dv2_7 = vec4<f32>();
  let k2_8 = Kc[o.z + 8u] * sc; let v2_8 = Vc[o.z + 8u]; var dk2_8 = vec4<f32>(); var dv2_8 = vec4<f32>();
  let k2_9 = Kc[o.z + 9u] * sc; let v2_9 = Vc[o.z + 9u]; var dk2_9 = vec4<f32>(); var dv2_9 = vec4<f32>();
  let k2_10 = Kc[o.z + 10u] * sc; let v2_10 = Vc[o.z + 10u]; var dk2_10 = vec4<f32>(); var dv2_10 = vec4<f32>();
  let k2_11 = Kc[o.z + 11u] * sc; let v2_11 = Vc[o.z + 11u]; var dk2_11 = vec4<f32>(); var dv2_11 = vec4<f32>();
  let k2_12 = Kc[o.z + 12u] * sc; let v2_12 = Vc[o.z + 12u]; var dk2_12 = vec4<f32>(); var dv2_12 = vec4<f32>();
  let k2_13 = Kc[o.z + 13u] * sc; let v2_13 = Vc[o.z + 13u]; var dk2_13 = vec4<f32>(); var dv2_13 = vec4<f32>();
  let k2_14 = Kc[o.z + 14u] * sc; let v2_14 = Vc[o.z + 14u]; var dk2_14 = vec4<f32>(); var dv2_14 = vec4<f32>();
  let k2_15 = Kc[o.z + 15u] * sc; let v2_15 = Vc[o.z + 15u]; var dk2_15 = vec4<f32>(); var dv2_15 = vec4<f32>();
  let k3_0 = Kc[o.w + 0u] * sc; let v3_0 = Vc[o.w + 0u]; var dk3_0 = vec4<f32>(); var dv3_0 = vec4<f32>();
  let k3_1 = Kc[o.w + 1u] * sc; let v3_1 = Vc[o.w + 1u]; var dk3_1 = vec4<f32>(); var dv3_1 = vec4<f32>();
  let k3_2 = Kc[o.w + 2u] * sc; let v3_2 = Vc[o.w + 2u]; var dk3_2 = vec4<f32>(); var dv3_2 = vec4<f32>();
  let k3_3 = Kc[o.w + 3u] * sc; let v3_3 = Vc[o.w + 3u]; var dk3_3 = vec4<f32>(); var dv3_3 = vec4<f32>();
  let k3_4 = Kc[o.w + 4u] * sc; let v3_4 = Vc[o.w + 4u]; var dk3_4 = vec4<f32>(); var dv3_4 = vec4<f32>();
  let k3_5 = Kc[o.w + 5u] * sc; let v3_5 = Vc[o.w + 5u]; var dk3_5 = vec4<f32>(); var dv3_5 = vec4<f32>();
  let k3_6 = Kc[o.w + 6u] * sc; let v3_6 = Vc[o.w + 6u]; var dk3_6 = vec4<f32>(); var dv3_6 = vec4<f32>();
  let k3_7 = Kc[o.w + 7u] * sc; let v3_7 = Vc[o.w + 7u]; var dk3_7 = vec4<f32>(); var dv3_7 = vec4<f32>();
  let k3_8 = Kc[o.w + 8u] * sc; let v3_8 = Vc[o.w + 8u]; var dk3_8 = vec4<f32>(); var dv3_8 = vec4<f32>();
  let k3_9 = Kc[o.w + 9u] * sc; let v3_9 = Vc[o.w + 9u]; var dk3_9 = vec4<f32>(); var dv3_9 = vec4<f32>();
  let k3_10 = Kc[o.w + 10u] * sc; let v3_10 = Vc[o.w + 10u]; var dk3_10 = vec4<f32>(); var dv3_10 = vec4<f32>();
  let k3_11 = Kc[o.w + 11u] * sc; let v3_11 = Vc[o.w + 11u]; var dk3_11 = vec4<f32>(); var dv3_11 = vec4<f32>();
  let k3_12 = Kc[o.w + 12u] * sc; let v3_12 = Vc[o.w + 12u]; var dk3_12 = vec4<f32>(); var dv3_12 = vec4<f32>();
  let k3_13 = Kc[o.w + 13u] * sc; let v3_13 = Vc[o.w + 13u]; var dk3_13 = vec4<f32>(); var dv3_13 = vec4<f32>();
  let k3_14 = Kc[o.w + 14u] * sc; let v3_14 = Vc[o.w + 14u]; var dk3_14 = vec4<f32>(); var dv3_14 = vec4<f32>();
  let k3_15 = Kc[o.w + 15u] * sc; let v3_15 = Vc[o.w + 15u]; var dk3_15 = vec4<f32>(); var dv3_15 = vec4<f32>();
  // Items (query position from j0, head of the group) two at a time: each sum is read and
  // written once per two terms (added in item order).
  // From the slot's start on (attention_params.wgsl slot_start): the queries below it are skipped.
  let q0 = max(kq.j0, kq.start);
  let items = select(0u, (kq.len - q0) * kq.G, kq.len > q0);
  var n = 0u;
  for (; n + 1u < items; n += 2u) {
    let ia = q0 + (n) / kq.G;
    let qia = (kq.first + ia) * pk.NH + kq.h0 + (n) % kq.G;
    let sta = ST[qia];
    let x0a = Q[qia * 16u + 0u]; let g0a = dO[qia * 16u + 0u];
    let x1a = Q[qia * 16u + 1u]; let g1a = dO[qia * 16u + 1u];
    let x2a = Q[qia * 16u + 2u]; let g2a = dO[qia * 16u + 2u];
    let x3a = Q[qia * 16u + 3u]; let g3a = dO[qia * 16u + 3u];
    let x4a = Q[qia * 16u + 4u]; let g4a = dO[qia * 16u + 4u];
    let x5a = Q[qia * 16u + 5u]; let g5a = dO[qia * 16u + 5u];
    let x6a = Q[qia * 16u + 6u]; let g6a = dO[qia * 16u + 6u];
    let x7a = Q[qia * 16u + 7u]; let g7a = dO[qia * 16u + 7u];
    let x8a = Q[qia * 16u + 8u]; let g8a = dO[qia * 16u + 8u];
    let x9a = Q[qia * 16u + 9u]; let g9a = dO[qia * 16u + 9u];
    let x10a = Q[qia * 16u + 10u]; let g10a = dO[qia * 16u + 10u];
    let x11a = Q[qia * 16u + 11u]; let g11a = dO[qia * 16u + 11u];
    let x12a = Q[qia * 16u + 12u]; let g12a = dO[qia * 16u + 12u];
    let x13a = Q[qia * 16u + 13u]; let g13a = dO[qia * 16u + 13u];
    let x14a = Q[qia * 16u + 14u]; let g14a = dO[qia * 16u + 14u];
    let x15a = Q[qia * 16u + 15u]; let g15a = dO[qia * 16u + 15u];
    let e0a = select(0.0, exp(hsum4(((((x0a * k0_0 + x1a * k0_1) + (x2a * k0_2 + x3a * k0_3)) + ((x4a * k0_4 + x5a * k0_5) + (x6a * k0_6 + x7a * k0_7))) + (((x8a * k0_8 + x9a * k0_9) + (x10a * k0_10 + x11a * k0_11)) + ((x12a * k0_12 + x13a * k0_13) + (x14a * k0_14 + x15a * k0_15))))) - sta.x), true);
    let d0a = e0a * (hsum4(((((g0a * v0_0 + g1a * v0_1) + (g2a * v0_2 + g3a * v0_3)) + ((g4a * v0_4 + g5a * v0_5) + (g6a * v0_6 + g7a * v0_7))) + (((g8a * v0_8 + g9a * v0_9) + (g10a * v0_10 + g11a * v0_11)) + ((g12a * v0_12 + g13a * v0_13) + (g14a * v0_14 + g15a * v0_15))))) - sta.y);
    let e1a = select(0.0, exp(hsum4(((((x0a * k1_0 + x1a * k1_1) + (x2a * k1_2 + x3a * k1_3)) + ((x4a * k1_4 + x5a * k1_5) + (x6a * k1_6 + x7a * k1_7))) + (((x8a * k1_8 + x9a * k1_9) + (x10a * k1_10 + x11a * k1_11)) + ((x12a * k1_12 + x13a * k1_13) + (x14a * k1_14 + x15a * k1_15))))) - sta.x), ia >= kq.j0 + 1u);
    let d1a = e1a * (hsum4(((((g0a * v1_0 + g1a * v1_1) + (g2a * v1_2 + g3a * v1_3)) + ((g4a * v1_4 + g5a * v1_5) + (g6a * v1_6 + g7a * v1_7))) + (((g8a * v1_8 + g9a * v1_9) + (g10a * v1_10 + g11a * v1_11)) + ((g12a * v1_12 + g13a * v1_13) + (g14a * v1_14 + g15a * v1_15))))) - sta.y);
    let e2a = select(0.0, exp(hsum4(((((x0a * k2_0 + x1a * k2_1) + (x2a * k2_2 + x3a * k2_3)) + ((x4a * k2_4 + x5a * k2_5) + (x6a * k2_6 + x7a * k2_7))) + (((x8a * k2_8 + x9a * k2_9) + (x10a * k2_10 + x11a * k2_11)) + ((x12a * k2_12 + x13a * k2_13) + (x14a * k2_14 + x15a * k2_15))))) - sta.x), ia >= kq.j0 + 2u);
    let d2a = e2a * (hsum4(((((g0a * v2_0 + g1a * v2_1) + (g2a * v2_2 + g3a * v2_3)) + ((g4a * v2_4 + g5a * v2_5) + (g6a * v2_6 + g7a * v2_7))) + (((g8a * v2_8 + g9a * v2_9) + (g10a * v2_10 + g11a * v2_11)) + ((g12a * v2_12 + g13a * v2_13) + (g14a * v2_14 + g15a * v2_15))))) - sta.y);
    let e3a = select(0.0, exp(hsum4(((((x0a * k3_0 + x1a * k3_1) + (x2a * k3_2 + x3a * k3_3)) + ((x4a * k3_4 + x5a * k3_5) + (x6a * k3_6 + x7a * k3_7))) + (((x8a * k3_8 + x9a * k3_9) + (x10a * k3_10 + x11a * k3_11)) + ((x12a * k3_12 + x13a * k3_13) + (x14a * k3_14 + x15a * k3_15))))) - sta.x), ia >= kq.j0 + 3u);
    let d3a = e3a * (hsum4(((((g0a * v3_0 + g1a * v3_1) + (g2a * v3_2 + g3a * v3_3)) + ((g4a * v3_4 + g5a * v3_5) + (g6a * v3_6 + g7a * v3_7))) + (((g8a * v3_8 + g9a * v3_9) + (g10a * v3_10 + g11a * v3_11)) + ((g12a * v3_12 + g13a * v3_13) + (g14a * v3_14 + g15a * v3_15))))) - sta.y);
    let ib = q0 + (n + 1u) / kq.G;
    let qib = (kq.first + ib) * pk.NH + kq.h0 + (n + 1u) % kq.G;
    let stb = ST[qib];
    let x0b = Q[qib * 16u + 0u]; let g0b = dO[qib * 16u + 0u];
    let x1b = Q[qib * 16u + 1u]; let g1b = dO[qib * 16u + 1u];
    let x2b = Q[qib * 16u + 2u]; let g2b = dO[qib * 16u + 2u];
    let x3b = Q[qib * 16u + 3u]; let g3b = dO[qib * 16u + 3u];
    let x4b = Q[qib * 16u + 4u]; let g4b = dO[qib * 16u + 4u];
    let x5b = Q[qib * 16u + 5u]; let g5b = dO[qib * 16u + 5u];
    let x6b = Q[qib * 16u + 6u]; let g6b = dO[qib * 16u + 6u];
    let x7b = Q[qib * 16u + 7u]; let g7b = dO[qib * 16u + 7u];
    let x8b = Q[qib * 16u + 8u]; let g8b = dO[qib * 16u + 8u];
    let x9b = Q[qib * 16u + 9u]; let g9b = dO[qib * 16u + 9u];
    let x10b = Q[qib * 16u + 10u]; let g10b = dO[qib * 16u + 10u];
    let x11b = Q[qib * 16u + 11u]; let g11b = dO[qib * 16u + 11u];
    let x12b = Q[qib * 16u + 12u]; let g12b = dO[qib * 16u + 12u];
    let x13b = Q[qib * 16u + 13u]; let g13b = dO[qib * 16u + 13u];
    let x14b = Q[qib * 16u + 14u]; let g14b = dO[qib * 16u + 14u];
    let x15b = Q[qib * 16u + 15u]; let g15b = dO[qib * 16u + 15u];
    let e0b = select(0.0, exp(hsum4(((((x0b * k0_0 + x1b * k0_1) + (x2b * k0_2 + x3b * k0_3)) + ((x4b * k0_4 + x5b * k0_5) + (x6b * k0_6 + x7b * k0_7))) + (((x8b * k0_8 + x9b * k0_9) + (x10b * k0_10 + x11b * k0_11)) + ((x12b * k0_12 + x13b * k0_13) + (x14b * k0_14 + x15b * k0_15))))) - stb.x), true);
    let d0b = e0b * (hsum4(((((g0b * v0_0 + g1b * v0_1) + (g2b * v0_2 + g3b * v0_3)) + ((g4b * v0_4 + g5b * v0_5) + (g6b * v0_6 + g7b * v0_7))) + (((g8b * v0_8 + g9b * v0_9) + (g10b * v0_10 + g11b * v0_11)) + ((g12b * v0_12 + g13b * v0_13) + (g14b * v0_14 + g15b * v0_15))))) - stb.y);
    let e1b = select(0.0, exp(hsum4(((((x0b * k1_0 + x1b * k1_1) + (x2b * k1_2 + x3b * k1_3)) + ((x4b * k1_4 + x5b * k1_5) + (x6b * k1_6 + x7b * k1_7))) + (((x8b * k1_8 + x9b * k1_9) + (x10b * k1_10 + x11b * k1_11)) + ((x12b * k1_12 + x13b * k1_13) + (x14b * k1_14 + x15b * k1_15))))) - stb.x), ib >= kq.j0 + 1u);
    let d1b = e1b * (hsum4(((((g0b * v1_0 + g1b * v1_1) + (g2b * v1_2 + g3b * v1_3)) + ((g4b * v1_4 + g5b * v1_5) + (g6b * v1_6 + g7b * v1_7))) + (((g8b * v1_8 + g9b * v1_9) + (g10b * v1_10 + g11b * v1_11)) + ((g12b * v1_12 + g13b * v1_13) + (g14b * v1_14 + g15b * v1_15))))) - stb.y);
    let e2b = select(0.0, exp(hsum4(((((x0b * k2_0 + x1b * k2_1) + (x2b * k2_2 + x3b * k2_3)) + ((x4b * k2_4 + x5b * k2_5) + (x6b * k2_6 + x7b * k2_7))) + (((x8b * k2_8 + x9b * k2_9) + (x10b * k2_10 + x11b * k2_11)) + ((x12b * k2_12 + x13b * k2_13) + (x14b * k2_14 + x15b * k2_15))))) - stb.x), ib >= kq.j0 + 2u);
    let d2b = e2b * (hsum4(((((g0b * v2_0 + g1b * v2_1) + (g2b * v2_2 + g3b * v2_3)) + ((g4b * v2_4 + g5b * v2_5) + (g6b * v2_6 + g7b * v2_7))) + (((g8b * v2_8 + g9b * v2_9) + (g10b * v2_10 + g11b * v2_11)) + ((g12b * v2_12 + g13b * v2_13) + (g14b * v2_14 + g15b * v2_15))))) - stb.y);
    let e3b = select(0.0, exp(hsum4(((((x0b * k3_0 + x1b * k3_1) + (x2b * k3_2 + x3b * k3_3)) + ((x4b * k3_4 + x5b * k3_5) + (x6b * k3_6 + x7b * k3_7))) + (((x8b * k3_8 + x9b * k3_9) + (x10b * k3_10 + x11b * k3_11)) + ((x12b * k3_12 + x13b * k3_13) + (x14b * k3_14 + x15b * k3_15))))) - stb.x), ib >= kq.j0 + 3u);
    let d3b = e3b * (hsum4(((((g0b * v3_0 + g1b * v3_1) + (g2b * v3_2 + g3b * v3_3)) + ((g4b * v3_4 + g5b * v3_5) + (g6b * v3_6 + g7b * v3_7))) + (((g8b * v3_8 + g9b * v3_9) + (g10b * v3_10 + g11b * v3_11)) + ((g12b * v3_12 + g13b * v3_13) + (g14b * v3_14 + g15b * v3_15))))) - stb.y);
    dk0_0 = dk0_0 + d0a * x0a + d0b * x0b; dk0_1 = dk0_1 + d0a * x1a + d0b * x1b; dk0_2 = dk0_2 + d0a * x2a + d0b * x2b; dk0_3 = dk0_3 + d0a * x3a + d0b * x3b; dk0_4 = dk0_4 + d0a * x4a + d0b * x4b; dk0_5 = dk0_5 + d0a * x5a + d0b * x5b; dk0_6 = dk0_6 + d0a * x6a + d0b * x6b; dk0_7 = dk0_7 + d0a * x7a + d0b * x7b; dk0_8 = dk0_8 + d0a * x8a + d0b * x8b; dk0_9 = dk0_9 + d0a * x9a + d0b * x9b; dk0_10 = dk0_10 + d0a * x10a + d0b * x10b; dk0_11 = dk0_11 + d0a * x11a + d0b * x11b; dk0_12 = dk0_12 + d0a * x12a + d0b * x12b; dk0_13 = dk0_13 + d0a * x13a + d0b * x13b; dk0_14 = dk0_14 + d0a * x14a + d0b * x14b; dk0_15 = dk0_15 + d0a * x15a + d0b * x15b;
    dv0_0 = dv0_0 + e0a * g0a + e0b * g0b; dv0_1 = dv0_1 + e0a * g1a + e0b * g1b; dv0_2 = dv0_2 + e0a * g2a + e0b * g2b; dv0_3 = dv0_3 + e0a * g3a + e0b * g3b; dv0_4 = dv0_4 + e0a * g4a + e0b * g4b; dv0_5 = dv0_5 + e0a * g5a + e0b * g5b; dv0_6 = dv0_6 + e0a * g6a + e0b * g6b; dv0_7 = dv0_7 + e0a * g7a + e0b * g7b; dv0_8 = dv0_8 + e0a * g8a + e0b * g8b; dv0_9 = dv0_9 + e0a * g9a + e0b * g9b; dv0_10 = dv0_10 + e0a * g10a + e0b * g10b; dv0_11 = dv0_11 + e0a * g11a + e0b * g11b; dv0_12 = dv0_12 + e0a * g12a + e0b * g12b; dv0_13 = dv0_13 + e0a * g13a + e0b * g13b; dv0_14 = dv0_14 + e0a * g14a + e0b * g14b; dv0_15 = dv0_15 + e0a * g15a + e0b * g15b;
    dk1_0 = dk1_0 + d1a * x0a + d1b * x0b; dk1_1 = dk1_1 + d1a * x1a + d1b * x1b; dk1_2 = dk1_2 + d1a * x2a + d1b * x2b; dk1_3 = dk1_3 + d1a * x3a + d1b * x3b; dk1_4 = dk1_4 + d1a * x4a + d1b * x4b; dk1_5 = dk1_5 + d1a * x5a + d1b * x5b; dk1_6 = dk1_6 + d1a * x6a + d1b * x6b; dk1_7 = dk1_7 + d1a * x7a + d1b * x7b; dk1_8 = dk1_8 + d1a * x8a + d1b * x8b; dk1_9 = dk1_9 + d1a * x9a + d1b * x9b; dk1_10 = dk1_10 + d1a * x10a + d1b * x10b; dk1_11 = dk1_11 + d1a * x11a + d1b * x11b; dk1_12 = dk1_12 + d1a * x12a + d1b * x12b; dk1_13 = dk1_13 + d1a * x13a + d1b * x13b; dk1_14 = dk1_14 + d1a * x14a + d1b * x14b; dk1_15 = dk1_15 + d1a * x15a + d1b * x15b;
    dv1_0 = dv1_0 + e1a * g0a + e1b * g0b; dv1_1 = dv1_1 + e1a * g1a + e1b * g1b; dv1_2 = dv1_2 + e1a * g2a + e1b * g2b; dv1_3 = dv1_3 + e1a * g3a + e1b * g3b; dv1_4 = dv1_4 + e1a * g4a + e1b * g4b; dv1_5 = dv1_5 + e1a * g5a + e1b * g5b; dv1_6 = dv1_6 + e1a * g6a + e1b * g6b; dv1_7 = dv1_7 + e1a * g7a + e1b * g7b; dv1_8 = dv1_8 + e1a * g8a + e1b * g8b; dv1_9 = dv1_9 + e1a * g9a + e1b * g9b; dv1_10 = dv1_10 + e1a * g10a + e1b * g10b; dv1_11 = dv1_11 + e1a * g11a + e1b * g11b; dv1_12 = dv1_12 + e1a * g12a + e1b * g12b; dv1_13 = dv1_13 + e1a * g13a + e1b * g13b; dv1_14 = dv1_14 + e1a * g14a + e1b * g14b; dv1_15 = dv1_15 + e1a * g15a + e1b * g15b;
    dk2_0 = dk2_0 + d2a * x0a + d2b * x0b; dk2_1 = dk2_1 + d2a * x1a + d2b * x1b; dk2_2 = dk2_2 + d2a * x2a + d2b * x2b; dk2_3 = dk2_3 + d2a * x3a + d2b * x3b; dk2_4 = dk2_4 + d2a * x4a + d2b * x4b; dk2_5 = dk2_5 + d2a * x5a + d2b * x5b; dk2_6 = dk2_6 + d2a * x6a + d2b * x6b; dk2_7 = dk2_7 + d2a * x7a + d2b * x7b; dk2_8 = dk2_8 + d2a * x8a + d2b * x8b; dk2_9 = dk2_9 + d2a * x9a + d2b * x9b; dk2_10 = dk2_10 + d2a * x10a + d2b * x10b; dk2_11 = dk2_11 + d2a * x11a + d2b * x11b; dk2_12 = dk2_12 + d2a * x12a + d2b * x12b; dk2_13 = dk2_13 + d2a * x13a + d2b * x13b; dk2_14 = dk2_14 + d2a * x14a + d2b * x14b; dk2_15 = dk2_15 + d2a * x15a + d2b * x15b;
    dv2_0 = dv2_0 + e2a * g0a + e2b * g0b; dv2_1 = dv2_1 + e2a * g1a + e2b * g1b; dv2_2 = dv2_2 + e2a * g2a + e2b * g2b; dv2_3 = dv2_3 + e2a * g3a + e2b * g3b; dv2_4 = dv2_4 + e2a * g4a + e2b * g4b; dv2_5 = dv2_5 + e2a * g5a + e2b * g5b; dv2_6 = dv2_6 + e2a * g6a + e2b * g6b; dv2_7 = dv2_7 + e2a * g7a + e2b * g7b; dv2_8 = dv2_8 + e2a * g8a + e2b * g8b; dv2_9 = dv2_9 + e2a * g9a + e2b * g9b; dv2_10 = dv2_10 + e2a * g10a + e2b * g10b; dv2_11 = dv2_11 + e2a * g11a + e2b * g11b; dv2_12 = dv2_12 + e2a * g12a + e2b * g12b; dv2_13 = dv2_13 + e2a * g13a + e2b * g13b; dv2_14 = dv2_14 + e2a * g14a + e2b * g14b; dv2_15 = dv2_15 + e2a * g15a + e2b * g15b;
    dk3_0 = dk3_0 + d3a * x0a + d3b * x0b; dk3_1 = dk3_1 + d3a * x1a + d3b * x1b; dk3_2 = dk3_2 + d3a * x2a + d3b * x2b; dk3_3 = dk3_3 + d3a * x3a + d3b * x3b; dk3_4 = dk3_4 + d3a * x4a + d3b * x4b; dk3_5 = dk3_5 + d3a * x5a + d3b * x5b; dk3_6 = dk3_6 + d3a * x6a + d3b * x6b; dk3_7 = dk3_7 + d3a * x7a + d3b * x7b; dk3_8 = dk3_8 + d3a * x8a + d3b * x8b; dk3_9 = dk3_9 + d3a * x9a + d3b * x9b; dk3_10 = dk3_10 + d3a * x10a + d3b * x10b; dk3_11 = dk3_11 + d3a * x11a + d3b * x11b; dk3_12 = dk3_12 + d3a * x12a + d3b * x12b; dk3_13 = dk3_13 + d3a * x13a + d3b * x13b; dk3_14 = dk3_14 + d3a * x14a + d3b * x14b; dk3_15 = dk3_15 + d3a * x15a + d3b * x15b;
    dv3_0 = dv3_0 + e3a * g0a + e3b * g0b; dv3_1 = dv3_1 + e3a * g1a + e3b * g1b; dv3_2 = dv3_2 + e3a * g2a + e3b * g2b; dv3_3 = dv3_3 + e3a * g3a + e3b * g3b; dv3_4 = dv3_4 + e3a * g4a + e3b * g4b; dv3_5 = dv3_5 + e3a * g5a + e3b * g5b; dv3_6 = dv3_6 + e3a * g6a + e3b * g6b; dv3_7 = dv3_7 + e3a * g7a + e3b * g7b; dv3_8 = dv3_8 + e3a * g8a + e3b * g8b; dv3_9 = dv3_9 + e3a * g9a + e3b * g9b; dv3_10 = dv3_10 + e3a * g10a + e3b * g10b; dv3_11 = dv3_11 + e3a * g11a + e3b * g11b; dv3_12 = dv3_12 + e3a * g12a + e3b * g12b; dv3_13 = dv3_13 + e3a * g13a + e3b * g13b; dv3_14 = dv3_14 + e3a * g14a + e3b * g14b; dv3_15 = dv3_15 + e3a * g15a + e3b * g15b;
  }
  if (n < items) {
    let ia = q0 + (n) / kq.G;
    let qia = (kq.first + ia) * pk.NH + kq.h0 + (n) % kq.G;
    let sta = ST[qia];
    let x0a = Q[qia * 16u + 0u]; let g0a = dO[qia * 16u + 0u];
    let x1a = Q[qia * 16u + 1u]; let g1a = dO[qia * 16u + 1u];
    let x2a = Q[qia * 16u + 2u]; let g2a = dO[qia * 16u + 2u];
    let x3a = Q[qia * 16u + 3u]; let g3a = dO[qia * 16u + 3u];
    let x4a = Q[qia * 16u + 4u]; let g4a = dO[qia * 16u + 4u];
    let x5a = Q[qia * 16u + 5u]; let g5a = dO[qia * 16u + 5u];
    let x6a = Q[qia * 16u + 6u]; let g6a = dO[qia * 16u + 6u];
    let x7a = Q[qia * 16u + 7u]; let g7a = dO[qia * 16u + 7u];
    let x8a = Q[qia * 16u + 8u]; let g8a = dO[qia * 16u + 8u];
    let x9a = Q[qia * 16u + 9u]; let g9a = dO[qia * 16u + 9u];
    let x10a = Q[qia * 16u + 10u]; let g10a = dO[qia * 16u + 10u];
    let x11a = Q[qia * 16u + 11u]; let g11a = dO[qia * 16u + 11u];
    let x12a = Q[qia * 16u + 12u]; let g12a = dO[qia * 16u + 12u];
    let x13a = Q[qia * 16u + 13u]; let g13a = dO[qia * 16u + 13u];
    let x14a = Q[qia * 16u + 14u]; let g14a = dO[qia * 16u + 14u];
    let x15a = Q[qia * 16u + 15u]; let g15a = dO[qia * 16u + 15u];
    let e0a = select(0.0, exp(hsum4(((((x0a * k0_0 + x1a * k0_1) + (x2a * k0_2 + x3a * k0_3)) + ((x4a * k0_4 + x5a * k0_5) + (x6a * k0_6 + x7a * k0_7))) + (((x8a * k0_8 + x9a * k0_9) + (x10a * k0_10 + x11a * k0_11)) + ((x12a * k0_12 + x13a * k0_13) + (x14a * k0_14 + x15a * k0_15))))) - sta.x), true);
    let d0a = e0a * (hsum4(((((g0a * v0_0 + g1a * v0_1) + (g2a * v0_2 + g3a * v0_3)) + ((g4a * v0_4 + g5a * v0_5) + (g6a * v0_6 + g7a * v0_7))) + (((g8a * v0_8 + g9a * v0_9) + (g10a * v0_10 + g11a * v0_11)) + ((g12a * v0_12 + g13a * v0_13) + (g14a * v0_14 + g15a * v0_15))))) - sta.y);
    let e1a = select(0.0, exp(hsum4(((((x0a * k1_0 + x1a * k1_1) + (x2a * k1_2 + x3a * k1_3)) + ((x4a * k1_4 + x5a * k1_5) + (x6a * k1_6 + x7a * k1_7))) + (((x8a * k1_8 + x9a * k1_9) + (x10a * k1_10 + x11a * k1_11)) + ((x12a * k1_12 + x13a * k1_13) + (x14a * k1_14 + x15a * k1_15))))) - sta.x), ia >= kq.j0 + 1u);
    let d1a = e1a * (hsum4(((((g0a * v1_0 + g1a * v1_1) + (g2a * v1_2 + g3a * v1_3)) + ((g4a * v1_4 + g5a * v1_5) + (g6a * v1_6 + g7a * v1_7))) + (((g8a * v1_8 + g9a * v1_9) + (g10a * v1_10 + g11a * v1_11)) + ((g12a * v1_12 + g13a * v1_13) + (g14a * v1_14 + g15a * v1_15))))) - sta.y);
    let e2a = select(0.0, exp(hsum4(((((x0a * k2_0 + x1a * k2_1) + (x2a * k2_2 + x3a * k2_3)) + ((x4a * k2_4 + x5a * k2_5) + (x6a * k2_6 + x7a * k2_7))) + (((x8a * k2_8 + x9a * k2_9) + (x10a * k2_10 + x11a * k2_11)) + ((x12a * k2_12 + x13a * k2_13) + (x14a * k2_14 + x15a * k2_15))))) - sta.x), ia >= kq.j0 + 2u);
    let d2a = e2a * (hsum4(((((g0a * v2_0 + g1a * v2_1) + (g2a * v2_2 + g3a * v2_3)) + ((g4a * v2_4 + g5a * v2_5) + (g6a * v2_6 + g7a * v2_7))) + (((g8a * v2_8 + g9a * v2_9) + (g10a * v2_10 + g11a * v2_11)) + ((g12a * v2_12 + g13a * v2_13) + (g14a * v2_14 + g15a * v2_15))))) - sta.y);
    let e3a = select(0.0, exp(hsum4(((((x0a * k3_0 + x1a * k3_1) + (x2a * k3_2 + x3a * k3_3)) + ((x4a * k3_4 + x5a * k3_5) + (x6a * k3_6 + x7a * k3_7))) + (((x8a * k3_8 + x9a * k3_9) + (x10a * k3_10 + x11a * k3_11)) + ((x12a * k3_12 + x13a * k3_13) + (x14a * k3_14 + x15a * k3_15))))) - sta.x), ia >= kq.j0 + 3u);
    let d3a = e3a * (hsum4(((((g0a * v3_0 + g1a * v3_1) + (g2a * v3_2 + g3a * v3_3)) + ((g4a * v3_4 + g5a * v3_5) + (g6a * v3_6 + g7a * v3_7))) + (((g8a * v3_8 + g9a * v3_9) + (g10a * v3_10 + g11a * v3_11)) + ((g12a * v3_12 + g13a * v3_13) + (g14a * v3_14 + g15a * v3_15))))) - sta.y);
    dk0_0 = dk0_0 + d0a * x0a; dk0_1 = dk0_1 + d0a * x1a; dk0_2 = dk0_2 + d0a * x2a; dk0_3 = dk0_3 + d0a * x3a; dk0_4 = dk0_4 + d0a * x4a; dk0_5 = dk0_5 + d0a * x5a; dk0_6 = dk0_6 + d0a * x6a; dk0_7 = dk0_7 + d0a * x7a; dk0_8 = dk0_8 + d0a * x8a; dk0_9 = dk0_9 + d0a * x9a; dk0_10 = dk0_10 + d0a * x10a; dk0_11 = dk0_11 + d0a * x11a; dk0_12 = dk0_12 + d0a * x12a; dk0_13 = dk0_13 + d0a * x13a; dk0_14 = dk0_14 + d0a * x14a; dk0_15 = dk0_15 + d0a * x15a;
    dv0_0 = dv0_0 + e0a * g0a; dv0_1 = dv0_1 + e0a * g1a; dv0_2 = dv0_2 + e0a * g2a; dv0_3 = dv0_3 + e0a * g3a; dv0_4 = dv0_4 + e0a * g4a; dv0_5 = dv0_5 + e0a * g5a; dv0_6 = dv0_6 + e0a * g6a; dv0_7 = dv0_7 + e0a * g7a; dv0_8 = dv0_8 + e0a * g8a; dv0_9 = dv0_9 + e0a * g9a; dv0_10 = dv0_10 + e0a * g10a; dv0_11 = dv0_11 + e0a * g11a; dv0_12 = dv0_12 + e0a * g12a; dv0_13 = dv0_13 + e0a * g13a; dv0_14 = dv0_14 + e0a * g14a; dv0_15 = dv0_15 + e0a * g15a;
    dk1_0 = dk1_0 + d1a * x0a; dk1_1 = dk1_1 + d1a * x1a; dk1_2 = dk1_2 + d1a * x2a; dk1_3 = dk1_3 + d1a * x3a; dk1_4 = dk1_4 + d1a * x4a; dk1_5 = dk1_5 + d1a * x5a; dk1_6 = dk1_6 + d1a * x6a; dk1_7 = dk1_7 + d1a * x7a; dk1_8 = dk1_8 + d1a * x8a; dk1_9 = dk1_9 + d1a * x9a; dk1_10 = dk1_10 + d1a * x10a; dk1_11 = dk1_11 + d1a * x11a; dk1_12 = dk1_12 + d1a * x12a; dk1_13 = dk1_13 + d1a * x13a; dk1_14 = dk1_14 + d1a * x14a; dk1_15 = dk1_15 + d1a * x15a;
    dv1_0 = dv1_0 + e1a * g0a; dv1_1 = dv1_1 + e1a * g1a; dv1_2 = dv1_2 + e1a * g2a; dv1_3 = dv1_3 + e1a * g3a; dv1_4 = dv1_4 + e1a * g4a; dv1_5 = dv1_5 + e1a * g5a; dv1_6 = dv1_6 + e1a * g6a; dv1_7 = dv1_7 + e1a * g7a; dv1_8 = dv1_8 + e1a * g8a; dv1_9 = dv1_9 + e1a * g9a; dv1_10 = dv1_10 + e1a * g10a; dv1_11 = dv1_11 + e1a * g11a; dv1_12 = dv1_12 + e1a * g12a; dv1_13 = dv1_13 + e1a * g13a; dv1_14 = dv1_14 + e1a * g14a; dv1_15 = dv1_15 + e1a * g15a;
    dk2_0 = dk2_0 + d2a * x0a; dk2_1 = dk2_1 + d2a * x1a; dk2_2 = dk2_2 + d2a * x2a; dk2_3 = dk2_3 + d2a * x3a; dk2_4 = dk2_4 + d2a * x4a; dk2_5 = dk2_5 + d2a * x5a; dk2_6 = dk2_6 + d2a * x6a; dk2_7 = dk2_7 + d2a * x7a; dk2_8 = dk2_8 + d2a * x8a; dk2_9 = dk2_9 + d2a * x9a; dk2_10 = dk2_10 + d2a * x10a; dk2_11 = dk2_11 + d2a * x11a; dk2_12 = dk2_12 + d2a * x12a; dk2_13 = dk2_13 + d2a * x13a; dk2_14 = dk2_14 + d2a * x14a; dk2_15 = dk2_15 + d2a * x15a;
    dv2_0 = dv2_0 + e2a * g0a; dv2_1 = dv2_1 + e2a * g1a; dv2_2 = dv2_2 + e2a * g2a; dv2_3 = dv2_3 + e2a * g3a; dv2_4 = dv2_4 + e2a * g4a; dv2_5 = dv2_5 + e2a * g5a; dv2_6 = dv2_6 + e2a * g6a; dv2_7 = dv2_7 + e2a * g7a; dv2_8 = dv2_8 + e2a * g8a; dv2_9 = dv2_9 + e2a * g9a; dv2_10 = dv2_10 + e2a * g10a; dv2_11 = dv2_11 + e2a * g11a; dv2_12 = dv2_12 + e2a * g12a; dv2_13 = dv2_13 + e2a * g13a; dv2_14 = dv2_14 + e2a * g14a; dv2_15 = dv2_15 + e2a * g15a;
    dk3_0 = dk3_0 + d3a * x0a; dk3_1 = dk3_1 + d3a * x1a; dk3_2 = dk3_2 + d3a * x2a; dk3_3 = dk3_3 + d3a * x3a; dk3_4 = dk3_4 + d3a * x4a; dk3_5 = dk3_5 + d3a * x5a; dk3_6 = dk3_6 + d3a * x6a; dk3_7 = dk3_7 + d3a * x7a; dk3_8 = dk3_8 + d3a * x8a; dk3_9 = dk3_9 + d3a * x9a; dk3_10 = dk3_10 + d3a * x10a; dk3_11 = dk3_11 + d3a * x11a; dk3_12 = dk3_12 + d3a * x12a; dk3_13 = dk3_13 + d3a * x13a; dk3_14 = dk3_14 + d3a * x14a; dk3_15 = dk3_15 + d3a * x15a;
    dv3_0 = dv3_0 + e3a * g0a; dv3_1 = dv3_1 + e3a * g1a; dv3_2 = dv3_2 + e3a * g2a; dv3_3 = dv3_3 + e3a * g3a; dv3_4 = dv3_4 + e3a * g4a; dv3_5 = dv3_5 + e3a * g5a; dv3_6 = dv3_6 + e3a * g6a; dv3_7 = dv3_7 + e3a * g7a; dv3_8 = dv3_8 + e3a * g8a; dv3_9 = dv3_9 + e3a * g9a; dv3_10 = dv3_10 + e3a * g10a; dv3_11 = dv3_11 + e3a * g11a; dv3_12 = dv3_12 + e3a * g12a; dv3_13 = dv3_13 + e3a * g13a; dv3_14 = dv3_14 + e3a * g14a; dv3_15 = dv3_15 + e3a * g15a;
  }
  {
    dKc[o.x + 0u] = dk0_0 * sc; dVc[o.x + 0u] = dv0_0;
    dKc[o.x + 1u] = dk0_1 * sc; dVc[o.x + 1u] = dv0_1;
    dKc[o.x + 2u] = dk0_2 * sc; dVc[o.x + 2u] = dv0_2;
    dKc[o.x + 3u] = dk0_3 * sc; dVc[o.x + 3u] = dv0_3;
    dKc[o.x + 4u] = dk0_4 * sc; dVc[o.x + 4u] = dv0_4;
    dKc[o.x + 5u] = dk0_5 * sc; dVc[o.x + 5u] = dv0_5;
    dKc[o.x + 6u] = dk0_6 * sc; dVc[o.x + 6u] = dv0_6;
    dKc[o.x + 7u] = dk0_7 * sc; dVc[o.x + 7u] = dv0_7;
    dKc[o.x + 8u] = dk0_8 * sc; dVc[o.x + 8u] = dv0_8;
    dKc[o.x + 9u] = dk0_9 * sc; dVc[o.x + 9u] = dv0_9;
    dKc[o.x + 10u] = dk0_10 * sc; dVc[o.x + 10u] = dv0_10;
    dKc[o.x + 11u] = dk0_11 * sc; dVc[o.x + 11u] = dv0_11;
    dKc[o.x + 12u] = dk0_12 * sc; dVc[o.x + 12u] = dv0_12;
    dKc[o.x + 13u] = dk0_13 * sc; dVc[o.x + 13u] = dv0_13;
    dKc[o.x + 14u] = dk0_14 * sc; dVc[o.x + 14u] = dv0_14;
    dKc[o.x + 15u] = dk0_15 * sc; dVc[o.x + 15u] = dv0_15;
  }
  if (kq.j0 + 1u < pk.Tmax) {
    dKc[o.y + 0u] = dk1_0 * sc; dVc[o.y + 0u] = dv1_0;
    dKc[o.y + 1u] = dk1_1 * sc; dVc[o.y + 1u] = dv1_1;
    dKc[o.y + 2u] = dk1_2 * sc; dVc[o.y + 2u] = dv1_2;
    dKc[o.y + 3u] = dk1_3 * sc; dVc[o.y + 3u] = dv1_3;
    dKc[o.y + 4u] = dk1_4 * sc; dVc[o.y + 4u] = dv1_4;
    dKc[o.y + 5u] = dk1_5 * sc; dVc[o.y + 5u] = dv1_5;
    dKc[o.y + 6u] = dk1_6 * sc; dVc[o.y + 6u] = dv1_6;
    dKc[o.y + 7u] = dk1_7 * sc; dVc[o.y + 7u] = dv1_7;
    dKc[o.y + 8u] = dk1_8 * sc; dVc[o.y + 8u] = dv1_8;
    dKc[o.y + 9u] = dk1_9 * sc; dVc[o.y + 9u] = dv1_9;
    dKc[o.y + 10u] = dk1_10 * sc; dVc[o.y + 10u] = dv1_10;
    dKc[o.y + 11u] = dk1_11 * sc; dVc[o.y + 11u] = dv1_11;
    dKc[o.y + 12u] = dk1_12 * sc; dVc[o.y + 12u] = dv1_12;
    dKc[o.y + 13u] = dk1_13 * sc; dVc[o.y + 13u] = dv1_13;
    dKc[o.y + 14u] = dk1_14 * sc; dVc[o.y + 14u] = dv1_14;
    dKc[o.y + 15u] = dk1_15 * sc; dVc[o.y + 15u] = dv1_15;
  }
  if (kq.j0 + 2u < pk.Tmax) {
    dKc[o.z + 0u] = dk2_0 * sc; dVc[o.z + 0u] = dv2_0;
    dKc[o.z + 1u] = dk2_1 * sc; dVc[o.z + 1u] = dv2_1;
    dKc[o.z + 2u] = dk2_2 * sc; dVc[o.z + 2u] = dv2_2;
    dKc[o.z + 3u] = dk2_3 * sc; dVc[o.z + 3u] = dv2_3;
    dKc[o.z + 4u] = dk2_4 * sc; dVc[o.z + 4u] = dv2_4;
    dKc[o.z + 5u] = dk2_5 * sc; dVc[o.z + 5u] = dv2_5;
    dKc[o.z + 6u] = dk2_6 * sc; dVc[o.z + 6u] = dv2_6;
    dKc[o.z + 7u] = dk2_7 * sc; dVc[o.z + 7u] = dv2_7;
    dKc[o.z + 8u] = dk2_8 * sc; dVc[o.z + 8u] = dv2_8;
    dKc[o.z + 9u] = dk2_9 * sc; dVc[o.z + 9u] = dv2_9;
    dKc[o.z + 10u] = dk2_10 * sc; dVc[o.z + 10u] = dv2_10;
    dKc[o.z + 11u] = dk2_11 * sc; dVc[o.z + 11u] = dv2_11;
    dKc[o.z + 12u] = dk2_12 * sc; dVc[o.z + 12u] = dv2_12;
    dKc[o.z + 13u] = dk2_13 * sc; dVc[o.z + 13u] = dv2_13;
    dKc[o.z + 14u] = dk2_14 * sc; dVc[o.z + 14u] = dv2_14;
    dKc[o.z + 15u] = dk2_15 * sc; dVc[o.z + 15u] = dv2_15;
  }
  if (kq.j0 + 3u < pk.Tmax) {
    dKc[o.w + 0u] = dk3_0 * sc; dVc[o.w + 0u] = dv3_0;
    dKc[o.w + 1u] = dk3_1 * sc; dVc[o.w + 1u] = dv3_1;
    dKc[o.w + 2u] = dk3_2 * sc; dVc[o.w + 2u] = dv3_2;
    dKc[o.w + 3u] = dk3_3 * sc; dVc[o.w + 3u] = dv3_3;
    dKc[o.w + 4u] = dk3_4 * sc; dVc[o.w + 4u] = dv3_4;
    dKc[o.w + 5u] = dk3_5 * sc; dVc[o.w + 5u] = dv3_5;
    dKc[o.w + 6u] = dk3_6 * sc; dVc[o.w + 6u] = dv3_6;
    dKc[o.w + 7u] = dk3_7 * sc; dVc[o.w + 7u] = dv3_7;
    dKc[o.w + 8u] = dk3_8 * sc; dVc[o.w + 8u] = dv3_8;
    dKc[o.w + 9u] = dk3_9 * sc; dVc[o.w + 9u] = dv3_9;
    dKc[o.w + 10u] = dk3_10 * sc; dVc[o.w + 10u] = dv3_10;
    dKc[o.w + 11u] = dk3_11 * sc; dVc[o.w + 11u] = dv3_11;
    dKc[o.w + 12u] = dk3_12 * sc; dVc[o.w + 12u] = dv3_12;
    dKc[o.w + 13u] = dk3_13 * sc; dVc[o.w + 13u] = dv3_13;
    dKc[o.w + 14u] = dk3_14 * sc; dVc[o.w + 14u] = dv3_14;
    dKc[o.w + 15u] = dk3_15 * sc; dVc[o.w + 15u] = dv3_15;
  }
}

@compute @workgroup_size(WG)
fn attn_bwd_dq_thread_hs64_ps(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let qq = query_quad(pk, gid.x + gid.y * nwg.x * WG);
  if (!qq.ok) { return; }
  let sc = pk.scale;
  let line = qq.cell * pk.Tmax * 2u;
  let o0 = qq.rows.x * 16u; let st0 = ST[qq.rows.x];
  let q0_0 = Q[o0 + 0u] * sc; let g0_0 = dO[o0 + 0u]; var a0_0 = vec4<f32>();
  let q0_1 = Q[o0 + 1u] * sc; let g0_1 = dO[o0 + 1u]; var a0_1 = vec4<f32>();
  let q0_2 = Q[o0 + 2u] * sc; let g0_2 = dO[o0 + 2u]; var a0_2 = vec4<f32>();
  let q0_3 = Q[o0 + 3u] * sc; let g0_3 = dO[o0 + 3u]; var a0_3 = vec4<f32>();
  let q0_4 = Q[o0 + 4u] * sc; let g0_4 = dO[o0 + 4u]; var a0_4 = vec4<f32>();
  let q0_5 = Q[o0 + 5u] * sc; let g0_5 = dO[o0 + 5u]; var a0_5 = vec4<f32>();
  let q0_6 = Q[o0 + 6u] * sc; let g0_6 = dO[o0 + 6u]; var a0_6 = vec4<f32>();
  let q0_7 = Q[o0 + 7u] * sc; let g0_7 = dO[o0 + 7u]; var a0_7 = vec4<f32>();
  let q0_8 = Q[o0 + 8u] * sc; let g0_8 = dO[o0 + 8u]; var a0_8 = vec4<f32>();
  let q0_9 = Q[o0 + 9u] * sc; let g0_9 = dO[o0 + 9u]; var a0_9 = vec4<f32>();
  let q0_10 = Q[o0 + 10u] * sc; let g0_10 = dO[o0 + 10u]; var a0_10 = vec4<f32>();
  let q0_11 = Q[o0 + 11u] * sc; let g0_11 = dO[o0 + 11u]; var a0_11 = vec4<f32>();
  let q0_12 = Q[o0 + 12u] * sc; let g0_12 = dO[o0 + 12u]; var a0_12 = vec4<f32>();
  let q0_13 = Q[o0 + 13u] * sc; let g0_13 = dO[o0 + 13u]; var a0_13 = vec4<f32>();
  let q0_14 = Q[o0 + 14u] * sc; let g0_14 = dO[o0 + 14u]; var a0_14 = vec4<f32>();
  let q0_15 = Q[o0 + 15u] * sc; let g0_15 = dO[o0 + 15u]; var a0_15 = vec4<f32>();
  let o1 = qq.rows.y * 16u; let st1 = ST[qq.rows.y];
  let q1_0 = Q[o1 + 0u] * sc; let g1_0 = dO[o1 + 0u]; var a1_0 = vec4<f32>();
  let q1_1 = Q[o1 + 1u] * sc; let g1_1 = dO[o1 + 1u]; var a1_1 = vec4<f32>();
  let q1_2 = Q[o1 + 2u] * sc; let g1_2 = dO[o1 + 2u]; var a1_2 = vec4<f32>();
  let q1_3 = Q[o1 + 3u] * sc; let g1_3 = dO[o1 + 3u]; var a1_3 = vec4<f32>();
  let q1_4 = Q[o1 + 4u] * sc; let g1_4 = dO[o1 + 4u]; var a1_4 = vec4<f32>();
  let q1_5 = Q[o1 + 5u] * sc; let g1_5 = dO[o1 + 5u]; var a1_5 = vec4<f32>();
  let q1_6 = Q[o1 + 6u] * sc; let g1_6 = dO[o1 + 6u]; var a1_6 = vec4<f32>();
  let q1_7 = Q[o1 + 7u] * sc; let g1_7 = dO[o1 + 7u]; var a1_7 = vec4<f32>();
  let q1_8 = Q[o1 + 8u] * sc; let g1_8 = dO[o1 + 8u]; var a1_8 = vec4<f32>();
  let q1_9 = Q[o1 + 9u] * sc; let g1_9 = dO[o1 + 9u]; var a1_9 = vec4<f32>();
  let q1_10 = Q[o1 + 10u] * sc; let g1_10 = dO[o1 + 10u]; var a1_10 = vec4<f32>();
  let q1_11 = Q[o1 + 11u] * sc; let g1_11 = dO[o1 + 11u]; var a1_11 = vec4<f32>();
  let q1_12 = Q[o1 + 12u] * sc; let g1_12 = dO[o1 + 12u]; var a1_12 = vec4<f32>();
  let q1_13 = Q[o1 + 13u] * sc; let g1_13 = dO[o1 + 13u]; var a1_13 = vec4<f32>();
  let q1_14 = Q[o1 + 14u] * sc; let g1_14 = dO[o1 + 14u]; var a1_14 = vec4<f32>();
  let q1_15 = Q[o1 + 15u] * sc; let g1_15 = dO[o1 + 15u]; var a1_15 = vec4<f32>();
  let o2 = qq.rows.z * 16u; let st2 = ST[qq.rows.z];
  let q2_0 = Q[o2 + 0u] * sc; let g2_0 = dO[o2 + 0u]; var a2_0 = vec4<f32>();
  let q2_1 = Q[o2 + 1u] * sc; let g2_1 = dO[o2 + 1u]; var a2_1 = vec4<f32>();
  let q2_2 = Q[o2 + 2u] * sc; let g2_2 = dO[o2 + 2u]; var a2_2 = vec4<f32>();
  let q2_3 = Q[o2 + 3u] * sc; let g2_3 = dO[o2 + 3u]; var a2_3 = vec4<f32>();
  let q2_4 = Q[o2 + 4u] * sc; let g2_4 = dO[o2 + 4u]; var a2_4 = vec4<f32>();
  let q2_5 = Q[o2 + 5u] * sc; let g2_5 = dO[o2 + 5u]; var a2_5 = vec4<f32>();
  let q2_6 = Q[o2 + 6u] * sc; let g2_6 = dO[o2 + 6u]; var a2_6 = vec4<f32>();
  let q2_7 = Q[o2 + 7u] * sc; let g2_7 = dO[o2 + 7u]; var a2_7 = vec4<f32>();
  let q2_8 = Q[o2 + 8u] * sc; let g2_8 = dO[o2 + 8u]; var a2_8 = vec4<f32>();
  let q2_9 = Q[o2 + 9u] * sc; let g2_9 = dO[o2 + 9u]; var a2_9 = vec4<f32>();
  let q2_10 = Q[o2 + 10u] * sc; let g2_10 = dO[o2 + 10u]; var a2_10 = vec4<f32>();
  let q2_11 = Q[o2 + 11u] * sc; let g2_11 = dO[o2 + 11u]; var a2_11 = vec4<f32>();
  let q2_12 = Q[o2 + 12u] * sc; let g2_12 = dO[o2 + 12u]; var a2_12 = vec4<f32>();
  let q2_13 = Q[o2 + 13u] * sc; let g2_13 = dO[o2 + 13u]; var a2_13 = vec4<f32>();
  let q2_14 = Q[o2 + 14u] * sc; let g2_14 = dO[o2 + 14u]; var a2_14 = vec4<f32>();
  let q2_15 = Q[o2 + 15u] * sc; let g2_15 = dO[o2 + 15u]; var a2_15 = vec4<f32>();
  let o3 = qq.rows.w * 16u; let st3 = ST[qq.rows.w];
  let q3_0 = Q[o3 + 0u] * sc; let g3_0 = dO[o3 + 0u]; var a3_0 = vec4<f32>();
  let q3_1 = Q[o3 + 1u] * sc; let g3_1 = dO[o3 + 1u]; var a3_1 = vec4<f32>();
  let q3_2 = Q[o3 + 2u] * sc; let g3_2 = dO[o3 + 2u]; var a3_2 = vec4<f32>();
  let q3_3 = Q[o3 + 3u] * sc; let g3_3 = dO[o3 + 3u]; var a3_3 = vec4<f32>();
  let q3_4 = Q[o3 + 4u] * sc; let g3_4 = dO[o3 + 4u]; var a3_4 = vec4<f32>();
  let q3_5 = Q[o3 + 5u] * sc; let g3_5 = dO[o3 + 5u]; var a3_5 = vec4<f32>();
  let q3_6 = Q[o3 + 6u] * sc; let g3_6 = dO[o3 + 6u]; var a3_6 = vec4<f32>();
  let q3_7 = Q[o3 + 7u] * sc; let g3_7 = dO[o3 + 7u]; var a3_7 = vec4<f32>();
  let q3_8 = Q[o3 + 8u] * sc; let g3_8 = dO[o3 + 8u]; var a3_8 = vec4<f32>();
  let q3_9 = Q[o3 + 9u] * sc; let g3_9 = dO[o3 + 9u]; var a3_9 = vec4<f32>();
  let q3_10 = Q[o3 + 10u] * sc; let g3_10 = dO[o3 + 10u]; var a3_10 = vec4<f32>();
  let q3_11 = Q[o3 + 11u] * sc; let g3_11 = dO[o3 + 11u]; var a3_11 = vec4<f32>();
  let q3_12 = Q[o3 + 12u] * sc; let g3_12 = dO[o3 + 12u]; var a3_12 = vec4<f32>();
  let q3_13 = Q[o3 + 13u] * sc; let g3_13 = dO[o3 + 13u]; var a3_13 = vec4<f32>();
  let q3_14 = Q[o3 + 14u] * sc; let g3_14 = dO[o3 + 14u]; var a3_14 = vec4<f32>();
  let q3_15 = Q[o3 + 15u] * sc; let g3_15 = dO[o3 + 15u]; var a3_15 = vec4<f32>();
  for (var j = 0u; j <= quad_last(qq); j++) {
    let ko = qq.base + j * 16u;
    let on = quad_reach(qq, j);
    let k0 = Kc[ko + 0u]; let v0 = Vc[ko + 0u];
    let k1 = Kc[ko + 1u]; let v1 = Vc[ko + 1u];
    let k2 = Kc[ko + 2u]; let v2 = Vc[ko + 2u];
    let k3 = Kc[ko + 3u]; let v3 = Vc[ko + 3u];
    let k4 = Kc[ko + 4u]; let v4 = Vc[ko + 4u];
    let k5 = Kc[ko + 5u]; let v5 = Vc[ko + 5u];
    let k6 = Kc[ko + 6u]; let v6 = Vc[ko + 6u];
    let k7 = Kc[ko + 7u]; let v7 = Vc[ko + 7u];
    let k8 = Kc[ko + 8u]; let v8 = Vc[ko + 8u];
    let k9 = Kc[ko + 9u]; let v9 = Vc[ko + 9u];
    let k10 = Kc[ko + 10u]; let v10 = Vc[ko + 10u];
    let k11 = Kc[ko + 11u]; let v11 = Vc[ko + 11u];
    let k12 = Kc[ko + 12u]; let v12 = Vc[ko + 12u];
    let k13 = Kc[ko + 13u]; let v13 = Vc[ko + 13u];
    let k14 = Kc[ko + 14u]; let v14 = Vc[ko + 14u];
    let k15 = Kc[ko + 15u]; let v15 = Vc[ko + 15u];
    let e0 = select(0.0, exp(hsum4(((((q0_0 * k0 + q0_1 * k1) + (q0_2 * k2 + q0_3 * k3)) + ((q0_4 * k4 + q0_5 * k5) + (q0_6 * k6 + q0_7 * k7))) + (((q0_8 * k8 + q0_9 * k9) + (q0_10 * k10 + q0_11 * k11)) + ((q0_12 * k12 + q0_13 * k13) + (q0_14 * k14 + q0_15 * k15))))) - st0.x), on.x);
    let d0 = e0 * (hsum4(((((g0_0 * v0 + g0_1 * v1) + (g0_2 * v2 + g0_3 * v3)) + ((g0_4 * v4 + g0_5 * v5) + (g0_6 * v6 + g0_7 * v7))) + (((g0_8 * v8 + g0_9 * v9) + (g0_10 * v10 + g0_11 * v11)) + ((g0_12 * v12 + g0_13 * v13) + (g0_14 * v14 + g0_15 * v15))))) - st0.y);
    a0_0 += d0 * k0; a0_1 += d0 * k1; a0_2 += d0 * k2; a0_3 += d0 * k3; a0_4 += d0 * k4; a0_5 += d0 * k5; a0_6 += d0 * k6; a0_7 += d0 * k7; a0_8 += d0 * k8; a0_9 += d0 * k9; a0_10 += d0 * k10; a0_11 += d0 * k11; a0_12 += d0 * k12; a0_13 += d0 * k13; a0_14 += d0 * k14; a0_15 += d0 * k15;
    let e1 = select(0.0, exp(hsum4(((((q1_0 * k0 + q1_1 * k1) + (q1_2 * k2 + q1_3 * k3)) + ((q1_4 * k4 + q1_5 * k5) + (q1_6 * k6 + q1_7 * k7))) + (((q1_8 * k8 + q1_9 * k9) + (q1_10 * k10 + q1_11 * k11)) + ((q1_12 * k12 + q1_13 * k13) + (q1_14 * k14 + q1_15 * k15))))) - st1.x), on.y);
    let d1 = e1 * (hsum4(((((g1_0 * v0 + g1_1 * v1) + (g1_2 * v2 + g1_3 * v3)) + ((g1_4 * v4 + g1_5 * v5) + (g1_6 * v6 + g1_7 * v7))) + (((g1_8 * v8 + g1_9 * v9) + (g1_10 * v10 + g1_11 * v11)) + ((g1_12 * v12 + g1_13 * v13) + (g1_14 * v14 + g1_15 * v15))))) - st1.y);
    a1_0 += d1 * k0; a1_1 += d1 * k1; a1_2 += d1 * k2; a1_3 += d1 * k3; a1_4 += d1 * k4; a1_5 += d1 * k5; a1_6 += d1 * k6; a1_7 += d1 * k7; a1_8 += d1 * k8; a1_9 += d1 * k9; a1_10 += d1 * k10; a1_11 += d1 * k11; a1_12 += d1 * k12; a1_13 += d1 * k13; a1_14 += d1 * k14; a1_15 += d1 * k15;
    let e2 = select(0.0, exp(hsum4(((((q2_0 * k0 + q2_1 * k1) + (q2_2 * k2 + q2_3 * k3)) + ((q2_4 * k4 + q2_5 * k5) + (q2_6 * k6 + q2_7 * k7))) + (((q2_8 * k8 + q2_9 * k9) + (q2_10 * k10 + q2_11 * k11)) + ((q2_12 * k12 + q2_13 * k13) + (q2_14 * k14 + q2_15 * k15))))) - st2.x), on.z);
    let d2 = e2 * (hsum4(((((g2_0 * v0 + g2_1 * v1) + (g2_2 * v2 + g2_3 * v3)) + ((g2_4 * v4 + g2_5 * v5) + (g2_6 * v6 + g2_7 * v7))) + (((g2_8 * v8 + g2_9 * v9) + (g2_10 * v10 + g2_11 * v11)) + ((g2_12 * v12 + g2_13 * v13) + (g2_14 * v14 + g2_15 * v15))))) - st2.y);
    a2_0 += d2 * k0; a2_1 += d2 * k1; a2_2 += d2 * k2; a2_3 += d2 * k3; a2_4 += d2 * k4; a2_5 += d2 * k5; a2_6 += d2 * k6; a2_7 += d2 * k7; a2_8 += d2 * k8; a2_9 += d2 * k9; a2_10 += d2 * k10; a2_11 += d2 * k11; a2_12 += d2 * k12; a2_13 += d2 * k13; a2_14 += d2 * k14; a2_15 += d2 * k15;
    let e3 = select(0.0, exp(hsum4(((((q3_0 * k0 + q3_1 * k1) + (q3_2 * k2 + q3_3 * k3)) + ((q3_4 * k4 + q3_5 * k5) + (q3_6 * k6 + q3_7 * k7))) + (((q3_8 * k8 + q3_9 * k9) + (q3_10 * k10 + q3_11 * k11)) + ((q3_12 * k12 + q3_13 * k13) + (q3_14 * k14 + q3_15 * k15))))) - st3.x), on.w);
    let d3 = e3 * (hsum4(((((g3_0 * v0 + g3_1 * v1) + (g3_2 * v2 + g3_3 * v3)) + ((g3_4 * v4 + g3_5 * v5) + (g3_6 * v6 + g3_7 * v7))) + (((g3_8 * v8 + g3_9 * v9) + (g3_10 * v10 + g3_11 * v11)) + ((g3_12 * v12 + g3_13 * v13) + (g3_14 * v14 + g3_15 * v15))))) - st3.y);
    a3_0 += d3 * k0; a3_1 += d3 * k1; a3_2 += d3 * k2; a3_3 += d3 * k3; a3_4 += d3 * k4; a3_5 += d3 * k5; a3_6 += d3 * k6; a3_7 += d3 * k7; a3_8 += d3 * k8; a3_9 += d3 * k9; a3_10 += d3 * k10; a3_11 += d3 * k11; a3_12 += d3 * k12; a3_13 += d3 * k13; a3_14 += d3 * k14; a3_15 += d3 * k15;
    PSw[line + j * 2u] = vec4<f32>(e0, e1, e2, e3);
    PSw[line + j * 2u + 1u] = vec4<f32>(d0, d1, d2, d3);
  }
  zero_ps_tail(qq, line);
  if (qq.live.x) {
    dQ[o0 + 0u] = a0_0 * sc;
    dQ[o0 + 1u] = a0_1 * sc;
    dQ[o0 + 2u] = a0_2 * sc;
    dQ[o0 + 3u] = a0_3 * sc;
    dQ[o0 + 4u] = a0_4 * sc;
    dQ[o0 + 5u] = a0_5 * sc;
    dQ[o0 + 6u] = a0_6 * sc;
    dQ[o0 + 7u] = a0_7 * sc;
    dQ[o0 + 8u] = a0_8 * sc;
    dQ[o0 + 9u] = a0_9 * sc;
    dQ[o0 + 10u] = a0_10 * sc;
    dQ[o0 + 11u] = a0_11 * sc;
    dQ[o0 + 12u] = a0_12 * sc;
    dQ[o0 + 13u] = a0_13 * sc;
    dQ[o0 + 14u] = a0_14 * sc;
    dQ[o0 + 15u] = a0_15 * sc;
  }
  if (qq.live.y) {
    dQ[o1 + 0u] = a1_0 * sc;
    dQ[o1 + 1u] = a1_1 * sc;
    dQ[o1 + 2u] = a1_2 * sc;
    dQ[o1 + 3u] = a1_3 * sc;
    dQ[o1 + 4u] = a1_4 * sc;
    dQ[o1 + 5u] = a1_5 * sc;
    dQ[o1 + 6u] = a1_6 * sc;
    dQ[o1 + 7u] = a1_7 * sc;
    dQ[o1 + 8u] = a1_8 * sc;
    dQ[o1 + 9u] = a1_9 * sc;
    dQ[o1 + 10u] = a1_10 * sc;
    dQ[o1 + 11u] = a1_11 * sc;
    dQ[o1 + 12u] = a1_12 * sc;
    dQ[o1 + 13u] = a1_13 * sc;
    dQ[o1 + 14u] = a1_14 * sc;
    dQ[o1 + 15u] = a1_15 * sc;
  }
  if (qq.live.z) {
    dQ[o2 + 0u] = a2_0 * sc;
    dQ[o2 + 1u] = a2_1 * sc;
    dQ[o2 + 2u] = a2_2 * sc;
    dQ[o2 + 3u] = a2_3 * sc;
    dQ[o2 + 4u] = a2_4 * sc;
    dQ[o2 + 5u] = a2_5 * sc;
    dQ[o2 + 6u] = a2_6 * sc;
    dQ[o2 + 7u] = a2_7 * sc;
    dQ[o2 + 8u] = a2_8 * sc;
    dQ[o2 + 9u] = a2_9 * sc;
    dQ[o2 + 10u] = a2_10 * sc;
    dQ[o2 + 11u] = a2_11 * sc;
    dQ[o2 + 12u] = a2_12 * sc;
    dQ[o2 + 13u] = a2_13 * sc;
    dQ[o2 + 14u] = a2_14 * sc;
    dQ[o2 + 15u] = a2_15 * sc;
  }
  if (qq.live.w) {
    dQ[o3 + 0u] = a3_0 * sc;
    dQ[o3 + 1u] = a3_1 * sc;
    dQ[o3 + 2u] = a3_2 * sc;
    dQ[o3 + 3u] = a3_3 * sc;
    dQ[o3 + 4u] = a3_4 * sc;
    dQ[o3 + 5u] = a3_5 * sc;
    dQ[o3 + 6u] = a3_6 * sc;
    dQ[o3 + 7u] = a3_7 * sc;
    dQ[o3 + 8u] = a3_8 * sc;
    dQ[o3 + 9u] = a3_9 * sc;
    dQ[o3 + 10u] = a3_10 * sc;
    dQ[o3 + 11u] = a3_11 * sc;
    dQ[o3 + 12u] = a3_12 * sc;
    dQ[o3 + 13u] = a3_13 * sc;
    dQ[o3 + 14u] = a3_14 * sc;
    dQ[o3 + 15u] = a3_15 * sc;
  }
}

@compute @workgroup_size(WG)
fn attn_bwd_dkv_ps_hs64(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quad(pl, gid.x + gid.y * nwg.x * WG);
  if (!kq.ok) { return; }
  let u0 = kq.j0 / 4u;
  var dk0_0 = vec4<f32>(); var dv0_0 = vec4<f32>(); var dk0_1 = vec4<f32>(); var dv0_1 = vec4<f32>(); var dk0_2 = vec4<f32>(); var dv0_2 = vec4<f32>(); var dk0_3 = vec4<f32>(); var dv0_3 = vec4<f32>(); var dk0_4 = vec4<f32>(); var dv0_4 = vec4<f32>(); var dk0_5 = vec4<f32>(); var dv0_5 = vec4<f32>(); var dk0_6 = vec4<f32>(); var dv0_6 = vec4<f32>(); var dk0_7 = vec4<f32>(); var dv0_7 = vec4<f32>(); var dk0_8 = vec4<f32>(); var dv0_8 = vec4<f32>(); var dk0_9 = vec4<f32>(); var dv0_9 = vec4<f32>(); var dk0_10 = vec4<f32>(); var dv0_10 = vec4<f32>(); var dk0_11 = vec4<f32>(); var dv0_11 = vec4<f32>(); var dk0_12 = vec4<f32>(); var dv0_12 = vec4<f32>(); var dk0_13 = vec4<f32>(); var dv0_13 = vec4<f32>(); var dk0_14 = vec4<f32>(); var dv0_14 = vec4<f32>(); var dk0_15 = vec4<f32>(); var dv0_15 = vec4<f32>();
  var dk1_0 = vec4<f32>(); var dv1_0 = vec4<f32>(); var dk1_1 = vec4<f32>(); var dv1_1 = vec4<f32>(); var dk1_2 = vec4<f32>(); var dv1_2 = vec4<f32>(); var dk1_3 = vec4<f32>(); var dv1_3 = vec4<f32>(); var dk1_4 = vec4<f32>(); var dv1_4 = vec4<f32>(); var dk1_5 = vec4<f32>(); var dv1_5 = vec4<f32>(); var dk1_6 = vec4<f32>(); var dv1_6 = vec4<f32>(); var dk1_7 = vec4<f32>(); var dv1_7 = vec4<f32>(); var dk1_8 = vec4<f32>(); var dv1_8 = vec4<f32>(); var dk1_9 = vec4<f32>(); var dv1_9 = vec4<f32>(); var dk1_10 = vec4<f32>(); var dv1_10 = vec4<f32>(); var dk1_11 = vec4<f32>(); var dv1_11 = vec4<f32>(); var dk1_12 = vec4<f32>(); var dv1_12 = vec4<f32>(); var dk1_13 = vec4<f32>(); var dv1_13 = vec4<f32>(); var dk1_14 = vec4<f32>(); var dv1_14 = vec4<f32>(); var dk1_15 = vec4<f32>(); var dv1_15 = vec4<f32>();
  var dk2_0 = vec4<f32>(); var dv2_0 = vec4<f32>(); var dk2_1 = vec4<f32>(); var dv2_1 = vec4<f32>(); var dk2_2 = vec4<f32>(); var dv2_2 = vec4<f32>(); var dk2_3 = vec4<f32>(); var dv2_3 = vec4<f32>(); var dk2_4 = vec4<f32>(); var dv2_4 = vec4<f32>(); var dk2_5 = vec4<f32>(); var dv2_5 = vec4<f32>(); var dk2_6 = vec4<f32>(); var dv2_6 = vec4<f32>(); var dk2_7 = vec4<f32>(); var dv2_7 = vec4<f32>(); var dk2_8 = vec4<f32>(); var dv2_8 = vec4<f32>(); var dk2_9 = vec4<f32>(); var dv2_9 = vec4<f32>(); var dk2_10 = vec4<f32>(); var dv2_10 = vec4<f32>(); var dk2_11 = vec4<f32>(); var dv2_11 = vec4<f32>(); var dk2_12 = vec4<f32>(); var dv2_12 = vec4<f32>(); var dk2_13 = vec4<f32>(); var dv2_13 = vec4<f32>(); var dk2_14 = vec4<f32>(); var dv2_14 = vec4<f32>(); var dk2_15 = vec4<f32>(); var dv2_15 = vec4<f32>();
  var dk3_0 = vec4<f32>(); var dv3_0 = vec4<f32>(); var dk3_1 = vec4<f32>(); var dv3_1 = vec4<f32>(); var dk3_2 = vec4<f32>(); var dv3_2 = vec4<f32>(); var dk3_3 = vec4<f32>(); var dv3_3 = vec4<f32>(); var dk3_4 = vec4<f32>(); var dv3_4 = vec4<f32>(); var dk3_5 = vec4<f32>(); var dv3_5 = vec4<f32>(); var dk3_6 = vec4<f32>(); var dv3_6 = vec4<f32>(); var dk3_7 = vec4<f32>(); var dv3_7 = vec4<f32>(); var dk3_8 = vec4<f32>(); var dv3_8 = vec4<f32>(); var dk3_9 = vec4<f32>(); var dv3_9 = vec4<f32>(); var dk3_10 = vec4<f32>(); var dv3_10 = vec4<f32>(); var dk3_11 = vec4<f32>(); var dv3_11 = vec4<f32>(); var dk3_12 = vec4<f32>(); var dv3_12 = vec4<f32>(); var dk3_13 = vec4<f32>(); var dv3_13 = vec4<f32>(); var dk3_14 = vec4<f32>(); var dv3_14 = vec4<f32>(); var dk3_15 = vec4<f32>(); var dv3_15 = vec4<f32>();
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(u0, kq.start / 4u); u * 4u < kq.len; u++) {
      let pb = ps_cell(pl, kq, h, u);
      let r = quad_rows(pl, kq, h, u) * 16u;
      let p0 = PSr[pb + kq.pos.x * 2u]; let s0 = PSr[pb + kq.pos.x * 2u + 1u];
      let p1 = PSr[pb + kq.pos.y * 2u]; let s1 = PSr[pb + kq.pos.y * 2u + 1u];
      let p2 = PSr[pb + kq.pos.z * 2u]; let s2 = PSr[pb + kq.pos.z * 2u + 1u];
      let p3 = PSr[pb + kq.pos.w * 2u]; let s3 = PSr[pb + kq.pos.w * 2u + 1u];
      { let xa = Q[r.x + 0u]; let xb = Q[r.y + 0u]; let xc = Q[r.z + 0u]; let xd = Q[r.w + 0u];
        dk0_0 = dk0_0 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_0 = dk1_0 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_0 = dk2_0 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_0 = dk3_0 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 0u]; let gb = gO[r.y + 0u]; let gc = gO[r.z + 0u]; let gd = gO[r.w + 0u];
        dv0_0 = dv0_0 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_0 = dv1_0 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_0 = dv2_0 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_0 = dv3_0 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 1u]; let xb = Q[r.y + 1u]; let xc = Q[r.z + 1u]; let xd = Q[r.w + 1u];
        dk0_1 = dk0_1 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_1 = dk1_1 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_1 = dk2_1 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_1 = dk3_1 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 1u]; let gb = gO[r.y + 1u]; let gc = gO[r.z + 1u]; let gd = gO[r.w + 1u];
        dv0_1 = dv0_1 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_1 = dv1_1 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_1 = dv2_1 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_1 = dv3_1 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 2u]; let xb = Q[r.y + 2u]; let xc = Q[r.z + 2u]; let xd = Q[r.w + 2u];
        dk0_2 = dk0_2 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_2 = dk1_2 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_2 = dk2_2 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_2 = dk3_2 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 2u]; let gb = gO[r.y + 2u]; let gc = gO[r.z + 2u]; let gd = gO[r.w + 2u];
        dv0_2 = dv0_2 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_2 = dv1_2 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_2 = dv2_2 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_2 = dv3_2 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 3u]; let xb = Q[r.y + 3u]; let xc = Q[r.z + 3u]; let xd = Q[r.w + 3u];
        dk0_3 = dk0_3 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_3 = dk1_3 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_3 = dk2_3 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_3 = dk3_3 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 3u]; let gb = gO[r.y + 3u]; let gc = gO[r.z + 3u]; let gd = gO[r.w + 3u];
        dv0_3 = dv0_3 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_3 = dv1_3 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_3 = dv2_3 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_3 = dv3_3 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 4u]; let xb = Q[r.y + 4u]; let xc = Q[r.z + 4u]; let xd = Q[r.w + 4u];
        dk0_4 = dk0_4 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_4 = dk1_4 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_4 = dk2_4 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_4 = dk3_4 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 4u]; let gb = gO[r.y + 4u]; let gc = gO[r.z + 4u]; let gd = gO[r.w + 4u];
        dv0_4 = dv0_4 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_4 = dv1_4 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_4 = dv2_4 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_4 = dv3_4 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 5u]; let xb = Q[r.y + 5u]; let xc = Q[r.z + 5u]; let xd = Q[r.w + 5u];
        dk0_5 = dk0_5 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_5 = dk1_5 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_5 = dk2_5 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_5 = dk3_5 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 5u]; let gb = gO[r.y + 5u]; let gc = gO[r.z + 5u]; let gd = gO[r.w + 5u];
        dv0_5 = dv0_5 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_5 = dv1_5 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_5 = dv2_5 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_5 = dv3_5 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 6u]; let xb = Q[r.y + 6u]; let xc = Q[r.z + 6u]; let xd = Q[r.w + 6u];
        dk0_6 = dk0_6 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_6 = dk1_6 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_6 = dk2_6 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_6 = dk3_6 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 6u]; let gb = gO[r.y + 6u]; let gc = gO[r.z + 6u]; let gd = gO[r.w + 6u];
        dv0_6 = dv0_6 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_6 = dv1_6 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_6 = dv2_6 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_6 = dv3_6 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 7u]; let xb = Q[r.y + 7u]; let xc = Q[r.z + 7u]; let xd = Q[r.w + 7u];
        dk0_7 = dk0_7 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_7 = dk1_7 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_7 = dk2_7 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_7 = dk3_7 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 7u]; let gb = gO[r.y + 7u]; let gc = gO[r.z + 7u]; let gd = gO[r.w + 7u];
        dv0_7 = dv0_7 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_7 = dv1_7 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_7 = dv2_7 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_7 = dv3_7 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 8u]; let xb = Q[r.y + 8u]; let xc = Q[r.z + 8u]; let xd = Q[r.w + 8u];
        dk0_8 = dk0_8 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_8 = dk1_8 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_8 = dk2_8 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_8 = dk3_8 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 8u]; let gb = gO[r.y + 8u]; let gc = gO[r.z + 8u]; let gd = gO[r.w + 8u];
        dv0_8 = dv0_8 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_8 = dv1_8 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_8 = dv2_8 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_8 = dv3_8 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 9u]; let xb = Q[r.y + 9u]; let xc = Q[r.z + 9u]; let xd = Q[r.w + 9u];
        dk0_9 = dk0_9 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_9 = dk1_9 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_9 = dk2_9 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_9 = dk3_9 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 9u]; let gb = gO[r.y + 9u]; let gc = gO[r.z + 9u]; let gd = gO[r.w + 9u];
        dv0_9 = dv0_9 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_9 = dv1_9 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_9 = dv2_9 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_9 = dv3_9 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 10u]; let xb = Q[r.y + 10u]; let xc = Q[r.z + 10u]; let xd = Q[r.w + 10u];
        dk0_10 = dk0_10 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_10 = dk1_10 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_10 = dk2_10 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_10 = dk3_10 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 10u]; let gb = gO[r.y + 10u]; let gc = gO[r.z + 10u]; let gd = gO[r.w + 10u];
        dv0_10 = dv0_10 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_10 = dv1_10 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_10 = dv2_10 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_10 = dv3_10 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 11u]; let xb = Q[r.y + 11u]; let xc = Q[r.z + 11u]; let xd = Q[r.w + 11u];
        dk0_11 = dk0_11 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_11 = dk1_11 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_11 = dk2_11 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_11 = dk3_11 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 11u]; let gb = gO[r.y + 11u]; let gc = gO[r.z + 11u]; let gd = gO[r.w + 11u];
        dv0_11 = dv0_11 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_11 = dv1_11 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_11 = dv2_11 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_11 = dv3_11 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 12u]; let xb = Q[r.y + 12u]; let xc = Q[r.z + 12u]; let xd = Q[r.w + 12u];
        dk0_12 = dk0_12 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_12 = dk1_12 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_12 = dk2_12 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_12 = dk3_12 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 12u]; let gb = gO[r.y + 12u]; let gc = gO[r.z + 12u]; let gd = gO[r.w + 12u];
        dv0_12 = dv0_12 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_12 = dv1_12 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_12 = dv2_12 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_12 = dv3_12 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 13u]; let xb = Q[r.y + 13u]; let xc = Q[r.z + 13u]; let xd = Q[r.w + 13u];
        dk0_13 = dk0_13 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_13 = dk1_13 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_13 = dk2_13 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_13 = dk3_13 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 13u]; let gb = gO[r.y + 13u]; let gc = gO[r.z + 13u]; let gd = gO[r.w + 13u];
        dv0_13 = dv0_13 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_13 = dv1_13 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_13 = dv2_13 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_13 = dv3_13 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 14u]; let xb = Q[r.y + 14u]; let xc = Q[r.z + 14u]; let xd = Q[r.w + 14u];
        dk0_14 = dk0_14 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_14 = dk1_14 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_14 = dk2_14 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_14 = dk3_14 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 14u]; let gb = gO[r.y + 14u]; let gc = gO[r.z + 14u]; let gd = gO[r.w + 14u];
        dv0_14 = dv0_14 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_14 = dv1_14 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_14 = dv2_14 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_14 = dv3_14 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
      { let xa = Q[r.x + 15u]; let xb = Q[r.y + 15u]; let xc = Q[r.z + 15u]; let xd = Q[r.w + 15u];
        dk0_15 = dk0_15 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_15 = dk1_15 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_15 = dk2_15 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_15 = dk3_15 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        let ga = gO[r.x + 15u]; let gb = gO[r.y + 15u]; let gc = gO[r.z + 15u]; let gd = gO[r.w + 15u];
        dv0_15 = dv0_15 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_15 = dv1_15 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_15 = dv2_15 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_15 = dv3_15 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
      }
    }
  }
  let o = (vec4<u32>(kq.line * pl.Tmax) + kq.pos) * 16u;
  {
    dKo[o.x + 0u] = dk0_0 * pl.scale; dVo[o.x + 0u] = dv0_0;
    dKo[o.x + 1u] = dk0_1 * pl.scale; dVo[o.x + 1u] = dv0_1;
    dKo[o.x + 2u] = dk0_2 * pl.scale; dVo[o.x + 2u] = dv0_2;
    dKo[o.x + 3u] = dk0_3 * pl.scale; dVo[o.x + 3u] = dv0_3;
    dKo[o.x + 4u] = dk0_4 * pl.scale; dVo[o.x + 4u] = dv0_4;
    dKo[o.x + 5u] = dk0_5 * pl.scale; dVo[o.x + 5u] = dv0_5;
    dKo[o.x + 6u] = dk0_6 * pl.scale; dVo[o.x + 6u] = dv0_6;
    dKo[o.x + 7u] = dk0_7 * pl.scale; dVo[o.x + 7u] = dv0_7;
    dKo[o.x + 8u] = dk0_8 * pl.scale; dVo[o.x + 8u] = dv0_8;
    dKo[o.x + 9u] = dk0_9 * pl.scale; dVo[o.x + 9u] = dv0_9;
    dKo[o.x + 10u] = dk0_10 * pl.scale; dVo[o.x + 10u] = dv0_10;
    dKo[o.x + 11u] = dk0_11 * pl.scale; dVo[o.x + 11u] = dv0_11;
    dKo[o.x + 12u] = dk0_12 * pl.scale; dVo[o.x + 12u] = dv0_12;
    dKo[o.x + 13u] = dk0_13 * pl.scale; dVo[o.x + 13u] = dv0_13;
    dKo[o.x + 14u] = dk0_14 * pl.scale; dVo[o.x + 14u] = dv0_14;
    dKo[o.x + 15u] = dk0_15 * pl.scale; dVo[o.x + 15u] = dv0_15;
  }
  if (kq.j0 + 1u < pl.Tmax) {
    dKo[o.y + 0u] = dk1_0 * pl.scale; dVo[o.y + 0u] = dv1_0;
    dKo[o.y + 1u] = dk1_1 * pl.scale; dVo[o.y + 1u] = dv1_1;
    dKo[o.y + 2u] = dk1_2 * pl.scale; dVo[o.y + 2u] = dv1_2;
    dKo[o.y + 3u] = dk1_3 * pl.scale; dVo[o.y + 3u] = dv1_3;
    dKo[o.y + 4u] = dk1_4 * pl.scale; dVo[o.y + 4u] = dv1_4;
    dKo[o.y + 5u] = dk1_5 * pl.scale; dVo[o.y + 5u] = dv1_5;
    dKo[o.y + 6u] = dk1_6 * pl.scale; dVo[o.y + 6u] = dv1_6;
    dKo[o.y + 7u] = dk1_7 * pl.scale; dVo[o.y + 7u] = dv1_7;
    dKo[o.y + 8u] = dk1_8 * pl.scale; dVo[o.y + 8u] = dv1_8;
    dKo[o.y + 9u] = dk1_9 * pl.scale; dVo[o.y + 9u] = dv1_9;
    dKo[o.y + 10u] = dk1_10 * pl.scale; dVo[o.y + 10u] = dv1_10;
    dKo[o.y + 11u] = dk1_11 * pl.scale; dVo[o.y + 11u] = dv1_11;
    dKo[o.y + 12u] = dk1_12 * pl.scale; dVo[o.y + 12u] = dv1_12;
    dKo[o.y + 13u] = dk1_13 * pl.scale; dVo[o.y + 13u] = dv1_13;
    dKo[o.y + 14u] = dk1_14 * pl.scale; dVo[o.y + 14u] = dv1_14;
    dKo[o.y + 15u] = dk1_15 * pl.scale; dVo[o.y + 15u] = dv1_15;
  }
  if (kq.j0 + 2u < pl.Tmax) {
    dKo[o.z + 0u] = dk2_0 * pl.scale; dVo[o.z + 0u] = dv2_0;
    dKo[o.z + 1u] = dk2_1 * pl.scale; dVo[o.z + 1u] = dv2_1;
    dKo[o.z + 2u] = dk2_2 * pl.scale; dVo[o.z + 2u] = dv2_2;
    dKo[o.z + 3u] = dk2_3 * pl.scale; dVo[o.z + 3u] = dv2_3;
    dKo[o.z + 4u] = dk2_4 * pl.scale; dVo[o.z + 4u] = dv2_4;
    dKo[o.z + 5u] = dk2_5 * pl.scale; dVo[o.z + 5u] = dv2_5;
    dKo[o.z + 6u] = dk2_6 * pl.scale; dVo[o.z + 6u] = dv2_6;
    dKo[o.z + 7u] = dk2_7 * pl.scale; dVo[o.z + 7u] = dv2_7;
    dKo[o.z + 8u] = dk2_8 * pl.scale; dVo[o.z + 8u] = dv2_8;
    dKo[o.z + 9u] = dk2_9 * pl.scale; dVo[o.z + 9u] = dv2_9;
    dKo[o.z + 10u] = dk2_10 * pl.scale; dVo[o.z + 10u] = dv2_10;
    dKo[o.z + 11u] = dk2_11 * pl.scale; dVo[o.z + 11u] = dv2_11;
    dKo[o.z + 12u] = dk2_12 * pl.scale; dVo[o.z + 12u] = dv2_12;
    dKo[o.z + 13u] = dk2_13 * pl.scale; dVo[o.z + 13u] = dv2_13;
    dKo[o.z + 14u] = dk2_14 * pl.scale; dVo[o.z + 14u] = dv2_14;
    dKo[o.z + 15u] = dk2_15 * pl.scale; dVo[o.z + 15u] = dv2_15;
  }
  if (kq.j0 + 3u < pl.Tmax) {
    dKo[o.w + 0u] = dk3_0 * pl.scale; dVo[o.w + 0u] = dv3_0;
    dKo[o.w + 1u] = dk3_1 * pl.scale; dVo[o.w + 1u] = dv3_1;
    dKo[o.w + 2u] = dk3_2 * pl.scale; dVo[o.w + 2u] = dv3_2;
    dKo[o.w + 3u] = dk3_3 * pl.scale; dVo[o.w + 3u] = dv3_3;
    dKo[o.w + 4u] = dk3_4 * pl.scale; dVo[o.w + 4u] = dv3_4;
    dKo[o.w + 5u] = dk3_5 * pl.scale; dVo[o.w + 5u] = dv3_5;
    dKo[o.w + 6u] = dk3_6 * pl.scale; dVo[o.w + 6u] = dv3_6;
    dKo[o.w + 7u] = dk3_7 * pl.scale; dVo[o.w + 7u] = dv3_7;
    dKo[o.w + 8u] = dk3_8 * pl.scale; dVo[o.w + 8u] = dv3_8;
    dKo[o.w + 9u] = dk3_9 * pl.scale; dVo[o.w + 9u] = dv3_9;
    dKo[o.w + 10u] = dk3_10 * pl.scale; dVo[o.w + 10u] = dv3_10;
    dKo[o.w + 11u] = dk3_11 * pl.scale; dVo[o.w + 11u] = dv3_11;
    dKo[o.w + 12u] = dk3_12 * pl.scale; dVo[o.w + 12u] = dv3_12;
    dKo[o.w + 13u] = dk3_13 * pl.scale; dVo[o.w + 13u] = dv3_13;
    dKo[o.w + 14u] = dk3_14 * pl.scale; dVo[o.w + 14u] = dv3_14;
    dKo[o.w + 15u] = dk3_15 * pl.scale; dVo[o.w + 15u] = dv3_15;
  }
}

@compute @workgroup_size(WG)
fn attn_bwd_dkv_ps8_hs64(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let kq = key_quads(pl, gid.x + gid.y * nwg.x * WG, 2u);
  if (!kq.ok) { return; }
  let u0 = kq.j0 / 4u;
  let pos1 = key_positions(pl, kq.j0 + 4u);
  var dk0_0 = vec4<f32>(); var dv0_0 = vec4<f32>(); var dk0_1 = vec4<f32>(); var dv0_1 = vec4<f32>(); var dk0_2 = vec4<f32>(); var dv0_2 = vec4<f32>(); var dk0_3 = vec4<f32>(); var dv0_3 = vec4<f32>(); var dk0_4 = vec4<f32>(); var dv0_4 = vec4<f32>(); var dk0_5 = vec4<f32>(); var dv0_5 = vec4<f32>(); var dk0_6 = vec4<f32>(); var dv0_6 = vec4<f32>(); var dk0_7 = vec4<f32>(); var dv0_7 = vec4<f32>(); var dk0_8 = vec4<f32>(); var dv0_8 = vec4<f32>(); var dk0_9 = vec4<f32>(); var dv0_9 = vec4<f32>(); var dk0_10 = vec4<f32>(); var dv0_10 = vec4<f32>(); var dk0_11 = vec4<f32>(); var dv0_11 = vec4<f32>(); var dk0_12 = vec4<f32>(); var dv0_12 = vec4<f32>(); var dk0_13 = vec4<f32>(); var dv0_13 = vec4<f32>(); var dk0_14 = vec4<f32>(); var dv0_14 = vec4<f32>(); var dk0_15 = vec4<f32>(); var dv0_15 = vec4<f32>();
  var dk1_0 = vec4<f32>(); var dv1_0 = vec4<f32>(); var dk1_1 = vec4<f32>(); var dv1_1 = vec4<f32>(); var dk1_2 = vec4<f32>(); var dv1_2 = vec4<f32>(); var dk1_3 = vec4<f32>(); var dv1_3 = vec4<f32>(); var dk1_4 = vec4<f32>(); var dv1_4 = vec4<f32>(); var dk1_5 = vec4<f32>(); var dv1_5 = vec4<f32>(); var dk1_6 = vec4<f32>(); var dv1_6 = vec4<f32>(); var dk1_7 = vec4<f32>(); var dv1_7 = vec4<f32>(); var dk1_8 = vec4<f32>(); var dv1_8 = vec4<f32>(); var dk1_9 = vec4<f32>(); var dv1_9 = vec4<f32>(); var dk1_10 = vec4<f32>(); var dv1_10 = vec4<f32>(); var dk1_11 = vec4<f32>(); var dv1_11 = vec4<f32>(); var dk1_12 = vec4<f32>(); var dv1_12 = vec4<f32>(); var dk1_13 = vec4<f32>(); var dv1_13 = vec4<f32>(); var dk1_14 = vec4<f32>(); var dv1_14 = vec4<f32>(); var dk1_15 = vec4<f32>(); var dv1_15 = vec4<f32>();
  var dk2_0 = vec4<f32>(); var dv2_0 = vec4<f32>(); var dk2_1 = vec4<f32>(); var dv2_1 = vec4<f32>(); var dk2_2 = vec4<f32>(); var dv2_2 = vec4<f32>(); var dk2_3 = vec4<f32>(); var dv2_3 = vec4<f32>(); var dk2_4 = vec4<f32>(); var dv2_4 = vec4<f32>(); var dk2_5 = vec4<f32>(); var dv2_5 = vec4<f32>(); var dk2_6 = vec4<f32>(); var dv2_6 = vec4<f32>(); var dk2_7 = vec4<f32>(); var dv2_7 = vec4<f32>(); var dk2_8 = vec4<f32>(); var dv2_8 = vec4<f32>(); var dk2_9 = vec4<f32>(); var dv2_9 = vec4<f32>(); var dk2_10 = vec4<f32>(); var dv2_10 = vec4<f32>(); var dk2_11 = vec4<f32>(); var dv2_11 = vec4<f32>(); var dk2_12 = vec4<f32>(); var dv2_12 = vec4<f32>(); var dk2_13 = vec4<f32>(); var dv2_13 = vec4<f32>(); var dk2_14 = vec4<f32>(); var dv2_14 = vec4<f32>(); var dk2_15 = vec4<f32>(); var dv2_15 = vec4<f32>();
  var dk3_0 = vec4<f32>(); var dv3_0 = vec4<f32>(); var dk3_1 = vec4<f32>(); var dv3_1 = vec4<f32>(); var dk3_2 = vec4<f32>(); var dv3_2 = vec4<f32>(); var dk3_3 = vec4<f32>(); var dv3_3 = vec4<f32>(); var dk3_4 = vec4<f32>(); var dv3_4 = vec4<f32>(); var dk3_5 = vec4<f32>(); var dv3_5 = vec4<f32>(); var dk3_6 = vec4<f32>(); var dv3_6 = vec4<f32>(); var dk3_7 = vec4<f32>(); var dv3_7 = vec4<f32>(); var dk3_8 = vec4<f32>(); var dv3_8 = vec4<f32>(); var dk3_9 = vec4<f32>(); var dv3_9 = vec4<f32>(); var dk3_10 = vec4<f32>(); var dv3_10 = vec4<f32>(); var dk3_11 = vec4<f32>(); var dv3_11 = vec4<f32>(); var dk3_12 = vec4<f32>(); var dv3_12 = vec4<f32>(); var dk3_13 = vec4<f32>(); var dv3_13 = vec4<f32>(); var dk3_14 = vec4<f32>(); var dv3_14 = vec4<f32>(); var dk3_15 = vec4<f32>(); var dv3_15 = vec4<f32>();
  var dk4_0 = vec4<f32>(); var dv4_0 = vec4<f32>(); var dk4_1 = vec4<f32>(); var dv4_1 = vec4<f32>(); var dk4_2 = vec4<f32>(); var dv4_2 = vec4<f32>(); var dk4_3 = vec4<f32>(); var dv4_3 = vec4<f32>(); var dk4_4 = vec4<f32>(); var dv4_4 = vec4<f32>(); var dk4_5 = vec4<f32>(); var dv4_5 = vec4<f32>(); var dk4_6 = vec4<f32>(); var dv4_6 = vec4<f32>(); var dk4_7 = vec4<f32>(); var dv4_7 = vec4<f32>(); var dk4_8 = vec4<f32>(); var dv4_8 = vec4<f32>(); var dk4_9 = vec4<f32>(); var dv4_9 = vec4<f32>(); var dk4_10 = vec4<f32>(); var dv4_10 = vec4<f32>(); var dk4_11 = vec4<f32>(); var dv4_11 = vec4<f32>(); var dk4_12 = vec4<f32>(); var dv4_12 = vec4<f32>(); var dk4_13 = vec4<f32>(); var dv4_13 = vec4<f32>(); var dk4_14 = vec4<f32>(); var dv4_14 = vec4<f32>(); var dk4_15 = vec4<f32>(); var dv4_15 = vec4<f32>();
  var dk5_0 = vec4<f32>(); var dv5_0 = vec4<f32>(); var dk5_1 = vec4<f32>(); var dv5_1 = vec4<f32>(); var dk5_2 = vec4<f32>(); var dv5_2 = vec4<f32>(); var dk5_3 = vec4<f32>(); var dv5_3 = vec4<f32>(); var dk5_4 = vec4<f32>(); var dv5_4 = vec4<f32>(); var dk5_5 = vec4<f32>(); var dv5_5 = vec4<f32>(); var dk5_6 = vec4<f32>(); var dv5_6 = vec4<f32>(); var dk5_7 = vec4<f32>(); var dv5_7 = vec4<f32>(); var dk5_8 = vec4<f32>(); var dv5_8 = vec4<f32>(); var dk5_9 = vec4<f32>(); var dv5_9 = vec4<f32>(); var dk5_10 = vec4<f32>(); var dv5_10 = vec4<f32>(); var dk5_11 = vec4<f32>(); var dv5_11 = vec4<f32>(); var dk5_12 = vec4<f32>(); var dv5_12 = vec4<f32>(); var dk5_13 = vec4<f32>(); var dv5_13 = vec4<f32>(); var dk5_14 = vec4<f32>(); var dv5_14 = vec4<f32>(); var dk5_15 = vec4<f32>(); var dv5_15 = vec4<f32>();
  var dk6_0 = vec4<f32>(); var dv6_0 = vec4<f32>(); var dk6_1 = vec4<f32>(); var dv6_1 = vec4<f32>(); var dk6_2 = vec4<f32>(); var dv6_2 = vec4<f32>(); var dk6_3 = vec4<f32>(); var dv6_3 = vec4<f32>(); var dk6_4 = vec4<f32>(); var dv6_4 = vec4<f32>(); var dk6_5 = vec4<f32>(); var dv6_5 = vec4<f32>(); var dk6_6 = vec4<f32>(); var dv6_6 = vec4<f32>(); var dk6_7 = vec4<f32>(); var dv6_7 = vec4<f32>(); var dk6_8 = vec4<f32>(); var dv6_8 = vec4<f32>(); var dk6_9 = vec4<f32>(); var dv6_9 = vec4<f32>(); var dk6_10 = vec4<f32>(); var dv6_10 = vec4<f32>(); var dk6_11 = vec4<f32>(); var dv6_11 = vec4<f32>(); var dk6_12 = vec4<f32>(); var dv6_12 = vec4<f32>(); var dk6_13 = vec4<f32>(); var dv6_13 = vec4<f32>(); var dk6_14 = vec4<f32>(); var dv6_14 = vec4<f32>(); var dk6_15 = vec4<f32>(); var dv6_15 = vec4<f32>();
  var dk7_0 = vec4<f32>(); var dv7_0 = vec4<f32>(); var dk7_1 = vec4<f32>(); var dv7_1 = vec4<f32>(); var dk7_2 = vec4<f32>(); var dv7_2 = vec4<f32>(); var dk7_3 = vec4<f32>(); var dv7_3 = vec4<f32>(); var dk7_4 = vec4<f32>(); var dv7_4 = vec4<f32>(); var dk7_5 = vec4<f32>(); var dv7_5 = vec4<f32>(); var dk7_6 = vec4<f32>(); var dv7_6 = vec4<f32>(); var dk7_7 = vec4<f32>(); var dv7_7 = vec4<f32>(); var dk7_8 = vec4<f32>(); var dv7_8 = vec4<f32>(); var dk7_9 = vec4<f32>(); var dv7_9 = vec4<f32>(); var dk7_10 = vec4<f32>(); var dv7_10 = vec4<f32>(); var dk7_11 = vec4<f32>(); var dv7_11 = vec4<f32>(); var dk7_12 = vec4<f32>(); var dv7_12 = vec4<f32>(); var dk7_13 = vec4<f32>(); var dv7_13 = vec4<f32>(); var dk7_14 = vec4<f32>(); var dv7_14 = vec4<f32>(); var dk7_15 = vec4<f32>(); var dv7_15 = vec4<f32>();
  for (var h = kq.h0; h < kq.h0 + kq.G; h++) {
    for (var u = max(u0, kq.start / 4u); u * 4u < kq.len; u++) {
      let pb = ps_cell(pl, kq, h, u);
      let r = quad_rows(pl, kq, h, u) * 16u;
      let p0 = PSr[pb + kq.pos.x * 2u]; let s0 = PSr[pb + kq.pos.x * 2u + 1u];
      let p1 = PSr[pb + kq.pos.y * 2u]; let s1 = PSr[pb + kq.pos.y * 2u + 1u];
      let p2 = PSr[pb + kq.pos.z * 2u]; let s2 = PSr[pb + kq.pos.z * 2u + 1u];
      let p3 = PSr[pb + kq.pos.w * 2u]; let s3 = PSr[pb + kq.pos.w * 2u + 1u];
      let p4 = select(vec4<f32>(), PSr[pb + pos1.x * 2u], u > u0); let s4 = select(vec4<f32>(), PSr[pb + pos1.x * 2u + 1u], u > u0);
      let p5 = select(vec4<f32>(), PSr[pb + pos1.y * 2u], u > u0); let s5 = select(vec4<f32>(), PSr[pb + pos1.y * 2u + 1u], u > u0);
      let p6 = select(vec4<f32>(), PSr[pb + pos1.z * 2u], u > u0); let s6 = select(vec4<f32>(), PSr[pb + pos1.z * 2u + 1u], u > u0);
      let p7 = select(vec4<f32>(), PSr[pb + pos1.w * 2u], u > u0); let s7 = select(vec4<f32>(), PSr[pb + pos1.w * 2u + 1u], u > u0);
      { let xa = Q[r.x + 0u]; let xb = Q[r.y + 0u]; let xc = Q[r.z + 0u]; let xd = Q[r.w + 0u];
        dk0_0 = dk0_0 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_0 = dk1_0 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_0 = dk2_0 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_0 = dk3_0 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_0 = dk4_0 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_0 = dk5_0 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_0 = dk6_0 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_0 = dk7_0 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 0u]; let gb = gO[r.y + 0u]; let gc = gO[r.z + 0u]; let gd = gO[r.w + 0u];
        dv0_0 = dv0_0 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_0 = dv1_0 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_0 = dv2_0 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_0 = dv3_0 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_0 = dv4_0 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_0 = dv5_0 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_0 = dv6_0 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_0 = dv7_0 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 1u]; let xb = Q[r.y + 1u]; let xc = Q[r.z + 1u]; let xd = Q[r.w + 1u];
        dk0_1 = dk0_1 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_1 = dk1_1 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_1 = dk2_1 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_1 = dk3_1 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_1 = dk4_1 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_1 = dk5_1 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_1 = dk6_1 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_1 = dk7_1 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 1u]; let gb = gO[r.y + 1u]; let gc = gO[r.z + 1u]; let gd = gO[r.w + 1u];
        dv0_1 = dv0_1 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_1 = dv1_1 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_1 = dv2_1 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_1 = dv3_1 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_1 = dv4_1 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_1 = dv5_1 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_1 = dv6_1 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_1 = dv7_1 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 2u]; let xb = Q[r.y + 2u]; let xc = Q[r.z + 2u]; let xd = Q[r.w + 2u];
        dk0_2 = dk0_2 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_2 = dk1_2 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_2 = dk2_2 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_2 = dk3_2 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_2 = dk4_2 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_2 = dk5_2 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_2 = dk6_2 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_2 = dk7_2 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 2u]; let gb = gO[r.y + 2u]; let gc = gO[r.z + 2u]; let gd = gO[r.w + 2u];
        dv0_2 = dv0_2 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_2 = dv1_2 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_2 = dv2_2 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_2 = dv3_2 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_2 = dv4_2 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_2 = dv5_2 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_2 = dv6_2 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_2 = dv7_2 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 3u]; let xb = Q[r.y + 3u]; let xc = Q[r.z + 3u]; let xd = Q[r.w + 3u];
        dk0_3 = dk0_3 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_3 = dk1_3 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_3 = dk2_3 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_3 = dk3_3 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_3 = dk4_3 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_3 = dk5_3 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_3 = dk6_3 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_3 = dk7_3 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 3u]; let gb = gO[r.y + 3u]; let gc = gO[r.z + 3u]; let gd = gO[r.w + 3u];
        dv0_3 = dv0_3 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_3 = dv1_3 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_3 = dv2_3 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_3 = dv3_3 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_3 = dv4_3 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_3 = dv5_3 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_3 = dv6_3 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_3 = dv7_3 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 4u]; let xb = Q[r.y + 4u]; let xc = Q[r.z + 4u]; let xd = Q[r.w + 4u];
        dk0_4 = dk0_4 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_4 = dk1_4 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_4 = dk2_4 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_4 = dk3_4 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_4 = dk4_4 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_4 = dk5_4 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_4 = dk6_4 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_4 = dk7_4 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 4u]; let gb = gO[r.y + 4u]; let gc = gO[r.z + 4u]; let gd = gO[r.w + 4u];
        dv0_4 = dv0_4 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_4 = dv1_4 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_4 = dv2_4 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_4 = dv3_4 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_4 = dv4_4 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_4 = dv5_4 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_4 = dv6_4 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_4 = dv7_4 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 5u]; let xb = Q[r.y + 5u]; let xc = Q[r.z + 5u]; let xd = Q[r.w + 5u];
        dk0_5 = dk0_5 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_5 = dk1_5 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_5 = dk2_5 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_5 = dk3_5 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_5 = dk4_5 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_5 = dk5_5 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_5 = dk6_5 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_5 = dk7_5 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 5u]; let gb = gO[r.y + 5u]; let gc = gO[r.z + 5u]; let gd = gO[r.w + 5u];
        dv0_5 = dv0_5 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_5 = dv1_5 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_5 = dv2_5 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_5 = dv3_5 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_5 = dv4_5 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_5 = dv5_5 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_5 = dv6_5 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_5 = dv7_5 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 6u]; let xb = Q[r.y + 6u]; let xc = Q[r.z + 6u]; let xd = Q[r.w + 6u];
        dk0_6 = dk0_6 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_6 = dk1_6 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_6 = dk2_6 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_6 = dk3_6 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_6 = dk4_6 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_6 = dk5_6 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_6 = dk6_6 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_6 = dk7_6 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 6u]; let gb = gO[r.y + 6u]; let gc = gO[r.z + 6u]; let gd = gO[r.w + 6u];
        dv0_6 = dv0_6 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_6 = dv1_6 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_6 = dv2_6 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_6 = dv3_6 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_6 = dv4_6 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_6 = dv5_6 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_6 = dv6_6 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_6 = dv7_6 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 7u]; let xb = Q[r.y + 7u]; let xc = Q[r.z + 7u]; let xd = Q[r.w + 7u];
        dk0_7 = dk0_7 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_7 = dk1_7 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_7 = dk2_7 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_7 = dk3_7 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_7 = dk4_7 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_7 = dk5_7 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_7 = dk6_7 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_7 = dk7_7 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 7u]; let gb = gO[r.y + 7u]; let gc = gO[r.z + 7u]; let gd = gO[r.w + 7u];
        dv0_7 = dv0_7 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_7 = dv1_7 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_7 = dv2_7 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_7 = dv3_7 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_7 = dv4_7 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_7 = dv5_7 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_7 = dv6_7 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_7 = dv7_7 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 8u]; let xb = Q[r.y + 8u]; let xc = Q[r.z + 8u]; let xd = Q[r.w + 8u];
        dk0_8 = dk0_8 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_8 = dk1_8 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_8 = dk2_8 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_8 = dk3_8 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_8 = dk4_8 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_8 = dk5_8 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_8 = dk6_8 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_8 = dk7_8 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 8u]; let gb = gO[r.y + 8u]; let gc = gO[r.z + 8u]; let gd = gO[r.w + 8u];
        dv0_8 = dv0_8 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_8 = dv1_8 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_8 = dv2_8 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_8 = dv3_8 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_8 = dv4_8 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_8 = dv5_8 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_8 = dv6_8 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_8 = dv7_8 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 9u]; let xb = Q[r.y + 9u]; let xc = Q[r.z + 9u]; let xd = Q[r.w + 9u];
        dk0_9 = dk0_9 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_9 = dk1_9 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_9 = dk2_9 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_9 = dk3_9 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_9 = dk4_9 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_9 = dk5_9 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_9 = dk6_9 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_9 = dk7_9 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 9u]; let gb = gO[r.y + 9u]; let gc = gO[r.z + 9u]; let gd = gO[r.w + 9u];
        dv0_9 = dv0_9 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_9 = dv1_9 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_9 = dv2_9 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_9 = dv3_9 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_9 = dv4_9 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_9 = dv5_9 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_9 = dv6_9 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_9 = dv7_9 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 10u]; let xb = Q[r.y + 10u]; let xc = Q[r.z + 10u]; let xd = Q[r.w + 10u];
        dk0_10 = dk0_10 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_10 = dk1_10 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_10 = dk2_10 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_10 = dk3_10 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_10 = dk4_10 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_10 = dk5_10 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_10 = dk6_10 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_10 = dk7_10 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 10u]; let gb = gO[r.y + 10u]; let gc = gO[r.z + 10u]; let gd = gO[r.w + 10u];
        dv0_10 = dv0_10 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_10 = dv1_10 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_10 = dv2_10 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_10 = dv3_10 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_10 = dv4_10 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_10 = dv5_10 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_10 = dv6_10 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_10 = dv7_10 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 11u]; let xb = Q[r.y + 11u]; let xc = Q[r.z + 11u]; let xd = Q[r.w + 11u];
        dk0_11 = dk0_11 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_11 = dk1_11 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_11 = dk2_11 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_11 = dk3_11 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_11 = dk4_11 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_11 = dk5_11 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_11 = dk6_11 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_11 = dk7_11 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 11u]; let gb = gO[r.y + 11u]; let gc = gO[r.z + 11u]; let gd = gO[r.w + 11u];
        dv0_11 = dv0_11 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_11 = dv1_11 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_11 = dv2_11 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_11 = dv3_11 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_11 = dv4_11 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_11 = dv5_11 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_11 = dv6_11 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_11 = dv7_11 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 12u]; let xb = Q[r.y + 12u]; let xc = Q[r.z + 12u]; let xd = Q[r.w + 12u];
        dk0_12 = dk0_12 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_12 = dk1_12 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_12 = dk2_12 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_12 = dk3_12 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_12 = dk4_12 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_12 = dk5_12 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_12 = dk6_12 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_12 = dk7_12 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 12u]; let gb = gO[r.y + 12u]; let gc = gO[r.z + 12u]; let gd = gO[r.w + 12u];
        dv0_12 = dv0_12 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_12 = dv1_12 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_12 = dv2_12 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_12 = dv3_12 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_12 = dv4_12 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_12 = dv5_12 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_12 = dv6_12 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_12 = dv7_12 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 13u]; let xb = Q[r.y + 13u]; let xc = Q[r.z + 13u]; let xd = Q[r.w + 13u];
        dk0_13 = dk0_13 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_13 = dk1_13 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_13 = dk2_13 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_13 = dk3_13 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_13 = dk4_13 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_13 = dk5_13 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_13 = dk6_13 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_13 = dk7_13 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 13u]; let gb = gO[r.y + 13u]; let gc = gO[r.z + 13u]; let gd = gO[r.w + 13u];
        dv0_13 = dv0_13 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_13 = dv1_13 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_13 = dv2_13 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_13 = dv3_13 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_13 = dv4_13 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_13 = dv5_13 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_13 = dv6_13 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_13 = dv7_13 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 14u]; let xb = Q[r.y + 14u]; let xc = Q[r.z + 14u]; let xd = Q[r.w + 14u];
        dk0_14 = dk0_14 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_14 = dk1_14 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_14 = dk2_14 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_14 = dk3_14 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_14 = dk4_14 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_14 = dk5_14 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_14 = dk6_14 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_14 = dk7_14 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 14u]; let gb = gO[r.y + 14u]; let gc = gO[r.z + 14u]; let gd = gO[r.w + 14u];
        dv0_14 = dv0_14 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_14 = dv1_14 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_14 = dv2_14 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_14 = dv3_14 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_14 = dv4_14 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_14 = dv5_14 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_14 = dv6_14 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_14 = dv7_14 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
      { let xa = Q[r.x + 15u]; let xb = Q[r.y + 15u]; let xc = Q[r.z + 15u]; let xd = Q[r.w + 15u];
        dk0_15 = dk0_15 + s0.x * xa + s0.y * xb + s0.z * xc + s0.w * xd;
        dk1_15 = dk1_15 + s1.x * xa + s1.y * xb + s1.z * xc + s1.w * xd;
        dk2_15 = dk2_15 + s2.x * xa + s2.y * xb + s2.z * xc + s2.w * xd;
        dk3_15 = dk3_15 + s3.x * xa + s3.y * xb + s3.z * xc + s3.w * xd;
        dk4_15 = dk4_15 + s4.x * xa + s4.y * xb + s4.z * xc + s4.w * xd;
        dk5_15 = dk5_15 + s5.x * xa + s5.y * xb + s5.z * xc + s5.w * xd;
        dk6_15 = dk6_15 + s6.x * xa + s6.y * xb + s6.z * xc + s6.w * xd;
        dk7_15 = dk7_15 + s7.x * xa + s7.y * xb + s7.z * xc + s7.w * xd;
        let ga = gO[r.x + 15u]; let gb = gO[r.y + 15u]; let gc = gO[r.z + 15u]; let gd = gO[r.w + 15u];
        dv0_15 = dv0_15 + p0.x * ga + p0.y * gb + p0.z * gc + p0.w * gd;
        dv1_15 = dv1_15 + p1.x * ga + p1.y * gb + p1.z * gc + p1.w * gd;
        dv2_15 = dv2_15 + p2.x * ga + p2.y * gb + p2.z * gc + p2.w * gd;
        dv3_15 = dv3_15 + p3.x * ga + p3.y * gb + p3.z * gc + p3.w * gd;
        dv4_15 = dv4_15 + p4.x * ga + p4.y * gb + p4.z * gc + p4.w * gd;
        dv5_15 = dv5_15 + p5.x * ga + p5.y * gb + p5.z * gc + p5.w * gd;
        dv6_15 = dv6_15 + p6.x * ga + p6.y * gb + p6.z * gc + p6.w * gd;
        dv7_15 = dv7_15 + p7.x * ga + p7.y * gb + p7.z * gc + p7.w * gd;
      }
    }
  }
  let o = (vec4<u32>(kq.line * pl.Tmax) + kq.pos) * 16u;
  let o1 = (vec4<u32>(kq.line * pl.Tmax) + pos1) * 16u;
  {
    dKo[o.x + 0u] = dk0_0 * pl.scale; dVo[o.x + 0u] = dv0_0;
    dKo[o.x + 1u] = dk0_1 * pl.scale; dVo[o.x + 1u] = dv0_1;
    dKo[o.x + 2u] = dk0_2 * pl.scale; dVo[o.x + 2u] = dv0_2;
    dKo[o.x + 3u] = dk0_3 * pl.scale; dVo[o.x + 3u] = dv0_3;
    dKo[o.x + 4u] = dk0_4 * pl.scale; dVo[o.x + 4u] = dv0_4;
    dKo[o.x + 5u] = dk0_5 * pl.scale; dVo[o.x + 5u] = dv0_5;
    dKo[o.x + 6u] = dk0_6 * pl.scale; dVo[o.x + 6u] = dv0_6;
    dKo[o.x + 7u] = dk0_7 * pl.scale; dVo[o.x + 7u] = dv0_7;
    dKo[o.x + 8u] = dk0_8 * pl.scale; dVo[o.x + 8u] = dv0_8;
    dKo[o.x + 9u] = dk0_9 * pl.scale; dVo[o.x + 9u] = dv0_9;
    dKo[o.x + 10u] = dk0_10 * pl.scale; dVo[o.x + 10u] = dv0_10;
    dKo[o.x + 11u] = dk0_11 * pl.scale; dVo[o.x + 11u] = dv0_11;
    dKo[o.x + 12u] = dk0_12 * pl.scale; dVo[o.x + 12u] = dv0_12;
    dKo[o.x + 13u] = dk0_13 * pl.scale; dVo[o.x + 13u] = dv0_13;
    dKo[o.x + 14u] = dk0_14 * pl.scale; dVo[o.x + 14u] = dv0_14;
    dKo[o.x + 15u] = dk0_15 * pl.scale; dVo[o.x + 15u] = dv0_15;
  }
  if (kq.j0 + 1u < pl.Tmax) {
    dKo[o.y + 0u] = dk1_0 * pl.scale; dVo[o.y + 0u] = dv1_0;
    dKo[o.y + 1u] = dk1_1 * pl.scale; dVo[o.y + 1u] = dv1_1;
    dKo[o.y + 2u] = dk1_2 * pl.scale; dVo[o.y + 2u] = dv1_2;
    dKo[o.y + 3u] = dk1_3 * pl.scale; dVo[o.y + 3u] = dv1_3;
    dKo[o.y + 4u] = dk1_4 * pl.scale; dVo[o.y + 4u] = dv1_4;
    dKo[o.y + 5u] = dk1_5 * pl.scale; dVo[o.y + 5u] = dv1_5;
    dKo[o.y + 6u] = dk1_6 * pl.scale; dVo[o.y + 6u] = dv1_6;
    dKo[o.y + 7u] = dk1_7 * pl.scale; dVo[o.y + 7u] = dv1_7;
    dKo[o.y + 8u] = dk1_8 * pl.scale; dVo[o.y + 8u] = dv1_8;
    dKo[o.y + 9u] = dk1_9 * pl.scale; dVo[o.y + 9u] = dv1_9;
    dKo[o.y + 10u] = dk1_10 * pl.scale; dVo[o.y + 10u] = dv1_10;
    dKo[o.y + 11u] = dk1_11 * pl.scale; dVo[o.y + 11u] = dv1_11;
    dKo[o.y + 12u] = dk1_12 * pl.scale; dVo[o.y + 12u] = dv1_12;
    dKo[o.y + 13u] = dk1_13 * pl.scale; dVo[o.y + 13u] = dv1_13;
    dKo[o.y + 14u] = dk1_14 * pl.scale; dVo[o.y + 14u] = dv1_14;
    dKo[o.y + 15u] = dk1_15 * pl.scale; dVo[o.y + 15u] = dv1_15;
  }
  if (kq.j0 + 2u < pl.Tmax) {
    dKo[o.z + 0u] = dk2_0 * pl.scale; dVo[o.z + 0u] = dv2_0;
    dKo[o.z + 1u] = dk2_1 * pl.scale; dVo[o.z + 1u] = dv2_1;
    dKo[o.z + 2u] = dk2_2 * pl.scale; dVo[o.z + 2u] = dv2_2;
    dKo[o.z + 3u] = dk2_3 * pl.scale; dVo[o.z + 3u] = dv2_3;
    dKo[o.z + 4u] = dk2_4 * pl.scale; dVo[o.z + 4u] = dv2_4;
    dKo[o.z + 5u] = dk2_5 * pl.scale; dVo[o.z + 5u] = dv2_5;
    dKo[o.z + 6u] = dk2_6 * pl.scale; dVo[o.z + 6u] = dv2_6;
    dKo[o.z + 7u] = dk2_7 * pl.scale; dVo[o.z + 7u] = dv2_7;
    dKo[o.z + 8u] = dk2_8 * pl.scale; dVo[o.z + 8u] = dv2_8;
    dKo[o.z + 9u] = dk2_9 * pl.scale; dVo[o.z + 9u] = dv2_9;
    dKo[o.z + 10u] = dk2_10 * pl.scale; dVo[o.z + 10u] = dv2_10;
    dKo[o.z + 11u] = dk2_11 * pl.scale; dVo[o.z + 11u] = dv2_11;
    dKo[o.z + 12u] = dk2_12 * pl.scale; dVo[o.z + 12u] = dv2_12;
    dKo[o.z + 13u] = dk2_13 * pl.scale; dVo[o.z + 13u] = dv2_13;
    dKo[o.z + 14u] = dk2_14 * pl.scale; dVo[o.z + 14u] = dv2_14;
    dKo[o.z + 15u] = dk2_15 * pl.scale; dVo[o.z + 15u] = dv2_15;
  }
  if (kq.j0 + 3u < pl.Tmax) {
    dKo[o.w + 0u] = dk3_0 * pl.scale; dVo[o.w + 0u] = dv3_0;
    dKo[o.w + 1u] = dk3_1 * pl.scale; dVo[o.w + 1u] = dv3_1;
    dKo[o.w + 2u] = dk3_2 * pl.scale; dVo[o.w + 2u] = dv3_2;
    dKo[o.w + 3u] = dk3_3 * pl.scale; dVo[o.w + 3u] = dv3_3;
    dKo[o.w + 4u] = dk3_4 * pl.scale; dVo[o.w + 4u] = dv3_4;
    dKo[o.w + 5u] = dk3_5 * pl.scale; dVo[o.w + 5u] = dv3_5;
    dKo[o.w + 6u] = dk3_6 * pl.scale; dVo[o.w + 6u] = dv3_6;
    dKo[o.w + 7u] = dk3_7 * pl.scale; dVo[o.w + 7u] = dv3_7;
    dKo[o.w + 8u] = dk3_8 * pl.scale; dVo[o.w + 8u] = dv3_8;
    dKo[o.w + 9u] = dk3_9 * pl.scale; dVo[o.w + 9u] = dv3_9;
    dKo[o.w + 10u] = dk3_10 * pl.scale; dVo[o.w + 10u] = dv3_10;
    dKo[o.w + 11u] = dk3_11 * pl.scale; dVo[o.w + 11u] = dv3_11;
    dKo[o.w + 12u] = dk3_12 * pl.scale; dVo[o.w + 12u] = dv3_12;
    dKo[o.w + 13u] = dk3_13 * pl.scale; dVo[o.w + 13u] = dv3_13;
    dKo[o.w + 14u] = dk3_14 * pl.scale; dVo[o.w + 14u] = dv3_14;
    dKo[o.w + 15u] = dk3_15 * pl.scale; dVo[o.w + 15u] = dv3_15;
  }
  if (kq.j0 + 4u < pl.Tmax) {
    dKo[o1.x + 0u] = dk4_0 * pl.scale; dVo[o1.x + 0u] = dv4_0;
    dKo[o1.x + 1u] = dk4_1 * pl.scale; dVo[o1.x + 1u] = dv4_1;
    dKo[o1.x + 2u] = dk4_2 * pl.scale; dVo[o1.x + 2u] = dv4_2;
    dKo[o1.x + 3u] = dk4_3 * pl.scale; dVo[o1.x + 3u] = dv4_3;
    dKo[o1.x + 4u] = dk4_4 * pl.scale; dVo[o1.x + 4u] = dv4_4;
    dKo[o1.x + 5u] = dk4_5 * pl.scale; dVo[o1.x + 5u] = dv4_5;
    dKo[o1.x + 6u] = dk4_6 * pl.scale; dVo[o1.x + 6u] = dv4_6;
    dKo[o1.x + 7u] = dk4_7 * pl.scale; dVo[o1.x + 7u] = dv4_7;
    dKo[o1.x + 8u] = dk4_8 * pl.scale; dVo[o1.x + 8u] = dv4_8;
    dKo[o1.x + 9u] = dk4_9 * pl.scale; dVo[o1.x + 9u] = dv4_9;
    dKo[o1.x + 10u] = dk4_10 * pl.scale; dVo[o1.x + 10u] = dv4_10;
    dKo[o1.x + 11u] = dk4_11 * pl.scale; dVo[o1.x + 11u] = dv4_11;
    dKo[o1.x + 12u] = dk4_12 * pl.scale; dVo[o1.x + 12u] = dv4_12;
    dKo[o1.x + 13u] = dk4_13 * pl.scale; dVo[o1.x + 13u] = dv4_13;
    dKo[o1.x + 14u] = dk4_14 * pl.scale; dVo[o1.x + 14u] = dv4_14;
    dKo[o1.x + 15u] = dk4_15 * pl.scale; dVo[o1.x + 15u] = dv4_15;
  }
  if (kq.j0 + 5u < pl.Tmax) {
    dKo[o1.y + 0u] = dk5_0 * pl.scale; dVo[o1.y + 0u] = dv5_0;
    dKo[o1.y + 1u] = dk5_1 * pl.scale; dVo[o1.y + 1u] = dv5_1;
    dKo[o1.y + 2u] = dk5_2 * pl.scale; dVo[o1.y + 2u] = dv5_2;
    dKo[o1.y + 3u] = dk5_3 * pl.scale; dVo[o1.y + 3u] = dv5_3;
    dKo[o1.y + 4u] = dk5_4 * pl.scale; dVo[o1.y + 4u] = dv5_4;
    dKo[o1.y + 5u] = dk5_5 * pl.scale; dVo[o1.y + 5u] = dv5_5;
    dKo[o1.y + 6u] = dk5_6 * pl.scale; dVo[o1.y + 6u] = dv5_6;
    dKo[o1.y + 7u] = dk5_7 * pl.scale; dVo[o1.y + 7u] = dv5_7;
    dKo[o1.y + 8u] = dk5_8 * pl.scale; dVo[o1.y + 8u] = dv5_8;
    dKo[o1.y + 9u] = dk5_9 * pl.scale; dVo[o1.y + 9u] = dv5_9;
    dKo[o1.y + 10u] = dk5_10 * pl.scale; dVo[o1.y + 10u] = dv5_10;
    dKo[o1.y + 11u] = dk5_11 * pl.scale; dVo[o1.y + 11u] = dv5_11;
    dKo[o1.y + 12u] = dk5_12 * pl.scale; dVo[o1.y + 12u] = dv5_12;
    dKo[o1.y + 13u] = dk5_13 * pl.scale; dVo[o1.y + 13u] = dv5_13;
    dKo[o1.y + 14u] = dk5_14 * pl.scale; dVo[o1.y + 14u] = dv5_14;
    dKo[o1.y + 15u] = dk5_15 * pl.scale; dVo[o1.y + 15u] = dv5_15;
  }
  if (kq.j0 + 6u < pl.Tmax) {
    dKo[o1.z + 0u] = dk6_0 * pl.scale; dVo[o1.z + 0u] = dv6_0;
    dKo[o1.z + 1u] = dk6_1 * pl.scale; dVo[o1.z + 1u] = dv6_1;
    dKo[o1.z + 2u] = dk6_2 * pl.scale; dVo[o1.z + 2u] = dv6_2;
    dKo[o1.z + 3u] = dk6_3 * pl.scale; dVo[o1.z + 3u] = dv6_3;
    dKo[o1.z + 4u] = dk6_4 * pl.scale; dVo[o1.z + 4u] = dv6_4;
    dKo[o1.z + 5u] = dk6_5 * pl.scale; dVo[o1.z + 5u] = dv6_5;
    dKo[o1.z + 6u] = dk6_6 * pl.scale; dVo[o1.z + 6u] = dv6_6;
    dKo[o1.z + 7u] = dk6_7 * pl.scale; dVo[o1.z + 7u] = dv6_7;
    dKo[o1.z + 8u] = dk6_8 * pl.scale; dVo[o1.z + 8u] = dv6_8;
    dKo[o1.z + 9u] = dk6_9 * pl.scale; dVo[o1.z + 9u] = dv6_9;
    dKo[o1.z + 10u] = dk6_10 * pl.scale; dVo[o1.z + 10u] = dv6_10;
    dKo[o1.z + 11u] = dk6_11 * pl.scale; dVo[o1.z + 11u] = dv6_11;
    dKo[o1.z + 12u] = dk6_12 * pl.scale; dVo[o1.z + 12u] = dv6_12;
    dKo[o1.z + 13u] = dk6_13 * pl.scale; dVo[o1.z + 13u] = dv6_13;
    dKo[o1.z + 14u] = dk6_14 * pl.scale; dVo[o1.z + 14u] = dv6_14;
    dKo[o1.z + 15u] = dk6_15 * pl.scale; dVo[o1.z + 15u] = dv6_15;
  }
  if (kq.j0 + 7u < pl.Tmax) {
    dKo[o1.w + 0u] = dk7_0 * pl.scale; dVo[o1.w + 0u] = dv7_0;
    dKo[o1.w + 1u] = dk7_1 * pl.scale; dVo[o1.w + 1u] = dv7_1;
    dKo[o1.w + 2u] = dk7_2 * pl.scale; dVo[o1.w + 2u] = dv7_2;
    dKo[o1.w + 3u] = dk7_3 * pl.scale; dVo[o1.w + 3u] = dv7_3;
    dKo[o1.w + 4u] = dk7_4 * pl.scale; dVo[o1.w + 4u] = dv7_4;
    dKo[o1.w + 5u] = dk7_5 * pl.scale; dVo[o1.w + 5u] = dv7_5;
    dKo[o1.w + 6u] = dk7_6 * pl.scale; dVo[o1.w + 6u] = dv7_6;
    dKo[o1.w + 7u] = dk7_7 * pl.scale; dVo[o1.w + 7u] = dv7_7;
    dKo[o1.w + 8u] = dk7_8 * pl.scale; dVo[o1.w + 8u] = dv7_8;
    dKo[o1.w + 9u] = dk7_9 * pl.scale; dVo[o1.w + 9u] = dv7_9;
    dKo[o1.w + 10u] = dk7_10 * pl.scale; dVo[o1.w + 10u] = dv7_10;
    dKo[o1.w + 11u] = dk7_11 * pl.scale; dVo[o1.w + 11u] = dv7_11;
    dKo[o1.w + 12u] = dk7_12 * pl.scale; dVo[o1.w + 12u] = dv7_12;
    dKo[o1.w + 13u] = dk7_13 * pl.scale; dVo[o1.w + 13u] = dv7_13;
    dKo[o1.w + 14u] = dk7_14 * pl.scale; dVo[o1.w + 14u] = dv7_14;
    dKo[o1.w + 15u] = dk7_15 * pl.scale; dVo[o1.w + 15u] = dv7_15;
  }
}
// ---- generated by scripts/gen-attention-hs64.ts: end ----
