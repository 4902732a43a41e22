import { existsSync } from 'node:fs';
import { readFittedFile } from './fitted-file.js';
import { join, relative } from 'node:path';
import { MODELS_DIR, REPO_ROOT } from './paths.js';
import type { Knowledge } from './knowledge/index.js';
import type { MenuText } from './menu-text.js';
import { CUISINE_LABELS, type Cuisine } from './knowledge/dishes.js';
import { cuisineCue } from './knowledge/cues.js';
import { CONFIDENT_DISH_SCORE } from './knowledge/lookup.js';
import type { Services } from './services.js';
import { roundScore } from './number-format.js';
import { cuisineConfidenceOf, type CuisineSourceConfidence } from './profile-confidence.js';
import type { EncoderHeads } from './heads.js';

/**
 * Cuisine classification: one of the 19 labels, or `uncertain`.
 *
 * Three sources, strongest first:
 *  1. The knowledge base names the dish: an exact name or alias (or an ambiguous name whose candidate dishes all share
 *     one cuisine) answers with the dish's cuisine, and a confident fuzzy resolution (score ≥ CONFIDENT_DISH_SCORE) too.
 *     The knowledge base's conventions (Indo-Chinese → Chinese, drinks → Beverages, cakes → Bakery) live in those rows.
 *  2. Otherwise the cuisine head (models/heads/cuisine-head.json): a multinomial logistic regression over the
 *     384-d embedding of the cleaned text plus the lexicon's cuisine cue (one-hot, strong and weak), trained by
 *     models/classifier/train from every dish name and alias of the knowledge base. Its probabilities are
 *     temperature-scaled on held-out dishes; an item whose top probability is below the head's `threshold` (chosen on
 *     held-out dishes for ≥ 0.90 accuracy on answered items) is `uncertain`.
 *  3. Without a usable head (file missing, or trained on another encoder), strong lexicon cues alone answer and the
 *     rest is `uncertain`; classifierStatus() is then null and a warning is logged once.
 */

export type CuisineOrUncertain = Cuisine | 'uncertain';

export interface CuisinePrediction {
  readonly cuisine: CuisineOrUncertain;
  readonly confidence: number;
  /** Which source answered (for evals and debugging; not part of the API response). */
  readonly source: 'dish' | 'fuzzy_dish' | 'head' | 'cue' | 'none';
}

// ---------------------------------------------------------------------------------------------------------------
// Linear heads (also used by the non-food detector)

/**
 * A softmax-regression head over [embedding, extra features], as written by models/classifier/train.py.
 * `weights` is row-major [labels × inputs]; logits are divided by `temperature` before the softmax.
 */
export interface LinearHead {
  readonly name: string;
  /** Biencoder id whose vectors the head was trained on; vectors of any other encoder are meaningless to it. */
  readonly encoder: string;
  readonly labels: readonly string[];
  readonly embeddingDim: number;
  readonly extraFeatures: readonly string[];
  readonly weights: Float32Array;
  readonly bias: Float32Array;
  readonly temperature: number;
  readonly threshold: number;
  readonly metrics: Readonly<Record<string, unknown>>;
}

export const HEAD_FORMAT = 'menu-intelligence/linear-head@1';
/**
 * Where the fitted heads live: committed beside the encoder delta they were fitted to (models/classifier/train writes
 * them; `npm run train -- heads --record` after a new encoder delta).
 */
export const CLASSIFIER_DIR = join(MODELS_DIR, 'heads');

interface HeadFile {
  format: string;
  name: string;
  encoder: string;
  labels: string[];
  embedding_dim: number;
  extra_features: string[];
  weights: number[][];
  bias: number[];
  temperature: number;
  threshold: number;
  metrics?: Record<string, unknown>;
}

/** Reads and shape-checks a head file; throws with the file name on anything malformed. */
export function readLinearHead(path: string): LinearHead {
  const { raw, where } = readFittedFile<HeadFile>(path, HEAD_FORMAT);
  const inputs = raw.embedding_dim + raw.extra_features.length;
  if (raw.weights.length !== raw.labels.length || raw.bias.length !== raw.labels.length) {
    throw new Error(`${where}: ${raw.labels.length} labels but ${raw.weights.length} weight rows and ${raw.bias.length} biases`);
  }
  const weights = new Float32Array(raw.labels.length * inputs);
  raw.weights.forEach((row, r) => {
    if (row.length !== inputs) throw new Error(`${where}: weight row ${r} has ${row.length} entries, expected ${inputs}`);
    weights.set(row, r * inputs);
  });
  if (!(raw.temperature > 0) || !(raw.threshold >= 0 && raw.threshold <= 1)) {
    throw new Error(`${where}: temperature must be > 0 and threshold in [0, 1]`);
  }
  return {
    name: raw.name,
    encoder: raw.encoder,
    labels: raw.labels,
    embeddingDim: raw.embedding_dim,
    extraFeatures: raw.extra_features,
    weights,
    bias: Float32Array.from(raw.bias),
    temperature: raw.temperature,
    threshold: raw.threshold,
    metrics: raw.metrics ?? {},
  };
}

