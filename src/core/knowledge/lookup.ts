import { join } from 'node:path';
import { DEFAULT_MEMO_ENTRIES, Memo } from '../memo.js';
import { HARD_NEGATIVES_HEADER, nameKey } from './dishes.js';
import type { Course, Cuisine, Diet, Dish, DishBook, Protein } from './dishes.js';
import { buildDevanagariDictionary, hasDevanagari, transliterateDevanagari } from './transliterate.js';
import { readTsv } from './tsv.js';
import { editDistance } from '../text/edit-distance.js';
import { splitInTwo } from '../text/split-word.js';
import { readMisspellings } from './spellings.js';
import { literalAlternatives, type WordLexicons } from './words.js';
import { roundHundredths } from '../number-format.js';
import { isTypoCandidate, typoBudget, type SpellingConventions } from './spelling.js';
import { withoutEnding } from '../text/endings.js';

/**
 * Name → dish lookups over the knowledge base.
 *
 * resolveDish answers "which known dish is this menu name?" in steps, stopping at the first that answers:
 * 1. exact: the name's nameKey is a dish name or alias (a Devanagari name is also tried transliterated);
 * 2. the same words in another order, with plurals, known misspellings, filler words ("special", "style", "with")
 *    and preparation phrases ("No Onion No Garlic", "Thin and Crispy") folded:
 *    "Chicken Dum Biryani Hyderabadi Style" → Hyderabadi Chicken Dum Biryani;
 * 3. repair: a word the knowledge base does not know becomes the known word within a small edit distance
 *    ("biriyani" → biryani), a glued word is split ("pavbhaji" → pav bhaji), a spelling our aliases show to be a
 *    variant is tried in its usual form ("masla" → masala), one word never seen anywhere may be left out of a
 *    longer name ("Zinger Pro Burger") and, at a lower score, one word that our aliases show to be optional for a
 *    dish may be missing or extra ("Kerala Parotta" / "Parotta");
 * 4. a known dish name ending a longer name ("Taj-e-Khumb Biryani Mushroom Biryani" → Mushroom Biryani).
 * Steps 2–4 are "fuzzy" and conservative by construction: the words that name a protein or a diet
 * (lexicon/protein.tsv, diet.tsv) must be the same on both sides, so "Paneer Tikka" never becomes "Chicken Tikka"
 * and "Tikka" never becomes either; pairs listed in hard_negatives.tsv never match; a name that could be two
 * different dishes resolves to none. A name listed in lexicon/ambiguous.txt (Pad Thai, Seekh Kebab) resolves to no
 * dish; dishCandidates lists the dishes it can mean. Combos ("Veg Whopper + Fries") are not one dish: resolveCombo
 * reads them part by part.
 *
 * Exact lookups need nothing beyond the dish book. The fuzzy index, the token index and the Devanagari dictionary
 * are built on first use (prepare() builds them all at once, for servers that want no slow first request).
 */

export interface DishMatch {
  readonly dish: Dish;
  readonly how: 'exact' | 'fuzzy';
  /** 1 for exact; below 1 for fuzzy, lower the more repair it took (never below FUZZY_FLOOR). */
  readonly score: number;
}

/** What the dishes that use a word have in common: a cheap prior for classifiers and filters. */
export interface TokenCue {
  /** Number of dishes with the word in their name or an alias. */
  readonly dishes: number;
  readonly cuisines: ReadonlyMap<Cuisine, number>;
  readonly courses: ReadonlyMap<Course, number>;
  readonly diets: ReadonlyMap<Diet, number>;
  readonly proteins: ReadonlyMap<Protein | null, number>;
}

/** A menu item read as a combo of dishes ("Veg Whopper + Fries", "Zinger Burger Meal"). */
export interface ComboMatch {
  /** One entry per part, in menu order (a single entry when the whole name is one dish). */
  readonly parts: readonly (DishMatch | null)[];
  /** The part names as read (combo words such as "meal" removed). */
  readonly names: readonly string[];
  /** The first part's dish: what the item mainly is. */
  readonly main: DishMatch | null;
  /** True when every part resolved. */
  readonly complete: boolean;
}

export interface DishLookup {
  resolveDish(text: string): DishMatch | null;
  /**
   * A name that is not one dish, read as a combo: split at "+", "," and " & " / " and " / " with " between dish
   * names, trailing combo words ("Combo", "Meal", "Box") removed. Null when the text does not split.
   */
  resolveCombo(text: string): ComboMatch | null;
  /** Every dish an exact name can mean: one for most names, several for ambiguous ones, none when unknown. */
  dishCandidates(text: string): readonly Dish[];
  /** Lower-case word (as nameKey splits names) → ids (ascending) of the dishes whose name or an alias has it. */
  readonly dishesByToken: ReadonlyMap<string, readonly number[]>;
  /** The cuisines, courses, diets and proteins of the dishes whose name or an alias uses the lower-case word. */
  tokenCue(word: string): TokenCue | undefined;
  /** Words of dish names that our aliases show to be optional (the dish is listed with and without them). */
  readonly optionalWords: ReadonlySet<string>;
  /** Rare spellings our aliases use for a commoner word of the same dishes (masla → masala). */
  readonly spellingVariants: ReadonlyMap<string, string>;
  /** The Devanagari word → menu spelling dictionary learned from the dishes (see buildDevanagariDictionary). */
  readonly devanagari: ReadonlyMap<string, string>;
  /** Builds every lazily built table now. */
  prepare(): void;
}

