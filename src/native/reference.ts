/**
 * The plain-JS implementation of the vector operations: the fallback when the Rust addon is absent
 * and the yardstick the property tests hold the addon to. Straightforward loops, no tricks, but no
 * needless waste either, so that benchmark ratios against it are honest.
 *
 * Numerics: dot products are summed in f64 and rounded to f32 once, and ranking and threshold
 * tests use that f32 score, the value callers see. The addon sums in f32 with FMAs, so scores
 * differ in the last bits (well under 1e-5 for unit rows). Row normalisation uses the exact same
 * association order as the addon, so both give bit-identical rows.
 */
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

export function normalizeRows(matrix: Float32Array, dim: number): void {
  requireFloat32Array(matrix, 'matrix');
  requireDim(dim);
  const rows = requireRows(matrix, dim, 'matrix');
  // Eight interleaved partial sums (element k into sum k % 8), combined pairwise: the addon's order.
  const partial = new Float64Array(8);
  for (let row = 0; row < rows; row++) {
    const start = row * dim;
    const end = start + dim;
    partial.fill(0);
    for (let k = start; k < end; k++) {
      const value = matrix[k]!;
      partial[(k - start) & 7]! += value * value;
    }
    const p = partial;
    const sumOfSquares = p[0]! + p[1]! + (p[2]! + p[3]!) + (p[4]! + p[5]! + (p[6]! + p[7]!));
    if (sumOfSquares === 0) continue;
    const scale = 1 / Math.sqrt(sumOfSquares);
    for (let k = start; k < end; k++) matrix[k] = matrix[k]! * scale;
  }
}

/** Ranking order shared with the addon: higher score first, NaN last, ties to the lower index. */
export function ranksBefore(score: number, index: number, otherScore: number, otherIndex: number): boolean {
  const isNaN = Number.isNaN(score);
  const otherIsNaN = Number.isNaN(otherScore);
  if (isNaN !== otherIsNaN) return otherIsNaN;
  if (isNaN || score === otherScore) return index < otherIndex;
  return score > otherScore;
}

export function cosineTopK(queries: Float32Array, matrix: Float32Array, dim: number, k: number): TopKResult {
  requireFloat32Array(queries, 'queries');
  requireFloat32Array(matrix, 'matrix');
  requireDim(dim);
  const queryCount = requireRows(queries, dim, 'queries');
  const rowCount = requireRows(matrix, dim, 'matrix');
  const kept = Math.min(requireK(k), rowCount);
  const indices = new Int32Array(queryCount * kept);
  const scores = new Float32Array(queryCount * kept);
  if (kept === 0) return { indices, scores };
  for (let q = 0; q < queryCount; q++) {
    const queryStart = q * dim;
    const listStart = q * kept;
    let filled = 0;
    for (let row = 0; row < rowCount; row++) {
      const rowStart = row * dim;
      let sum = 0;
      for (let t = 0; t < dim; t++) sum += queries[queryStart + t]! * matrix[rowStart + t]!;
      const score = Math.fround(sum);
      // Insertion into the sorted best-k list; rows arrive in index order, so equal scores stay put.
      let pos: number;
      if (filled < kept) {
        pos = filled++;
      } else if (ranksBefore(score, row, scores[listStart + kept - 1]!, indices[listStart + kept - 1]!)) {
        pos = kept - 1;
      } else {
        continue;
      }
      while (pos > 0 && ranksBefore(score, row, scores[listStart + pos - 1]!, indices[listStart + pos - 1]!)) {
        scores[listStart + pos] = scores[listStart + pos - 1]!;
        indices[listStart + pos] = indices[listStart + pos - 1]!;
        pos--;
      }
      scores[listStart + pos] = score;
      indices[listStart + pos] = row;
    }
  }
  return { indices, scores };
}

export function allPairsAbove(matrix: Float32Array, dim: number, threshold: number): PairsResult {
  requireFloat32Array(matrix, 'matrix');
  requireDim(dim);
  const rowCount = requireRows(matrix, dim, 'matrix');
  requireThreshold(threshold);
  const a: number[] = [];
  const b: number[] = [];
  const score: number[] = [];
  for (let i = 0; i < rowCount; i++) {
    const iStart = i * dim;
    for (let j = i + 1; j < rowCount; j++) {
      const jStart = j * dim;
      let sum = 0;
      for (let t = 0; t < dim; t++) sum += matrix[iStart + t]! * matrix[jStart + t]!;
      const rounded = Math.fround(sum);
      if (rounded >= threshold) {
        a.push(i);
        b.push(j);
        score.push(rounded);
      }
    }
  }
  return { a: Uint32Array.from(a), b: Uint32Array.from(b), score: Float32Array.from(score) };
}

