/**
 * The one reader of eval/heldout/: the held-out set, for the final scoring of `npm run eval` (no --dev) and for the
 * firewall test. Development runs (--dev, --errors), fitting scripts, training and tests never read it; this module
 * refuses to load it in a run that tunes (--dev or --errors on the command line), so an errors listing can never print
 * a held-out case. See eval/LABELLING.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';
import {
  readCuisineRows, readJsonl, readMatchRows, readNoiseRows, readSearchSet, type EvalSets, type LabelledCart, type LabelledMenu,
} from './sets.js';

export const HELDOUT_DIR = join(REPO_ROOT, 'eval', 'heldout');

/** Command-line flags of a tuning run: a process started with one of them never reads the held-out set. */
export const TUNING_FLAGS = ['--dev', '--errors'] as const;

export function isTuningRun(argv: readonly string[] = process.argv): boolean {
  return TUNING_FLAGS.some((f) => argv.includes(f));
}

export class HeldOutRefused extends Error {}

/** The held-out set, or null when this checkout has none. Throws HeldOutRefused in a tuning run. */
export function loadHeldOutSets(argv: readonly string[] = process.argv): EvalSets | null {
  if (isTuningRun(argv)) throw new HeldOutRefused(`the held-out set is not read in a tuning run (${TUNING_FLAGS.join(', ')})`);
  if (!existsSync(join(HELDOUT_DIR, 'MANIFEST.json'))) return null;
  const at = (f: string): string => join(HELDOUT_DIR, f);
  const present = (f: string): boolean => existsSync(at(f));
  return {
    side: 'heldout',
    search: present('search_queries.jsonl') ? [readSearchSet('heldout', at('search_menus.json'), at('search_queries.jsonl'))] : [],
    match: present('match_pairs.tsv') ? [{ name: 'heldout', rows: readMatchRows(at('match_pairs.tsv')) }] : [],
    dedup: present('dedup_menus.jsonl') ? readJsonl<LabelledMenu>(at('dedup_menus.jsonl')) : [],
    noise: present('noise_labelled.tsv') ? readNoiseRows(at('noise_labelled.tsv')) : [],
    cuisine: present('cuisine_labels.tsv') ? readCuisineRows(at('cuisine_labels.tsv')) : [],
    course: [],
    suggest: present('suggest_carts.jsonl') ? readJsonl<LabelledCart>(at('suggest_carts.jsonl')) : [],
    nonfood: [],
  };
}

/** What the freeze recorded: each file's sha256, and which held-out texts were knowledge-base entries already. */
export interface HeldOutManifest {
  readonly frozen_at: string;
  readonly files: Readonly<Record<string, string>>;
  /** sha256 of the normalised text of each held-out query or match text that was already a whole entry of
   * knowledge/ when the set was frozen (common dish names: a restaurant's "Butter Naan" is the knowledge base's). */
  readonly knowledge_entries_at_freeze: readonly string[];
  /** Likewise for held-out texts of two words or more already named in src/ (comments, examples, word lists). */
  readonly src_texts_at_freeze: readonly string[];
  readonly knowledge_sha256_at_freeze: string;
  readonly counts: Readonly<Record<string, unknown>>;
}

export function readHeldOutManifest(): HeldOutManifest {
  return JSON.parse(readFileSync(join(HELDOUT_DIR, 'MANIFEST.json'), 'utf8')) as HeldOutManifest;
}

/** The held-out texts the firewall guards: every query, and both texts of every match pair. */
export function heldOutGuardedTexts(sets: EvalSets): string[] {
  const out: string[] = [];
  for (const s of sets.search) for (const q of s.queries) out.push(q.query);
  for (const m of sets.match) for (const r of m.rows) out.push(r.text_a, r.text_b);
  return out;
}
