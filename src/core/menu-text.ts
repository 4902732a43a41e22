import type { Knowledge } from './knowledge/index.js';
import { nameKey, type Dish, type Tag } from './knowledge/dishes.js';
import type { ComboMatch, DishMatch } from './knowledge/lookup.js';
import { dietMarkers, flavourReadingOf, menuTextCues, type FlavourReading, tokenizeMenuText, type CueToken, type DietMarkers, type MenuTextCues } from './knowledge/cues.js';
import { toEnglishFoodWords } from './knowledge/translate.js';
import type { Correction, RemovedNoise } from './text/clean.js';
import { dishWordsOfKey } from './dish-words.js';
import { readProfile, type ItemProfile } from './items.js';
import { isCombo } from './variants.js';
import { orderCountOf, servingOf, type Serving } from './servings.js';

/**
 * One menu text, read once (the way spaCy reads a text into a Doc): what cleaning made of it, and everything the stages
 * read off the cleaned text — its words, their singulars, its name key, its English rendering, its cues (diet, protein,
 * course, cuisine, flavour tags, diet markers, serving, order count), what the knowledge base resolves it to (dish, how,
 * score; combo parts) and the item profile built from all that. Search, match, dedup, classify, report, suggest and the
 * non-food detector read these fields instead of tokenising the text again.
 *
 * A field is computed on first read and kept: each is computed once per text, and the knowledge's bounded memo keeps a
 * text's reading across requests (a menu is searched many times). Texts whose cleaned forms are equal share the
 * reading of that form. A stage may attach what only it needs with `annotation()` (the match stage's rendering of a
 * text, search's word set), computed once per text like the fields here.
 *
 * Made by `parseMenuText` (a text as submitted: it is cleaned) or `parseCleanedText` (a text that is already a cleaned
 * name, or is derived from one: a query's singular, a pairing target, a word).
 */
export class MenuText {
  /** The text as submitted (for parseCleanedText, the cleaned text itself). */
  readonly original: string;
  /** The dish name as the service reads it (spelling variants folded): what the models and the knowledge base see. */
  readonly text: string;
  /** The dish name as a menu would print it without noise (spellings menus write on purpose kept): what is shown. */
  readonly name: string;
  /** Noise that cleaning stripped (prices, sizes, promo labels, emojis, decoration), in order of removal. */
  readonly removed: readonly RemovedNoise[];
  /** Misspellings and abbreviations cleaning folded, and Devanagari words it transliterated. */
  readonly corrections: readonly Correction[];
  readonly knowledge: Knowledge;
  /** The reading of `text`, shared by every MenuText whose cleaned text it is. */
  private readonly reading: NameReading;
  private servingValue: Serving | null | undefined;
  private statedServingValue: Serving | null | undefined;
  private orderCountValue: number | null | undefined;
  private originalTagsValue: ReadonlySet<Tag> | undefined;

  /** Use parseMenuText / parseCleanedText. */
  constructor(knowledge: Knowledge, original: string, cleaned: { text: string; name: string; removed: readonly RemovedNoise[]; corrections: readonly Correction[] }, reading: NameReading) {
    this.knowledge = knowledge;
    this.original = original;
    this.text = cleaned.text;
    this.name = cleaned.name;
    this.removed = cleaned.removed;
    this.corrections = cleaned.corrections;
    this.reading = reading;
  }

  /** nameKey of the cleaned text: lower-case, accent-folded, punctuation-free words. */
  get key(): string {
    return this.reading.key;
  }

  /** The cue tokenizer's words of the cleaned text, with their parts (knowledge/cues.ts). */
  get tokens(): readonly CueToken[] {
    return this.reading.tokens;
  }

  /** The cleaned text's words, lower case, split at everything but letters and digits. */
  get words(): readonly string[] {
    return this.reading.words;
  }

  /** `words` with their plurals folded as the word guards fold them. */
  get singulars(): readonly string[] {
    return this.reading.singulars;
  }

  /** The cleaned text with other-language and Hinglish food words in English (what is embedded for match and search). */
  get english(): string {
    return this.reading.english;
  }

  /** `english`'s words, lower case, split as `words` are: what a query's needs and content words are read from. */
  get englishWords(): readonly string[] {
    return this.reading.englishWords;
  }

