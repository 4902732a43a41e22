import { basename, resolve } from 'node:path';
import { clusterNodes, indexCandidates, nodeKey, nodeSet, allPairsCandidates, ANN_CROSSOVER_NODES, type CandidateEdges, type CandidateSource, type NodeSet } from '../dedup.js';
import { DEFAULT_COSINE_THRESHOLD, type PairPrecision } from '../match.js';
import type { Knowledge } from '../knowledge/index.js';
import { parseCleanedText, parseMenuText, type MenuText } from '../menu-text.js';
import { predictCuisines } from '../classify.js';
import type { EncoderHeads } from '../heads.js';
import { judgeNonFood } from '../nonfood.js';
import { qualityScore, MAX_NOISE_EXAMPLES, MAX_TOP_CLUSTERS, type NoiseExample } from '../report.js';
import { CatalogStore } from './catalog-store.js';
import { EmbeddingStore } from './embedding-store.js';
import { InputError, isRowError, readCatalogRows, type InputOptions } from './input.js';
import { ERROR_COLUMNS, OutputFile, csvLine, npyHeader } from './output.js';
import { percentOf, roundScore } from '../number-format.js';

/**
 * A catalog run: a whole platform's or chain's items (100k, millions) through the same cleaning, embedding,
 * clustering and classification as the HTTP API, without HTTP, in stages that each report progress:
 *
 *   clean    stream the rows; intern originals, cleaned texts and names (nodeKey, as /dedup groups them)
 *   embed    each distinct cleaned text once, through an on-disk store keyed by model + text (a rerun reuses it)
 *   index    an HNSW index over the names' vectors and a range query per name: the candidate pairs
 *   cluster  the judge and union-find with the anti-chaining split: dedup.ts's clusterNodes, the code /dedup runs
 *   classify cuisine, course, diet per cleaned text; non-food per original (the /classify and /report code)
 *   write    PREFIX.csv / PREFIX.jsonl / … through `.partial` files renamed at the end
 *
 * Rows are never held as objects: see CatalogStore.
 */
export type CatalogCommand = 'dedup' | 'classify' | 'report' | 'embed';
export type StageName = 'clean' | 'embed' | 'index' | 'cluster' | 'classify' | 'write';

export interface StageProgress {
  /** A stage begins; total null when unknown (standard input). */
  start(stage: StageName, total: number | null, unit: string): void;
  update(done: number, total?: number | null): void;
  /** The stage is over; `note` is a short summary ("1,204 cached, 98,320 embedded"). */
  end(note: string): void;
}

