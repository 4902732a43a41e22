import type { Knowledge } from './index.js';

/**
 * How much of a real menu the knowledge base knows: the share of item names that, after clean() (prices, sizes,
 * promo words and misspellings removed, Devanagari transliterated), resolve to one known dish, exactly or fuzzily.
 * The eval prints it per data set; the misses, most frequent first, say which dishes to write next.
 */

export interface CoverageMiss {
  /** The cleaned name that did not resolve. */
  readonly name: string;
  /** How many input names cleaned to it. */
  readonly count: number;
  /** 'ambiguous' when the name is a known name of several dishes (Pad Thai), else 'unknown'. */
  readonly kind: 'ambiguous' | 'unknown';
  /** One original text, for reading the report. */
  readonly example: string;
}

export interface CoverageReport {
  /** Names measured (duplicates count: a dish listed by ten menus weighs ten). */
  readonly total: number;
  readonly exact: number;
  readonly fuzzy: number;
  /** Combos ("Veg Whopper + Fries", "Zinger Burger Meal") whose main part and at least half of all parts are known. */
  readonly combo: number;
  /** Known names of several dishes: not resolved, but not unknown either. */
  readonly ambiguous: number;
  readonly unresolved: number;
  /** (exact + fuzzy) / total, 0 when there is nothing to measure. */
  readonly share: number;
  /** (exact + fuzzy + combo) / total. */
  readonly shareWithCombos: number;
  /** exact + fuzzy (+ combo) over distinct cleaned names. */
  readonly distinct: { readonly total: number; readonly resolved: number; readonly share: number };
  /** The most frequent names that did not resolve to one dish. */
  readonly misses: readonly CoverageMiss[];
}

export interface CoverageOptions {
  /** How many misses to list (default 50). */
  readonly top?: number;
  /** Text → dish name (default: the knowledge's cleaner). */
  readonly cleanName?: (text: string) => string;
}

export function measureCoverage(knowledge: Knowledge, names: readonly string[], options: CoverageOptions = {}): CoverageReport {
  const cleanName = options.cleanName ?? ((text: string) => knowledge.cleaner.clean(text).text);
  const top = options.top ?? 50;
  let exact = 0;
  let fuzzy = 0;
  let combo = 0;
  let ambiguous = 0;
  const perName = new Map<string, { count: number; how: 'exact' | 'fuzzy' | 'combo' | null; kind: CoverageMiss['kind']; example: string }>();
  for (const original of names) {
    const name = cleanName(original);
    let entry = perName.get(name);
    if (!entry) {
      const match = knowledge.resolveDish(name);
      const kind: CoverageMiss['kind'] = !match && knowledge.lookup.dishCandidates(name).length > 1 ? 'ambiguous' : 'unknown';
      let how: 'exact' | 'fuzzy' | 'combo' | null = match?.how ?? null;
      if (!match) {
        // A combo counts when its main part and at least half of all parts are known names: a dish, or a listed
        // ambiguous name ("Crispy Veg + Fries": BK's Crispy Veg is ambiguous with the Chinese starter).
        const combo = knowledge.lookup.resolveCombo(name);
        if (combo) {
          const known = combo.names.map((n, i) => combo.parts[i] !== null || knowledge.lookup.dishCandidates(n).length > 1);
          if (known[0] && known.filter(Boolean).length * 2 >= known.length) how = 'combo';
        }
      }
      entry = { count: 0, how, kind, example: original };
      perName.set(name, entry);
    }
    entry.count++;
    if (entry.how === 'exact') exact++;
    else if (entry.how === 'fuzzy') fuzzy++;
    else if (entry.how === 'combo') combo++;
    else if (entry.kind === 'ambiguous') ambiguous++;
  }
  const total = names.length;
  const resolvedDistinct = [...perName.values()].filter((v) => v.how !== null).length;
  const misses = [...perName]
    .filter(([, v]) => v.how === null)
    .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
    .slice(0, top)
    .map(([name, v]) => ({ name, count: v.count, kind: v.kind, example: v.example }));
  return {
    total,
    exact,
    fuzzy,
    combo,
    ambiguous,
    unresolved: total - exact - fuzzy - combo,
    share: total === 0 ? 0 : (exact + fuzzy) / total,
    shareWithCombos: total === 0 ? 0 : (exact + fuzzy + combo) / total,
    distinct: { total: perName.size, resolved: resolvedDistinct, share: perName.size === 0 ? 0 : resolvedDistinct / perName.size },
    misses,
  };
}