  /** Diet, protein, course and cuisine cues of the cleaned text. */
  get cues(): MenuTextCues {
    return this.reading.cues;
  }

  /** The tags the cleaned text's own words give it (lexicon/flavours.tsv), those it turns round aside. */
  get flavourTags(): ReadonlySet<Tag> {
    return this.reading.flavour.tags;
  }

  /** The tags the cleaned text says it is not ("(Non Spicy)"): neither its words nor its dish give it these. */
  get negatedFlavourTags(): ReadonlySet<Tag> {
    return this.reading.flavour.negated;
  }

  /** Egg-free and veg / non-veg markers of the cleaned text. */
  get markers(): DietMarkers {
    return this.reading.markers;
  }

  /** The knowledge base's dish for the cleaned text, exact or fuzzy, or null. */
  get dish(): DishMatch | null {
    return this.reading.dish;
  }

  /** The cleaned text read as a combo of dishes (null when it does not split). */
  get combo(): ComboMatch | null {
    return this.reading.combo;
  }

  /** Every dish the cleaned text exactly names (several for an ambiguous name). */
  get candidates(): readonly Dish[] {
    return this.reading.candidates;
  }

  /** The one dish the cleaned text exactly names, or null. */
  get exactDishId(): number | null {
    return this.reading.exactDishId;
  }

  /** What the knowledge base knows about the item (items.ts): dish, diet, protein, course, cuisine, markers. */
  get profile(): ItemProfile {
    return this.reading.profile;
  }

  /** The content words the word guards compare (dish-words.ts). */
  get dishWords(): readonly string[] {
    return this.reading.dishWords;
  }

  /** The cleaned text joins items with "+" or calls itself a combo or meal (lexicon/combo_words.tsv). */
  get isCombo(): boolean {
    return this.reading.isCombo;
  }

  /** Some word of the cleaned text is in the cleaning vocabulary or is a listed misspelling. */
  get knownWord(): boolean {
    return this.reading.knownWord;
  }

  /** How many people the text says it is for, as a menu item (a leading order count, a pack or a platter count). */
  get serving(): Serving | null {
    if (this.servingValue === undefined) this.servingValue = servingOf(this.knowledge.servings, this.original, { item: true });
    return this.servingValue;
  }

  /** How many people the words say, as a query says it (a leading number is no head count: "2 samosa"). */
  get statedServing(): Serving | null {
    if (this.statedServingValue === undefined) this.statedServingValue = servingOf(this.knowledge.servings, this.original);
    return this.statedServingValue;
  }

  /** The count an item's name leads with when it is an order of several portions ("6 Crispy Veg"), else null. */
  get orderCount(): number | null {
    if (this.orderCountValue === undefined) this.orderCountValue = orderCountOf(this.knowledge.servings, this.original);
    return this.orderCountValue;
  }

  /** The tags the text as submitted gives it, labels cleaning strips included ("(Protein-42g)", "(Vegan)"). */
  get originalFlavourTags(): ReadonlySet<Tag> {
    if (this.originalTagsValue === undefined) {
      this.originalTagsValue = this.original === this.text ? this.flavourTags : parseCleanedText(this.knowledge, this.original).flavourTags;
    }
    return this.originalTagsValue;
  }

  /** A stage's own reading of the cleaned text, computed once (by `compute`, given this text) and kept with it. */
  annotation<T>(key: AnnotationKey<T>, compute: (text: MenuText) => T): T {
    return this.reading.annotation(key, () => compute(this));
  }
}

/** Names a stage's annotation (`MenuText.annotation`); its type says what the annotation holds. */
export interface AnnotationKey<T> {
  readonly name: string;
  /** Carries the annotation's type; never set. */
  readonly type?: T;
}

export function annotationKey<T>(name: string): AnnotationKey<T> {
  return Object.freeze({ name });
}

