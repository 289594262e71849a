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
