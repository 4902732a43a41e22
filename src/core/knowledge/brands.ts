import { join } from 'node:path';
import { readTsv } from './tsv.js';
import { nameKey } from './dishes.js';

/** The brand names of lexicon/brands.tsv: whole-word phrases and word prefixes ("mc*"), each with its brand id. */
export interface BrandLexicon {
  /** Phrases by their first word. */
  readonly phrases: ReadonlyMap<string, readonly { readonly words: readonly string[]; readonly brand: string }[]>;
  /** Word prefixes ("mc") with their brand. */
  readonly prefixes: readonly { readonly prefix: string; readonly brand: string }[];
}

/** A prefix row matches a word that has at least this many letters after the prefix ("mcegg", not "mca"). */
const PREFIX_REST = 3;

export function loadBrands(dir: string): BrandLexicon {
  const phrases = new Map<string, { words: string[]; brand: string }[]>();
  const prefixes: { prefix: string; brand: string }[] = [];
  const seen = new Map<string, number>();
  for (const row of readTsv(join(dir, 'lexicon', 'brands.tsv'), ['name', 'brand', 'note'])) {
    const [name, brand] = row.cells;
    if (!name || !brand) throw new Error(`${row.file}:${row.line}: expected "name<TAB>brand<TAB>note"`);
    const key = name.endsWith('*') ? `${nameKey(name.slice(0, -1))}*` : nameKey(name);
    if (key === '' || key === '*') throw new Error(`${row.file}:${row.line}: empty name`);
    const prev = seen.get(key);
    if (prev !== undefined) throw new Error(`${row.file}:${row.line}: "${key}" is already on line ${prev}`);
    seen.set(key, row.line);
    if (key.endsWith('*')) {
      prefixes.push({ prefix: key.slice(0, -1), brand });
      continue;
    }
    const words = key.split(' ');
    const list = phrases.get(words[0]!) ?? [];
    list.push({ words, brand });
    phrases.set(words[0]!, list);
  }
  return { phrases, prefixes };
}

/** The brands a cleaned menu name names ("Chilli Guava Coke" → coca-cola; "BK Veg Pizza Puff" → burger-king). */
export function brandsOf(lexicon: BrandLexicon, text: string): Set<string> {
  const words = nameKey(text).split(' ').filter(Boolean);
  const brands = new Set<string>();
  words.forEach((w, i) => {
    for (const p of lexicon.phrases.get(w) ?? []) {
      if (p.words.every((pw, k) => words[i + k] === pw)) brands.add(p.brand);
    }
    for (const p of lexicon.prefixes) if (w.length >= p.prefix.length + PREFIX_REST && w.startsWith(p.prefix)) brands.add(p.brand);
  });
  return brands;
}

/** Two names' brands (brandsOf), when each names one and they share none: two brands' products, so two items. */
export function brandsDiffer(ba: ReadonlySet<string>, bb: ReadonlySet<string>): boolean {
  if (ba.size === 0 || bb.size === 0) return false;
  for (const x of ba) if (bb.has(x)) return false;
  return true;
}
