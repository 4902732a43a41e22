import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import * as facade from '../src/native/index.js';
import { chooseBackend, nativeVectors, NATIVE_ADDON_PATH, referenceVectors } from '../src/native/index.js';
import type { PairsResult, SimdLevel, TopKResult, VectorOps } from '../src/native/index.js';
import { REPO_ROOT } from '../src/core/paths.js';

const NATIVE_OFF = process.env.MENU_NATIVE === 'off';
const ADDON_ABSENT = nativeVectors
  ? false
  : NATIVE_OFF
    ? 'MENU_NATIVE=off'
    : `native addon not loaded from ${NATIVE_ADDON_PATH}; build it with node scripts/build-native.mjs`;

// A skipped comparison is fine on a laptop without Rust, never in CI: setup builds the addon there.
t.test('in CI the addon is built and loaded', { skip: process.env.CI && !NATIVE_OFF ? false : 'not in CI (or MENU_NATIVE=off)' }, async (t) => {
  t.ok(nativeVectors, `native/menu_native.node loads (backend ${facade.vectorBackend})`);
});

/** Scores agree within this; thresholds and ranks closer than this to another score are ambiguous. */
const TOLERANCE = 1e-5;
/** The ones the brief asks for (SIMD tails: 1, 3, 7, 17), plus 200: a partial depth slice on AVX-512. */
const DIMS = [1, 3, 7, 8, 16, 17, 64, 200, 384];

/** mulberry32: a small seeded PRNG, so every failure reproduces. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * Normalised rows like the service sees: random directions, plus zero rows (empty texts), NaN rows
 * (a broken embedding), exact duplicates and near-duplicates of earlier rows (the same dish listed
 * twice), normalised by the reference.
 */
function makeMatrix(random: () => number, rows: number, dim: number, special = true): Float32Array {
  const matrix = new Float32Array(rows * dim);
  for (let row = 0; row < rows; row++) {
    const start = row * dim;
    const kind = special ? random() : 1;
    if (kind < 0.07) continue;
    if (kind < 0.12) {
      for (let k = 0; k < dim; k++) matrix[start + k] = gaussian(random);
      matrix[start + Math.floor(random() * dim)] = NaN;
    } else if (kind < 0.3 && row > 0) {
      const source = Math.floor(random() * row) * dim;
      const noise = random() < 0.5 ? 0 : 0.01;
      for (let k = 0; k < dim; k++) matrix[start + k] = matrix[source + k]! + noise * gaussian(random);
    } else {
      for (let k = 0; k < dim; k++) matrix[start + k] = gaussian(random);
    }
  }
  referenceVectors.normalizeRows(matrix, dim);
  return matrix;
}

