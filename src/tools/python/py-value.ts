// Plain Python values as the sandbox encodes them (prelude.ts `encode`), and Python's `==` on
// them, computed in the pool: the grader compares what a solution produced with an expected value
// the solution's interpreter never saw. Opaque values (instances of other classes) equal nothing.
// Tested by tests/unit/tools/tools-python.test.ts and tools-python-tamper.test.ts.

export type PyValue =
  | ['none']
  | ['bool', boolean]
  /** Hexadecimal digits, '-' first when negative (no digit limit, unlike str(int)). */
  | ['int', string]
  /** repr() of the float: round-trips exactly, including 'nan', 'inf', '-inf'. */
  | ['float', string]
  | ['complex', string, string]
  | ['str', string]
  /** Hexadecimal bytes (bytes or bytearray). */
  | ['bytes', string]
  | ['list', PyValue[]]
  | ['tuple', PyValue[]]
  /** set or frozenset (equal to each other in Python). */
  | ['set', PyValue[]]
  /** dict, OrderedDict, defaultdict or Counter, as [key, value] pairs. */
  | ['dict', [PyValue, PyValue][]]
  | ['opaque', string];

type Num = { kind: 'int'; v: bigint } | { kind: 'float'; v: number };

function parseFloatRepr(s: string): number {
  if (s === 'nan') return NaN;
  if (s === 'inf') return Infinity;
  if (s === '-inf') return -Infinity;
  return Number(s);
}

function asNumber(v: PyValue): Num | null {
  switch (v[0]) {
    case 'bool':
      return { kind: 'int', v: v[1] ? 1n : 0n };
    case 'int':
      return { kind: 'int', v: v[1].startsWith('-') ? -BigInt(`0x${v[1].slice(1)}`) : BigInt(`0x${v[1]}`) };
    case 'float':
      return { kind: 'float', v: parseFloatRepr(v[1]) };
    default:
      return null;
  }
}

function numbersEqual(a: Num, b: Num): boolean {
  if (a.kind === 'int' && b.kind === 'int') return a.v === b.v;
  if (a.kind === 'float' && b.kind === 'float') return a.v === b.v;
  const [i, f] = a.kind === 'int' ? [a.v, (b as { v: number }).v] : [(b as { v: bigint }).v, a.v];
  return Number.isInteger(f) && BigInt(f) === i;
}

function sameItems(a: PyValue[], b: PyValue[]): boolean {
  return a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
}

/** Every item of `a` has an equal item in `b` and the sizes match (sets hold distinct items). */
function sameSet(a: PyValue[], b: PyValue[]): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => pyEquals(x, y)));
}

/** Python's `a == b` for encoded plain values (numbers across int/float/bool, complex with real numbers). */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  const na = asNumber(a), nb = asNumber(b);
  if (na && nb) return numbersEqual(na, nb);
  if (a[0] === 'complex' || b[0] === 'complex') {
    const parts = (v: PyValue): [number, number] | null => {
      if (v[0] === 'complex') return [parseFloatRepr(v[1]), parseFloatRepr(v[2])];
      const n = asNumber(v);
      return n ? [Number(n.v), 0] : null;
    };
    const pa = parts(a), pb = parts(b);
    return !!pa && !!pb && pa[0] === pb[0] && pa[1] === pb[1];
  }
  switch (a[0]) {
    case 'none':
      return b[0] === 'none';
    case 'str':
    case 'bytes':
      return b[0] === a[0] && b[1] === a[1];
    case 'list':
    case 'tuple':
      return b[0] === a[0] && sameItems(a[1], b[1] as PyValue[]);
    case 'set':
      return b[0] === 'set' && sameSet(a[1], b[1]);
    case 'dict': {
      if (b[0] !== 'dict' || a[1].length !== b[1].length) return false;
      const other = b[1];
      return a[1].every(([k, v]) => other.some(([k2, v2]) => pyEquals(k, k2) && pyEquals(v, v2)));
    }
    default:
      return false; // opaque, or numbers against non-numbers
  }
}

/** A short Python-like rendering for assert messages. */
export function pyRepr(v: PyValue, room = 200): string {
  const s = render(v);
  return s.length > room ? `${s.slice(0, room)}...` : s;
}

function render(v: PyValue): string {
  switch (v[0]) {
    case 'none':
      return 'None';
    case 'bool':
      return v[1] ? 'True' : 'False';
    case 'int': {
      const n = asNumber(v);
      return n ? String(n.v) : '?';
    }
    case 'float':
      return v[1];
    case 'complex':
      return `(${v[1]}+${v[2]}j)`;
    case 'str':
      return JSON.stringify(v[1]);
    case 'bytes':
      return `bytes.fromhex('${v[1]}')`;
    case 'list':
      return `[${v[1].map(render).join(', ')}]`;
    case 'tuple':
      return `(${v[1].map(render).join(', ')}${v[1].length === 1 ? ',' : ''})`;
    case 'set':
      return v[1].length ? `{${v[1].map(render).join(', ')}}` : 'set()';
    case 'dict':
      return `{${v[1].map(([k, x]) => `${render(k)}: ${render(x)}`).join(', ')}}`;
    case 'opaque':
      return `<${v[1]} object>`;
  }
}
