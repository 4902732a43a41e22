import { join } from 'node:path';
import { readTsv } from './tsv.js';

/** Lower-case with accents folded ("Crème" → "creme"): how other-language words are compared. */
export function foldAccents(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

/** lexicon/translations.tsv: other-language phrases as folded words with their English menu word, longest first. */
export type TranslationTable = readonly { readonly words: readonly string[]; readonly english: string }[];

export function loadTranslations(dir: string): TranslationTable {
  return readTsv(join(dir, 'lexicon', 'translations.tsv'), ['word', 'english'])
    .map((r) => ({ words: foldAccents(r.cells[0]!).split(/[\s']+/).filter(Boolean), english: r.cells[1]! }))
    .sort((a, b) => b.words.length - a.words.length);
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
    const hit = table.find((t) => t.words.every((w, k) => words[i + k] === w));
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