function sameScore(x: number, y: number): boolean {
  return (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= TOLERANCE;
}

/** The reference's score of one pair: f64 sum, rounded to f32 once. */
function scoreOf(left: Float32Array, leftRow: number, right: Float32Array, rightRow: number, dim: number): number {
  let sum = 0;
  for (let k = 0; k < dim; k++) sum += left[leftRow * dim + k]! * right[rightRow * dim + k]!;
  return Math.fround(sum);
}

function sameRow(matrix: Float32Array, left: number, right: number, dim: number): boolean {
  for (let k = 0; k < dim; k++) if (!Object.is(matrix[left * dim + k], matrix[right * dim + k])) return false;
  return true;
}

/**
 * Differences between two top-k answers, query by query:
 * - scores agree within TOLERANCE rank by rank;
 * - the index sets are equal, except rows whose true score is within TOLERANCE of the k-th score
 *   (a near-tie at the cut that f32 rounding may decide either way), but never by taking a row
 *   in place of an identical one: identical rows score identically, so the lower index wins;
 * - the native list is in truth order (within TOLERANCE), NaN last, and wherever the native
 *   scores are exactly equal the lower index comes first.
 */
function topKDifferences(native: TopKResult, reference: TopKResult, queries: Float32Array, matrix: Float32Array, dim: number): { errors: string[]; nearTies: number } {
  const errors: string[] = [];
  let nearTies = 0;
  if (native.indices.length !== reference.indices.length || native.scores.length !== reference.scores.length) {
    return { errors: [`lengths ${native.indices.length}/${native.scores.length} vs ${reference.indices.length}/${reference.scores.length}`], nearTies };
  }
  const queryCount = queries.length / dim;
  const k = queryCount === 0 ? 0 : reference.indices.length / queryCount;
  for (let q = 0; q < queryCount; q++) {
    const first = q * k;
    const truth = (row: number): number => scoreOf(queries, q, matrix, row, dim);
    for (let p = first; p < first + k; p++) {
      if (!sameScore(native.scores[p]!, reference.scores[p]!)) errors.push(`query ${q} rank ${p - first}: score ${native.scores[p]} vs ${reference.scores[p]}`);
    }
    const nativeSet = new Set(native.indices.subarray(first, first + k));
    const referenceSet = new Set(reference.indices.subarray(first, first + k));
    if (nativeSet.size !== k) errors.push(`query ${q}: ${k - nativeSet.size} repeated rows`);
    const cut = reference.scores[first + k - 1]!;
    const symmetricDifference = [...nativeSet].filter((row) => !referenceSet.has(row)).concat([...referenceSet].filter((row) => !nativeSet.has(row)));
    for (const row of symmetricDifference) {
      if (sameScore(truth(row), cut)) nearTies++;
      else errors.push(`query ${q}: row ${row} (score ${truth(row)}) is in one list only; the k-th score is ${cut}`);
    }
    for (const row of nativeSet) {
      const twin = [...referenceSet].find((other) => !nativeSet.has(other) && sameRow(matrix, row, other, dim));
      if (twin !== undefined && !referenceSet.has(row)) errors.push(`query ${q}: row ${row} taken instead of identical row ${twin}`);
    }
    for (let p = first; p + 1 < first + k; p++) {
      const [upper, lower] = [native.indices[p]!, native.indices[p + 1]!];
      const [upperTruth, lowerTruth] = [truth(upper), truth(lower)];
      const [upperScore, lowerScore] = [native.scores[p]!, native.scores[p + 1]!];
      const tieByIndex = upperScore === lowerScore || (Number.isNaN(upperScore) && Number.isNaN(lowerScore));
      if (tieByIndex ? upper > lower : Number.isNaN(upperScore) || !(upperTruth >= lowerTruth - TOLERANCE || Number.isNaN(lowerTruth))) {
        errors.push(`query ${q} ranks ${p - first}-${p + 1 - first}: row ${upper} (${upperScore}) before row ${lower} (${lowerScore})`);
      }
    }
  }
  return { errors, nearTies };
}

function pairDifferences(native: PairsResult, reference: PairsResult): string[] {
  const errors: string[] = [];
  if (native.a.length !== reference.a.length) errors.push(`${native.a.length} pairs vs ${reference.a.length}`);
  for (let p = 0; p < Math.min(native.a.length, reference.a.length) && errors.length < 5; p++) {
    if (native.a[p] !== reference.a[p] || native.b[p] !== reference.b[p]) errors.push(`pair ${p}: (${native.a[p]}, ${native.b[p]}) vs (${reference.a[p]}, ${reference.b[p]})`);
    else if (!sameScore(native.score[p]!, reference.score[p]!)) errors.push(`pair ${p}: score ${native.score[p]} vs ${reference.score[p]}`);
  }
  return errors;
}

/**
 * A threshold near `target` that no pair score lies within 2·TOLERANCE of, so f32 rounding cannot
 * move a pair across it and the two pair sets must be identical.
 */
function unambiguousThreshold(matrix: Float32Array, dim: number, target: number): number {
  const scores = Array.from(referenceVectors.allPairsAbove(matrix, dim, -3).score).sort((x, y) => x - y);
  if (scores.length === 0) return target;
  const candidates = [scores[0]! - 0.01, scores[scores.length - 1]! + 0.01];
  for (let s = 0; s + 1 < scores.length; s++) {
    if (scores[s + 1]! - scores[s]! > 4 * TOLERANCE) candidates.push((scores[s]! + scores[s + 1]!) / 2);
  }
  return candidates.reduce((best, candidate) => (Math.abs(candidate - target) < Math.abs(best - target) ? candidate : best));
}

function graphLabelsByBfs(n: number, a: Uint32Array, b: Uint32Array): Int32Array {
  const neighbours: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < a.length; e++) {
    neighbours[a[e]!]!.push(b[e]!);
    neighbours[b[e]!]!.push(a[e]!);
  }
  const labels = new Int32Array(n).fill(-1);
  for (let start = 0; start < n; start++) {
    if (labels[start] !== -1) continue;
    // Visiting starts in increasing order, so `start` is the smallest node of its component.
    labels[start] = start;
    const queue = [start];
    while (queue.length > 0) {
      for (const next of neighbours[queue.pop()!]!) {
        if (labels[next] === -1) {
          labels[next] = start;
          queue.push(next);
        }
      }
    }
  }
  return labels;
}

