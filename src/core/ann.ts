import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';

/**
 * Approximate nearest neighbours over unit vectors (inner product = cosine): an HNSW graph behind one small facade,
 * with two engines that bench/catalog.bench.mjs measures side by side on real menu names (recall against exact
 * all-pairs at the dedup threshold, build and query time). usearch is the default: it builds and searches with every
 * core in one native call taking the whole Float32Array, while hnswlib-node adds and searches one JS number[] at a
 * time on one thread (see docs/catalog.md for the measured numbers).
 */
export type AnnEngine = 'usearch' | 'hnswlib';

export type AnnQuantization = 'f32' | 'f16';

export interface AnnParams {
  /** How usearch stores the vectors in its graph (hnswlib always stores f32). Candidate cosines are recomputed from
   * the f32 vectors either way; half precision makes the graph cheaper to build and search. (usearch's int8 inner
   * products come back unnormalised, so they cannot be compared with a cosine threshold.) */
  readonly quantization?: AnnQuantization;
  /** Graph degree (HNSW's M). */
  readonly connectivity: number;
  /** Candidate list size while building (efConstruction). */
  readonly expansionAdd: number;
  /** Candidate list size while searching (ef); raised to k when k is larger. */
  readonly expansionSearch: number;
}

/**
 * Chosen in bench/catalog.bench.mjs on 20k real names: recall 0.9996 of the exact pairs at cosine ≥ 0.85, with room
 * above the 0.995 target (M=8 reached 0.9989, near the edge; efC=128 or f32 cost 2-3x the time for 0.9998-1.0).
 */
export const ANN_PARAMS: AnnParams = { connectivity: 16, expansionAdd: 64, expansionSearch: 32, quantization: 'f16' };
export const ANN_ENGINE: AnnEngine = 'usearch';

export interface AnnHits {
  /** Query-major, k per query; -1 where fewer than k were found. */
  readonly keys: Int32Array;
  /** Inner products (cosines of unit vectors), best first. */
  readonly scores: Float32Array;
}

export interface AnnIndex {
  readonly engine: AnnEngine;
  readonly dim: number;
  size(): number;
  /** Adds `matrix` rows (dim columns) under keys firstKey, firstKey + 1, … */
  add(matrix: Float32Array, firstKey: number): void;
  /** The k nearest keys per query row, best first. */
  search(queries: Float32Array, k: number): AnnHits;
  /** Writes the index to a file (the distributed run ships shard indexes). */
  save(path: string): void;
}

const require = createRequire(import.meta.url);

/** From this many rows in one add, usearch builds with every core (see UsearchIndex.add). */
const PARALLEL_ADD_ROWS = 4096;

function threads(): number {
  return Math.max(1, availableParallelism());
}

class UsearchIndex implements AnnIndex {
  readonly engine = 'usearch' as const;
  private readonly index: import('usearch').Index;

  constructor(readonly dim: number, params: AnnParams, path?: string) {
    const { Index, MetricKind, ScalarKind } = require('usearch') as typeof import('usearch');
    this.index = new Index({
      dimensions: dim,
      metric: MetricKind.IP,
      quantization: params.quantization === 'f16' ? ScalarKind.F16 : ScalarKind.F32,
      connectivity: params.connectivity,
      expansion_add: params.expansionAdd,
      expansion_search: params.expansionSearch,
      multi: false,
    });
    if (path) this.index.load(path);
    this.threads = path ? threads() : 1;
  }

  /** Threads of the adds so far (a loaded index: every core). */
  private threads: number;

  size(): number {
    return this.index.size();
  }

  add(matrix: Float32Array, firstKey: number): void {
    const rows = matrix.length / this.dim;
    if (rows === 0) return;
    const keys = new BigUint64Array(rows);
    for (let r = 0; r < rows; r++) keys[r] = BigInt(firstKey + r);
    // A graph that several threads build depends on how their inserts interleave, so it can differ from run to run;
    // one thread builds the same graph every time. Small indexes (a menu, a small catalog) take one thread: a few ms.
    // usearch sizes its per-thread search state to the threads of the last add, so once an index has used every core
    // it keeps doing so, and searches never use more threads than the adds did.
    this.threads = this.threads > 1 || rows >= PARALLEL_ADD_ROWS ? threads() : 1;
    this.index.add(keys, matrix, this.threads);
  }

  search(queries: Float32Array, k: number): AnnHits {
    const rows = queries.length / this.dim;
    const out = { keys: new Int32Array(rows * k).fill(-1), scores: new Float32Array(rows * k) };
    if (rows === 0 || this.index.size() === 0) return out;
    const hits = this.index.search(queries, k, this.threads) as unknown as { keys: BigUint64Array; distances: Float32Array; counts?: BigUint64Array };
    const stride = hits.keys.length / rows;
    for (let r = 0; r < rows; r++) {
      const found = hits.counts ? Number(hits.counts[r]) : stride;
      for (let c = 0; c < Math.min(found, k); c++) {
        out.keys[r * k + c] = Number(hits.keys[r * stride + c]);
        out.scores[r * k + c] = 1 - hits.distances[r * stride + c]!;
      }
    }
    return out;
  }

