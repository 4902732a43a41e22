import { join } from 'node:path';
import { readRowPerKey } from './tsv.js';

/** How many people a menu's portion words and sizes stand for (lexicon/portions.tsv): read by src/core/servings.ts. */
export interface PortionConventions {
  readonly groupPeople: number;
  readonly groupFromPeople: number;
  readonly maxOrderCount: number;
  readonly maxHeadCount: number;
  readonly platterMinPieces: number;
  readonly sharedMinGrams: number;
}

const CONVENTIONS = ['group_people', 'group_from_people', 'max_order_count', 'max_head_count', 'platter_min_pieces', 'shared_min_grams'] as const;

export function loadPortionConventions(dir: string): PortionConventions {
  const path = join(dir, 'lexicon', 'portions.tsv');
  const rows = readRowPerKey(path, ['convention', 'count'], CONVENTIONS, 'convention');
  const count = (name: (typeof CONVENTIONS)[number]): number => {
    const row = rows.get(name)!;
    const value = Number(row.cells[1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${row.file}:${row.line}: "${row.cells[1] ?? ''}" is not a whole count`);
    return value;
  };
  const conventions: PortionConventions = {
    groupPeople: count('group_people'),
    groupFromPeople: count('group_from_people'),
    maxOrderCount: count('max_order_count'),
    maxHeadCount: count('max_head_count'),
    platterMinPieces: count('platter_min_pieces'),
    sharedMinGrams: count('shared_min_grams'),
  };
  // A pair is two people; a group must be more, and a group word must count as a group.
  if (conventions.groupFromPeople <= 2 || conventions.groupPeople < conventions.groupFromPeople) {
    throw new Error(`${path}: group_from_people must be above two and group_people at least group_from_people`);
  }
  return Object.freeze(conventions);
}