export interface LookupLexicons {
  /** misspelled word → right word(s), lower-case (lexicon/misspellings.tsv). */
  readonly misspellings: ReadonlyMap<string, string>;
  /** Protein and diet keywords by first word, longest first, with the value they stand for (see guardSignature). */
  readonly guards: ReadonlyMap<string, readonly { readonly words: readonly string[]; readonly value: string }[]>;
  /** Look-alike pairs that are different dishes (hard_negatives.tsv), as name keys. */
  readonly hardNegatives: readonly (readonly [string, string])[];
}

/** The word lists name lookups read (lexicon/filler_words.tsv, number_words.tsv, piece_words.txt,
 * preparation_phrases.txt, combo_words.tsv, plural_exceptions.tsv), compiled once. */
export interface LookupWords {
  /** Words that add nothing to which dish a name is (dropped on both sides before comparing word bags). */
  readonly filler: ReadonlySet<string>;
  /** Count words that, followed by a piece word, give a portion rather than a dish ("Chicken Wings Fifteen Pieces"). */
  readonly countWords: ReadonlySet<string>;
  readonly pieceWords: ReadonlySet<string>;
  /**
   * Phrases that say how a dish is prepared for a guest, which crust or patty it has, or an add-on slice, not which
   * dish it is; removed before fuzzy matching, in order.
   */
  readonly preparationPhrases: readonly (readonly string[])[];
  /** A text a part separator or combo word marks as a combo: its parts are read by resolveCombo. */
  readonly comboSeparator: RegExp;
  /** Where a combo splits into its parts. */
  readonly comboSplit: RegExp;
  /** Words that end a combo's name without being a dish ("Whopper Combo", "Zinger Burger Meal"). */
  readonly comboTail: ReadonlySet<string>;
  /** How long a word must be before a typo repair, a plural fold or a split touches it. */
  readonly spelling: SpellingConventions;
  /** Words ending in s whose singular is a different dish word (fries ≠ fry): never folded. */
  readonly notPlural: ReadonlySet<string>;
  /** A vessel → the dish words in whose names it is only a party portion (filler_words.tsv vessel_portion). */
  readonly vesselPortions: ReadonlyMap<string, ReadonlySet<string>>;
  /** Devanagari function words (lexicon/devanagari_function_words.tsv), for transliteration. */
  readonly devanagariFunctionWords: ReadonlyMap<string, string>;
}

export function lookupWords(words: WordLexicons): LookupWords {
  const wordsOf = (list: readonly string[]): string => list.map((w) => `\\b${literalAlternatives([w])}\\b`).join('|');
  return {
    filler: words.lookupFiller,
    countWords: new Set(words.numbers.pieceCount.keys()),
    pieceWords: words.pieceWords,
    preparationPhrases: words.preparationPhrases,
    comboSeparator: new RegExp(`[+,;]|\\s&\\s|${wordsOf(words.combo.separator)}`, 'i'),
    comboSplit: new RegExp(`\\s*(?:\\+|,|;|\\s&\\s|\\s(?:${literalAlternatives(words.combo.joiner)})\\s)\\s*`, 'i'),
    comboTail: words.combo.tail,
    spelling: words.spelling,
    notPlural: words.notPlural,
    vesselPortions: words.vesselPortions,
    devanagariFunctionWords: words.devanagariFunctionWords,
  };
}

/** Diet classes of diet.tsv that say what is (or is not) in the dish, as opposed to incidental veg ingredients. */
const GUARD_DIET_CLASSES = new Set(['non_veg', 'non_veg_default', 'egg', 'egg_free', 'veg_marker', 'veg_substitute']);

const SCORE_REORDERED = 0.95;
const TYPO_PENALTY = 0.05;
const SPLIT_PENALTY = 0.03;
const OPTIONAL_WORD_PENALTY = 0.12;
const UNKNOWN_WORD_PENALTY = 0.15;
const EMBEDDED_SCORE = 0.72;
export const FUZZY_FLOOR = 0.7;
/** A resolution this sure names the dish itself (its name or a listed alias, reordered or spelled near it), not a dish
 * its words merely contain (an optional word missing or extra, a name embedded in a longer one). */
export const CONFIDENT_DISH_SCORE = 0.85;
/** Most word lists one repaired name expands to (each unknown word may have a few equally near repairs). */
const MAX_VARIANTS = 16;

