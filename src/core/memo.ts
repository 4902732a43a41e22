import { LRUCache } from 'lru-cache';

/**
 * A bounded memo of a pure function: the least recently used entry goes first once `entries` are kept. Every memo of
 * per-text, per-word or per-pair work in the service is one of these, sized from one setting (MENU_TEXT_MEMO_ENTRIES),
 * because the inputs that never come back (order numbers, one-off spellings, "<dish> Special <n>") would otherwise
 * hold memory for as long as the process lives. Results may be null (a word with no correction, a text naming no
 * dish), which lru-cache cannot hold by itself, hence the box.
 */
export class Memo<K extends string, V> {
  private readonly cache: LRUCache<K, { readonly value: V }>;

  constructor(readonly entries: number) {
    this.cache = new LRUCache<K, { readonly value: V }>({ max: Math.max(1, Math.floor(entries)) });
  }

  get(key: K, make: () => V): V {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit.value;
    const value = make();
    this.cache.set(key, { value });
    return value;
  }

  peek(key: K): { readonly value: V } | undefined {
    return this.cache.get(key);
  }

  set(key: K, value: V): void {
    this.cache.set(key, { value });
  }

  get size(): number {
    return this.cache.size;
  }
}

/** Entries each memo keeps unless the service's config says otherwise (MENU_TEXT_MEMO_ENTRIES). */
export const DEFAULT_MEMO_ENTRIES = 50_000;
