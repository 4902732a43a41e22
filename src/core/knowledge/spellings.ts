import { join } from 'node:path';
import { readTsv } from './tsv.js';

/**
 * lexicon/misspellings.tsv: listed spellings and the word each stands for. A `typo` is a plain misspelling that the
 * cleaned name corrects (Chiken → Chicken); a `variant` is a spelling menus write on purpose (Biriyani, Mutter, Chk),
 * which the cleaned name keeps and the service folds only where it reads the name.
 */
export type SpellingKind = 'typo' | 'variant';

export interface ListedSpelling {
  readonly wrong: string;
  readonly right: string;
  readonly kind: SpellingKind;
}

export const MISSPELLINGS_HEADER = ['wrong', 'right', 'kind'] as const;

/** The rows of `<lexicon dir>/misspellings.tsv`, checked. */
export function readMisspellings(lexiconDir: string): ListedSpelling[] {
  return readTsv(join(lexiconDir, 'misspellings.tsv'), MISSPELLINGS_HEADER).map((row) => {
    const [wrong, right, kind] = row.cells;
    if (!wrong || !right || (kind !== 'typo' && kind !== 'variant')) throw new Error(`${row.file}:${row.line}: expected "wrong<TAB>right<TAB>typo|variant"`);
    return { wrong, right, kind };
  });
}