export function unionFind(n: number, a: Uint32Array, b: Uint32Array): Int32Array {
  const nodeCount = requireNodeCount(n);
  requireUint32Array(a, 'a');
  requireUint32Array(b, 'b');
  requireEdges(nodeCount, a, b);
  const parent = new Int32Array(nodeCount);
  for (let node = 0; node < nodeCount; node++) parent[node] = node;
  const find = (start: number): number => {
    let node = start;
    while (parent[node] !== node) {
      const grandparent = parent[parent[node]!]!;
      parent[node] = grandparent;
      node = grandparent;
    }
    return node;
  };
  for (let e = 0; e < a.length; e++) {
    const rootA = find(a[e]!);
    const rootB = find(b[e]!);
    // The smaller root always wins, so every root is its component's minimum.
    if (rootA < rootB) parent[rootB] = rootA;
    else if (rootB < rootA) parent[rootA] = rootB;
  }
  const labels = new Int32Array(nodeCount);
  for (let node = 0; node < nodeCount; node++) labels[node] = find(node);
  return labels;
}

/**
 * There is no worker behind the JS path: the async variants only defer the work to a later turn
 * of the event loop and then block it for the whole computation. The addon's variants run on the
 * libuv pool instead.
 */
function deferred<T>(work: () => T): Promise<T> {
  return new Promise((resolve, reject) => {
    setImmediate(() => {
      try {
        resolve(work());
      } catch (err) {
        reject(err);
      }
    });
  });
}

export function cosineTopKAsync(queries: Float32Array, matrix: Float32Array, dim: number, k: number): Promise<TopKResult> {
  // Validate now, so bad arguments reject the same way as with the addon (before any work is queued).
  requireFloat32Array(queries, 'queries');
  requireFloat32Array(matrix, 'matrix');
  requireDim(dim);
  requireRows(queries, dim, 'queries');
  requireRows(matrix, dim, 'matrix');
  requireK(k);
  return deferred(() => cosineTopK(queries, matrix, dim, k));
}

export function allPairsAboveAsync(matrix: Float32Array, dim: number, threshold: number): Promise<PairsResult> {
  requireFloat32Array(matrix, 'matrix');
  requireDim(dim);
  requireRows(matrix, dim, 'matrix');
  requireThreshold(threshold);
  return deferred(() => allPairsAbove(matrix, dim, threshold));
}

export function simdLevel(): SimdLevel {
  return 'scalar';
}

export function setSimdLevel(level: SimdLevel): SimdLevel {
  requireSimdLevel(level);
  return 'scalar';
}

/** Multiply-add throughput of a JS loop with sixteen independent chains, in GFLOP/s (2 per step). */
export function peakGflops(ms: number): number {
  const budget = requireMilliseconds(ms);
  const x = 0.999999;
  const y = 1e-7;
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  let a8 = 0, a9 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, a14 = 0, a15 = 0;
  const start = performance.now();
  let rounds = 0;
  let elapsed = 0;
  do {
    for (let i = 0; i < 4096; i++) {
      a0 = a0 * x + y; a1 = a1 * x + y; a2 = a2 * x + y; a3 = a3 * x + y;
      a4 = a4 * x + y; a5 = a5 * x + y; a6 = a6 * x + y; a7 = a7 * x + y;
      a8 = a8 * x + y; a9 = a9 * x + y; a10 = a10 * x + y; a11 = a11 * x + y;
      a12 = a12 * x + y; a13 = a13 * x + y; a14 = a14 * x + y; a15 = a15 * x + y;
    }
    rounds += 4096;
    elapsed = performance.now() - start;
  } while (elapsed < budget);
  // Keep the chains observable so the loop cannot be optimised away.
  if (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 < 0) throw new Error('unreachable');
  return (rounds * 16 * 2) / (elapsed / 1000) / 1e9;
}

export const referenceVectors: VectorOps = {
  normalizeRows,
  cosineTopK,
  cosineTopKAsync,
  allPairsAbove,
  allPairsAboveAsync,
  unionFind,
  simdLevel,
  setSimdLevel,
  peakGflops,
};
