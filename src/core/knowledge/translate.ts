import { join } from 'node:path';
import { KNOWLEDGE_DIR } from '../paths.js';
import { readTsv } from './tsv.js';

/** Lower-case with accents folded ("Crème" → "creme"): how other-language words are compared. */
export function foldAccents(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

let table: { words: string[]; english: string }[] | null = null;

function load(dir: string = KNOWLEDGE_DIR): { words: string[]; english: string }[] {
  return readTsv(join(dir, 'lexicon', 'translations.tsv'), ['word', 'english'])
    .map((r) => ({ words: foldAccents(r.cells[0]!).split(/[\s']+/).filter(Boolean), english: r.cells[1]! }))
    .sort((a, b) => b.words.length - a.words.length);
}

/**
 * Replaces other-language and Hinglish food words with the English menu word (knowledge/lexicon/translations.tsv),
 * longest phrases first: "Pollo a la Parrilla" → "chicken grilled", "anda curry" → "egg curry". Returns the text
 * unchanged when it has none. Used for what is embedded, so cross-lingual queries and pairs meet in one space.
 */
export function toEnglishFoodWords(text: string): string {
  table ??= load();
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
