// shaders/attention_tiles.wgsl is generated (scripts/gen-attention-tiles.ts): the file must hold
// exactly what the generator writes, so an edit by hand or a template change without
// regenerating fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tilesShader } from '../../../scripts/gen-attention-tiles';

describe('generated attention tile kernels', () => {
  it('shaders/attention_tiles.wgsl is the generator output', () => {
    const source = readFileSync(new URL('../../../shaders/attention_tiles.wgsl', import.meta.url), 'utf8');
    expect(source === tilesShader(), 'run `npx tsx scripts/gen-attention-tiles.ts`').toBe(true);
    for (const entry of ['attn_bwd_tile_sdp', 'attn_bwd_tile_dq', 'attn_bwd_tile_dkv']) expect(source, entry).toContain(`fn ${entry}(`);
  });
});