/** Reads the lexicons fuzzy matching needs (misspellings, protein/diet words, hard negatives). */
export function loadLookupLexicons(dir: string): LookupLexicons {
  const lex = join(dir, 'lexicon');
  const misspellings = new Map<string, string>();
  for (const row of readMisspellings(lex)) misspellings.set(nameKey(row.wrong), nameKey(row.right));
  const guards = new Map<string, { words: string[]; value: string }[]>();
  const addGuard = (keyword: string, value: string): void => {
    const words = nameKey(keyword).split(' ').filter(Boolean);
    if (words.length === 0) return;
    const list = guards.get(words[0]!) ?? [];
    list.push({ words, value });
    guards.set(words[0]!, list);
  };
  for (const row of readTsv(join(lex, 'protein.tsv'), ['keyword', 'protein', 'note'])) {
    const [keyword, protein] = row.cells;
    // '-' marks a trap phrase read as one unit that names no protein ("drumstick sambar"): it still consumes words.
    if (keyword && protein) addGuard(keyword, protein === '-' ? '' : `protein:${protein}`);
  }
  for (const row of readTsv(join(lex, 'diet.tsv'), ['keyword', 'diet', 'note'])) {
    const [keyword, diet] = row.cells;
    if (keyword && diet) addGuard(keyword, GUARD_DIET_CLASSES.has(diet) ? `diet:${diet}` : '');
  }
  // A keyword in both files (chicken: protein and diet) is one entry carrying both values.
  for (const [first, list] of guards) {
    const merged = new Map<string, { words: string[]; value: string }>();
    for (const g of list) {
      const id = g.words.join(' ');
      const prev = merged.get(id);
      if (!prev) merged.set(id, { words: g.words, value: g.value });
      else if (g.value && !prev.value.split('|').includes(g.value)) prev.value = prev.value ? `${prev.value}|${g.value}` : g.value;
    }
    guards.set(first, [...merged.values()].sort((a, b) => b.words.length - a.words.length));
  }
  let hardNegatives: [string, string][] | null = null;
  return {
    misspellings,
    guards,
    // Read on first use: only the fuzzy steps consult them.
    get hardNegatives(): readonly (readonly [string, string])[] {
      if (hardNegatives === null) {
        hardNegatives = [];
        for (const row of readTsv(join(dir, 'hard_negatives.tsv'), HARD_NEGATIVES_HEADER)) {
          const [a, b] = row.cells;
          if (a && b) hardNegatives.push([nameKey(a), nameKey(b)]);
        }
      }
      return hardNegatives;
    },
  };
}

/**
 * The protein and diet words of a name as a sorted signature ("diet:non_veg|protein:chicken"). Multi-word
 * keywords are read first, so a trap phrase ("drumstick sambar", "oyster sauce") is one unit naming nothing.
 */
export function guardSignature(words: readonly string[], guards: LookupLexicons['guards']): string {
  if (!words.some((w) => guards.has(w))) return '';
  let values: string[] | null = null;
  for (let i = 0; i < words.length;) {
    const options = guards.get(words[i]!);
    let hit: { readonly words: readonly string[]; readonly value: string } | undefined;
    if (options !== undefined) {
      for (const g of options) {
        let all = true;
        for (let k = 1; k < g.words.length; k++) if (words[i + k] !== g.words[k]) all = false;
        if (all) {
          hit = g;
          break;
        }
      }
    }
    if (hit) {
      if (hit.value) for (const v of hit.value.split('|')) if (!values?.includes(v)) (values ??= []).push(v);
      i += hit.words.length;
    } else {
      i++;
    }
  }
  if (values === null) return '';
  // A word that is non-veg only by default ("boneless", "seekh") says nothing more beside one that is non-veg outright:
  // a chicken dish's name with "boneless" added carries the protein and diet of the dish.
  if (values.includes('diet:non_veg')) values = values.filter((v) => v !== 'diet:non_veg_default');
  return values.sort().join('|');
}

/** The two words by which two equally long keys differ, when that is their only difference and it is a spelling. */
function differingWords(a: readonly string[], b: readonly string[], spelling: SpellingConventions): [string, string] | null {
  if (a.length !== b.length || a.length < 2) return null;
  let pair: [string, string] | null = null;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (pair) return null;
    pair = [a[i]!, b[i]!];
  }
  if (!pair || !isTypoCandidate(pair[0], spelling) || !isTypoCandidate(pair[1], spelling)) return null;
  const max = typoBudget(spelling, Math.max(pair[0].length, pair[1].length));
  return editDistance(pair[0], pair[1], max) <= max ? (pair[0] < pair[1] ? pair : [pair[1], pair[0]]) : null;
}

function stripModifiers(words: string[], lw: LookupWords): string[] {
  // Piece words after the first word, and the count before them, are a portion ("Wings Fifteen Pieces", "Slice").
  let out = words.filter((w, i) => !(i > 0 && lw.pieceWords.has(w))
    && !((lw.countWords.has(w) || /^\d+$/.test(w)) && lw.pieceWords.has(words[i + 1] ?? '')));
  // A "bucket" of biryani is a party portion of that biryani (a chicken bucket, on the other hand, is a dish).
  for (const [vessel, dishWords] of lw.vesselPortions) {
    if (out.includes(vessel) && out.some((w) => dishWords.has(w))) out = out.filter((w) => w !== vessel);
  }
  for (const phrase of lw.preparationPhrases) {
    for (let i = out.indexOf(phrase[0]!); i >= 0 && i + phrase.length <= out.length; i = out.indexOf(phrase[0]!, i + 1)) {
      if (phrase.every((w, k) => out[i + k] === w)) {
        out = [...out.slice(0, i), ...out.slice(i + phrase.length)];
        break;
      }
    }
  }
  return out;
}

function bagOf(words: readonly string[], filler: ReadonlySet<string>): string {
  return words.filter((w) => !filler.has(w)).sort().join(' ');
}

