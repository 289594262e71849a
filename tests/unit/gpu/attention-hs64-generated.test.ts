// The HS = 64 kernels of shaders/attention.wgsl are generated (scripts/gen-attention-hs64.ts):
// the file must hold exactly what the generator writes, so an edit by hand or a template change
// without regenerating fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, generatedSection, withGeneratedSection } from '../../../scripts/gen-attention-hs64';

describe('generated HS = 64 attention kernels', () => {
  it('shaders/attention.wgsl holds the generator output once, between its markers', () => {
    const source = readFileSync(new URL('../../../shaders/attention.wgsl', import.meta.url), 'utf8');
    expect(source.split(BEGIN).length, 'begin markers').toBe(2);
    expect(source.split(END).length, 'end markers').toBe(2);
    expect(source.includes(generatedSection())).toBe(true);
    expect(withGeneratedSection(source) === source, 'run `npx tsx scripts/gen-attention-hs64.ts`').toBe(true);
    for (const entry of ['attn_train_hs64_lse', 'attn_bwd_dq_thread_hs64', 'attn_bwd_dkv_thread_hs64']) {
      expect(source, entry).toContain(`fn ${entry}(`);
    }
  });
});
