/**
 * Misspelled copies of search queries, to measure how much a customer's typo costs: one word of four letters or more
 * per copy gets one slip of the kind people make on a phone keyboard or in romanised Hindi (a dropped, doubled or
 * swapped letter, a neighbouring key, a vowel spelled another way: "syarters", "birryani", "neembu"). Seeded, so
 * every run scores the same copies; the grades are the original query's.
 */

/** A small deterministic generator (a linear congruential one): the copies must not change between runs. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const NEIGHBOUR_KEYS: Record<string, string> = {
  a: 'qsz', b: 'vn', c: 'xv', d: 'sf', e: 'wr', f: 'dg', g: 'fh', h: 'gj', i: 'uo', j: 'hk', k: 'jl', l: 'k', m: 'n', n: 'bm',
  o: 'ip', p: 'o', r: 'et', s: 'ad', t: 'ry', u: 'yi', v: 'cb', w: 'qe', y: 'tu', z: 'x',
};

/** Romanised-Hindi and phonetic respellings: the same word as another writer spells it. */
const RESPELLINGS: readonly (readonly [string, string])[] = [
  ['ee', 'i'], ['i', 'ee'], ['oo', 'u'], ['u', 'oo'], ['a', 'e'], ['e', 'a'], ['ya', 'ia'], ['ai', 'ei'], ['ch', 'chh'],
  ['kh', 'k'], ['ph', 'f'], ['v', 'w'], ['w', 'v'], ['sh', 's'], ['a', 'aa'], ['aa', 'a'],
];

function misspell(word: string, random: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  for (let attempt = 0; attempt < 20; attempt++) {
    const at = 1 + Math.floor(random() * (word.length - 1)); // the first letter is rarely the slip
    let out = word;
    switch (pick(['drop', 'double', 'swap', 'respell', 'neighbour'] as const)) {
      case 'drop': out = word.slice(0, at) + word.slice(at + 1); break;
      case 'double': out = word.slice(0, at) + word[at] + word.slice(at); break;
      case 'swap': if (at < word.length - 1) out = word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2); break;
      case 'neighbour': {
        const keys = NEIGHBOUR_KEYS[word[at]!];
        if (keys) out = word.slice(0, at) + pick([...keys]) + word.slice(at + 1);
        break;
      }
      case 'respell': {
        const [from, to] = pick(RESPELLINGS);
        const j = word.indexOf(from, 1);
        if (j > 0) out = word.slice(0, j) + to + word.slice(j + from.length);
        break;
      }
    }
    if (out !== word && /^[a-z]+$/.test(out)) return out;
  }
  return word;
}

export interface TypoCopy<Q> {
  readonly query: Q;
  readonly typed: string;
}

/**
 * Two misspelled copies of each query whose words a customer spells (exact dish names, synonyms, categories,
 * Hinglish: not the Devanagari, other-language or already misspelled ones), each with one word changed.
 */
export function typoCopies<Q extends { query: string; kind: string; relevant: Record<string, number> }>(queries: readonly Q[], seed = 12345): TypoCopy<Q>[] {
  const random = seeded(seed);
  const out: TypoCopy<Q>[] = [];
  for (const q of queries) {
    if (!['exact', 'synonym', 'category', 'hinglish'].includes(q.kind) || Object.keys(q.relevant).length === 0) continue;
    const words = q.query.split(' ');
    const spellable = words.flatMap((w, i) => (/^[a-z]{4,}$/i.test(w) ? [i] : []));
    if (spellable.length === 0) continue;
    for (let copy = 0; copy < 2; copy++) {
      const i = spellable[Math.floor(random() * spellable.length)]!;
      const changed = misspell(words[i]!.toLowerCase(), random);
      if (changed === words[i]!.toLowerCase()) continue;
      out.push({ query: q, typed: words.map((w, k) => (k === i ? changed : w)).join(' ') });
    }
  }
  return out;
}