function tokenCue(ids: readonly number[], dishes: readonly Dish[]): TokenCue {
  const cuisines = new Map<Cuisine, number>();
  const courses = new Map<Course, number>();
  const diets = new Map<Diet, number>();
  const proteins = new Map<Protein | null, number>();
  for (const id of ids) {
    const d = dishes[id]!;
    cuisines.set(d.cuisine, (cuisines.get(d.cuisine) ?? 0) + 1);
    courses.set(d.course, (courses.get(d.course) ?? 0) + 1);
    diets.set(d.diet, (diets.get(d.diet) ?? 0) + 1);
    proteins.set(d.protein, (proteins.get(d.protein) ?? 0) + 1);
  }
  return { dishes: ids.length, cuisines, courses, diets, proteins };
}

/** One name or alias of the book, as fuzzy matching sees it. */
interface KeyInfo {
  readonly ids: readonly number[];
  /** Words after the misspelling and plural folds, in order. */
  readonly words: readonly string[];
  readonly bag: string;
  readonly guard: string;
}

/** The tables behind fuzzy matching (steps 2–4), built from the book on first need. */
class FuzzyIndex {
  readonly byBag = new Map<string, KeyInfo[]>();
  readonly infos: KeyInfo[] = [];
  /** Every word of every key after the misspelling fold, with how many keys use it. */
  readonly uses = new Map<string, number>();
  /** First letter and length → known words of 4+ letters, each with its rank among its letter's words by use. */
  private readonly byLetterLength = new Map<string, { readonly word: string; readonly rank: number }[]>();
  private readonly nearest: Memo<string, string[]>;
  /** word → its folded form(s), memoised: the ~18k keys repeat a few thousand words. */
  private readonly folded: Memo<string, string>;
  private optionalCache: Set<string> | null = null;
  private variantsCache: Map<string, string> | null = null;
  private forbiddenCache: Map<string, Set<number>> | null = null;
  private droppedCache: Map<string, KeyInfo[]> | null = null;

  constructor(private readonly book: DishBook, readonly lex: LookupLexicons, readonly lw: LookupWords, memoEntries: number) {
    this.folded = new Memo(memoEntries);
    this.nearest = new Memo(memoEntries);
    // How many keys use each word (after the misspelling fold): known words, and which spelling is commoner.
    const split: string[][] = [];
    for (const key of book.byKey.keys()) {
      const words = key.split(' ');
      split.push(words);
      for (const w of words) {
        const folded = this.foldOne(w);
        this.uses.set(folded, (this.uses.get(folded) ?? 0) + 1);
      }
    }
    let k = 0;
    for (const [key, ids] of book.byKey) {
      const raw = split[k++]!;
      if (hasDevanagari(key)) continue;
      const words = this.foldWords(raw);
      const info: KeyInfo = { ids, words, bag: bagOf(words, lw.filler), guard: guardSignature(words, lex.guards) };
      this.infos.push(info);
      const list = this.byBag.get(info.bag);
      if (list) list.push(info);
      else this.byBag.set(info.bag, [info]);
    }
    // Equally near typo repairs are tried most-used word first ("masla" → masala before mala).
    const byUse = [...this.uses].filter(([w]) => isTypoCandidate(w, lw.spelling)).sort((a, b) => b[1] - a[1]);
    const ranks = new Map<string, number>();
    for (const [word] of byUse) {
      const rank = ranks.get(word[0]!) ?? 0;
      ranks.set(word[0]!, rank + 1);
      const bucket = `${word[0]}${word.length}`;
      const list = this.byLetterLength.get(bucket);
      if (list) list.push({ word, rank });
      else this.byLetterLength.set(bucket, [{ word, rank }]);
    }
  }

  knows(word: string): boolean {
    return this.uses.has(word);
  }

  /** Misspelling table (single-word fixes only; used for the vocabulary). */
  private foldOne(word: string): string {
    const fixed = this.lex.misspellings.get(word);
    return fixed !== undefined && !fixed.includes(' ') ? fixed : word;
  }

  /** Misspelling table, then plural → singular when the singular is a known word (momos → momo, patties → patty). */
  foldWords(words: readonly string[]): string[] {
    const out: string[] = [];
    for (const w of words) {
      if (!w) continue;
      const folded = this.folded.get(w, () => this.lex.misspellings.get(w) ?? this.singular(w));
      if (folded.includes(' ')) out.push(...folded.split(' '));
      else out.push(folded);
    }
    return out;
  }

  private singular(word: string): string {
    if (word.length < this.lw.spelling.pluralMinLetters || !word.endsWith('s') || word.endsWith('ss') || word.endsWith('us') || this.lw.notPlural.has(word)) return word;
    const candidates = word.endsWith('ies')
      ? [`${withoutEnding(word, 'ies')}y`, withoutEnding(word, 's')]
      : word.endsWith('es') ? [withoutEnding(word, 's'), withoutEnding(word, 'es')] : [withoutEnding(word, 's')];
    for (const c of candidates) if (this.uses.has(c)) return c;
    return word;
  }

  /** Known words within a small edit distance of an unknown one (lexicon/spelling.tsv's typo budget), nearest only. */
  nearestWords(word: string): string[] {
    if (typoBudget(this.lw.spelling, word.length) === 0) return [];
    return this.nearest.get(word, () => this.nearestUncached(word));
  }