/** Calibrated class probabilities for one input: softmax((W·[v, extra] + b) / T). */
export function headProbabilities(head: LinearHead, vector: Float32Array, extra: ArrayLike<number>): Float64Array {
  const inputs = head.embeddingDim + head.extraFeatures.length;
  const n = head.labels.length;
  const logits = new Float64Array(n);
  let max = -Infinity;
  for (let r = 0; r < n; r++) {
    const base = r * inputs;
    let s = head.bias[r]!;
    for (let k = 0; k < head.embeddingDim; k++) s += head.weights[base + k]! * vector[k]!;
    for (let k = 0; k < extra.length; k++) {
      const x = extra[k]!;
      if (x !== 0) s += head.weights[base + head.embeddingDim + k]! * x;
    }
    s /= head.temperature;
    logits[r] = s;
    if (s > max) max = s;
  }
  let sum = 0;
  for (let r = 0; r < n; r++) {
    logits[r] = Math.exp(logits[r]! - max);
    sum += logits[r]!;
  }
  for (let r = 0; r < n; r++) logits[r]! /= sum;
  return logits;
}

/** A head file, loaded once and checked against the served encoder. */
export class HeadSlot {
  private head: LinearHead | null | undefined;
  private loadProblem: string | null = null;
  private warnedFor: string | null = null;

  /** The file's path from the checkout's root, for messages. */
  private readonly shownPath: string;

  /** `validate` throws the reason a head does not fit this code ("labels differ from …"); messages get the path. */
  constructor(
    readonly dir: string,
    readonly file: string,
    private readonly validate: (head: LinearHead) => void = () => {},
  ) {
    this.shownPath = relative(REPO_ROOT, join(dir, file));
  }

  /** The head, or null (with the reason in `problem`) when the file is missing or malformed. */
  loaded(): LinearHead | null {
    if (this.head !== undefined) return this.head;
    const path = join(this.dir, this.file);
    if (!existsSync(path)) {
      this.loadProblem = `${this.shownPath} is missing; run node scripts/setup.mjs (or models/classifier/train)`;
      this.head = null;
      return null;
    }
    try {
      const head = readLinearHead(path);
      try {
        this.validate(head);
      } catch (err) {
        throw new Error(`${this.shownPath}: ${(err as Error).message}`);
      }
      this.head = head;
    } catch (err) {
      this.loadProblem = (err as Error).message;
      this.head = null;
    }
    return this.head;
  }

  /** The head if it was trained on `encoderId`'s vectors; otherwise null, with one warning per encoder id. */
  forEncoder(encoderId: string | null): LinearHead | null {
    const head = this.loaded();
    const problem = head === null ? this.loadProblem : encoderId !== null && head.encoder !== encoderId
      ? `${this.shownPath} was trained on encoder "${head.encoder}" but "${encoderId}" is served; retrain with models/classifier/train`
      : null;
    if (problem) {
      if (this.warnedFor !== (encoderId ?? '')) {
        this.warnedFor = encoderId ?? '';
        console.warn(`warning: ${problem}`);
      }
      return null;
    }
    return head;
  }

  problem(encoderId: string | null): string | null {
    const head = this.loaded();
    if (!head) return this.loadProblem;
    if (encoderId !== null && head.encoder !== encoderId) return `trained on ${head.encoder}, serving ${encoderId}`;
    return null;
  }

