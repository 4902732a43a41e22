import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where things are and what the environment asks for, the same in every benchmark (see bench/README.md). */
export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(BENCH_DIR, '..');
export const DATA_DIR = process.env.BENCH_DATA_DIR ?? resolve(REPO_ROOT, '../shared/data');
export const THREADS = Number(process.env.BENCH_THREADS ?? 2);
export const SEED = Number(process.env.BENCH_SEED ?? 11);
/** --quick cuts the run counts for a smoke test; its numbers are not comparable. */
export const QUICK = process.argv.includes('--quick');
