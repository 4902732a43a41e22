import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where things are and what the environment asks for, the same in every benchmark (see bench/README.md). */
export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(BENCH_DIR, '..');
export const DATA_DIR = process.env.BENCH_DATA_DIR ?? resolve(REPO_ROOT, '../shared/data');
/** ORT threads of the in-process baselines (the stock pipeline): the machine's two cores by default. */
export const THREADS = Number(process.env.BENCH_THREADS ?? 2);
/** The server's inference settings: its own defaults (one worker per core, one thread each) unless BENCH_WORKERS /
 * BENCH_THREADS ask for others (as MENU_INFERENCE_WORKERS / MENU_THREADS). */
export const SERVER_THREAD_ENV = {
  ...(process.env.BENCH_WORKERS ? { MENU_INFERENCE_WORKERS: process.env.BENCH_WORKERS } : {}),
  ...(process.env.BENCH_THREADS ? { MENU_THREADS: process.env.BENCH_THREADS } : {}),
};
export const SEED = Number(process.env.BENCH_SEED ?? 11);
/** --quick cuts the run counts for a smoke test; its numbers are not comparable. */
export const QUICK = process.argv.includes('--quick');
