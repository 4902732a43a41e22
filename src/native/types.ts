/** The k best rows per query, query-major: entries `q*k .. q*k+k-1` belong to query q. */
export interface TopKResult {
  indices: Int32Array;
  scores: Float32Array;
}

/** Every pair a < b whose score reaches the threshold, sorted by (a, b). */
export interface PairsResult {
  a: Uint32Array;
  b: Uint32Array;
  score: Float32Array;
}

export type SimdLevel = 'avx512' | 'avx2' | 'scalar';

/**
 * The vector operations the service uses, implemented twice: by the Rust addon and by the plain-JS
 * reference. Matrices are row-major Float32Arrays of `dim` columns whose rows are L2-normalised,
 * so a dot product is the cosine.
 */
export interface VectorOps {
  /** L2-normalises each row in place; zero rows stay zero, a row holding NaN becomes all NaN. */
  normalizeRows(matrix: Float32Array, dim: number): void;
  /**
   * For each query row, the k best matrix rows by dot product, best first; ties go to the lower
   * index and NaN scores rank last. k is clamped to the matrix's row count.
   */
  cosineTopK(queries: Float32Array, matrix: Float32Array, dim: number, k: number): TopKResult;
  cosineTopKAsync(queries: Float32Array, matrix: Float32Array, dim: number, k: number): Promise<TopKResult>;
  /** Every pair i < j with dot(i, j) >= threshold (NaN never qualifies), sorted by (i, j). */
  allPairsAbove(matrix: Float32Array, dim: number, threshold: number): PairsResult;
  allPairsAboveAsync(matrix: Float32Array, dim: number, threshold: number): Promise<PairsResult>;
  /** Connected components of the edge list; each node is labelled with its component's smallest node. */
  unionFind(n: number, a: Uint32Array, b: Uint32Array): Int32Array;
  /** The instruction set in use ('scalar' for the JS reference). */
  simdLevel(): SimdLevel;
  /** Caps the instruction set for later calls and returns the level in effect (never above the CPU's). */
  setSimdLevel(level: SimdLevel): SimdLevel;
  /** Single-thread f32 multiply-add throughput of this backend's inner loop, measured for about `ms`. */
  peakGflops(ms: number): number;
}
