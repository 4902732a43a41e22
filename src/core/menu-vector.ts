import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readFittedFile } from './fitted-file.js';
import { MODELS_DIR } from './paths.js';
import { parseCleanedText, type MenuText } from './menu-text.js';
import type { Knowledge } from './knowledge/index.js';
import type { Dish } from './knowledge/dishes.js';
import { hasDevanagari } from './knowledge/transliterate.js';
import { FULL_DIMENSION, SUPPORTED_DIMENSIONS, type Dimension, type MenuEncoder } from './inference/encoder.js';
import { l2normalize } from './inference/runner.js';
import { CONFIDENT_DISH_SCORE } from './knowledge/lookup.js';

/**
 * The menu vector of a text: what /embed returns, what a customer stores, and what every stage compares (search,
 * dedup, match, classify, catalogs). It is the encoder's embedding of the cleaned text in English food words
 * (MenuText.english: a Hindi or Devanagari food word read as its English one), pulled towards the knowledge-base dish
 * the text is read as, when it is read as one:
 *   v = normalise(embed(english) + weight · anchor(dish))
 * where a dish's anchor is the normalised sum of the embeddings of all its names (its name and every listed alias, in
 * English food words), so two names of one dish (a regional name and its English description) meet in the vector a
 * customer stores, without a rule at query time. The weight depends on how the text names the dish:
 * - itself (a resolution of CONFIDENT_DISH_SCORE or more: its name or a listed alias, spelled right or near it);
 * - loosely (a lower resolution: the dish's words with the text's own added; a roll with a flavour word added is
 *   another item beside the plain roll on a menu, and near it);
 * - as the first part of a combo that names it itself ("<dish> + <drink>").
 * The three weights are fitted on the development pairs, search sets and dedup menus for the served encoder by
 * scripts/fit-menu-vector.mjs (models/calibration/menu-vector.json).
 */
export interface AnchorWeights {
  /** A text that names the dish itself. */
  readonly anchorWeight: number;
  /** A text the dish is read from loosely. */
  readonly looseAnchorWeight: number;
  /** A combo whose first part names the dish itself. */
  readonly comboAnchorWeight: number;
}

export interface MenuVectorSpec extends AnchorWeights {
  /** The encoder it was fitted for. */
  readonly encoder: string;
}

/** Weights that leave every text its own embedding. */
export const NO_ANCHORS: AnchorWeights = Object.freeze({ anchorWeight: 0, looseAnchorWeight: 0, comboAnchorWeight: 0 });

/** The weights anchor no text: every menu vector is the text's own embedding. */
export function anchorsNothing(weights: AnchorWeights): boolean {
  return weights.anchorWeight === 0 && weights.looseAnchorWeight === 0 && weights.comboAnchorWeight === 0;
}

export const MENU_VECTOR_FORMAT = 'menu-intelligence/menu-vector@2';
export const MENU_VECTOR_PATH = join(MODELS_DIR, 'calibration', 'menu-vector.json');

export function readMenuVectorSpec(path: string = MENU_VECTOR_PATH): MenuVectorSpec {
  type Raw = { format?: string; encoder?: unknown; anchor_weight?: unknown; loose_anchor_weight?: unknown; combo_anchor_weight?: unknown };
  const { raw, where } = readFittedFile<Raw>(path, MENU_VECTOR_FORMAT);
  const weights = [raw.anchor_weight, raw.loose_anchor_weight, raw.combo_anchor_weight];
  if (typeof raw.encoder !== 'string' || !weights.every((w) => typeof w === 'number' && w >= 0)) {
    throw new Error(`${where}: needs an encoder id and anchor_weight, loose_anchor_weight, combo_anchor_weight ≥ 0`);
  }
  const [anchorWeight, looseAnchorWeight, comboAnchorWeight] = weights as number[];
  return Object.freeze({ encoder: raw.encoder, anchorWeight: anchorWeight!, looseAnchorWeight: looseAnchorWeight!, comboAnchorWeight: comboAnchorWeight! });
}

/** The dish a text's vector is pulled towards, and by which weight; null when none. */
export function anchorOf(text: MenuText, weights: AnchorWeights): { readonly dish: Dish; readonly weight: number } | null {
  const match = text.dish;
  const [dish, weight] = match
    ? [match.dish, match.score >= CONFIDENT_DISH_SCORE ? weights.anchorWeight : weights.looseAnchorWeight]
    : [text.combo?.main?.dish ?? null, (text.combo?.main?.score ?? 0) >= CONFIDENT_DISH_SCORE ? weights.comboAnchorWeight : 0];
  return dish && weight > 0 ? { dish, weight } : null;
}

/**
 * The distinct texts, in English food words, whose embeddings make a dish's anchor: its name, then its aliases. A name
 * still in Devanagari once read in English food words is left out: the encoder reads Latin script, and such names all
 * embed near one another whatever the dish.
 */
export function anchorTexts(k: Knowledge, dish: Dish): readonly string[] {
  const texts = [dish.name, ...dish.aliases].map((name) => parseCleanedText(k, name).english);
  return [...new Set(texts.filter((text, i) => i === 0 || !hasDevanagari(text)))];
}

/**
 * Every knowledge-base dish's anchor at every served dimension, made once (the embeddings of about 23,000 names: some
 * seconds) and kept in models/cache/ under a hash of the encoder's files and every anchor text, so a later start only
 * reads it; no request encodes a dish name or projects an anchor. A lower dimension's anchor is the full one projected
 * as the encoder projects its own outputs.
 */
