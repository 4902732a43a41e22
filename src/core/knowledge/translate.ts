import { join } from 'node:path';
import { readTsv } from './tsv.js';

/** Lower-case with accents folded ("Crème" → "creme"): how other-language words are compared. */
export function foldAccents(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

interface Translation {
  readonly words: readonly string[];
  readonly english: string;
}

/** lexicon/translations.tsv: other-language phrases as folded words with their English menu word, by first word,
 * longest first. */
export type TranslationTable = ReadonlyMap<string, readonly Translation[]>;

export function loadTranslations(dir: string): TranslationTable {
  const byFirstWord = new Map<string, Translation[]>();
  for (const r of readTsv(join(dir, 'lexicon', 'translations.tsv'), ['word', 'english'])) {
    const words = foldAccents(r.cells[0]!).split(/[\s']+/).filter(Boolean);
    if (words.length === 0) continue;
    const list = byFirstWord.get(words[0]!) ?? [];
    list.push({ words, english: r.cells[1]! });
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
    const hit = table.get(words[i]!)?.find((t) => t.words.every((w, k) => words[i + k] === w));
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