  private nearestUncached(word: string): string[] {
    const max = typoBudget(this.lw.spelling, word.length);
    // Only words within `max` letters of its length can be within `max` edits; every word at the least distance is
    // kept, and ties go most-used first.
    let best: { readonly word: string; readonly rank: number }[] = [];
    let bestD = max + 1;
    for (let len = word.length - max; len <= word.length + max; len++) {
      for (const cand of this.byLetterLength.get(`${word[0]}${len}`) ?? []) {
        const d = editDistance(word, cand.word, Math.min(max, bestD));
        if (d < bestD) {
          best = [cand];
          bestD = d;
        } else if (d === bestD && d <= max) {
          best.push(cand);
        }
      }
    }
    return bestD <= max ? best.sort((a, b) => a.rank - b.rank).slice(0, 6).map((c) => c.word) : [];
  }

  /** "pavbhaji" → ["pav", "bhaji"] when both halves are known words (each a word part long) and the split is unique. */
  splitWord(word: string): string[] | null {
    return splitInTwo(word, (w) => this.uses.has(w), this.lw.spelling.wordPartMinLetters);
  }

  /**
   * Rare spellings of a commoner word, learned from our aliases: two keys in the same word positions that differ
   * only by a near-identical word ("Paneer Butter Masla" / "Paneer Butter Masala") and name the same dish make the
   * rarer word a variant, unless some other pair of keys differing by the same two words names different dishes
   * ("Aloo Tikki" / "Aloo Tikka" are two dishes, so tikki is never read as tikka).
   */
  get spellingVariants(): Map<string, string> {
    if (this.variantsCache) return this.variantsCache;
    // Candidate pairs come from keys of one dish (cheap: a dish has a handful of keys)…
    const byDish = new Map<number, KeyInfo[]>();
    for (const info of this.infos) {
      if (info.ids.length !== 1) continue;
      const list = byDish.get(info.ids[0]!);
      if (list) list.push(info);
      else byDish.set(info.ids[0]!, [info]);
    }
    const pairs = new Map<string, [string, string]>();
    for (const keys of byDish.values()) {
      for (let i = 0; i < keys.length; i++) {
        for (let j = i + 1; j < keys.length; j++) {
          const pair = differingWords(keys[i]!.words, keys[j]!.words, this.lw.spelling);
          if (pair) pairs.set(pair.join(' '), pair);
        }
      }
    }
    // …and a pair is dropped when swapping the rarer word for the commoner one in any key gives another dish.
    const variants = new Map<string, string>();
    for (const [a, b] of pairs.values()) {
      if (guardSignature([a], this.lex.guards) !== guardSignature([b], this.lex.guards)) continue;
      const [rare, common] = (this.uses.get(a) ?? 0) < (this.uses.get(b) ?? 0) ? [a, b] : [b, a];
      if (!variants.has(rare)) variants.set(rare, common);
    }
    for (const info of this.infos) {
      for (const word of info.words) {
        const common = variants.get(word);
        if (common === undefined) continue;
        const swapped = this.byBag.get(bagOf(info.words.map((w) => (w === word ? common : w)), this.lw.filler));
        if (swapped?.some((s) => !s.ids.some((id) => info.ids.includes(id)))) variants.delete(word);
      }
    }
    // Follow chains (omlet → omelet → omelette) to the commonest spelling.
    for (const [rare, common] of variants) {
      let target = common;
      for (let hops = 0; hops < 5 && variants.has(target); hops++) target = variants.get(target)!;
      if (target !== rare) variants.set(rare, target);
      else variants.delete(rare);
    }
    this.variantsCache = variants;
    return variants;
  }

  /**
   * A word is optional when the knowledge base lists some dish both with and without it (as name and alias:
   * "Kerala Parotta" / "Parotta") at least twice and never names two different dishes that differ only by it
   * ("Garlic Naan" / "Naan"). Protein and diet words, words that are a dish by themselves (roti, sharbat) and
   * rare spelling variants are never optional.
   */
  get optionalWords(): Set<string> {
    if (this.optionalCache) return this.optionalCache;
    const sameDish = new Map<string, number>();
    const otherDish = new Set<string>();
    for (const info of this.infos) {
      // The bag is the sorted content words: dropping one of them keeps it sorted.
      const content = info.bag.split(' ');
      if (content.length < 2) continue;
      for (let i = 0; i < content.length; i++) {
        const word = content[i]!;
        const shorter = this.byBag.get(content.filter((_, j) => j !== i).join(' '));
        if (!shorter) continue;
        for (const s of shorter) {
          if (s.ids.some((id) => info.ids.includes(id))) sameDish.set(word, (sameDish.get(word) ?? 0) + 1);
          else otherDish.add(word);
        }
      }
    }
    const variants = this.spellingVariants;
    const optional = new Set<string>();
    for (const [word, n] of sameDish) {
      if (n < 2 || otherDish.has(word) || word.length < 2 || this.book.byKey.has(word) || variants.has(word)) continue;
      if (guardSignature([word], this.lex.guards) === '') optional.add(word);
    }
    this.optionalCache = optional;
    return optional;
  }