/** The SIMD levels this CPU runs, best first; each test below runs the addon at every one of them. */
function availableLevels(native: VectorOps): SimdLevel[] {
  const detected = native.simdLevel();
  const levels = (['avx512', 'avx2', 'scalar'] as const).filter((level) => native.setSimdLevel(level) === level);
  native.setSimdLevel(detected);
  return levels;
}

t.test('reference normalizeRows: unit rows, zero rows stay zero, NaN rows become NaN, views touch only their rows', async (t) => {
  const matrix = new Float32Array([3, 4, 0, 0, 0, 0, 0, 0, 1, NaN, 2, 2, 1, 1, 1, 1, 0, 0, 0, -5]);
  referenceVectors.normalizeRows(matrix, 4);
  t.same(Array.from(matrix.subarray(0, 4)), [Math.fround(0.6), Math.fround(0.8), 0, 0]);
  t.same(Array.from(matrix.subarray(4, 8)), [0, 0, 0, 0]);
  t.ok(Array.from(matrix.subarray(8, 12)).every(Number.isNaN), 'the NaN row is all NaN');
  t.same(Array.from(matrix.subarray(12, 20)), [0.5, 0.5, 0.5, 0.5, 0, 0, 0, -1]);
  const outer = new Float32Array([9, 9, 3, 4, 9, 9]);
  referenceVectors.normalizeRows(outer.subarray(2, 4), 2);
  t.same(Array.from(outer), [9, 9, Math.fround(0.6), Math.fround(0.8), 9, 9]);
});

t.test('reference cosineTopK and allPairsAbove on a hand-checked case', async (t) => {
  // Rows: e0, e1, (e0+e1)/√2, zero, NaN, e0 again.
  const s = Math.SQRT1_2;
  const matrix = new Float32Array([1, 0, 0, 1, s, s, 0, 0, NaN, 0, 1, 0]);
  const top = referenceVectors.cosineTopK(matrix.subarray(0, 2), matrix, 2, 99);
  t.equal(top.indices.length, 6, 'k is clamped to the row count');
  t.same(Array.from(top.indices), [0, 5, 2, 1, 3, 4], 'tie 0/5 by index, zero rows at 0, NaN last');
  t.same(Array.from(top.scores).slice(0, 5), [1, 1, Math.fround(s), 0, 0]);
  t.ok(Number.isNaN(top.scores[5]!));
  const pairs = referenceVectors.allPairsAbove(matrix, 2, 0.7);
  t.same([Array.from(pairs.a), Array.from(pairs.b)], [[0, 0, 1, 2], [2, 5, 2, 5]], 'sorted by (a, b); NaN never qualifies');
  t.same(Array.from(referenceVectors.allPairsAbove(matrix, 2, 1).a), [0], 'a score equal to the threshold qualifies');
});

t.test('unionFind labels each node with the smallest node of its component (both backends, against BFS)', async (t) => {
  const random = seededRandom(7);
  const backends: [string, VectorOps][] = [['reference', referenceVectors]];
  if (nativeVectors) backends.push(['native', nativeVectors]);
  for (const [name, ops] of backends) {
    let mismatches = 0;
    for (let trial = 0; trial < 60; trial++) {
      const n = trial === 0 ? 0 : 1 + Math.floor(random() * 300);
      const edges = n === 0 ? 0 : Math.floor(random() * n * 1.2);
      const a = new Uint32Array(edges);
      const b = new Uint32Array(edges);
      for (let e = 0; e < edges; e++) {
        a[e] = Math.floor(random() * n);
        // Self loops and repeated edges on purpose.
        b[e] = random() < 0.05 ? a[e]! : Math.floor(random() * n);
      }
      const labels = ops.unionFind(n, a, b);
      const expected = graphLabelsByBfs(n, a, b);
      if (labels.length !== n || labels.some((label, node) => label !== expected[node])) mismatches++;
    }
    t.equal(mismatches, 0, `${name}: 60 random graphs (n 0..300) match BFS`);
  }
});