/** Embeds cleaned texts (the service's encoder at 384 dimensions; tests pass a counting fake). */
export interface TextEmbedder {
  /** Part of the on-disk store's key: vectors of another model are never reused. */
  readonly id: string;
  readonly dim: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface CatalogDeps {
  readonly embedder: TextEmbedder;
  /** The food knowledge every stage reads (services.knowledge); its cleaner cleans the rows. */
  readonly knowledge: Knowledge;
  /** What scores pairs after the knowledge base (services.pairPrecision()). */
  readonly precision: PairPrecision;
  /** The classifier heads for the embedder's vectors (services.heads). */
  readonly heads: EncoderHeads;
}

export type CandidateMode = 'auto' | 'index' | 'all-pairs';

export interface CatalogOptions {
  readonly command: CatalogCommand;
  readonly input: Omit<InputOptions, 'onBytes'>;
  readonly outPrefix: string;
  /** Default `<outPrefix>.cache`. */
  readonly cacheDir?: string;
  readonly cosineThreshold?: number;
  readonly candidates?: CandidateMode;
  readonly embedBatch?: number;
  readonly signal?: AbortSignal;
  readonly progress?: StageProgress;
}

export interface CatalogResult {
  readonly command: CatalogCommand;
  readonly rows: number;
  readonly rowErrors: number;
  readonly distinctOriginals: number;
  readonly distinctTexts: number;
  readonly names: number;
  readonly embedded: number;
  readonly reusedEmbeddings: number;
  readonly clusters: number | null;
  readonly duplicateItems: number | null;
  readonly candidatePairs: number | null;
  readonly files: readonly string[];
  readonly seconds: Partial<Record<StageName, number>>;
  readonly cacheDir: string;
}

/** Thrown when the run's signal fires; `stage` is where it stopped. */
export class CatalogInterrupted extends Error {
  constructor(readonly stage: StageName, readonly embeddingsStored: number, readonly cacheDir: string) {
    super(`interrupted during ${stage}`);
  }
}

const EMBED_BATCH = 512;
const READ_BLOCK = 8192;

const silent: StageProgress = { start() {}, update() {}, end() {} };

/** What the read stage leaves: the store and the error report, still open until the run commits. */
export interface ReadCatalog {
  readonly store: CatalogStore;
  readonly errors: OutputFile;
  readonly errorCount: number;
}

/** Stage clean: streams the input into a CatalogStore; bad rows go to PREFIX.errors.csv. */
export async function readCatalog(
  input: Omit<InputOptions, 'onBytes'>,
  k: Knowledge,
  outPrefix: string,
  progress: StageProgress,
  signal?: AbortSignal,
  cacheDir = '',
): Promise<ReadCatalog> {
  const store = new CatalogStore();
  const errors = new OutputFile(`${outPrefix}.errors.csv`);
  errors.write(csvLine(ERROR_COLUMNS));
  let errorCount = 0;
  progress.start('clean', input.path === '-' ? null : 0, input.path === '-' ? 'rows' : 'bytes');
  let lastBytes = 0;
  let total: number | null = null;
  try {
    const rows = readCatalogRows({ ...input, onBytes: (read, size) => ((lastBytes = read), (total = size)) });
    let seen = 0;
    for await (const r of rows) {
      if (++seen % 2048 === 0) {
        if (signal?.aborted) throw new CatalogInterrupted('clean', 0, cacheDir);
        progress.update(input.path === '-' ? seen : lastBytes, total);
      }
      if (isRowError(r)) {
        errorCount++;
        errors.write(csvLine([r.row, r.line, r.error, r.excerpt]));
        continue;
      }
      let original = store.originals.get(r.text);
      if (original === undefined) {
        original = store.originals.id(r.text);
        const read = parseMenuText(k, r.text);
        const text = store.texts.id(read.text);
        store.originalText.push(text);
        store.originalNoisy.push(read.removed.length > 0 ? 1 : 0);
        const before = store.nodeKeys.size;
        const node = store.nodeKeys.id(nodeKey(read));
        if (node === before) store.nodeText.push(text);
        store.originalNode.push(node);
      }
      store.rowNumber.push(r.row);
      store.rowOriginal.push(original);
      store.rowRestaurant.push(r.restaurant === null ? -1 : store.restaurants.id(r.restaurant));
      store.rowOutlet.push(r.outlet === null ? -1 : store.outlets.id(r.outlet));
    }
  } catch (err) {
    errors.discard();
    throw err;
  }
  progress.update(input.path === '-' ? store.rows + errorCount : lastBytes, total ?? lastBytes);
  progress.end(`${fmt(store.rows)} rows, ${fmt(errorCount)} bad, ${fmt(store.texts.size)} distinct texts, ${fmt(store.nodeKeys.size)} names`);
  return { store, errors, errorCount };
}

/** Stage embed: every distinct cleaned text not yet in the on-disk store. */
export async function embedCatalog(
  texts: readonly string[],
  embedder: TextEmbedder,
  vectors: EmbeddingStore,
  progress: StageProgress,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<{ embedded: number; reused: number }> {
  const missing: string[] = [];
  for (const t of texts) if (vectors.slotOf(t) === undefined) missing.push(t);
  const reused = texts.length - missing.length;
  progress.start('embed', texts.length, 'texts');
  progress.update(reused);
  const batch = options.batch ?? EMBED_BATCH;
  for (let start = 0; start < missing.length; start += batch) {
    if (options.signal?.aborted) throw new CatalogInterrupted('embed', vectors.size, vectors.dir);
    const part = missing.slice(start, start + batch);
    vectors.append(part, await embedder.embed(part));
    progress.update(reused + Math.min(missing.length, start + batch));
  }
  progress.end(`${fmt(reused)} reused from ${vectors.dir}, ${fmt(missing.length)} embedded`);
  return { embedded: missing.length, reused };
}

/**
 * The names (nodes) of a catalog with their vectors read back from the store. A node's text is read from its cleaned
 * text (parseCleanedText): clustering reads only what cleaning made of a name, and the store keeps no row objects.
 */
export function catalogNodes(k: Knowledge, store: CatalogStore, vectors: EmbeddingStore): NodeSet {
  const n = store.nodeKeys.size;
  const dim = vectors.dim;
  const matrix = new Float32Array(n * dim);
  const slots = new Int32Array(n);
  const text: MenuText[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const cleaned = store.texts.values[store.nodeText.get(i)]!;
    text[i] = parseCleanedText(k, cleaned);
    const slot = vectors.slotOf(cleaned);
    if (slot === undefined) throw new Error(`no stored vector for "${cleaned}"`);
    slots[i] = slot;
  }
  for (let start = 0; start < n; start += READ_BLOCK) {
    const end = Math.min(n, start + READ_BLOCK);
    vectors.read(slots.subarray(start, end), matrix.subarray(start * dim, end * dim));
  }
  return nodeSet(text, matrix, dim);
}

function candidateSourceFor(mode: CandidateMode, n: number, progress: StageProgress): CandidateSource {
  const useIndex = mode === 'index' || (mode === 'auto' && n >= ANN_CROSSOVER_NODES);
  if (!useIndex) return allPairsCandidates;
  return indexCandidates({ onProgress: (phase, done, total) => progress.update(phase === 'build' ? done : total + done, 2 * total) });
}

/** Node → group index, from clusterNodes' groups. */
export interface Clustering {
  readonly nodeGroup: Int32Array;
  readonly groups: number;
  readonly candidatePairs: number;
}

/** Stages index and cluster. */
export async function clusterCatalog(
  k: Knowledge,
  nodes: NodeSet,
  options: { threshold: number; precision: PairPrecision; mode?: CandidateMode; precomputed?: CandidateEdges; signal?: AbortSignal; progress: StageProgress; cacheDir: string; stored: number },
): Promise<Clustering> {
  const { progress } = options;
  let candidates: CandidateEdges;
  if (options.precomputed) {
    candidates = options.precomputed;
  } else {
    progress.start('index', 2 * nodes.count, 'names');
    candidates = await candidateSourceFor(options.mode ?? 'auto', nodes.count, progress)(nodes, options.threshold);
    progress.update(2 * nodes.count, 2 * nodes.count);
    progress.end(`${fmt(candidates.a.length)} candidate pairs at cosine ≥ ${options.threshold}`);
  }
  if (options.signal?.aborted) throw new CatalogInterrupted('index', options.stored, options.cacheDir);
  progress.start('cluster', nodes.count, 'pairs');
  let judgeTotal = 0;
  const clustering = await clusterNodes(
    k,
    nodes,
    { cosineThreshold: options.threshold, precision: options.precision, candidates: async () => candidates },
    {
      onPhase: (phase, done, total) => {
        if (options.signal?.aborted) throw new CatalogInterrupted('cluster', options.stored, options.cacheDir);
        if (phase === 'judge') {
          judgeTotal = total;
          progress.update(done, total + nodes.count);
        } else if (phase === 'split') progress.update(judgeTotal + done, judgeTotal + nodes.count);
      },
    },
  );
  const nodeGroup = new Int32Array(nodes.count);
  clustering.groups.forEach((g, k) => g.forEach((node) => (nodeGroup[node] = k)));
  progress.end(`${fmt(clustering.stats.accepted)} pairs accepted, ${fmt(clustering.stats.chainSplits)} chains split`);
  return { nodeGroup, groups: clustering.groups.length, candidatePairs: clustering.stats.candidates };
}

/** Clusters over rows: ids in order of first row, canonical the shortest original (ties: earliest row). */
export interface RowClusters {
  /** Per row: 1-based cluster id, 0 when the row is a singleton. */
  readonly rowCluster: Int32Array;
  /** Per cluster id (index = id − 1): canonical row index, size. */
  readonly canonicalRow: Int32Array;
  readonly size: Int32Array;
  readonly clusters: number;
  readonly duplicateItems: number;
}

export function rowClusters(store: CatalogStore, clustering: Clustering): RowClusters {
  const rows = store.rows;
  const groupOfRow = (r: number): number => clustering.nodeGroup[store.originalNode.get(store.rowOriginal.get(r))]!;
  const groupSize = new Int32Array(clustering.groups);
  for (let r = 0; r < rows; r++) groupSize[groupOfRow(r)]!++;
  const groupId = new Int32Array(clustering.groups); // 0 = singleton
  const charLength = new Map<number, number>();
  const lengthOf = (original: number): number => {
    let n = charLength.get(original);
    if (n === undefined) charLength.set(original, (n = [...store.originals.values[original]!].length));
    return n;
  };
  const canonical: number[] = [];
  const size: number[] = [];
  const rowCluster = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    const g = groupOfRow(r);
    if (groupSize[g]! < 2) continue;
    let id = groupId[g]!;
    if (id === 0) {
      id = groupId[g] = canonical.length + 1;
      canonical.push(r);
      size.push(groupSize[g]!);
    } else if (lengthOf(store.rowOriginal.get(r)) < lengthOf(store.rowOriginal.get(canonical[id - 1]!))) {
      canonical[id - 1] = r;
    }
    rowCluster[r] = id;
  }
  return {
    rowCluster,
    canonicalRow: Int32Array.from(canonical),
    size: Int32Array.from(size),
    clusters: canonical.length,
    duplicateItems: size.reduce((s, n) => s + n - 1, 0),
  };
}

/** Per cleaned text: cuisine, course, diet; per original: non-food category. */
export interface Classification {
  readonly cuisine: string[];
  readonly cuisineConfidence: Float32Array;
  readonly course: string[];
  readonly diet: string[];
  /** Per original: '' for food, else pharmacy / grocery / merchandise. */
  readonly nonFood: string[];
}

export async function classifyCatalog(
  k: Knowledge,
  store: CatalogStore,
  vectors: EmbeddingStore,
  heads: EncoderHeads,
  progress: StageProgress,
  signal: AbortSignal | undefined,
): Promise<Classification> {
  const texts = store.texts.values;
  const originals = store.originals.values;
  const dim = vectors.dim;
  progress.start('classify', texts.length + originals.length, 'texts');
  const cuisine: string[] = new Array(texts.length);
  const cuisineConfidence = new Float32Array(texts.length);
  const course: string[] = new Array(texts.length);
  const diet: string[] = new Array(texts.length);
  const block = new Float32Array(READ_BLOCK * dim);
  const rowsOf = (m: Float32Array, n: number): Float32Array[] => Array.from({ length: n }, (_, r) => m.subarray(r * dim, (r + 1) * dim));
  for (let start = 0; start < texts.length; start += READ_BLOCK) {
    if (signal?.aborted) throw new CatalogInterrupted('classify', vectors.size, vectors.dir);
    const part = texts.slice(start, start + READ_BLOCK);
    vectors.read(part.map((t) => vectors.slotOf(t)!), block);
    const read = part.map((t) => parseCleanedText(k, t));
    const labels = predictCuisines(k, heads, read, rowsOf(block, part.length));
    read.forEach((t, j) => {
      const p = t.profile;
      cuisine[start + j] = labels[j]!.cuisine;
      cuisineConfidence[start + j] = labels[j]!.confidence;
      course[start + j] = p.course;
      diet[start + j] = p.diet;
    });
    progress.update(Math.min(texts.length, start + READ_BLOCK));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const nonFood: string[] = new Array(originals.length);
  for (let start = 0; start < originals.length; start += READ_BLOCK) {
    if (signal?.aborted) throw new CatalogInterrupted('classify', vectors.size, vectors.dir);
    const end = Math.min(originals.length, start + READ_BLOCK);
    // The non-food rules read the original beside its cleaned text; the store keeps no row objects, so each original
    // is read again here (the same reading the clean stage made: the knowledge's memo keeps the most recent ones).
    const items: MenuText[] = [];
    const slots: number[] = [];
    for (let o = start; o < end; o++) {
      const item = parseMenuText(k, originals[o]!);
      items.push(item);
      slots.push(vectors.slotOf(texts[store.originalText.get(o)]!)!);
    }
    vectors.read(slots, block);
    judgeNonFood(k, heads, items, rowsOf(block, items.length)).forEach((v, j) => (nonFood[start + j] = v.category ?? ''));
    progress.update(texts.length + end);
    await new Promise((resolve) => setImmediate(resolve));
  }
  progress.end(`${fmt(texts.length)} texts, ${fmt(originals.length)} originals`);
  return { cuisine, cuisineConfidence, course, diet, nonFood };
}

const fmt = (n: number): string => n.toLocaleString('en-US');

/** The whole run for one command, single process. */
export async function runCatalog(options: CatalogOptions, deps: CatalogDeps): Promise<CatalogResult> {
  const progress = options.progress ?? silent;
  const seconds: Partial<Record<StageName, number>> = {};
  const cacheDir = options.cacheDir ?? `${options.outPrefix}.cache`;
  const timed = async <T>(stage: StageName, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      seconds[stage] = (seconds[stage] ?? 0) + (performance.now() - t0) / 1000;
    }
  };
  const outputNames = ['.csv', '.jsonl', '.json', '.npy', '.errors.csv'].map((ext) => resolve(`${options.outPrefix}${ext}`));
  if (options.input.path !== '-' && outputNames.includes(resolve(options.input.path))) {
    throw new InputError(`--out ${options.outPrefix} would overwrite the input ${options.input.path}`);
  }
  const read = await timed('clean', () => readCatalog(options.input, deps.knowledge, options.outPrefix, progress, options.signal, cacheDir));
  const vectors = EmbeddingStore.open(cacheDir, deps.embedder.id, deps.embedder.dim);
  const outputs: OutputFile[] = [read.errors];
  try {
    const { store } = read;
    const { embedded, reused } = await timed('embed', () =>
      embedCatalog(store.texts.values, deps.embedder, vectors, progress, { batch: options.embedBatch, signal: options.signal }),
    );
    const threshold = options.cosineThreshold ?? DEFAULT_COSINE_THRESHOLD;
    let clusters: RowClusters | null = null;
    let candidatePairs: number | null = null;
    if (options.command === 'dedup' || options.command === 'report') {
      const nodes = await timed('index', async () => catalogNodes(deps.knowledge, store, vectors));
      const clustering = await clusterCatalog(deps.knowledge, nodes, {
        threshold,
        precision: deps.precision,
        mode: options.candidates,
        signal: options.signal,
        progress: timingProgress(progress, seconds),
        cacheDir,
        stored: vectors.size,
      });
      candidatePairs = clustering.candidatePairs;
      clusters = rowClusters(store, clustering);
    }
    let classification: Classification | null = null;
    if (options.command === 'classify' || options.command === 'report') {
      classification = await timed('classify', () => classifyCatalog(deps.knowledge, store, vectors, deps.heads, progress, options.signal));
    }
    await timed('write', async () => {
      progress.start('write', store.rows, 'rows');
      if (options.command === 'dedup') outputs.push(...writeDedup(store, clusters!, options.outPrefix, progress, options.signal, vectors));
      else if (options.command === 'classify') outputs.push(...writeClassification(store, classification!, options.outPrefix, progress, options.signal, vectors));
      else if (options.command === 'report') outputs.push(...writeReport(store, clusters!, classification!, options.outPrefix, progress, options.signal, vectors));
      else outputs.push(...writeEmbeddings(store, vectors, options.outPrefix, progress, options.signal));
      progress.end(`${outputs.length} files`);
    });
    for (const f of outputs) f.commit();
    return {
      command: options.command,
      rows: store.rows,
      rowErrors: read.errorCount,
      distinctOriginals: store.originals.size,
      distinctTexts: store.texts.size,
      names: store.nodeKeys.size,
      embedded,
      reusedEmbeddings: reused,
      clusters: clusters?.clusters ?? null,
      duplicateItems: clusters?.duplicateItems ?? null,
      candidatePairs,
      files: outputs.map((f) => f.path),
      seconds,
      cacheDir,
    };
  } catch (err) {
    for (const f of outputs) f.discard();
    throw err;
  } finally {
    vectors.close();
  }
}

/** Splits the time of clusterCatalog's two stages (index, cluster) by the stage its progress says it is in. */
function timingProgress(inner: StageProgress, seconds: Partial<Record<StageName, number>>): StageProgress {
  let stage: StageName | null = null;
  let t0 = 0;
  return {
    start(s, total, unit) {
      stage = s;
      t0 = performance.now();
      inner.start(s, total, unit);
    },
    update: (done, total) => inner.update(done, total),
    end(note) {
      if (stage) seconds[stage] = (seconds[stage] ?? 0) + (performance.now() - t0) / 1000;
      inner.end(note);
    },
  };
}

function optional(interner: { values: string[] }, id: number): string {
  return id < 0 ? '' : interner.values[id]!;
}

function checkAbort(signal: AbortSignal | undefined, vectors: EmbeddingStore): void {
  if (signal?.aborted) throw new CatalogInterrupted('write', vectors.size, vectors.dir);
}

/** PREFIX.csv: one line per row with its cluster; PREFIX.jsonl: one line per cluster of two or more rows. */
export function writeDedup(store: CatalogStore, clusters: RowClusters, prefix: string, progress: StageProgress, signal: AbortSignal | undefined, vectors: EmbeddingStore): OutputFile[] {
  const csv = new OutputFile(`${prefix}.csv`);
  const jsonl = new OutputFile(`${prefix}.jsonl`);
  const files = [csv, jsonl];
  try {
    const originalOf = (r: number): string => store.originals.values[store.rowOriginal.get(r)]!;
    csv.write(csvLine(['row', 'text', 'restaurant', 'outlet', 'cluster_id', 'cluster_size', 'canonical', 'is_canonical']));
    for (let r = 0; r < store.rows; r++) {
      if (r % 65536 === 0) {
        checkAbort(signal, vectors);
        progress.update(r / 2);
      }
      const id = clusters.rowCluster[r]!;
      csv.write(csvLine([
        store.rowNumber.get(r),
        originalOf(r),
        optional(store.restaurants, store.rowRestaurant.get(r)),
        optional(store.outlets, store.rowOutlet.get(r)),
        id === 0 ? '' : id,
        id === 0 ? 1 : clusters.size[id - 1],
        id === 0 ? originalOf(r) : originalOf(clusters.canonicalRow[id - 1]!),
        id === 0 || clusters.canonicalRow[id - 1] === r,
      ]));
    }
    // Rows of each cluster in row order: a counting sort over cluster ids.
    const start = new Int32Array(clusters.clusters + 1);
    for (let r = 0; r < store.rows; r++) if (clusters.rowCluster[r]! > 0) start[clusters.rowCluster[r]!]!++;
    for (let c = 1; c <= clusters.clusters; c++) start[c]! += start[c - 1]!;
    const members = new Int32Array(start[clusters.clusters]!);
    const fill = start.slice(0, clusters.clusters);
    for (let r = 0; r < store.rows; r++) {
      const id = clusters.rowCluster[r]!;
      if (id > 0) members[fill[id - 1]!++] = r;
    }
    for (let c = 0; c < clusters.clusters; c++) {
      if (c % 8192 === 0) {
        checkAbort(signal, vectors);
        progress.update(store.rows / 2 + (store.rows / 2) * (c / clusters.clusters));
      }
      const rows = members.subarray(start[c]!, start[c + 1]!);
      jsonl.write(JSON.stringify({
        cluster_id: c + 1,
        canonical: originalOf(clusters.canonicalRow[c]!),
        size: rows.length,
        members: Array.from(rows, (r) => memberJson(store, r)),
      }) + '\n');
    }
    progress.update(store.rows);
    return files;
  } catch (err) {
    for (const f of files) f.discard();
    throw err;
  }
}

function memberJson(store: CatalogStore, r: number): Record<string, unknown> {
  const m: Record<string, unknown> = { row: store.rowNumber.get(r), text: store.originals.values[store.rowOriginal.get(r)] };
  const restaurant = store.rowRestaurant.get(r);
  const outlet = store.rowOutlet.get(r);
  if (restaurant >= 0) m.restaurant = store.restaurants.values[restaurant];
  if (outlet >= 0) m.outlet = store.outlets.values[outlet];
  return m;
}

/** PREFIX.csv and PREFIX.jsonl: one line per row with its cleaned text and labels. */
export function writeClassification(store: CatalogStore, c: Classification, prefix: string, progress: StageProgress, signal: AbortSignal | undefined, vectors: EmbeddingStore): OutputFile[] {
  const csv = new OutputFile(`${prefix}.csv`);
  const jsonl = new OutputFile(`${prefix}.jsonl`);
  const files = [csv, jsonl];
  try {
    csv.write(csvLine(['row', 'text', 'restaurant', 'outlet', 'cleaned', 'cuisine', 'cuisine_confidence', 'course', 'diet', 'non_food']));
    for (let r = 0; r < store.rows; r++) {
      if (r % 65536 === 0) {
        checkAbort(signal, vectors);
        progress.update(r);
      }
      const o = store.rowOriginal.get(r);
      const t = store.originalText.get(o);
      const values = {
        row: store.rowNumber.get(r),
        text: store.originals.values[o]!,
        restaurant: optional(store.restaurants, store.rowRestaurant.get(r)),
        outlet: optional(store.outlets, store.rowOutlet.get(r)),
        cleaned: store.texts.values[t]!,
        cuisine: c.cuisine[t]!,
        cuisine_confidence: roundScore(c.cuisineConfidence[t]!),
        course: c.course[t]!,
        diet: c.diet[t]!,
        non_food: c.nonFood[o]!,
      };
      csv.write(csvLine(Object.values(values)));
      jsonl.write(JSON.stringify({ ...values, restaurant: values.restaurant || null, outlet: values.outlet || null, non_food: values.non_food || null }) + '\n');
    }
    progress.update(store.rows);
    return files;
  } catch (err) {
    for (const f of files) f.discard();
    throw err;
  }
}

interface RestaurantTally {
  items: number;
  noisy: number;
  nonFood: number;
  duplicates: number;
  clusters: number;
  cuisines: Map<string, number>;
}

function distributionOf(counts: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)));
}

