import { join } from 'node:path';
import { TAGS } from './dishes.js';
import type { Course, Tag } from './dishes.js';
import { readTsv } from './tsv.js';

/** An abstract need a search query may name (lexicon/concepts.tsv): "something sweet", "cold drink", "healthy lunch". */
export interface Concept {
  readonly phrase: readonly string[];
  readonly tags: readonly Tag[];
  /** Tags written `!tag`: the query wants items without them ("mild": !spicy). */
  readonly avoid: readonly Tag[];
  readonly course: Course | null;
}

export function loadConcepts(dir: string): Concept[] {
  const rows = readTsv(join(dir, 'lexicon', 'concepts.tsv'), ['phrase', 'tags', 'course']);
  return rows.map((r) => {
    const [phrase, tags, course] = r.cells as [string, string, string];
    const tagList = tags === '-' ? [] : tags.split(',').map((t) => t.trim());
    for (const t of tagList) if (!(TAGS as readonly string[]).includes(t.replace(/^!/, ''))) throw new Error(`${r.file}:${r.line}: unknown tag ${t}`);
    return {
      phrase: phrase.toLowerCase().split(/\s+/),
      tags: tagList.filter((t) => !t.startsWith('!')) as Tag[],
      avoid: tagList.filter((t) => t.startsWith('!')).map((t) => t.slice(1)) as Tag[],
      course: course === '-' ? null : (course as Course),
    };
  });
}