t.test('arguments are checked on the JS side with TypeError/RangeError, whichever backend', async (t) => {
  const backends: [string, VectorOps][] = [['reference', referenceVectors], ['facade', facade]];
  if (nativeVectors) backends.push(['native', nativeVectors]);
  const m = new Float32Array(8);
  const edge = new Uint32Array([0]);
  for (const [name, ops] of backends) {
    t.throws(() => ops.normalizeRows(new Float32Array(5), 2), { name: 'RangeError', message: /not a multiple of dim 2/ }, `${name}: length`);
    t.throws(() => ops.normalizeRows([1, 2] as unknown as Float32Array, 2), { name: 'TypeError', message: /Float32Array/ }, `${name}: array type`);
    t.throws(() => ops.cosineTopK(m, m, 0, 1), { name: 'RangeError', message: /dim/ }, `${name}: dim 0`);
    t.throws(() => ops.cosineTopK(m, m, 2.5, 1), { name: 'RangeError', message: /dim/ }, `${name}: fractional dim`);
    t.throws(() => ops.cosineTopK(m, m, 2, 0), { name: 'RangeError', message: /k must be/ }, `${name}: k 0`);
    t.throws(() => ops.cosineTopK(m, m, 2, 1.5), { name: 'RangeError', message: /k must be/ }, `${name}: fractional k`);
    t.throws(() => ops.cosineTopK(new Float32Array(3), m, 2, 1), { name: 'RangeError', message: /queries/ }, `${name}: queries length`);
    t.throws(() => ops.cosineTopK(new Float64Array(8) as unknown as Float32Array, m, 2, 1), { name: 'TypeError' }, `${name}: Float64Array`);
    t.throws(() => ops.cosineTopKAsync(m, m, 2, -1), { name: 'RangeError' }, `${name}: async validates before queueing`);
    t.throws(() => ops.allPairsAbove(m, 2, NaN), { name: 'RangeError', message: /threshold/ }, `${name}: NaN threshold`);
    t.throws(() => ops.allPairsAbove(m, 2, Infinity), { name: 'RangeError', message: /threshold/ }, `${name}: infinite threshold`);
    t.throws(() => ops.allPairsAbove(m, 2, '0.5' as unknown as number), { name: 'TypeError' }, `${name}: string threshold`);
    t.throws(() => ops.allPairsAboveAsync(m, 3, 0.5), { name: 'RangeError' }, `${name}: async length`);
    t.throws(() => ops.unionFind(1, edge, new Uint32Array([1])), { name: 'RangeError', message: /not below n/ }, `${name}: edge out of range`);
    t.throws(() => ops.unionFind(2, edge, new Uint32Array(0)), { name: 'RangeError', message: /differ in length/ }, `${name}: edge lists`);
    t.throws(() => ops.unionFind(-1, new Uint32Array(0), new Uint32Array(0)), { name: 'RangeError' }, `${name}: negative n`);
    t.throws(() => ops.unionFind(2, new Int32Array(1) as unknown as Uint32Array, edge), { name: 'TypeError' }, `${name}: Int32Array edges`);
    t.throws(() => ops.setSimdLevel('sse4' as SimdLevel), { name: 'RangeError' }, `${name}: unknown SIMD level`);
    t.throws(() => ops.peakGflops(0), { name: 'RangeError' }, `${name}: peakGflops(0)`);
  }
});

t.test('the raw addon rejects bad arguments with an exception, never a crash', { skip: ADDON_ABSENT }, async (t) => {
  const addon = createRequire(import.meta.url)(NATIVE_ADDON_PATH) as Record<string, (...args: unknown[]) => unknown>;
  const m = new Float32Array(6);
  t.throws(() => addon.cosineTopK!(m, m, 4, 1), /not a multiple of dim 4/);
  t.throws(() => addon.cosineTopK!(m, m, 0, 1), /dim/);
  t.throws(() => addon.cosineTopK!(m, m, 2, NaN), /k must be/);
  t.throws(() => addon.allPairsAbove!(m, 2, NaN), /threshold/);
  t.throws(() => addon.allPairsAbove!(new Float64Array(6), 2, 0.5));
  t.throws(() => addon.unionFind!(2, new Uint32Array([5]), new Uint32Array([0])), /not below n/);
  t.throws(() => addon.normalizeRows!(m, -3), /dim/);
});

