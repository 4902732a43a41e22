import { basename, join } from 'node:path';
import type { CourseCue, CuisineCue } from './knowledge/cues.js';
import { readFittedFile } from './fitted-file.js';
import { MODELS_DIR } from './paths.js';

/**
 * How sure a profile's course and cuisine are: the share of development labels that each kind of reading gets right
 * (scripts/fit-profile-confidence.mjs into models/calibration/profile-sources.json). A reading's kind is where its
 * answer comes from: a knowledge-base dish named exactly or read fuzzily, or the text's own words; for words, whether
 * they agree (every course word of the first part names one course; every deciding cuisine cue one cuisine), whether
 * the course is a combo's main, whether a cuisine cue is strong (a dish form or a cuisine name) or only weak.
 */
export const COURSE_SOURCES = ['dish_exact', 'dish_fuzzy', 'combo', 'words_agreed', 'words_mixed', 'default'] as const;
export type CourseSource = (typeof COURSE_SOURCES)[number];
export const CUISINE_SOURCES = ['dish_exact', 'dish_fuzzy', 'strong_agreeing', 'strong_mixed', 'weak_agreeing', 'weak_mixed'] as const;
export type CuisineSource = (typeof CUISINE_SOURCES)[number];

export interface ProfileConfidence {
  readonly course: Readonly<Record<CourseSource, number>>;
  readonly cuisine: Readonly<Record<CuisineSource, number>>;
}

export const PROFILE_SOURCES_FORMAT = 'menu-intelligence/profile-sources@1';
export const PROFILE_SOURCES_PATH = join(MODELS_DIR, 'calibration', 'profile-sources.json');

export function courseSourceOf(dishHow: 'exact' | 'fuzzy' | null, cue: CourseCue): CourseSource {
  if (dishHow) return dishHow === 'exact' ? 'dish_exact' : 'dish_fuzzy';
  return cue.source;
}

/** Null when the words point to no cuisine (confidence 0). */
export function cuisineSourceOf(dishHow: 'exact' | 'fuzzy' | null, cue: CuisineCue): CuisineSource | null {
  if (dishHow) return dishHow === 'exact' ? 'dish_exact' : 'dish_fuzzy';
  if (cue.value === null) return null;
  return cue.strong ? (cue.agreeing ? 'strong_agreeing' : 'strong_mixed') : cue.agreeing ? 'weak_agreeing' : 'weak_mixed';
}

export function readProfileConfidence(path: string = PROFILE_SOURCES_PATH): ProfileConfidence {
  const { raw, where } = readFittedFile<{ format?: string; course?: Record<string, unknown>; cuisine?: Record<string, unknown> }>(path, PROFILE_SOURCES_FORMAT);
  const table = <K extends string>(group: 'course' | 'cuisine', names: readonly K[]): Readonly<Record<K, number>> => {
    const got = raw[group] ?? {};
    const extra = Object.keys(got).filter((k) => !(names as readonly string[]).includes(k));
    if (extra.length > 0) throw new Error(`${where}: ${group} has unknown sources ${extra.join(', ')}`);
    return Object.freeze(
      Object.fromEntries(
        names.map((name) => {
          const x = got[name];
          if (typeof x !== 'number' || !(x > 0 && x < 1)) throw new Error(`${where}: ${group}.${name} must be a share strictly between 0 and 1`);
          return [name, x];
        }),
      ) as Record<K, number>,
    );
  };
  return Object.freeze({ course: table('course', COURSE_SOURCES), cuisine: table('cuisine', CUISINE_SOURCES) });
}

export function courseConfidenceOf(measured: ProfileConfidence, dishHow: 'exact' | 'fuzzy' | null, cue: CourseCue): number {
  return measured.course[courseSourceOf(dishHow, cue)];
}

export function cuisineConfidenceOf(measured: ProfileConfidence, dishHow: 'exact' | 'fuzzy' | null, cue: CuisineCue): number {
  const source = cuisineSourceOf(dishHow, cue);
  return source === null ? 0 : measured.cuisine[source];
}

// ---------------------------------------------------------------------------------------------------------------
// /classify's answers that no head gives: how often each source is right

/**
 * How often the cuisine of each knowledge source is right on the development labels (an exact or unambiguous name,
 * a confident fuzzy resolution, an agreeing strong lexicon cue), measured by scripts/fit-cuisine-confidence.mjs into
 * models/calibration/cuisine-sources.json: the confidence /classify reports for an answer from that source, so that a
 * 0.99 means right 99 times in 100 on menus like the development ones.
 */
export interface CuisineSourceConfidence {
  readonly dish: number;
  readonly fuzzyDish: number;
  readonly cue: number;
}

export const CUISINE_SOURCES_FORMAT = 'menu-intelligence/cuisine-sources@1';
export const CUISINE_SOURCES_PATH = join(MODELS_DIR, 'calibration', 'cuisine-sources.json');

export function readCuisineSourceConfidence(path: string = CUISINE_SOURCES_PATH): CuisineSourceConfidence {
  const { raw, where } = readFittedFile<{ format?: string; confidence?: { dish?: unknown; fuzzy_dish?: unknown; cue?: unknown } }>(path, CUISINE_SOURCES_FORMAT);
  const c = raw.confidence ?? {};
  const share = (x: unknown, name: string): number => {
    if (typeof x !== 'number' || !(x > 0 && x < 1)) throw new Error(`${where}: confidence.${name} must be a share strictly between 0 and 1`);
    return x;
  };
  return Object.freeze({ dish: share(c.dish, 'dish'), fuzzyDish: share(c.fuzzy_dish, 'fuzzy_dish'), cue: share(c.cue, 'cue') });
}

/**
 * How sure the knowledge base's readings are, both measured on the development labels: a profile's course and cuisine
 * by the kind of reading (ProfileConfidence), and /classify's answers that no head gives (CuisineSourceConfidence).
 * Knowledge holds one, read from models/calibration/ on first use.
 */
export interface ReadingConfidence {
  readonly profile: ProfileConfidence;
  readonly cuisineAnswers: CuisineSourceConfidence;
}

export const CALIBRATION_DIR = join(MODELS_DIR, 'calibration');

export function readReadingConfidence(dir: string = CALIBRATION_DIR): ReadingConfidence {
  return Object.freeze({
    profile: readProfileConfidence(join(dir, basename(PROFILE_SOURCES_PATH))),
    cuisineAnswers: readCuisineSourceConfidence(join(dir, basename(CUISINE_SOURCES_PATH))),
  });
}