export class DishAnchors {
  private constructor(
    /** Names the table: a hash of the encoder (id and build), the dimensions and every dish's anchor texts. */
    readonly id: string,
    private readonly byDimension: ReadonlyMap<Dimension, ReadonlyMap<number, Float32Array>>,
  ) {}

  static async build(k: Knowledge, encoder: MenuEncoder, cacheDir: string | null = ANCHOR_CACHE_DIR): Promise<DishAnchors> {
    const dishes = k.book.dishes;
    const texts = dishes.map((d) => anchorTexts(k, d));
    const hash = createHash('sha256')
      .update(JSON.stringify([encoder.model.id, encoder.model.digest ?? null, SUPPORTED_DIMENSIONS, dishes.map((d, i) => [d.id, texts[i]])]))
      .digest('hex');
    const path = cacheDir ? join(cacheDir, `${encoder.model.id}-${hash}.f32`) : null;
    // Each dish's row: its anchor at every supported dimension, the full one first.
    const lower = SUPPORTED_DIMENSIONS.filter((d) => d !== FULL_DIMENSION);
    const dimensions: readonly Dimension[] = [FULL_DIMENSION, ...lower];
    const width = dimensions.reduce((a, b) => a + b, 0);
    let table: Float32Array | null = null;
    if (path && existsSync(path)) {
      const bytes = readFileSync(path);
      if (bytes.byteLength === dishes.length * width * Float32Array.BYTES_PER_ELEMENT) table = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }
    if (!table) {
      table = new Float32Array(dishes.length * width);
      const vectors = await encoder.encode(texts.flat(), FULL_DIMENSION);
      let n = 0;
      texts.forEach((list, i) => {
        const full = table!.subarray(i * width, i * width + FULL_DIMENSION);
        for (const _ of list) {
          const v = vectors[n++]!;
          for (let d = 0; d < FULL_DIMENSION; d++) full[d]! += v[d]!;
        }
        l2normalize(full);
        let at = i * width + FULL_DIMENSION;
        for (const dimension of lower) {
          table!.set(encoder.project(full, dimension), at);
          at += dimension;
        }
      });
      if (path) keepTable(path, table, `${encoder.model.id}-`);
    }
    const byDimension = new Map<Dimension, Map<number, Float32Array>>();
    let offset = 0;
    for (const dimension of dimensions) {
      byDimension.set(dimension, new Map(dishes.map((d, i) => [d.id, table!.subarray(i * width + offset, i * width + offset + dimension)])));
      offset += dimension;
    }
    return new DishAnchors(hash, byDimension);
  }

  /** The anchor vector of a dish of the book at `dimension` (unit length). */
  vectorOf(dish: Dish, dimension: Dimension): Float32Array {
    const v = this.byDimension.get(dimension)?.get(dish.id);
    if (!v) notInBook(dish);
    return v;
  }
}

/**
 * Writes a made table whole, then renames it into place, so servers starting together never read a half-written one. A
 * cache that cannot be written (a read-only install) only costs the next start the time to make the table again. The
 * encoder's tables of earlier knowledge bases or builds (same `prefix`, another hash) are removed: no start reads them
 * again, and each holds every dish's anchor at every dimension (4 bytes × 768 per dish). A server already running has
 * its table in memory.
 */
function keepTable(path: string, table: Float32Array, prefix: string): void {
  const partial = `${path}.${process.pid}.partial`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(partial, new Uint8Array(table.buffer, table.byteOffset, table.byteLength));
    renameSync(partial, path);
    for (const name of readdirSync(dirname(path))) {
      if (name.startsWith(prefix) && /^[0-9a-f]{64}\.f32$/.test(name.slice(prefix.length)) && join(dirname(path), name) !== path) rmSync(join(dirname(path), name), { force: true });
    }
  } catch {
    try {
      rmSync(partial, { force: true });
    } catch {
      // Nothing was written where nothing can be.
    }
  }
}

/** Where made anchor tables are kept (not committed: they are remade from the knowledge base and the encoder). */
export const ANCHOR_CACHE_DIR = join(MODELS_DIR, 'cache', 'anchors');

function notInBook(dish: Dish): never {
  throw new Error(`dish ${dish.id} (${dish.name}) is not in the book the anchors were made from`);
}

/** Menu vectors of read texts at `dimension`, in order (unit length). */
export async function menuVectors(encoder: MenuEncoder, weights: AnchorWeights, anchors: DishAnchors, texts: readonly MenuText[], dimension: Dimension): Promise<Float32Array[]> {
  const encoding = encoder.encode(texts.map((t) => t.english), dimension);
  if (anchorsNothing(weights)) return encoding;
  // The batcher sends a batch to the inference workers on the next turn of the event loop; the dishes are resolved
  // after it, on this thread, while the workers encode. A refusal (a full queue) is met at the await below, not
  // reported as unhandled while this turn passes.
  encoding.catch(() => {});
  await new Promise<void>((resolve) => setImmediate(resolve));
  const anchored = texts.map((t) => anchorOf(t, weights));
  const own = await encoding;
  return own.map((v, i) => blendAnchor(v, anchored[i] ?? null, anchors, dimension));
}

/** normalise(v + weight · anchor(dish)) at `dimension`; `v` itself when the text has no anchor. */
export function blendAnchor(v: Float32Array, anchor: { readonly dish: Dish; readonly weight: number } | null, anchors: DishAnchors, dimension: Dimension): Float32Array {
  if (!anchor) return v;
  const a = anchors.vectorOf(anchor.dish, dimension);
  const out = new Float32Array(v.length);
  for (let d = 0; d < v.length; d++) out[d] = v[d]! + anchor.weight * a[d]!;
  return l2normalize(out);
}