  /** Forget the loaded file (tests swap files). */
  reset(): void {
    this.head = undefined;
    this.loadProblem = null;
    this.warnedFor = null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The cuisine head's inputs

/** Names of the extra inputs after the embedding, in order: the lexicon cue as two one-hot blocks. */
export const CUISINE_EXTRA_FEATURES: readonly string[] = [
  ...CUISINE_LABELS.map((c) => `cue_strong:${c}`),
  ...CUISINE_LABELS.map((c) => `cue_weak:${c}`),
];

/** The cuisine head's extra inputs for one cleaned text (models/classifier/export-features.mjs calls this too). */
export function cuisineExtraFeatures(k: Knowledge, cleanedText: string, cue: ReturnType<typeof cuisineCue> = cuisineCue(k.cues, cleanedText)): Float32Array {
  const extra = new Float32Array(CUISINE_EXTRA_FEATURES.length);
  if (cue.value !== null) {
    const idx = CUISINE_LABELS.indexOf(cue.value);
    extra[cue.strong ? idx : CUISINE_LABELS.length + idx] = 1;
  }
  return extra;
}

/** Throws why a cuisine head does not fit this code (its labels or its extra inputs differ). */
export function checkCuisineHead(head: LinearHead): void {
  if (head.labels.join('|') !== CUISINE_LABELS.join('|')) {
    throw new Error('labels differ from CUISINE_LABELS; retrain');
  }
  if (head.extraFeatures.join('|') !== CUISINE_EXTRA_FEATURES.join('|')) {
    throw new Error('extra features differ from CUISINE_EXTRA_FEATURES; retrain');
  }
}

/**
 * Status line for /health: e.g. "ready (cuisine-logreg-v1 on menu-minilm-l6-v0, 19 labels, uncertain below 0.52)",
 * or null when the head file is missing, malformed or trained on another encoder than the heads serve.
 */
export function classifierStatus(heads: EncoderHeads): string | null {
  const head = heads.cuisine();
  if (!head) return null;
  return `ready (${head.name} on ${head.encoder}, ${head.labels.length} labels, uncertain below ${head.threshold})`;
}

/** The reason classifierStatus() is null, for logs and the eval; null when the head is usable. */
export function classifierProblem(heads: EncoderHeads): string | null {
  return heads.files.cuisine.problem(heads.encoderId);
}

/** The knowledge base's answer for a text, or null when it does not name a dish confidently. */
function dishAnswer(text: MenuText, measured: CuisineSourceConfidence): CuisinePrediction | null {
  const profile = text.profile;
  if (profile.dish && profile.dishHow === 'exact') {
    return { cuisine: profile.dish.cuisine, confidence: measured.dish, source: 'dish' };
  }
  if (!profile.dish) {
    // An ambiguous name ("Seekh Kebab") resolves to no dish; if every dish it can mean has one cuisine, that is it.
    const candidates = text.candidates;
    if (candidates.length > 1 && candidates.every((d) => d.cuisine === candidates[0]!.cuisine)) {
      return { cuisine: candidates[0]!.cuisine, confidence: measured.dish, source: 'dish' };
    }
  }
  if (profile.dish && profile.dishScore >= CONFIDENT_DISH_SCORE) {
    return { cuisine: profile.dish.cuisine, confidence: measured.fuzzyDish, source: 'fuzzy_dish' };
  }
  return null;
}

/** Classification with the source of each answer (the API drops `source`). */
export function predictCuisines(
  k: Knowledge,
  heads: EncoderHeads,
  texts: readonly MenuText[],
  vectors384: readonly Float32Array[],
): CuisinePrediction[] {
  if (texts.length !== vectors384.length) throw new Error('predictCuisines: one vector per text');
  const head = heads.cuisine();
  const measured = k.readingConfidence.cuisineAnswers;
  return texts.map((text, i) => {
    const known = dishAnswer(text, measured);
    if (known) return known;
    // A name with no word the knowledge base knows and no cuisine cue ("asdf jkl", a bare house name) is no evidence
    // of a cuisine, whatever the head makes of its embedding (after the knowledge base's 750 English names were added,
    // the refitted head called "asdf jkl" North Indian at 0.52).
    const cue = text.cues.cuisine;
    if (!text.knownWord && cue.value === null) return { cuisine: 'uncertain', confidence: 0, source: 'none' };
    if (head) {
      const v = vectors384[i]!;
      if (v.length !== head.embeddingDim) throw new Error(`cuisine head needs ${head.embeddingDim}-d vectors, got ${v.length}`);
      const p = headProbabilities(head, v, cuisineExtraFeatures(k, text.text, cue));
      let best = 0;
      for (let r = 1; r < p.length; r++) if (p[r]! > p[best]!) best = r;
      const confidence = roundScore(p[best]!);
      if (p[best]! < head.threshold) return { cuisine: 'uncertain', confidence, source: 'head' };
      return { cuisine: head.labels[best] as Cuisine, confidence, source: 'head' };
    }
    // Without a head, only a strong cue that no other deciding cue contradicts answers.
    if (cue.value !== null && cue.strong && cue.agreeing) return { cuisine: cue.value, confidence: measured.cue, source: 'cue' };
    return { cuisine: 'uncertain', confidence: roundScore(cuisineConfidenceOf(k.readingConfidence.profile, null, cue)), source: 'none' };
  });
}

/**
 * Cuisine of each text, from its 384-d vector (services.embedTexts(texts, 384)); one of the 19 labels or
 * 'uncertain', with a confidence in 0–1. Shared by /classify, /report and /suggest.
 */
export async function classifyItems(
  services: Services,
  texts: readonly MenuText[],
  vectors384: readonly Float32Array[],
): Promise<{ cuisine: string; confidence: number }[]> {
  return predictCuisines(services.knowledge, services.heads, texts, vectors384).map(({ cuisine, confidence }) => ({ cuisine, confidence }));
}