/** Items in a catalog report's lists are capped: a catalog's top cluster can hold thousands of rows. */
export const MAX_LISTED_MEMBERS = 50;
export const MAX_LISTED_NON_FOOD = 1000;

/**
 * PREFIX.json: the /report fields over the whole catalog (duplicates across restaurants count). PREFIX.csv and
 * PREFIX.jsonl: one line per restaurant, with the same fields over its own rows (duplicates within it).
 */
export function writeReport(
  store: CatalogStore,
  clusters: RowClusters,
  c: Classification,
  prefix: string,
  progress: StageProgress,
  signal: AbortSignal | undefined,
  vectors: EmbeddingStore,
): OutputFile[] {
  const json = new OutputFile(`${prefix}.json`);
  const csv = new OutputFile(`${prefix}.csv`);
  const jsonl = new OutputFile(`${prefix}.jsonl`);
  const files = [json, csv, jsonl];
  try {
    const tallies = new Map<number, RestaurantTally>();
    const tallyOf = (id: number): RestaurantTally => {
      let t = tallies.get(id);
      if (!t) tallies.set(id, (t = { items: 0, noisy: 0, nonFood: 0, duplicates: 0, clusters: 0, cuisines: new Map() }));
      return t;
    };
    const cuisines = new Map<string, number>();
    let noisy = 0;
    let nonFoodRows = 0;
    const examples: NoiseExample[] = [];
    const shown = new Set<number>();
    const nonFoodListed = new Map<number, string>();
    // Rows of one restaurant in one cluster: the first is the item, the rest its duplicates.
    const seenInCluster = new Map<string, number>();
    for (let r = 0; r < store.rows; r++) {
      if (r % 65536 === 0) {
        checkAbort(signal, vectors);
        progress.update(r);
      }
      const o = store.rowOriginal.get(r);
      const t = store.originalText.get(o);
      const tally = tallyOf(store.rowRestaurant.get(r));
      tally.items++;
      if (store.originalNoisy[o]) {
        noisy++;
        tally.noisy++;
        if (examples.length < MAX_NOISE_EXAMPLES && !shown.has(o)) {
          shown.add(o);
          examples.push({ original: store.originals.values[o]!, cleaned: store.texts.values[t]! });
        }
      }
      if (c.nonFood[o]) {
        nonFoodRows++;
        tally.nonFood++;
        if (nonFoodListed.size < MAX_LISTED_NON_FOOD && !nonFoodListed.has(o)) nonFoodListed.set(o, c.nonFood[o]!);
      } else {
        cuisines.set(c.cuisine[t]!, (cuisines.get(c.cuisine[t]!) ?? 0) + 1);
        tally.cuisines.set(c.cuisine[t]!, (tally.cuisines.get(c.cuisine[t]!) ?? 0) + 1);
      }
      const id = clusters.rowCluster[r]!;
      if (id > 0) {
        const key = `${id}:${store.rowRestaurant.get(r)}`;
        const n = (seenInCluster.get(key) ?? 0) + 1;
        seenInCluster.set(key, n);
        if (n >= 2) tally.duplicates++;
        if (n === 2) tally.clusters++;
      }
    }
    const distribution = distributionOf(cuisines);
    const top = Array.from({ length: clusters.clusters }, (_, k) => k)
      .sort((x, y) => clusters.size[y]! - clusters.size[x]! || x - y)
      .slice(0, MAX_TOP_CLUSTERS);
    const topMembers = new Map<number, Set<string>>(top.map((k) => [k + 1, new Set<string>()]));
    for (let r = 0; r < store.rows; r++) {
      const set = topMembers.get(clusters.rowCluster[r]!);
      if (set && set.size < MAX_LISTED_MEMBERS) set.add(store.originals.values[store.rowOriginal.get(r)]!);
    }
    const report = {
      catalog: basename(prefix),
      total_items: store.rows,
      restaurants: [...tallies.keys()].filter((id) => id >= 0).length,
      noise_analysis: { items_with_noise: noisy, noise_percentage: percentOf(noisy, store.rows), examples },
      dedup_summary: {
        total_clusters: clusters.clusters,
        total_duplicate_items: clusters.duplicateItems,
        top_clusters: top.map((k) => ({
          canonical: store.originals.values[store.rowOriginal.get(clusters.canonicalRow[k]!)]!,
          size: clusters.size[k]!,
          members: [...topMembers.get(k + 1)!],
        })),
      },
      cuisine_breakdown: { distribution },
      non_food_count: nonFoodRows,
      non_food_items: [...nonFoodListed].map(([o, category]) => ({ item: store.originals.values[o]!, category })),
      quality_score: qualityScore({ totalItems: store.rows, duplicateItems: clusters.duplicateItems, noisyItems: noisy, nonFoodItems: nonFoodRows, distribution }),
    };
    json.write(JSON.stringify(report, null, 2) + '\n');
    csv.write(csvLine(['restaurant', 'total_items', 'items_with_noise', 'noise_percentage', 'duplicate_items', 'duplicate_clusters', 'non_food_items', 'top_cuisine', 'quality_score']));
    const ordered = [...tallies].sort((x, y) => y[1].items - x[1].items || x[0] - y[0]);
    for (const [id, t] of ordered) {
      const dist = distributionOf(t.cuisines);
      const topCuisine = Object.keys(dist).find((k) => k !== 'uncertain') ?? '';
      const quality = qualityScore({ totalItems: t.items, duplicateItems: t.duplicates, noisyItems: t.noisy, nonFoodItems: t.nonFood, distribution: dist });
      const name = optional(store.restaurants, id);
      csv.write(csvLine([name, t.items, t.noisy, percentOf(t.noisy, t.items), t.duplicates, t.clusters, t.nonFood, topCuisine, quality]));
      jsonl.write(JSON.stringify({
        restaurant: id < 0 ? null : name,
        total_items: t.items,
        noise_analysis: { items_with_noise: t.noisy, noise_percentage: percentOf(t.noisy, t.items) },
        dedup_summary: { total_clusters: t.clusters, total_duplicate_items: t.duplicates },
        cuisine_breakdown: { distribution: dist },
        non_food_items: t.nonFood,
        quality_score: quality,
      }) + '\n');
    }
    progress.update(store.rows);
    return files;
  } catch (err) {
    for (const f of files) f.discard();
    throw err;
  }
}

