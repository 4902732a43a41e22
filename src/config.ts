import { cpus } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { REPO_ROOT } from './core/paths.js';

/**
 * The one configuration object. Every field has a default, an environment variable and a line in the README
 * (test/config.test.ts checks that the README names every variable). Read once at start-up, validated, frozen.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** Operator key: unlimited, sees the diagnostic /health view. Unset: no operator access. */
  readonly operatorKey: string | undefined;
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  /** Which built biencoder to serve (models/build/manifest.lock.json); default: the manifest's `serve.biencoder`. */
  readonly model: string | undefined;
  readonly executionProvider: 'cpu' | 'cuda';
  /** Inference worker threads per model, each with its own ONNX Runtime session; 0 runs inference on the main thread. */
  readonly inferenceWorkers: number;
  /** ONNX Runtime intra-op threads of each session. */
  readonly intraOpThreads: number;
  readonly maxBodyBytes: number;
  readonly embeddingCacheBytes: number;
  /** Distinct menu texts whose cleaned form and reading the knowledge's memos keep. */
  readonly textMemoEntries: number;
  /** Cap on padded tokens (batch × longest sequence) in one inference run. */
  readonly batchMaxTokens: number;
  readonly batchMaxItems: number;
  /** Admission limit: items waiting for inference beyond which requests get 429 `overloaded`. */
  readonly queueMaxItems: number;
  /** Admission limit: expected wait for inference beyond which requests get 429 `overloaded` (0: off). */
  readonly queueMaxWaitMs: number;
  readonly maxSequenceTokens: number;
  /** MENU_NATIVE as parsed at start-up (a bad value fails here, with the other settings); src/native reads the same
   * setting through nativeVectorsEnabled() when it is imported. */
  readonly nativeVectors: boolean;
  /** Load the built cross-encoders (off: the knowledge-base precision stage only, for comparison). */
  readonly rerankers: boolean;
  readonly logRequests: boolean;
  readonly shutdownGraceMs: number;
}

export const ENV_DOC: Readonly<Record<string, string>> = {
  HOST: 'Interface to listen on (default 127.0.0.1).',
  PORT: 'TCP port (default 8080; 0 picks a free port and prints it).',
  MENU_OPERATOR_KEY: 'The operator key: unlimited, the only key that sees the diagnostic /health view and /metrics (default unset).',
  MENU_DATA_DIR: 'Where the SQLite account store lives (default ./data).',
  MENU_REDIS_URL: 'redis://host:port to share accounts, quotas and rate windows between replicas, and the job queue of distributed catalog runs (default unset: SQLite).',
  MENU_MODEL: 'Biencoder id to serve from models/build (default: the manifest\'s serve.biencoder; the base model stays selectable).',
  MENU_EXECUTION_PROVIDER: 'cpu (default) or cuda (GPU hosts; untested here).',
  MENU_INFERENCE_WORKERS: 'Inference worker threads per model, each with its own ONNX Runtime session (default: the number of cores; 0 runs inference on the main thread, which then stalls other requests during each run).',
  MENU_THREADS: 'ONNX Runtime intra-op threads per inference worker (default: the number of cores divided by MENU_INFERENCE_WORKERS, at least 1).',
  MENU_MAX_BODY_BYTES: 'Largest accepted request body; larger gets 413 (default 16777216).',
  MENU_CACHE_BYTES: 'Embedding LRU cache budget in bytes (default 67108864).',
  MENU_TEXT_MEMO_ENTRIES: 'Entries each memo of per-text, per-word and per-pair work keeps: cleaned texts and their readings, dish lookups, spelling corrections, token ids, cross-encoder scores (default 50000; least recently used out first, so the memory they hold stops growing once they are full).',
  MENU_BATCH_MAX_TOKENS: 'Padded tokens per inference run (default 8192).',
  MENU_BATCH_MAX_ITEMS: 'Texts per inference run (default 32).',
  MENU_QUEUE_MAX_ITEMS: 'Texts allowed to wait for inference before 429 overloaded (default 20000).',
  MENU_QUEUE_MAX_WAIT_MS: 'Expected wait for inference beyond which a request gets 429 overloaded (default 2000; 0 turns it off).',
  MENU_MAX_TOKENS: 'Tokens per text after truncation (default 64; menu names are short).',
  MENU_NATIVE: 'on (default) uses the Rust vector addon, off forces the JS reference.',
  MENU_RERANKERS: 'on (default) loads the built cross-encoders; off keeps the knowledge-base precision stage only.',
  MENU_LOG_REQUESTS: '1 writes one JSON line per request to stdout: request id, route, status, latency, item count, key prefix (default 0).',
  MENU_SHUTDOWN_GRACE_MS: 'How long SIGTERM waits for in-flight requests (default 10000).',
};

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) throw new Error(`config: ${name}=${raw} must be an integer in [${min}, ${max}]`);
  return v;
}

