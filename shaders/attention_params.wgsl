// The uniforms of every attention kernel, forward and backward: attention.wgsl and
// attention_tiles.wgsl `// #include attention_params` (src/gpu/shaders.ts splices this file in).
struct Params {
  M: u32,       // rows
  NH: u32,      // query heads
  KVH: u32,     // kv heads
  _hs: u32,     // (HS is an override)
  Tmax: u32,    // cache capacity per sequence
  B: u32,       // cache sequence slots
  scale: f32,   // softmax scale, 1/sqrt(HS)
  plane: u32,   // attn_bwd_tile_dkv: 1 dK (dS, Q), 2 dV (P, dO); 0 elsewhere
}

// A slot table's length word (training: seqs [B, 2] (first row, length word)): the slot's length
// in the low 16 bits, and in the high 16 the first query position whose results are read, a
// multiple of 16 (0 unless TrainStep shares rows: the query rows below it copy another slot's
// rows, their outputs are not read and their upstream gradients are 0, so the kernels skip the
// query quads, octets and tiles below it, forward and backward alike).
fn slot_len(w: u32) -> u32 { return w & 0xFFFFu; }
fn slot_start(w: u32) -> u32 { return w >> 16u; }