  /** Bag of a key with one of its optional words dropped → those keys (for names that lack the optional word). */
  get withOneOptionalDropped(): Map<string, KeyInfo[]> {
    if (this.droppedCache) return this.droppedCache;
    const optional = this.optionalWords;
    const map = new Map<string, KeyInfo[]>();
    for (const info of this.infos) {
      const content = info.bag.split(' ');
      if (content.length < 2) continue;
      for (let i = 0; i < content.length; i++) {
        if (!optional.has(content[i]!)) continue;
        const bag = content.filter((_, j) => j !== i).join(' ');
        const list = map.get(bag);
        if (list) list.push(info);
        else map.set(bag, [info]);
      }
    }
    this.droppedCache = map;
    return map;
  }

  /** Bag → dish ids that must never be its fuzzy match (both directions of every hard negative). */
  get forbidden(): Map<string, Set<number>> {
    if (this.forbiddenCache) return this.forbiddenCache;
    const forbidden = new Map<string, Set<number>>();
    const forbid = (bag: string, ids: readonly number[]): void => {
      if (ids.length === 0) return;
      const set = forbidden.get(bag) ?? new Set<number>();
      for (const id of ids) set.add(id);
      forbidden.set(bag, set);
    };
    for (const [a, b] of this.lex.hardNegatives) {
      forbid(bagOf(this.foldWords(a.split(' ')), this.lw.filler), this.idsOf(b));
      forbid(bagOf(this.foldWords(b.split(' ')), this.lw.filler), this.idsOf(a));
    }
    this.forbiddenCache = forbidden;
    return forbidden;
  }

  /** Dishes a name denotes exactly, or by its word bag. */
  private idsOf(key: string): readonly number[] {
    const exact = this.book.byKey.get(key);
    if (exact) return exact;
    const infos = this.byBag.get(bagOf(this.foldWords(key.split(' ')), this.lw.filler));
    return infos ? [...new Set(infos.flatMap((i) => i.ids))] : [];
  }
}

class Lookup implements DishLookup {
  private readonly dishes: readonly Dish[];
  private readonly byKey: ReadonlyMap<string, readonly number[]>;
  private readonly memo: Memo<string, DishMatch | null>;
  private tokenIndex: Map<string, number[]> | null = null;
  private readonly tokenCues = new Map<string, TokenCue>();
  private fuzzyIndex: FuzzyIndex | null = null;
  private devanagariCache: Map<string, string> | null = null;

  constructor(
    private readonly book: DishBook,
    private readonly lexicons: LookupLexicons | (() => LookupLexicons),
    private readonly lw: LookupWords,
    private readonly memoEntries: number,
  ) {
    this.dishes = book.dishes;
    this.byKey = book.byKey;
    this.memo = new Memo(memoEntries);
  }

  get dishesByToken(): ReadonlyMap<string, readonly number[]> {
    if (this.tokenIndex) return this.tokenIndex;
    const index = new Map<string, number[]>();
    for (const dish of this.dishes) {
      const words = new Set<string>();
      for (const key of dish.keys) for (const w of key.split(' ')) if (w) words.add(w);
      for (const w of words) {
        const list = index.get(w);
        if (list) list.push(dish.id);
        else index.set(w, [dish.id]);
      }
    }
    this.tokenIndex = index;
    return index;
  }

  tokenCue(word: string): TokenCue | undefined {
    const cached = this.tokenCues.get(word);
    if (cached) return cached;
    const ids = this.dishesByToken.get(word);
    if (!ids) return undefined;
    const cue = tokenCue(ids, this.dishes);
    this.tokenCues.set(word, cue);
    return cue;
  }

  get optionalWords(): ReadonlySet<string> {
    return this.index().optionalWords;
  }

  get spellingVariants(): ReadonlyMap<string, string> {
    return this.index().spellingVariants;
  }

  get devanagari(): ReadonlyMap<string, string> {
    this.devanagariCache ??= buildDevanagariDictionary(this.dishes, this.lw.devanagariFunctionWords);
    return this.devanagariCache;
  }

  private devanagariTables(): { functionWords: ReadonlyMap<string, string>; dictionary: ReadonlyMap<string, string> } {
    return { functionWords: this.lw.devanagariFunctionWords, dictionary: this.devanagari };
  }

  prepare(): void {
    const index = this.index();
    void index.withOneOptionalDropped; // also learns optional words and spelling variants
    void index.forbidden;
    void this.dishesByToken;
    void this.devanagari;
  }

  resolveDish(text: string): DishMatch | null {
    const key = nameKey(text);
    if (!key) return null;
    // Part separators mark a combo: its parts are read by resolveCombo, never guessed at from the whole.
    const combo = this.lw.comboSeparator.test(text);
    const memoKey = combo ? `+${key}` : key;
    return this.memo.get(memoKey, () => this.resolveKey(key, combo));
  }

  resolveCombo(text: string): ComboMatch | null {
    const whole = this.resolveDish(text);
    if (whole) return { parts: [whole], names: [text], main: whole, complete: true };
    const names = splitCombo(text, this.lw);
    if (names.length === 0) return null;
    const parts = names.map((n) => this.resolveDish(n));
    const resolved = parts.filter((p) => p !== null).length;
    const main = parts[0] ?? null;
    return { parts, names, main, complete: resolved === parts.length };
  }

