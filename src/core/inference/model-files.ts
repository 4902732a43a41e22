import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS_DIR } from '../paths.js';

export const BUILD_DIR = join(MODELS_DIR, 'build');

export interface BuiltModel {
  readonly id: string;
  readonly role: string;
  readonly hiddenSize: number;
  readonly dimensions: readonly number[];
  readonly dir: string;
  /** How 256/128 are made: a learned projection ('pca', the default) or Matryoshka prefixes ('prefix'). */
  readonly dimensionMode: 'pca' | 'prefix';
  /** Cross-encoders: probability = sigmoid(a·logit + b). */
  readonly calibration: { a: number; b: number } | null;
  /** Cross-encoders: the graph the build gated and calibrated (reranker-int8.onnx, or reranker-fp32.onnx when the
   * manifest serves it unquantised); older locks name none and mean the int8 one. */
  readonly file: string | null;
  /** What the served graph computes in, as the build wrote it: 'int8' (with `fp32Parts` kept fp32) or 'fp32'. */
  readonly precision: 'int8' | 'fp32';
  readonly fp32Parts: readonly string[];
  /** The kernels ONNX Runtime runs for the served graph, by the precision they compute in, as the build measured it. */
  readonly precisionReport: PrecisionReport | null;
  /** A hash of the sha256 of every file the lock lists for the model: what the model computes. Tables made from the
   * model's outputs and kept on disk (dish anchors) are named by it, so a rebuilt model never reads a stale one. */
  readonly digest: string;
}

/** Kernel type (MatMulInteger, SkipLayerNormalization, ...) → how many the served graph runs. */
export interface KernelCounts {
  readonly [kernel: string]: number;
}

/** Kernel counts under "int8", "fp32" and "data movement". */
export interface KernelsByPrecision {
  readonly [precision: string]: KernelCounts;
}

export interface PrecisionReport {
  /** Kernel type → how many, under "int8", "fp32" and "data movement". */
  readonly kernels: KernelsByPrecision;
  /** Share of the per-token linear-layer multiply-adds computed in int8. */
  readonly linear_macs_int8_share: number;
  /** The projection MatMuls the parity gate keeps in fp32. */
  readonly fp32_matmuls: readonly string[];
}

interface LockModel {
  role: string;
  hidden_size?: number;
  dimensions?: number[];
  dimension_mode?: 'pca' | 'prefix';
  calibration?: { a: number; b: number };
  file?: string;
  precision?: 'int8' | 'fp32';
  fp32_parts?: string[];
  precision_report?: PrecisionReport;
}

interface Lock {
  serve: Record<string, string | undefined>;
  models: Record<string, LockModel>;
  files: Record<string, string>;
}

/** The model ids the build serves for each role (biencoder, reranker, search_reranker). */
export function servedModelIds(): Record<string, string | undefined> {
  const lockPath = join(BUILD_DIR, 'manifest.lock.json');
  if (!existsSync(lockPath)) return {};
  return (JSON.parse(readFileSync(lockPath, 'utf8')) as Lock).serve;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * Reads models/build/manifest.lock.json and checks the sha256 of every file the chosen model needs. Start-up fails
 * fast with a message that says what to run, rather than serving from a missing or corrupted file.
 */
export function resolveBuiltModel(requested: string | undefined, role = 'biencoder'): BuiltModel {
  const lockPath = join(BUILD_DIR, 'manifest.lock.json');
  if (!existsSync(lockPath)) {
    throw new Error(`models are not built: ${lockPath} is missing. Run "node scripts/setup.mjs" (or "npm test"/"npm run serve"), which fetches and builds them.`);
  }
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as Lock;
  const id = requested ?? lock.serve[role];
  if (!id || !lock.models[id]) {
    throw new Error(`model "${id}" is not in ${lockPath}; built models: ${Object.keys(lock.models).join(', ')}`);
  }
  const m = lock.models[id]!;
  const prefix = `${id}/`;
  const files = Object.entries(lock.files).filter(([rel]) => rel.startsWith(prefix));
  for (const [rel, digest] of files) {
    const path = join(BUILD_DIR, rel);
    if (!existsSync(path)) throw new Error(`model file missing: ${path}. Re-run "node scripts/setup.mjs".`);
    // An fp32 graph the model does not serve is a build intermediate and the largest file; served files are checked.
    if (rel.endsWith('-fp32.onnx') && rel !== `${prefix}${m.file ?? ''}`) continue;
    const got = sha256File(path);
    if (got !== digest) throw new Error(`model file ${path} has sha256 ${got}, expected ${digest}. Re-run "node scripts/setup.mjs --force".`);
  }
  return {
    id,
    role: m.role,
    hiddenSize: m.hidden_size ?? 384,
    dimensions: m.dimensions ?? [384],
    dir: join(BUILD_DIR, id),
    dimensionMode: m.dimension_mode ?? 'pca',
    calibration: m.calibration ?? null,
    file: m.file ?? null,
    precision: m.precision ?? (m.file?.endsWith('-fp32.onnx') ? 'fp32' : 'int8'),
    fp32Parts: m.fp32_parts ?? [],
    precisionReport: m.precision_report ?? null,
    digest: createHash('sha256').update(JSON.stringify(files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))).digest('hex'),
  };
}