function bool(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|on|yes)$/i.test(raw)) return true;
  if (/^(0|false|off|no)$/i.test(raw)) return false;
  throw new Error(`config: ${name}=${raw} must be on/off`);
}

/** MENU_NATIVE alone: the vector addon is chosen when src/native is first imported, before any Config exists, so it
 * reads this one setting with the same parsing the frozen config uses. */
export function nativeVectorsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return bool(env, 'MENU_NATIVE', true);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const ep = env.MENU_EXECUTION_PROVIDER ?? 'cpu';
  if (ep !== 'cpu' && ep !== 'cuda') throw new Error(`config: MENU_EXECUTION_PROVIDER=${ep} must be cpu or cuda`);
  const dataDir = env.MENU_DATA_DIR ?? join(REPO_ROOT, 'data');
  const cores = Math.max(1, cpus().length);
  const workers = int(env, 'MENU_INFERENCE_WORKERS', cores, 0, 64);
  return Object.freeze({
    host: env.HOST ?? '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    operatorKey: env.MENU_OPERATOR_KEY || undefined,
    dataDir: isAbsolute(dataDir) ? dataDir : join(process.cwd(), dataDir),
    redisUrl: env.MENU_REDIS_URL || undefined,
    model: env.MENU_MODEL || undefined,
    executionProvider: ep,
    inferenceWorkers: workers,
    intraOpThreads: int(env, 'MENU_THREADS', Math.max(1, Math.floor(cores / Math.max(1, workers))), 1, 256),
    maxBodyBytes: int(env, 'MENU_MAX_BODY_BYTES', 16 * 1024 * 1024, 1024, 1 << 30),
    embeddingCacheBytes: int(env, 'MENU_CACHE_BYTES', 64 * 1024 * 1024, 0, 2 ** 34),
    textMemoEntries: int(env, 'MENU_TEXT_MEMO_ENTRIES', 50_000, 1, 10_000_000),
    batchMaxTokens: int(env, 'MENU_BATCH_MAX_TOKENS', 8192, 64, 1 << 20),
    // Short menu names cost ORT the least per text in runs of 16–48 (bench/stages.bench.mjs: ort*_by_max_batch_items).
    batchMaxItems: int(env, 'MENU_BATCH_MAX_ITEMS', 32, 1, 4096),
    queueMaxItems: int(env, 'MENU_QUEUE_MAX_ITEMS', 20000, 1, 1 << 24),
    queueMaxWaitMs: int(env, 'MENU_QUEUE_MAX_WAIT_MS', 2000, 0, 600000),
    maxSequenceTokens: int(env, 'MENU_MAX_TOKENS', 64, 8, 512),
    nativeVectors: nativeVectorsEnabled(env),
    rerankers: bool(env, 'MENU_RERANKERS', true),
    logRequests: bool(env, 'MENU_LOG_REQUESTS', false),
    shutdownGraceMs: int(env, 'MENU_SHUTDOWN_GRACE_MS', 10000, 0, 600000),
  });
}