  dishCandidates(text: string): readonly Dish[] {
    const key = nameKey(text);
    let ids = this.byKey.get(key);
    if (!ids && hasDevanagari(key)) ids = this.byKey.get(nameKey(transliterateDevanagari(key, this.devanagariTables())));
    return (ids ?? []).map((id) => this.dishes[id]!);
  }

  private index(): FuzzyIndex {
    if (!this.fuzzyIndex) {
      const lex = typeof this.lexicons === 'function' ? this.lexicons() : this.lexicons;
      this.fuzzyIndex = new FuzzyIndex(this.book, lex, this.lw, this.memoEntries);
    }
    return this.fuzzyIndex;
  }

  private resolveKey(key: string, combo = false): DishMatch | null {
    const exact = this.byKey.get(key);
    if (exact) return exact.length === 1 ? { dish: this.dishes[exact[0]!]!, how: 'exact', score: 1 } : null;
    if (hasDevanagari(key)) {
      const latin = nameKey(transliterateDevanagari(key, this.devanagariTables()));
      if (!latin || hasDevanagari(latin)) return null;
      // A transliteration that lands on a dish name is as good as an exact hit: the dictionary is our own data.
      const viaLatin = this.byKey.get(latin);
      if (viaLatin) return viaLatin.length === 1 ? { dish: this.dishes[viaLatin[0]!]!, how: 'exact', score: 1 } : null;
      return this.fuzzy(latin, combo);
    }
    return this.twoNamesOfOneDish(key) ?? this.fuzzy(key, combo);
  }

  /**
   * "Milk Burfi ( Dudh Burfi )", "Seviyan (Idiyappam)": a menu that gives a dish's name and then another of its names
   * (cleaning drops the brackets) names that dish exactly, when both halves are names of the same one dish.
   */
  private twoNamesOfOneDish(key: string): DishMatch | null {
    const words = key.split(' ');
    for (let cut = 1; cut < words.length; cut++) {
      const left = this.byKey.get(words.slice(0, cut).join(' '));
      const right = left?.length === 1 ? this.byKey.get(words.slice(cut).join(' ')) : undefined;
      if (right?.length === 1 && right[0] === left![0]) return { dish: this.dishes[left![0]!]!, how: 'exact', score: 1 };
    }
    return null;
  }

  private fuzzy(key: string, combo: boolean): DishMatch | null {
    const index = this.index();
    const words = stripModifiers(index.foldWords(key.split(' ')), this.lw);
    const content = words.filter((w) => !this.lw.filler.has(w));
    if (content.length === 0) return null;
    const forbidden = index.forbidden.get(bagOf(words, this.lw.filler));

    // Step 2: the same words in any order, fillers, plurals and listed misspellings folded.
    const same = this.matchBag(words, guardSignature(words, index.lex.guards), forbidden);
    if (same === 'ambiguous') return null;
    if (same !== null) return { dish: this.dishes[same]!, how: 'fuzzy', score: SCORE_REORDERED };

    // Step 3: repair words (typos, glued words, spelling variants), then compare bags again. The signature is
    // taken after repair on both sides: "mutten" → mutton is the same word misspelled, not a new protein.
    const repaired = this.repair(content, index);
    if (repaired === null) return this.embedded(content, forbidden, combo);
    const { variants, cost, dropped } = repaired;
    const found = new Set<number>();
    for (const variant of variants) {
      const m = this.matchBag(variant, guardSignature(variant, index.lex.guards), forbidden);
      if (m === 'ambiguous') return null;
      if (m !== null) found.add(m);
    }
    if (found.size === 1) return this.fuzzyMatch(found, SCORE_REORDERED - cost);
    if (found.size > 1) return null;

    // Step 3b: one optional word missing or extra (not on top of a dropped unknown word: one liberty per name).
    if (dropped > 0) return this.embedded(content, forbidden, combo);
    const optional = index.optionalWords;
    const loose = new Set<number>();
    for (const variant of variants) {
      const guard = guardSignature(variant, index.lex.guards);
      const tryBag = (candidate: readonly string[]): boolean => {
        const m = this.matchBag(candidate, guard, forbidden);
        if (m === 'ambiguous') return false;
        if (m !== null) loose.add(m);
        return true;
      };
      for (let i = 0; i < variant.length; i++) {
        if (variant.length > 1 && optional.has(variant[i]!) && !tryBag([...variant.slice(0, i), ...variant.slice(i + 1)])) return null;
      }
      // The key may carry one optional word the name lacks: look its bag up among keys with that word dropped. Not for
      // a one-word name: one word names a family ("soup", "pizza", "dal"), never the one dish that adds a word to it.
      for (const info of variant.length < 2 ? [] : index.withOneOptionalDropped.get(bagOf(variant, this.lw.filler)) ?? []) {
        if (info.guard !== guard) continue;
        if (info.ids.length > 1) return null;
        if (!forbidden?.has(info.ids[0]!)) loose.add(info.ids[0]!);
      }
    }
    if (loose.size === 1) return this.fuzzyMatch(loose, SCORE_REORDERED - cost - OPTIONAL_WORD_PENALTY);
    return loose.size === 0 ? this.embedded(content, forbidden, combo) : null;
  }

