import { join } from 'node:path';
import { readFittedFile } from './fitted-file.js';
import { MODELS_DIR } from './paths.js';
import { parseCleanedText, type MenuText } from './menu-text.js';
import type { Knowledge } from './knowledge/index.js';
import type { Dish } from './knowledge/dishes.js';
import { FULL_DIMENSION, SUPPORTED_DIMENSIONS, type Dimension, type MenuEncoder } from './inference/encoder.js';
import { l2normalize } from './inference/runner.js';
import { CONFIDENT_DISH_SCORE } from './match.js';

/**
 * The menu vector of a text: what /embed returns, what a customer stores, and what every stage compares (search,
 * dedup, match, classify, catalogs). It is the encoder's embedding of the cleaned text in English food words
 * (MenuText.english: a Hindi or Devanagari food word read as its English one), and, when the text names a
 * knowledge-base dish itself, that embedding pulled towards the embedding of the dish's own name:
 *   v = normalise(embed(english) + anchor_weight · embed(dish name))
 * so two names of one dish (a regional name and its English description) meet in the vector a customer stores,
 * without a rule at query time. "Names the dish itself" is a resolution of CONFIDENT_DISH_SCORE or more (its name or
 * a listed alias, spelled right or near it), not a dish whose words the text merely contains: a roll with a flavour
 * word added holds the plain roll's words and is another item beside it on a menu. The weight is fitted on the
 * development pairs and search sets for the served encoder by scripts/fit-menu-vector.mjs
 * (models/calibration/menu-vector.json).
 */
export interface MenuVectorSpec {
  /** The encoder it was fitted for. */
  readonly encoder: string;
  readonly anchorWeight: number;
}

export const MENU_VECTOR_FORMAT = 'menu-intelligence/menu-vector@1';
export const MENU_VECTOR_PATH = join(MODELS_DIR, 'calibration', 'menu-vector.json');

export function readMenuVectorSpec(path: string = MENU_VECTOR_PATH): MenuVectorSpec {
  const { raw, where } = readFittedFile<{ format?: string; encoder?: unknown; anchor_weight?: unknown }>(path, MENU_VECTOR_FORMAT);
  const { encoder, anchor_weight: anchorWeight } = raw;
  if (typeof encoder !== 'string' || typeof anchorWeight !== 'number' || !(anchorWeight >= 0)) {
    throw new Error(`${where}: needs an encoder id and anchor_weight ≥ 0`);
  }
  return Object.freeze({ encoder, anchorWeight });
}

/** The dish a text names itself (a resolution of CONFIDENT_DISH_SCORE or more), or null. */
export function anchorDish(text: MenuText): Dish | null {
  const match = text.dish;
  return match && match.score >= CONFIDENT_DISH_SCORE ? match.dish : null;
}

/** The text whose embedding anchors a text's vector: the name, in English food words, of the dish it names itself;
 * null when it names none. */
export function anchorText(text: MenuText): string | null {
  const dish = anchorDish(text);
  return dish ? dishAnchorText(text.knowledge, dish) : null;
}

function dishAnchorText(k: Knowledge, dish: Dish): string {
  return parseCleanedText(k, dish.name).english;
}

/**
 * Every knowledge-base dish's anchor embedding, made once when the service starts (about a second for the whole
 * book), so no request encodes a dish name: a request pays for its own texts and a hash lookup. Lower dimensions are
 * projected from the full vector, as the encoder projects its own outputs, and kept once made; fillProjections makes
 * them all in the background after start, since a projection costs a request about as much as a short encode.
 */
export class DishAnchors {
  private readonly projected = new Map<Dimension, Map<number, Float32Array>>();

  private constructor(
    private readonly encoder: MenuEncoder,
    private readonly texts: ReadonlyMap<number, string>,
    private readonly full: ReadonlyMap<number, Float32Array>,
  ) {}

  static async build(k: Knowledge, encoder: MenuEncoder): Promise<DishAnchors> {
    const dishes = k.book.dishes;
    const texts = dishes.map((d) => dishAnchorText(k, d));
    const vectors = await encoder.encode(texts, FULL_DIMENSION);
    return new DishAnchors(encoder, new Map(dishes.map((d, i) => [d.id, texts[i]!])), new Map(dishes.map((d, i) => [d.id, vectors[i]!])));
  }

  /** The anchor text of a dish of the book. */
  textOf(dish: Dish): string {
    return this.texts.get(dish.id) ?? notInBook(dish);
  }

  /**
   * Projects every dish's anchor to every lower dimension, one dish per turn of the event loop so that requests
   * interleave, until done or `stopped()`.
   */
  async fillProjections(stopped: () => boolean): Promise<void> {
    const dishes = [...this.texts.keys()];
    for (const dimension of SUPPORTED_DIMENSIONS) {
      if (dimension === FULL_DIMENSION) continue;
      for (const id of dishes) {
        if (stopped()) return;
        this.projectedOf(id, dimension);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  /** The anchor vector of a dish of the book at `dimension` (unit length). */
  vectorOf(dish: Dish, dimension: Dimension): Float32Array {
    if (!this.full.has(dish.id)) notInBook(dish);
    return dimension === FULL_DIMENSION ? this.full.get(dish.id)! : this.projectedOf(dish.id, dimension);
  }

  private projectedOf(id: number, dimension: Dimension): Float32Array {
    let byDish = this.projected.get(dimension);
    if (!byDish) this.projected.set(dimension, (byDish = new Map()));
    let v = byDish.get(id);
    if (!v) byDish.set(id, (v = this.encoder.project(this.full.get(id)!, dimension)));
    return v;
  }
}

function notInBook(dish: Dish): never {
  throw new Error(`dish ${dish.id} (${dish.name}) is not in the book the anchors were made from`);
}

/** Menu vectors of read texts at `dimension`, in order (unit length). */
export async function menuVectors(encoder: MenuEncoder, spec: Pick<MenuVectorSpec, 'anchorWeight'>, anchors: DishAnchors, texts: readonly MenuText[], dimension: Dimension): Promise<Float32Array[]> {
  const encoding = encoder.encode(texts.map((t) => t.english), dimension);
  if (spec.anchorWeight === 0) return encoding;
  // The batcher sends a batch to the inference workers on the next turn of the event loop; the dishes are resolved
  // after it, on this thread, while the workers encode. A refusal (a full queue) is met at the await below, not
  // reported as unhandled while this turn passes.
  encoding.catch(() => {});
  await new Promise<void>((resolve) => setImmediate(resolve));
  const dishes = texts.map((t) => {
    const dish = anchorDish(t);
    return dish && anchors.textOf(dish) !== t.english ? dish : null;
  });
  const own = await encoding;
  return own.map((v, i) => {
    const dish = dishes[i];
    if (!dish) return v;
    const a = anchors.vectorOf(dish, dimension);
    const out = new Float32Array(v.length);
    for (let d = 0; d < v.length; d++) out[d] = v[d]! + spec.anchorWeight * a[d]!;
    return l2normalize(out);
  });
}
