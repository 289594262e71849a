// `// #include <name>` in shaders/*.wgsl (src/gpu/shaders.ts): the two 8 x 8 linear kernel files
// share linear_tile.wgsl; the loaded text holds it once and no directive is left.
import { describe, expect, it } from 'vitest';
import { loadShaderSource } from '../../../src/gpu/shaders';

describe('shader includes', () => {
  it('splices linear_tile.wgsl into linear.wgsl and matmul_nf4.wgsl, once each', async () => {
    const tile = await loadShaderSource('linear_tile');
    for (const name of ['linear', 'matmul_nf4']) {
      const text = await loadShaderSource(name);
      expect(text).not.toMatch(/^\/\/ #include/m);
      expect(text.split('fn store_tile8(').length - 1).toBe(1);
      expect(text).toContain(tile);
    }
  });

  it('refuses a shader name outside shaders/', () => {
    expect(() => loadShaderSource('../x')).toThrow(/must be \[a-z0-9_\]\+/);
  });
});
