import { join } from 'node:path';
import { readTsv } from './tsv.js';

/** Lower-case with accents folded ("Crème" → "creme"): how other-language words are compared. */
export function foldAccents(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

/** How a translation's English word stands to it: the same food (`same`), or the kind it is one of (`kind`). */
export type TranslationRelation = 'same' | 'kind';
const RELATIONS: readonly TranslationRelation[] = ['same', 'kind'];

interface Translation {
  readonly words: readonly string[];
  readonly english: string;
  readonly relation: TranslationRelation;
}

/** lexicon/translations.tsv: other-language phrases as folded words with their English menu word, by first word,
 * longest first. */
export type TranslationTable = ReadonlyMap<string, readonly Translation[]>;

/** The first phrase of a table indexed by first word (longest first) that `words` hold at position `i`. */
export function phraseAt<T extends { readonly words: readonly string[] }>(byFirstWord: ReadonlyMap<string, readonly T[]>, words: readonly string[], i: number): T | undefined {
  return byFirstWord.get(words[i]!)?.find((t) => t.words.every((w, k) => words[i + k] === w));
}

export const TRANSLATIONS_HEADER = ['word', 'english', 'relation'] as const;

export function loadTranslations(dir: string): TranslationTable {
  const byFirstWord = new Map<string, Translation[]>();
  for (const r of readTsv(join(dir, 'lexicon', 'translations.tsv'), TRANSLATIONS_HEADER)) {
    const words = foldAccents(r.cells[0]!).split(/[\s']+/).filter(Boolean);
    if (words.length === 0) continue;
    const relation = r.cells[2] as TranslationRelation;
    if (!RELATIONS.includes(relation)) throw new Error(`${r.file}:${r.line}: relation "${r.cells[2] ?? ''}" is not one of ${RELATIONS.join(', ')}`);
    const list = byFirstWord.get(words[0]!) ?? [];
    list.push({ words, english: r.cells[1]!, relation });
    byFirstWord.set(words[0]!, list);
  }
  // Stable: of two phrases of one length, the file's first wins, as it did when the whole table was scanned in order.
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  return byFirstWord;
}

/**
 * Replaces other-language and Hinglish food words with the English menu word (knowledge/lexicon/translations.tsv),
 * longest phrases first: "Pollo a la Parrilla" → "chicken grilled", "anda curry" → "egg curry". Returns the text
 * unchanged when it has none. Used for what is embedded, so cross-lingual queries and pairs meet in one space.
 */
export function toEnglishFoodWords(table: TranslationTable, text: string): string {
  const words = foldAccents(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const out: string[] = [];
  let changed = false;
  for (let i = 0; i < words.length; ) {
    const hit = phraseAt(table, words, i);
    if (hit) {
      out.push(hit.english);
      i += hit.words.length;
      changed = true;
    } else {
      out.push(words[i]!);
      i++;
    }
  }
  return changed ? out.join(' ') : text;
}

/**
 * Whether two single words are one food word in two languages: one is the other's English word, or both are one English
 * word's, by a `same` row (kodi / chicken, macchi / maach). A `kind` row (pulusu / curry) does not make them one.
 */
export function sameWordInEnglish(table: TranslationTable, a: string, b: string): boolean {
  const ea = englishWordOf(table, a), eb = englishWordOf(table, b);
  return (ea !== null || eb !== null) && (ea ?? a) === (eb ?? b);
}

/** A single word's English word by a one-word `same` translation, or null. */
function englishWordOf(table: TranslationTable, word: string): string | null {
  const folded = foldAccents(word);
  const hit = table.get(folded)?.find((t) => t.words.length === 1);
  return hit !== undefined && hit.relation === 'same' ? hit.english : null;
}