t.test('native matches the reference on random matrices, at every SIMD level', { skip: ADDON_ABSENT }, async (t) => {
  const native = nativeVectors!;
  const detected = native.simdLevel();
  for (const level of availableLevels(native)) {
    t.equal(native.setSimdLevel(level), level);
    const random = seededRandom(0x5eed + level.length);
    for (const dim of DIMS) {
      const normalizeErrors: string[] = [];
      const topErrors: string[] = [];
      const pairErrors: string[] = [];
      let nearTies = 0;
      let pairsCompared = 0;
      const trials = dim >= 200 ? 4 : 8;
      for (let trial = 0; trial < trials; trial++) {
        const rows = trial === 0 ? 1 : 1 + Math.floor(random() * 300);
        const queryRows = 1 + Math.floor(random() * 40);

        // normalizeRows: the same association order on both sides, so bit-identical rows.
        const raw = new Float32Array(rows * dim).map(() => (random() < 0.02 ? 0 : gaussian(random) * 10));
        if (rows > 2) raw.fill(0, dim, 2 * dim);
        const viaNative = raw.slice();
        const viaReference = raw.slice();
        native.normalizeRows(viaNative, dim);
        referenceVectors.normalizeRows(viaReference, dim);
        if (viaNative.some((value, i) => !Object.is(value, viaReference[i]))) normalizeErrors.push(`rows ${rows}`);

        const matrix = makeMatrix(random, rows, dim);
        const queries = trial % 2 === 0 ? makeMatrix(random, queryRows, dim) : matrix.subarray(0, Math.min(rows, queryRows) * dim);
        // k from 1 to past the row count (clamped).
        const k = 1 + Math.floor(random() * (rows + 5));
        const top = topKDifferences(native.cosineTopK(queries, matrix, dim, k), referenceVectors.cosineTopK(queries, matrix, dim, k), queries, matrix, dim);
        topErrors.push(...top.errors.slice(0, 3).map((e) => `rows ${rows} k ${k}: ${e}`));
        nearTies += top.nearTies;

        const threshold = unambiguousThreshold(matrix, dim, -1 + 2 * random());
        const nativePairs = native.allPairsAbove(matrix, dim, threshold);
        pairsCompared += nativePairs.a.length;
        pairErrors.push(...pairDifferences(nativePairs, referenceVectors.allPairsAbove(matrix, dim, threshold)).map((e) => `rows ${rows} threshold ${threshold}: ${e}`));
      }
      t.same(normalizeErrors, [], `${level} dim ${dim}: normalizeRows bit-identical`);
      t.same(topErrors, [], `${level} dim ${dim}: cosineTopK same rows in order, scores within ${TOLERANCE} (${nearTies} rows at the cut within tolerance)`);
      t.same(pairErrors, [], `${level} dim ${dim}: allPairsAbove identical pairs (${pairsCompared}), scores within ${TOLERANCE}`);
    }

    // One-dimensional unit rows are ±1, 0 or NaN and every score is exact, so thresholds may sit
    // exactly on scores: -1, 0 and 1 test the >= comparison itself.
    const exact = makeMatrix(random, 120, 1);
    for (const threshold of [-1, 0, 1, 0.5]) {
      t.same(pairDifferences(native.allPairsAbove(exact, 1, threshold), referenceVectors.allPairsAbove(exact, 1, threshold)), [], `${level}: exact scores at threshold ${threshold}`);
    }
    t.same(topKDifferences(native.cosineTopK(exact, exact, 1, 200), referenceVectors.cosineTopK(exact, exact, 1, 200), exact, exact, 1).errors, [], `${level}: exact ties ordered by index`);
  }
  native.setSimdLevel(detected);
});