/** PREFIX.npy: the distinct cleaned texts' vectors (float32, texts × dim); PREFIX.csv / .jsonl: row → vector_index. */
export function writeEmbeddings(store: CatalogStore, vectors: EmbeddingStore, prefix: string, progress: StageProgress, signal: AbortSignal | undefined): OutputFile[] {
  const npy = new OutputFile(`${prefix}.npy`);
  const csv = new OutputFile(`${prefix}.csv`);
  const jsonl = new OutputFile(`${prefix}.jsonl`);
  const files = [npy, csv, jsonl];
  try {
    const texts = store.texts.values;
    npy.writeBytes(npyHeader(texts.length, vectors.dim));
    const block = new Float32Array(READ_BLOCK * vectors.dim);
    for (let start = 0; start < texts.length; start += READ_BLOCK) {
      checkAbort(signal, vectors);
      const part = texts.slice(start, start + READ_BLOCK);
      vectors.read(part.map((t) => vectors.slotOf(t)!), block);
      npy.writeBytes(new Uint8Array(block.buffer, 0, part.length * vectors.dim * 4));
    }
    csv.write(csvLine(['row', 'text', 'restaurant', 'outlet', 'cleaned', 'vector_index']));
    for (let r = 0; r < store.rows; r++) {
      if (r % 65536 === 0) {
        checkAbort(signal, vectors);
        progress.update(r);
      }
      const o = store.rowOriginal.get(r);
      const t = store.originalText.get(o);
      const values = [store.rowNumber.get(r), store.originals.values[o]!, optional(store.restaurants, store.rowRestaurant.get(r)), optional(store.outlets, store.rowOutlet.get(r)), texts[t]!, t] as const;
      csv.write(csvLine(values));
      jsonl.write(JSON.stringify({ row: values[0], text: values[1], restaurant: values[2] || null, outlet: values[3] || null, cleaned: values[4], vector_index: t }) + '\n');
    }
    progress.update(store.rows);
    return files;
  } catch (err) {
    for (const f of files) f.discard();
    throw err;
  }
}

