import { join } from 'node:path';
import { readCountPerKey } from './tsv.js';

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
  const counts = readCountPerKey(path, ['convention', 'count'], CONVENTIONS, 'people, pieces or grams');
  const count = (name: (typeof CONVENTIONS)[number]): number => counts.get(name)!;
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