t.test('native handles blocks larger than one L2-sized tile block, and empty inputs', { skip: ADDON_ABSENT }, async (t) => {
  const native = nativeVectors!;
  const detected = native.simdLevel();
  const random = seededRandom(99);
  const dim = 384;
  // About 680 rows of 384 floats fill one 1 MiB block: 700 queries and 800 rows take two.
  const matrix = makeMatrix(random, 800, dim, false);
  const queries = makeMatrix(random, 700, dim);
  const threshold = unambiguousThreshold(matrix, dim, 0.1);
  const referenceTop = referenceVectors.cosineTopK(queries, matrix.subarray(0, 300 * dim), dim, 7);
  const referencePairs = referenceVectors.allPairsAbove(matrix, dim, threshold);
  for (const level of availableLevels(native)) {
    native.setSimdLevel(level);
    const top = topKDifferences(native.cosineTopK(queries, matrix.subarray(0, 300 * dim), dim, 7), referenceTop, queries, matrix.subarray(0, 300 * dim), dim);
    t.same(top.errors, [], `${level}: 700 queries × 300 rows`);
    const pairs = native.allPairsAbove(matrix, dim, threshold);
    t.ok(pairs.a.length > 100, `${level}: threshold ${threshold.toFixed(4)} keeps ${pairs.a.length} pairs`);
    t.same(pairDifferences(pairs, referencePairs), [], `${level}: all pairs of 800 rows`);
  }
  native.setSimdLevel(detected);
  const empty = new Float32Array(0);
  const none = native.cosineTopK(matrix.subarray(0, dim), empty, dim, 5);
  t.same([none.indices.length, none.scores.length], [0, 0], 'no rows: k clamps to 0');
  t.equal(native.allPairsAbove(empty, dim, 0).a.length, 0, 'no rows: no pairs');
  t.equal(native.cosineTopK(empty, matrix, dim, 3).indices.length, 0, 'no queries: nothing');
});

const LEVELS = nativeVectors ? availableLevels(nativeVectors) : [];
const BOTH_X86_KERNELS = LEVELS.includes('avx512') && LEVELS.includes('avx2') ? false : `this CPU runs only ${LEVELS.join(', ') || 'the JS reference'}`;

t.test('the AVX2 and AVX-512 kernels give bit-identical scores (same FMA chain per output)', { skip: ADDON_ABSENT || BOTH_X86_KERNELS }, async (t) => {
  const native = nativeVectors!;
  const detected = native.simdLevel();
  const random = seededRandom(3);
  const matrix = makeMatrix(random, 257, 384);
  const results = (['avx512', 'avx2'] as const).map((level) => {
    native.setSimdLevel(level);
    return { top: native.cosineTopK(matrix, matrix, 384, 9), pairs: native.allPairsAbove(matrix, 384, 0.05) };
  });
  native.setSimdLevel(detected);
  t.same(results[0]!.top, results[1]!.top);
  t.same(results[0]!.pairs, results[1]!.pairs);
});

t.test('async variants resolve to the sync results', async (t) => {
  const random = seededRandom(11);
  const matrix = makeMatrix(random, 150, 64);
  const queries = makeMatrix(random, 20, 64);
  const backends: [string, VectorOps][] = [['reference', referenceVectors]];
  if (nativeVectors) backends.push(['native', nativeVectors]);
  for (const [name, ops] of backends) {
    const [top, pairs] = await Promise.all([ops.cosineTopKAsync(queries, matrix, 64, 5), ops.allPairsAboveAsync(matrix, 64, 0.2)]);
    t.same(top, ops.cosineTopK(queries, matrix, 64, 5), `${name}: cosineTopKAsync`);
    t.same(pairs, ops.allPairsAbove(matrix, 64, 0.2), `${name}: allPairsAboveAsync`);
  }
});

t.test('native async variants run off the event loop', { skip: ADDON_ABSENT }, async (t) => {
  const random = seededRandom(12);
  // Big enough that the sync call takes several milliseconds; the async one must let the loop spin.
  const native = nativeVectors!;
  const big = makeMatrix(random, 3000, 384, false);
  const syncStart = performance.now();
  const expected = native.allPairsAbove(big, 384, 0.3);
  const syncMs = performance.now() - syncStart;
  let turns = 0;
  let done = false;
  const spin = (): void => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  // The arrays are held only by the pending task: no copy, and they must survive until it settles.
  const [pairs, top] = await Promise.all([native.allPairsAboveAsync(big, 384, 0.3), native.cosineTopKAsync(big.subarray(0, 200 * 384), big, 384, 4)]);
  done = true;
  t.same(pairs, expected, 'same pairs as the sync call');
  t.same(top, native.cosineTopK(big.subarray(0, 200 * 384), big, 384, 4), 'same top-k as the sync call');
  t.ok(turns >= 10, `the event loop turned ${turns} times while ${syncMs.toFixed(1)} ms of work ran off-thread`);
});