  /**
   * Step 4: a known dish name as the last words (at least two) of a longer name, the words before it being a
   * restaurant's own ("Taj-e-Khumb Biryani Mushroom Biryani" → Mushroom Biryani, "Oregano Soya Chaap Roll" → Soya
   * Chaap Roll). Only the end of a name: menus put the dish's form last, so "Chicken Tikka Sourdough Pizza" is
   * never Chicken Tikka. The part must carry exactly the protein and diet words of the whole name; never used for
   * combos ("+", ","), which resolveCombo reads part by part. The lowest fuzzy score: "a variant of this dish".
   */
  private embedded(content: readonly string[], forbidden: ReadonlySet<number> | undefined, combo: boolean): DishMatch | null {
    if (combo || content.length < 3) return null;
    const index = this.index();
    const guard = guardSignature(content, index.lex.guards);
    for (let len = content.length - 1; len >= 2; len--) {
      const m = this.matchBag(content.slice(content.length - len), guard, forbidden);
      if (m === 'ambiguous') return null;
      if (m !== null) return this.fuzzyMatch(new Set([m]), EMBEDDED_SCORE);
    }
    return null;
  }

  private fuzzyMatch(ids: ReadonlySet<number>, score: number): DishMatch {
    return { dish: this.dishes[[...ids][0]!]!, how: 'fuzzy', score: Math.max(FUZZY_FLOOR, roundHundredths(score)) };
  }

  /** The one dish whose bag equals the words' bag with the same guard signature; 'ambiguous' when several. */
  private matchBag(words: readonly string[], guard: string, forbidden: ReadonlySet<number> | undefined): number | 'ambiguous' | null {
    const infos = this.index().byBag.get(bagOf(words, this.lw.filler));
    if (!infos) return null;
    const ids = new Set<number>();
    for (const info of infos) {
      if (info.guard !== guard) continue;
      // A key shared by several dishes (an ambiguous alias) keeps its ambiguity here too.
      if (info.ids.length > 1) return 'ambiguous';
      if (!forbidden?.has(info.ids[0]!)) ids.add(info.ids[0]!);
    }
    if (ids.size === 0) return null;
    return ids.size === 1 ? [...ids][0]! : 'ambiguous';
  }

  /**
   * Word lists with words repaired: an unknown word becomes the known word(s) nearest to it (equally near ones are
   * all tried) or, when it is two known words glued together, those two words; a known rare spelling is also tried
   * in its common form. Returns null when an unknown word cannot be repaired.
   */
  private repair(words: readonly string[], index: FuzzyIndex): { variants: string[][]; cost: number; dropped: number } | null {
    let variants: string[][] = [[]];
    let cost = 0;
    let dropped = 0;
    const spellingVariants = index.spellingVariants;
    for (const [position, word] of words.entries()) {
      let options: string[][];
      if (index.knows(word) || !/^[a-z]+$/.test(word)) {
        const common = spellingVariants.get(word);
        options = common ? [[word], [common]] : [[word]];
        if (common) cost += TYPO_PENALTY;
      } else {
        const near = index.nearestWords(word);
        const split = near.length > 0 ? null : index.splitWord(word);
        if (near.length > 0) {
          options = near.map((w) => [w]);
          cost += TYPO_PENALTY;
        } else if (split) {
          options = [split];
          cost += SPLIT_PENALTY;
        } else if (dropped === 0 && words.length >= 3 && position < words.length - 1) {
          // One word the knowledge base has never seen (a chain's marketing word: "Zinger Pro Burger") may be left
          // out when at least two known words remain; never the last word, which names the dish's form on menus
          // ("Corn Cheese Moburg" is not a corn and cheese pizza). It costs the most.
          options = [[]];
          dropped++;
          cost += UNKNOWN_WORD_PENALTY;
        } else {
          return null;
        }
      }
      const next: string[][] = [];
      for (const v of variants) for (const o of options) if (next.length < MAX_VARIANTS) next.push([...v, ...o]);
      variants = next;
    }
    return { variants, cost, dropped };
  }
}

/**
 * The parts of a combo name: "Veg Whopper + Fries" → [Veg Whopper, Fries]; "Zinger Burger Meal" → [Zinger Burger];
 * "Samosa With Chole And Chutney" → [Samosa, Chole, Chutney]. An empty list when the text has no parts to split.
 */
export function splitCombo(text: string, lw: LookupWords): string[] {
  const parts = text
    .split(lw.comboSplit)
    .map((p) => {
      const words = p.trim().split(/\s+/).filter(Boolean);
      while (words.length > 1 && lw.comboTail.has(words[words.length - 1]!.toLowerCase())) words.pop();
      return words.join(' ');
    })
    .filter((p) => p !== '' && !lw.comboTail.has(p.toLowerCase()));
  if (parts.length === 0) return [];
  if (parts.length === 1 && nameKey(parts[0]!) === nameKey(text)) return [];
  return parts;
}

/**
 * Builds the lookups over a loaded dish book (see the module comment for how names resolve). `lexicons` may be a
 * function: it is then called only when fuzzy matching is first needed.
 */
export function buildDishLookup(book: DishBook, lexicons: LookupLexicons | (() => LookupLexicons), words: LookupWords, memoEntries: number = DEFAULT_MEMO_ENTRIES): DishLookup {
  return new Lookup(book, lexicons, words, memoEntries);
}
