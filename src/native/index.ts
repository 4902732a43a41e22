/**
 * The vector operations the service uses: the Rust addon (native/menu_native.node, built by
 * scripts/build-native.mjs) behind a small facade that validates arguments on the JS side, with the
 * plain-JS reference as the fallback when the addon is missing or fails to load (one warning).
 * `MENU_NATIVE=off` forces the JS path.
 *
 * Typed arrays cross into the addon without copies. The async variants run on the libuv thread
 * pool and read the arrays while the promise is pending: do not write to them, transfer them or
 * detach their buffers until it settles.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { nativeVectorsEnabled } from '../config.js';
import { REPO_ROOT } from '../core/paths.js';
import { referenceVectors } from './reference.js';
import type { PairsResult, SimdLevel, TopKResult, VectorOps } from './types.js';
import {
  requireDim,
  requireEdges,
  requireFloat32Array,
  requireK,
  requireMilliseconds,
  requireNodeCount,
  requireRows,
  requireSimdLevel,
  requireThreshold,
  requireUint32Array,
} from './validate.js';

export type { PairsResult, SimdLevel, TopKResult, VectorOps } from './types.js';
export { referenceVectors } from './reference.js';

export const NATIVE_ADDON_PATH = join(REPO_ROOT, 'native', 'menu_native.node');

/** The addon's exports (native/src/lib.rs). */
interface NativeAddon {
  normalizeRows(matrix: Float32Array, dim: number): void;
  cosineTopK(queries: Float32Array, matrix: Float32Array, dim: number, k: number): TopKResult;
  cosineTopKAsync(queries: Float32Array, matrix: Float32Array, dim: number, k: number): Promise<TopKResult>;
  allPairsAbove(matrix: Float32Array, dim: number, threshold: number): PairsResult;
  allPairsAboveAsync(matrix: Float32Array, dim: number, threshold: number): Promise<PairsResult>;
  unionFind(n: number, a: Uint32Array, b: Uint32Array): Int32Array;
  simdLevel(): string;
  setSimdLevel(level: string): string;
  peakGflops(ms: number): number;
}

const ADDON_EXPORTS = [
  'normalizeRows', 'cosineTopK', 'cosineTopKAsync', 'allPairsAbove', 'allPairsAboveAsync',
  'unionFind', 'simdLevel', 'setSimdLevel', 'peakGflops',
] as const satisfies readonly (keyof NativeAddon)[];

/** Wraps the addon in the same validated interface as the reference. */
function nativeOps(addon: NativeAddon): VectorOps {
  const checkTopK = (queries: unknown, matrix: unknown, dim: unknown, k: unknown): void => {
    const q = requireFloat32Array(queries, 'queries');
    const m = requireFloat32Array(matrix, 'matrix');
    const d = requireDim(dim);
    requireRows(q, d, 'queries');
    requireRows(m, d, 'matrix');
    requireK(k);
  };
  const checkPairs = (matrix: unknown, dim: unknown, threshold: unknown): void => {
    requireRows(requireFloat32Array(matrix, 'matrix'), requireDim(dim), 'matrix');
    requireThreshold(threshold);
  };
  return {
    normalizeRows(matrix, dim) {
      requireRows(requireFloat32Array(matrix, 'matrix'), requireDim(dim), 'matrix');
      addon.normalizeRows(matrix, dim);
    },
    cosineTopK(queries, matrix, dim, k) {
      checkTopK(queries, matrix, dim, k);
      return addon.cosineTopK(queries, matrix, dim, k);
    },
    cosineTopKAsync(queries, matrix, dim, k) {
      checkTopK(queries, matrix, dim, k);
      return addon.cosineTopKAsync(queries, matrix, dim, k);
    },
    allPairsAbove(matrix, dim, threshold) {
      checkPairs(matrix, dim, threshold);
      return addon.allPairsAbove(matrix, dim, threshold);
    },
    allPairsAboveAsync(matrix, dim, threshold) {
      checkPairs(matrix, dim, threshold);
      return addon.allPairsAboveAsync(matrix, dim, threshold);
    },
    unionFind(n, a, b) {
      const nodeCount = requireNodeCount(n);
      requireEdges(nodeCount, requireUint32Array(a, 'a'), requireUint32Array(b, 'b'));
      return addon.unionFind(nodeCount, a, b);
    },
    simdLevel: () => addon.simdLevel() as SimdLevel,
    setSimdLevel(level) {
      // The level is process-wide inside the addon, so the exported backend name must follow it.
      const effective = addon.setSimdLevel(requireSimdLevel(level)) as SimdLevel;
      refreshBackendName();
      return effective;
    },
    peakGflops: (ms) => addon.peakGflops(requireMilliseconds(ms)),
  };
}

export interface BackendChoice {
  /** The validated addon, or null when it is disabled or could not be loaded. */
  native: VectorOps | null;
  /** What the service should call: the addon when present, else the reference. */
  active: VectorOps;
}

/**
 * Loads the addon from `addonPath` unless `disabled`; on failure calls `warn` once with the reason
 * and falls back to the reference. Exported so the fallback can be tested without moving files.
 */
export function chooseBackend(options: { addonPath: string; disabled: boolean; warn: (message: string) => void }): BackendChoice {
  if (options.disabled) return { native: null, active: referenceVectors };
  try {
    const addon = createRequire(import.meta.url)(options.addonPath) as Partial<NativeAddon>;
    const missing = ADDON_EXPORTS.filter((name) => typeof addon[name] !== 'function');
    if (missing.length > 0) throw new Error(`the addon lacks ${missing.join(', ')} (stale build? run npm run build:native)`);
    const native = nativeOps(addon as NativeAddon);
    return { native, active: native };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    options.warn(`menu-intelligence: native vector addon unavailable (${reason}); using the slower JS reference implementation`);
    return { native: null, active: referenceVectors };
  }
}

const choice = chooseBackend({
  addonPath: NATIVE_ADDON_PATH,
  disabled: !nativeVectorsEnabled(),
  warn: (message) => console.warn(message),
});

/** The addon's validated operations, or null when it is off or absent (tests compare it to the reference). */
export const nativeVectors: VectorOps | null = choice.native;
const active = choice.active;

function backendName(): string {
  return nativeVectors ? `rust-${nativeVectors.simdLevel()}` : 'js';
}

/** 'rust-avx512' | 'rust-avx2' | 'rust-scalar' | 'js'; follows setSimdLevel. */
export let vectorBackend: string = backendName();

function refreshBackendName(): void {
  vectorBackend = backendName();
}

/** The operations of whichever backend is active (see VectorOps for each one's contract). */
export const {
  normalizeRows,
  cosineTopK,
  cosineTopKAsync,
  allPairsAbove,
  allPairsAboveAsync,
  unionFind,
  simdLevel,
  /** Caps the addon's instruction set (tests and benchmarks compare kernels on one machine). */
  setSimdLevel,
  peakGflops,
} = active;
