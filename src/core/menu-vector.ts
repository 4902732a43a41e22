import { join } from 'node:path';
import { readFittedFile } from './fitted-file.js';
import { MODELS_DIR } from './paths.js';
import { parseCleanedText, type MenuText } from './menu-text.js';
import type { Dimension, MenuEncoder } from './inference/encoder.js';
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

/** The text whose embedding anchors a text's vector: the name, in English food words, of the dish it names itself;
 * null when it names none. */
export function anchorText(text: MenuText): string | null {
  const p = text.profile;
  if (!p.dish || p.dishScore < CONFIDENT_DISH_SCORE) return null;
  return parseCleanedText(text.knowledge, p.dish.name).english;
}

/** Menu vectors of read texts at `dimension`, in order (unit length). */
export async function menuVectors(encoder: MenuEncoder, spec: Pick<MenuVectorSpec, 'anchorWeight'>, texts: readonly MenuText[], dimension: Dimension): Promise<Float32Array[]> {
  const own = await encoder.encode(texts.map((t) => t.english), dimension);
  if (spec.anchorWeight === 0) return own;
  const anchors = texts.map(anchorText);
  const named = anchors.flatMap((a, i) => (a !== null && a !== texts[i]!.english ? [i] : []));
  if (named.length === 0) return own;
  const anchorVectors = await encoder.encode(named.map((i) => anchors[i]!), dimension);
  const out = [...own];
  named.forEach((i, n) => {
    const v = own[i]!, a = anchorVectors[n]!;
    out[i] = l2normalize(v.map((x, d) => x + spec.anchorWeight * a[d]!));
  });
  return out;
}