  save(path: string): void {
    this.index.save(path);
  }
}

class HnswlibIndex implements AnnIndex {
  readonly engine = 'hnswlib' as const;
  private readonly index: import('hnswlib-node').HierarchicalNSW;
  private capacity: number;

  constructor(readonly dim: number, private readonly params: AnnParams, capacity: number) {
    const { HierarchicalNSW } = require('hnswlib-node') as typeof import('hnswlib-node');
    this.index = new HierarchicalNSW('ip', dim);
    this.capacity = Math.max(16, capacity);
    this.index.initIndex(this.capacity, params.connectivity, params.expansionAdd, 100);
    this.index.setEf(params.expansionSearch);
  }

  size(): number {
    return this.index.getCurrentCount();
  }

  add(matrix: Float32Array, firstKey: number): void {
    const rows = matrix.length / this.dim;
    if (this.size() + rows > this.capacity) {
      this.capacity = Math.max(this.size() + rows, this.capacity * 2);
      this.index.resizeIndex(this.capacity);
    }
    for (let r = 0; r < rows; r++) this.index.addPoint(Array.from(matrix.subarray(r * this.dim, (r + 1) * this.dim)), firstKey + r);
  }

  search(queries: Float32Array, k: number): AnnHits {
    const rows = queries.length / this.dim;
    const out = { keys: new Int32Array(rows * k).fill(-1), scores: new Float32Array(rows * k) };
    const n = this.size();
    if (n === 0) return out;
    this.index.setEf(Math.max(this.params.expansionSearch, k));
    for (let r = 0; r < rows; r++) {
      const hit = this.index.searchKnn(Array.from(queries.subarray(r * this.dim, (r + 1) * this.dim)), Math.min(k, n));
      for (let c = 0; c < hit.neighbors.length; c++) {
        out.keys[r * k + c] = hit.neighbors[c]!;
        out.scores[r * k + c] = 1 - hit.distances[c]!;
      }
    }
    return out;
  }

  save(path: string): void {
    this.index.writeIndexSync(path);
  }
}

export function createAnnIndex(dim: number, options: { engine?: AnnEngine; params?: AnnParams; capacity?: number } = {}): AnnIndex {
  const params = options.params ?? ANN_PARAMS;
  return (options.engine ?? ANN_ENGINE) === 'usearch' ? new UsearchIndex(dim, params) : new HnswlibIndex(dim, params, options.capacity ?? 1024);
}

/** A usearch index saved by AnnIndex.save (the distributed run's shard indexes). */
export function loadAnnIndex(path: string, dim: number, params: AnnParams = ANN_PARAMS): AnnIndex {
  return new UsearchIndex(dim, params, path);
}

/**
 * How far below the threshold the index's own (possibly quantised) scores are still taken as candidates: the exact
 * cosine, recomputed from the f32 vectors, then decides. Covers half-precision rounding with room to spare.
 */
export const ANN_SCORE_SLACK = 0.02;

/** Queries per native call: bounded so a big catalog yields to the event loop (progress, Ctrl-C) between blocks. */
const QUERY_BLOCK = 4096;

/**
 * For each query row, every indexed key whose inner product reaches `threshold` (a range search on a k-NN index):
 * k starts at `startK` and grows 4× for the queries whose k-th hit still reaches the threshold, until one does not or
 * k reaches `maxK`. `onPairs` gets (query row, key, score) for each hit; `onBlock` after each block of queries.
 * Returns whether some query still had ≥ maxK hits above the threshold (its neighbourhood was cut at maxK).
 */
export async function rangeSearch(
  index: AnnIndex,
  queries: Float32Array,
  threshold: number,
  onHit: (query: number, key: number, score: number) => void,
  options: { startK?: number; maxK?: number; onBlock?: (done: number, total: number) => void } = {},
): Promise<{ saturated: boolean }> {
  const dim = index.dim;
  const rows = queries.length / dim;
  const n = index.size();
  const maxK = Math.min(n, options.maxK ?? n);
  let saturated = false;
  for (let start = 0; start < rows; start += QUERY_BLOCK) {
    const end = Math.min(rows, start + QUERY_BLOCK);
    let pending = Array.from({ length: end - start }, (_, r) => start + r);
    let k = Math.min(maxK, options.startK ?? 32);
    while (pending.length > 0 && k > 0) {
      const block = new Float32Array(pending.length * dim);
      pending.forEach((q, r) => block.set(queries.subarray(q * dim, (q + 1) * dim), r * dim));
      const hits = index.search(block, k);
      const again: number[] = [];
      pending.forEach((q, r) => {
        const full = hits.keys[r * k + k - 1]! >= 0 && hits.scores[r * k + k - 1]! >= threshold;
        if (full && k < maxK) {
          again.push(q); // reported from the wider search only
          return;
        }
        if (full) saturated = true;
        for (let c = 0; c < k; c++) {
          const key = hits.keys[r * k + c]!;
          if (key < 0) break;
          const score = hits.scores[r * k + c]!;
          if (score >= threshold) onHit(q, key, score);
        }
      });
      pending = again;
      k = Math.min(maxK, k * 4);
    }
    options.onBlock?.(end, rows);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { saturated };
}
