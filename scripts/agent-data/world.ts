// The fictional world of the lookup family: made-up places built from syllables by a seeded
// generator, each with five facts (region, leader, founding year, export, river), and the corpus
// document that states them. Names cannot be memorised from elsewhere; the held-out places are
// disjoint from the training ones. Used by scripts/make-agent-data.ts; tested by
// tests/unit/tooling/agent-data.test.ts.
import { mulberry32 } from '../../src/util/rng';
import type { CorpusDoc } from '../../src/tools/search/corpus';

export type Rand = () => number;

export function pick<T>(rand: Rand, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

export function intIn(rand: Rand, lo: number, hi: number): number {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'dr', 'kr', 'st', 'th', 'sh'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
const CODAS = ['', '', 'n', 'r', 'l', 's', 'th', 'nd'];

/** A capitalised made-up word of `syllables` syllables. */
export function madeUpName(rand: Rand, syllables: number): string {
  let s = '';
  for (let i = 0; i < syllables; i++) s += pick(rand, ONSETS) + pick(rand, VOWELS) + (i === syllables - 1 ? pick(rand, CODAS) : '');
  return s[0].toUpperCase() + s.slice(1);
}

export const PLACE_KINDS = ['town', 'island', 'kingdom', 'village', 'city'] as const;
export const EXPORTS = ['copper', 'salt', 'wool', 'tea', 'glass', 'amber', 'silk', 'timber', 'honey', 'iron', 'pearls', 'paper'] as const;

export interface Place {
  name: string;
  kind: (typeof PLACE_KINDS)[number];
  region: string;
  leader: string;
  founded: number;
  /** One of EXPORTS in the shipped world (the reading drill also makes up words). */
  export: string;
  river: string;
  /** Whether questions about it appear only in the held-out split. */
  heldOut: boolean;
}

export type Attribute = 'region' | 'leader' | 'founded' | 'export' | 'river';
export const ATTRIBUTES: readonly Attribute[] = ['region', 'leader', 'founded', 'export', 'river'];

/** The answer string of one fact. */
export function factValue(p: Place, a: Attribute): string {
  return a === 'founded' ? String(p.founded) : p[a];
}

/** `count` places with unique names; the last `heldOut` of them are held out. */
export function makePlaces(seed: number, count: number, heldOut: number): Place[] {
  const rand = mulberry32(seed);
  const used = new Set<string>();
  const unique = (make: () => string) => {
    for (;;) {
      const n = make();
      if (!used.has(n.toLowerCase())) {
        used.add(n.toLowerCase());
        return n;
      }
    }
  };
  const regions = Array.from({ length: 12 }, () => unique(() => madeUpName(rand, 2)));
  const places: Place[] = [];
  for (let i = 0; i < count; i++) {
    places.push({
      name: unique(() => madeUpName(rand, intIn(rand, 2, 3))),
      kind: pick(rand, PLACE_KINDS),
      region: pick(rand, regions),
      leader: `${unique(() => madeUpName(rand, 2))} ${unique(() => madeUpName(rand, 2))}`,
      founded: intIn(rand, 1100, 1899),
      export: pick(rand, EXPORTS),
      river: unique(() => madeUpName(rand, 2)),
      heldOut: i >= count - heldOut,
    });
  }
  return places;
}

/** The corpus document of a place (what the search tool returns). */
export function placeDoc(p: Place): CorpusDoc {
  const text =
    `${p.name} is ${/^[aeiou]/.test(p.kind) ? 'an' : 'a'} ${p.kind} in the ${p.region} region. Its leader is ${p.leader}. ` +
    `It was founded in ${p.founded}. Its main export is ${p.export}. The river ${p.river} flows through it.`;
  return { id: p.name.toLowerCase(), title: p.name, text };
}
