// The NF4 rb16 tile kernels (16 and 32 rows) are generated (scripts/gen-nf4-tiles.ts) into
// shaders/matmul_nf4.wgsl and shaders/linear_bwd.wgsl: each file must hold exactly what the
// generator writes, once, so an edit by hand or a template change without regenerating fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, GENERATED_FILES, withSection } from '../../../scripts/gen-nf4-tiles';

describe('generated NF4 tile kernels', () => {
  for (const { file, section } of GENERATED_FILES) {
    it(`${file} holds the generator output once, between its markers`, () => {
      const source = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
      expect(source.split(BEGIN).length, 'begin markers').toBe(2);
      expect(source.split(END).length, 'end markers').toBe(2);
      expect(withSection(source, section(), file) === source, 'run `npx tsx scripts/gen-nf4-tiles.ts`').toBe(true);
      for (const rows of [16, 32]) expect(source).toContain(file.includes('bwd') ? `fn dx_nf4_rb${rows}(` : `fn nf4_dec${rows}(`);
    });
  }
});
