import { join } from 'node:path';
import { readCountPerKey } from './tsv.js';

/**
 * How long a word must be before a spelling rule touches it (lexicon/spelling.tsv): one set of conventions that the
 * name lookup, the cleaner, the query speller and the word guards all read, so that they agree on what may be a typo,
 * a plural or a word of its own. Every value is a count of letters.
 */
export interface SpellingConventions {
  readonly pluralMinLetters: number;
  readonly typoMinLetters: number;
  readonly twoTyposMinLetters: number;
  readonly menuTypoMinLetters: number;
  readonly menuTwoTyposMinLetters: number;
  readonly wordPartMinLetters: number;
  readonly splitPartMinLetters: number;
  readonly soundFoldMinLetters: number;
}

const CONVENTIONS = [
  'plural_min_letters',
  'typo_min_letters',
  'two_typos_min_letters',
  'menu_typo_min_letters',
  'menu_two_typos_min_letters',
  'word_part_min_letters',
  'split_part_min_letters',
  'sound_fold_min_letters',
] as const;

export function loadSpellingConventions(dir: string): SpellingConventions {
  const counts = readCountPerKey(join(dir, 'lexicon', 'spelling.tsv'), ['convention', 'letters'], CONVENTIONS, 'letters');
  const letters = (name: (typeof CONVENTIONS)[number]): number => counts.get(name)!;
  const conventions: SpellingConventions = {
    pluralMinLetters: letters('plural_min_letters'),
    typoMinLetters: letters('typo_min_letters'),
    twoTyposMinLetters: letters('two_typos_min_letters'),
    menuTypoMinLetters: letters('menu_typo_min_letters'),
    menuTwoTyposMinLetters: letters('menu_two_typos_min_letters'),
    wordPartMinLetters: letters('word_part_min_letters'),
    splitPartMinLetters: letters('split_part_min_letters'),
    soundFoldMinLetters: letters('sound_fold_min_letters'),
  };
  if (conventions.twoTyposMinLetters <= conventions.typoMinLetters || conventions.menuTwoTyposMinLetters <= conventions.menuTypoMinLetters) {
    throw new Error(`${join(dir, 'lexicon', 'spelling.tsv')}: two edits must wait for longer words than one edit`);
  }
  return Object.freeze(conventions);
}

/** How many edits a typed word of `length` letters may be from the word meant: 0 below the typo length. */
export function typoBudget(s: SpellingConventions, length: number): number {
  return length >= s.twoTyposMinLetters ? 2 : length >= s.typoMinLetters ? 1 : 0;
}

/** The same for a menu's own spelling, which the cleaner corrects more cautiously. */
export function menuTypoBudget(s: SpellingConventions, length: number): number {
  return length >= s.menuTwoTyposMinLetters ? 2 : length >= s.menuTypoMinLetters ? 1 : 0;
}

/** A plain lower-case Latin word long enough to be taken for a misspelling of another (or to be misspelt). */
export function isTypoCandidate(word: string, s: SpellingConventions): boolean {
  return word.length >= s.typoMinLetters && /^[a-z]+$/.test(word);
}
