import { join } from 'node:path';
import { readTsv } from './tsv.js';
import type { SearchEquivalents } from './equivalents.js';
import { phraseAt, type TranslationTable } from './translate.js';

/** A name (as folded words) and the words of the kind it is one of. */
interface KindName {
  readonly words: readonly string[];
  readonly kind: readonly string[];
}

/**
 * What foods are kinds of (lexicon/kinds.tsv, and the `kind` rows of translations.tsv), by the first folded word of each
 * name, longest name first.
 */
export type KindTable = ReadonlyMap<string, readonly KindName[]>;

export const KINDS_HEADER = ['name', 'kind', 'note'] as const;

/**
 * Reads lexicon/kinds.tsv and adds the other names of a name's `same` group (search_equivalents.tsv) and the `kind`
 * translations. Throws with file:line on a name listed twice or given as its own kind.
 */
export function loadKinds(dir: string, eq: SearchEquivalents, translations: TranslationTable): KindTable {
  const fold = (phrase: string): string[] => phrase.split(/[^\p{L}\p{N}]+/u).filter(Boolean).map(eq.foldWord);
  const byFirstWord = new Map<string, KindName[]>();
  const seen = new Set<string>();
  const add = (words: readonly string[], kind: readonly string[]): void => {
    const key = words.join(' ');
    if (words.length === 0 || seen.has(key)) return;
    seen.add(key);
    const list = byFirstWord.get(words[0]!) ?? [];
    list.push({ words, kind });
    byFirstWord.set(words[0]!, list);
  };
  const listed = new Map<string, number>();
  for (const row of readTsv(join(dir, 'lexicon', 'kinds.tsv'), KINDS_HEADER)) {
    const [name, kind] = [fold(row.cells[0] ?? ''), fold(row.cells[1] ?? '')];
    const where = `${row.file}:${row.line}`;
    if (name.length === 0 || kind.length === 0) throw new Error(`${where}: a row needs a name and a kind`);
    if (name.join(' ') === kind.join(' ')) throw new Error(`${where}: "${row.cells[0]}" is given as its own kind`);
    const prev = listed.get(name.join(' '));
    if (prev !== undefined) throw new Error(`${where}: "${row.cells[0]}" is already listed on line ${prev}`);
    listed.set(name.join(' '), row.line);
    add(name, kind);
    const group = (eq.byFirstWord.get(name[0]!) ?? []).find((p) => p.sameDish && p.words.join(' ') === name.join(' '))?.token;
    if (group === undefined) continue;
    for (const phrases of eq.byFirstWord.values()) for (const p of phrases) if (p.token === group) add(p.words, kind);
  }
  for (const list of translations.values()) for (const t of list) if (t.relation === 'kind') add(t.words.map(eq.foldWord), fold(t.english));
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  return byFirstWord;
}

/** The kinds `words` name, each as its folded words, each once ("veggies mozza sandwich": [cheese]). */
export function kindsNamed(table: KindTable, eq: SearchEquivalents, words: readonly string[]): string[][] {
  const folded = words.map(eq.foldWord);
  const out = new Map<string, string[]>();
  // Longest name first at each word, and a word read as part of a name is not read again ("chai latte" is a tea).
  for (let i = 0; i < folded.length; ) {
    const hit = phraseAt(table, folded, i);
    if (hit) out.set(hit.kind.join(' '), [...hit.kind]);
    i += hit ? hit.words.length : 1;
  }
  return [...out.values()];
}
