// Loads WGSL from shaders/*.wgsl the same way everywhere: a URL relative to this module,
// fetched in the browser and in workers (Vite emits the files as assets), read from disk in
// Node and vitest. Exercised by every GPU test and the GPU panel.

const sources = new Map<string, Promise<string>>();

/**
 * The text of shaders/<name>.wgsl (cached per process), with each line `// #include <other>`
 * replaced by the text of shaders/<other>.wgsl (itself expanded): WGSL has no include, and two
 * kernel files share code this way (linear_tile.wgsl, nf4_codes.wgsl).
 */
export function loadShaderSource(name: string): Promise<string> {
  return load(name, []);
}

const INCLUDE = /^\/\/ #include (\S+)[ \t]*$/gm;

function load(name: string, chain: string[]): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`Shader name "${name}" must be [a-z0-9_]+ (a file in shaders/).`);
  if (chain.includes(name)) throw new Error(`shaders/${chain[chain.length - 1]}.wgsl: #include ${name} closes a cycle (${[...chain, name].join(' -> ')}); remove one of the includes.`);
  let p = sources.get(name);
  if (!p) {
    p = readShader(name).then((text) => expand(name, text, [...chain, name]));
    sources.set(name, p);
    p.catch(() => sources.delete(name));
  }
  return p;
}

async function expand(name: string, text: string, chain: string[]): Promise<string> {
  const parts: (string | Promise<string>)[] = [];
  let last = 0;
  for (const m of text.matchAll(INCLUDE)) {
    const line = text.slice(0, m.index).split('\n').length;
    parts.push(text.slice(last, m.index));
    parts.push(load(m[1], chain).catch((e: unknown) => {
      throw new Error(`shaders/${name}.wgsl:${line}: #include ${m[1]}: ${(e as Error).message}`);
    }));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return (await Promise.all(parts)).join('');
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