/** Everything read off one cleaned text, each field on first use. */
class NameReading {
  private tokensValue: readonly CueToken[] | undefined;
  private keyValue: string | undefined;
  private wordsValue: readonly string[] | undefined;
  private singularsValue: readonly string[] | undefined;
  private englishValue: string | undefined;
  private cuesValue: MenuTextCues | undefined;
  private flavourValue: FlavourReading | undefined;
  private markersValue: DietMarkers | undefined;
  private dishValue: DishMatch | null | undefined;
  private comboValue: ComboMatch | null | undefined;
  private candidatesValue: readonly Dish[] | undefined;
  private profileValue: ItemProfile | undefined;
  private dishWordsValue: readonly string[] | undefined;
  private englishWordsValue: readonly string[] | undefined;
  private comboFlag: boolean | undefined;
  private knownWordValue: boolean | undefined;
  private annotations: Map<string, unknown> | undefined;

  constructor(private readonly k: Knowledge, readonly text: string) {}

  get key(): string {
    return (this.keyValue ??= nameKey(this.text));
  }

  get tokens(): readonly CueToken[] {
    return (this.tokensValue ??= tokenizeMenuText(this.text, this.k.cues.boundaries));
  }

  get words(): readonly string[] {
    return (this.wordsValue ??= this.text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean));
  }

  get singulars(): readonly string[] {
    return (this.singularsValue ??= this.words.map(this.k.singular));
  }

  get english(): string {
    return (this.englishValue ??= toEnglishFoodWords(this.k.translations, this.text));
  }

  get englishWords(): readonly string[] {
    return (this.englishWordsValue ??= this.english.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean));
  }

  get cues(): MenuTextCues {
    return (this.cuesValue ??= menuTextCues(this.k.cues, this.text));
  }

  get flavour(): FlavourReading {
    return (this.flavourValue ??= flavourReadingOf(this.k.cues, this.text, this.k.words.queryNegators));
  }

  get markers(): DietMarkers {
    return (this.markersValue ??= dietMarkers(this.k.cues, this.text));
  }

  get dish(): DishMatch | null {
    if (this.dishValue === undefined) this.dishValue = this.k.resolveDish(this.text);
    return this.dishValue;
  }

  get combo(): ComboMatch | null {
    if (this.comboValue === undefined) this.comboValue = this.k.lookup.resolveCombo(this.text);
    return this.comboValue;
  }

  get candidates(): readonly Dish[] {
    return (this.candidatesValue ??= this.k.lookup.dishCandidates(this.text));
  }

  get exactDishId(): number | null {
    return this.candidates.length === 1 ? this.candidates[0]!.id : null;
  }

  get profile(): ItemProfile {
    return (this.profileValue ??= readProfile(this.k, this));
  }

  get dishWords(): readonly string[] {
    return (this.dishWordsValue ??= dishWordsOfKey(this.k, this.key));
  }

  get isCombo(): boolean {
    return (this.comboFlag ??= isCombo(this.k, this.text));
  }

  get knownWord(): boolean {
    return (this.knownWordValue ??= this.k.cleaner.hasKnownWord(this.text));
  }

  annotation<T>(key: AnnotationKey<T>, compute: () => T): T {
    this.annotations ??= new Map();
    if (this.annotations.has(key.name)) return this.annotations.get(key.name) as T;
    const value = compute();
    this.annotations.set(key.name, value);
    return value;
  }
}

/** The reading of a cleaned text, kept in the knowledge's memo so that every text reads it once. */
function readingOf(k: Knowledge, cleaned: string): NameReading {
  return k.memo('reading', cleaned, () => new NameReading(k, cleaned));
}

/** A menu text as submitted: cleaned by the knowledge's cleaner, then read. */
export function parseMenuText(k: Knowledge, original: string): MenuText {
  return k.memo('menu-text', original, () => {
    const cleaned = k.cleaner.clean(original);
    return new MenuText(k, original, cleaned, readingOf(k, cleaned.text));
  });
}

/** Whether `original` was read recently (parseMenuText would answer from the memo): reading it again costs nothing,
 * and its vector is most likely still in the embedding cache. */
export function wasRead(k: Knowledge, original: string): boolean {
  return k.memoHolds('menu-text', original);
}

/** A text that is already a cleaned name, or is made from one (a query's singular, a pairing target, a word). */
export function parseCleanedText(k: Knowledge, cleaned: string): MenuText {
  return k.memo('cleaned-text', cleaned, () => new MenuText(k, cleaned, { text: cleaned, name: cleaned, removed: [], corrections: [] }, readingOf(k, cleaned)));
}
