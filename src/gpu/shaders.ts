// Loads WGSL from shaders/*.wgsl the same way everywhere: a URL relative to this module,
// fetched in the browser and in workers (Vite emits the files as assets), read from disk in
// Node and vitest. Exercised by every GPU test and the GPU panel.

const sources = new Map<string, Promise<string>>();

/** The text of shaders/<name>.wgsl (cached per process). */
export function loadShaderSource(name: string): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`Shader name "${name}" must be [a-z0-9_]+ (a file in shaders/).`);
  let p = sources.get(name);
  if (!p) {
    p = readShader(name);
    sources.set(name, p);
    p.catch(() => sources.delete(name));
  }
  return p;
}

async function readShader(name: string): Promise<string> {
  const url = new URL(`../../shaders/${name}.wgsl`, import.meta.url);
  if (url.protocol === 'file:') {
    const fsModule = 'node:fs/promises';
    const fs = (await import(/* @vite-ignore */ fsModule)) as { readFile(path: URL, encoding: 'utf8'): Promise<string> };
    try {
      return await fs.readFile(url, 'utf8');
    } catch (e) {
      throw new Error(`Cannot read shader shaders/${name}.wgsl (${url.pathname}): ${(e as Error).message}`);
    }
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`Cannot load shader shaders/${name}.wgsl from ${url.href}: HTTP ${res.status}`);
  return res.text();
}