t.test('pending async calls keep their input arrays alive through garbage collection', { skip: ADDON_ABSENT }, async (t) => {
  // In a child with --expose-gc: the arrays are referenced only by the pending tasks while the
  // collector runs and memory churns; results must equal those of the same data held normally.
  const moduleUrl = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'native', 'index.js')).href;
  const script = `
    const { nativeVectors: v } = await import(${JSON.stringify(moduleUrl)});
    const make = (seed, rows) => {
      const m = new Float32Array(rows * 128);
      let s = seed;
      for (let i = 0; i < m.length; i++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; m[i] = s / 2 ** 32 - 0.5; }
      v.normalizeRows(m, 128);
      return m;
    };
    const pending = [v.allPairsAboveAsync(make(1, 1500), 128, 0.2), v.cosineTopKAsync(make(2, 300), make(3, 1500), 128, 5)];
    for (let i = 0; i < 20; i++) { globalThis.gc(); new Float32Array(1 << 20).fill(i); }
    const [pairs, top] = await Promise.all(pending);
    const expectedPairs = v.allPairsAbove(make(1, 1500), 128, 0.2);
    const expectedTop = v.cosineTopK(make(2, 300), make(3, 1500), 128, 5);
    const same = (x, y) => x.length === y.length && x.every((value, i) => Object.is(value, y[i]));
    console.log(JSON.stringify({ pairs: pairs.a.length, same: same(pairs.a, expectedPairs.a) && same(pairs.b, expectedPairs.b) && same(pairs.score, expectedPairs.score) && same(top.indices, expectedTop.indices) && same(top.scores, expectedTop.scores) }));
  `;
  const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const { pairs, same } = JSON.parse(output) as { pairs: number; same: boolean };
  t.ok(pairs > 0, `${pairs} pairs found`);
  t.ok(same, 'results equal the sync results on the same data');
});

t.test('backend choice: a missing addon falls back to the reference with one warning; MENU_NATIVE=off forces JS', async (t) => {
  const warnings: string[] = [];
  const missing = chooseBackend({ addonPath: join(REPO_ROOT, 'native', 'no-such-addon.node'), disabled: false, warn: (m) => warnings.push(m) });
  t.equal(missing.active, referenceVectors);
  t.equal(missing.native, null);
  t.equal(warnings.length, 1);
  t.match(warnings[0], /native vector addon unavailable/);
  const disabled = chooseBackend({ addonPath: NATIVE_ADDON_PATH, disabled: true, warn: (m) => warnings.push(m) });
  t.equal(disabled.active, referenceVectors);
  t.equal(warnings.length, 1, 'turning it off on purpose is not worth a warning');

  const moduleUrl = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'native', 'index.js')).href;
  const script = `const v = await import(${JSON.stringify(moduleUrl)}); console.log(v.vectorBackend, v.nativeVectors === null, v.simdLevel());`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, MENU_NATIVE: 'off' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  t.equal(output.trim(), 'js true scalar');
  if (nativeVectors) t.match(facade.vectorBackend, /^rust-(avx512|avx2|scalar)$/, 'the addon is the default when present');
  else t.equal(facade.vectorBackend, 'js');
});

t.test('setSimdLevel caps the level, is reflected in vectorBackend, and peakGflops measures something', { skip: ADDON_ABSENT }, async (t) => {
  const detected = facade.simdLevel();
  t.equal(facade.setSimdLevel('scalar'), 'scalar');
  t.equal(facade.vectorBackend, 'rust-scalar');
  t.equal(facade.setSimdLevel('avx512'), detected, 'never above what the CPU has');
  t.equal(facade.vectorBackend, `rust-${detected}`);
  const gflops = facade.peakGflops(20);
  t.ok(Number.isFinite(gflops) && gflops > 0.5, `peak ${gflops.toFixed(1)} GFLOP/s`);
});
