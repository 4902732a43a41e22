import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job, Queue, Worker, type ConnectionOptions } from 'bullmq';
import { createClient, RESP_TYPES } from '@redis/client';
import { nodeKeyOf } from '../dedup.js';
import { ANN_SCORE_SLACK, createAnnIndex, loadAnnIndex, rangeSearch } from '../ann.js';
import type { Knowledge } from '../knowledge/index.js';
import { parseMenuText } from '../menu-text.js';
import { DEFAULT_COSINE_THRESHOLD } from '../match.js';
import { CatalogStore } from './catalog-store.js';
import { EmbeddingStore } from './embedding-store.js';
import { isRowError, readCatalogRows } from './input.js';
import { ERROR_COLUMNS, OutputFile, csvLine } from './output.js';
import {
  CatalogInterrupted,
  catalogNodes,
  classifyCatalog,
  clusterCatalog,
  rowClusters,
  writeClassification,
  writeDedup,
  writeEmbeddings,
  writeReport,
  type CatalogDeps,
  type CatalogOptions,
  type CatalogResult,
  type Classification,
  type RowClusters,
  type StageName,
  type StageProgress,
  type TextEmbedder,
} from './engine.js';

/**
 * One catalog run shared by any number of `menu-intel catalog worker` processes, on BullMQ over the Redis the service
 * already uses (MENU_REDIS_URL). The coordinator (`catalog … --distributed`) streams the input and splits it:
 *
 *   chunk jobs   a chunk of distinct originals: clean, embed (through the worker's own on-disk store), ship the vectors
 *   shard jobs   a contiguous range of names: build an HNSW index over it and ship the index
 *   query jobs   one per (shard, block of names): the block's range search against the shard's index (cross-shard
 *                candidate pairs: every name is queried against every shard)
 *
 * then merges: the candidate pairs of all query jobs go through the same judge, union-find and anti-chaining split as
 * a single-process run (clusterNodes), and writes the same outputs. Vectors and indexes travel as Redis blobs under
 * `menu-intel:catalog:<run>:…` (deleted at the end, and expiring after a day if the coordinator dies).
 *
 * A worker that dies mid-job (SIGKILL, a lost machine) stops renewing its job's lock; BullMQ's stalled-job check
 * puts the job back in the queue and another worker runs it again from the start. Every job writes only its own
 * blob keys, so a retried job overwrites the half-done one and nothing is lost or counted twice.
 */
export const CATALOG_QUEUE = 'menu-intel-catalog';
const BLOB_TTL_SECONDS = 24 * 3600;

export type CatalogJob =
  | { kind: 'chunk'; run: string; chunk: number; originals: string[] }
  | { kind: 'shard'; run: string; shard: number; count: number }
  | { kind: 'query'; run: string; shard: number; block: number; threshold: number };

export interface ChunkResult {
  readonly worker: string;
  readonly model: string;
  /** Distinct cleaned texts of the chunk, in the order of the vectors blob. */
  readonly texts: string[];
  /** The name key of each of texts (MenuText.key), so the coordinator groups names without reading the texts again. */
  readonly keys: string[];
  /** Per original of the chunk: index into texts, and whether cleaning removed noise. */
  readonly textOf: number[];
  readonly noisy: number[];
}

export interface QueryResult {
  readonly worker: string;
  /** Pairs as global name ids, a[k] queried, b[k] found. */
  readonly a: number[];
  readonly b: number[];
}

function blobKey(run: string, ...parts: (string | number)[]): string {
  return ['menu-intel:catalog', run, ...parts].join(':');
}

/**
 * A node-redis client for BullMQ (it adapts @redis/client itself, so the service needs no second Redis driver).
 * BullMQ duplicates it for a worker's blocking connection and leaves this one to its owner to close.
 */
async function bullClient(url: string) {
  const client = createClient({ url });
  client.on('error', () => {}); // reconnects on its own; BullMQ retries its commands
  await client.connect();
  return client;
}

type BlobClient = ReturnType<typeof blobClientOf>;

function blobClientOf(url: string) {
  return createClient({ url }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}

async function openBlobs(url: string): Promise<BlobClient> {
  const client = blobClientOf(url);
  client.on('error', () => {}); // reconnects on its own; commands fail while it cannot
  await client.connect();
  return client;
}

async function putBlob(client: BlobClient, key: string, bytes: Uint8Array): Promise<void> {
  await client.set(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { EX: BLOB_TTL_SECONDS });
}

async function getBlob(client: BlobClient, key: string): Promise<Buffer> {
  const value = (await client.get(key)) as Buffer | null;
  if (value === null) throw new Error(`missing blob ${key}`);
  return value;
}

function asFloat32(buf: Buffer): Float32Array {
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

// ---------------------------------------------------------------------------------------------------------------
// Worker

export interface WorkerDeps {
  readonly embedder: TextEmbedder;
  /** The food knowledge the worker reads texts with (services.knowledge). */
  readonly knowledge: Knowledge;
}

export interface WorkerOptions {
  readonly redisUrl: string;
  readonly cacheDir: string;
  readonly concurrency?: number;
  /** How long a job's lock lasts without renewal: a dead worker's job is retried this long after it died. */
  readonly lockMs?: number;
  readonly log?: (line: string) => void;
}

export interface CatalogWorkerHandle {
  readonly id: string;
  close(): Promise<void>;
}

export async function startCatalogWorker(options: WorkerOptions, deps: WorkerDeps): Promise<CatalogWorkerHandle> {
  const id = `${process.pid}@${randomUUID().slice(0, 8)}`;
  const log = options.log ?? (() => {});
  const blobs = await openBlobs(options.redisUrl);
  const vectors = EmbeddingStore.open(options.cacheDir, deps.embedder.id, deps.embedder.dim);
  const scratch = mkdtempSync(join(tmpdir(), 'menu-intel-worker-'));
  const indexes = new Map<string, ReturnType<typeof loadAnnIndex>>();
  const lockMs = options.lockMs ?? 30_000;

  const handle = async (job: Job<CatalogJob>): Promise<unknown> => {
    const data = job.data;
    log(`[worker ${id}] ${job.id} started`);
    if (data.kind === 'chunk') {
      const texts: string[] = [];
      const keys: string[] = [];
      const index = new Map<string, number>();
      const textOf: number[] = [];
      const noisy: number[] = [];
      for (const original of data.originals) {
        const read = parseMenuText(deps.knowledge, original);
        let t = index.get(read.text);
        if (t === undefined) {
          t = texts.length;
          index.set(read.text, t);
          texts.push(read.text);
          keys.push(read.key);
        }
        textOf.push(t);
        noisy.push(read.removed.length > 0 ? 1 : 0);
      }
      const missing = texts.filter((t) => vectors.slotOf(t) === undefined);
      for (let s = 0; s < missing.length; s += 256) {
        const part = missing.slice(s, s + 256);
        vectors.append(part, await deps.embedder.embed(part));
        await job.updateProgress(Math.round((100 * (s + part.length)) / missing.length));
      }
      const out = new Float32Array(texts.length * vectors.dim);
      vectors.read(texts.map((t) => vectors.slotOf(t)!), out);
      await putBlob(blobs, blobKey(data.run, 'chunk', data.chunk), new Uint8Array(out.buffer));
      const result: ChunkResult = { worker: id, model: deps.embedder.id, texts, keys, textOf, noisy };
      log(`[worker ${id}] ${job.id} done`);
      return result;
    }
    if (data.kind === 'shard') {
      const matrix = asFloat32(await getBlob(blobs, blobKey(data.run, 'names', data.shard)));
      const index = createAnnIndex(vectors.dim, { capacity: data.count });
      index.add(matrix, 0);
      const path = join(scratch, `${data.run}-${data.shard}.usearch`);
      index.save(path);
      await putBlob(blobs, blobKey(data.run, 'index', data.shard), readFileSync(path));
      rmSync(path, { force: true });
      log(`[worker ${id}] ${job.id} done`);
      return { worker: id, size: index.size() };
    }
    const indexKey = `${data.run}:${data.shard}`;
    let index = indexes.get(indexKey);
    if (!index) {
      const path = join(scratch, `${data.run}-${data.shard}.query.usearch`);
      writeFileSync(path, await getBlob(blobs, blobKey(data.run, 'index', data.shard)));
      index = loadAnnIndex(path, vectors.dim);
      indexes.set(indexKey, index);
    }
    const queries = asFloat32(await getBlob(blobs, blobKey(data.run, 'names', data.block)));
    const a: number[] = [];
    const b: number[] = [];
    await rangeSearch(index, queries, data.threshold - ANN_SCORE_SLACK, (q, key) => {
      a.push(q);
      b.push(key);
    });
    const result: QueryResult = { worker: id, a, b };
    log(`[worker ${id}] ${job.id} done`);
    return result;
  };

  const connection = await bullClient(options.redisUrl);
  const worker = new Worker<CatalogJob>(CATALOG_QUEUE, handle, {
    connection: connection as unknown as ConnectionOptions,
    concurrency: options.concurrency ?? 1,
    lockDuration: lockMs,
    stalledInterval: Math.max(1000, Math.floor(lockMs / 2)),
    maxStalledCount: 5,
  });
  worker.on('failed', (job, err) => log(`[worker ${id}] ${job?.id ?? '?'} failed: ${err.message}`));
  await worker.waitUntilReady();
  log(`[worker ${id}] ready on ${CATALOG_QUEUE}`);
  return {
    id,
    async close() {
      await worker.close();
      await connection.quit().catch(() => {});
      await blobs.quit().catch(() => {});
      vectors.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Coordinator

export interface DistributedOptions extends CatalogOptions {
  readonly redisUrl: string;
  /** Distinct originals per chunk job. */
  readonly chunkRows: number;
  /** Names per index shard (default: chunkRows). */
  readonly shardNames?: number;
  readonly log?: (line: string) => void;
}

const ATTEMPTS = 5;

/** Waits for jobs by id, polling; resolves with their return values in order, fails when one fails for good. */
async function waitForJobs<T>(queue: Queue, ids: readonly string[], onDone: (done: number) => void, signal?: AbortSignal, stage: StageName = 'embed', stored = 0, cacheDir = ''): Promise<T[]> {
  const results = new Array<T>(ids.length);
  const pending = new Set(ids.map((_, i) => i));
  while (pending.size > 0) {
    if (signal?.aborted) throw new CatalogInterrupted(stage, stored, cacheDir);
    for (const i of [...pending]) {
      const job = await Job.fromId(queue, ids[i]!);
      if (!job) throw new Error(`job ${ids[i]} disappeared from the queue`);
      if (job.finishedOn && job.returnvalue !== undefined && job.returnvalue !== null && !job.failedReason) {
        results[i] = job.returnvalue as T;
        pending.delete(i);
      } else if (job.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1) && (await job.getState()) === 'failed') {
        throw new Error(`job ${ids[i]} failed ${job.attemptsMade} times: ${job.failedReason}`);
      }
    }
    onDone(ids.length - pending.size);
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return results;
}

export async function runDistributedCatalog(options: DistributedOptions, deps: CatalogDeps): Promise<CatalogResult> {
  const progress = options.progress ?? { start() {}, update() {}, end() {} };
  const log = options.log ?? (() => {});
  const run = randomUUID();
  const cacheDir = options.cacheDir ?? `${options.outPrefix}.cache`;
  const seconds: Partial<Record<StageName, number>> = {};
  const connection = await bullClient(options.redisUrl);
  const queue = new Queue<CatalogJob>(CATALOG_QUEUE, { connection: connection as unknown as ConnectionOptions });
  const blobs = await openBlobs(options.redisUrl);
  const vectors = EmbeddingStore.open(cacheDir, deps.embedder.id, deps.embedder.dim);
  const outputs: OutputFile[] = [];
  const jobOptions = { attempts: ATTEMPTS, backoff: { type: 'fixed' as const, delay: 500 }, removeOnComplete: false, removeOnFail: false };
  const jobIds: string[] = [];
  let chunkCount = 0;
  let shardCount = 0;
  const chunkKeys = (): string[] => Array.from({ length: chunkCount }, (_, c) => blobKey(run, 'chunk', c));
  const shardKeys = (): string[] => Array.from({ length: shardCount }, (_, s) => [blobKey(run, 'names', s), blobKey(run, 'index', s)]).flat();
  try {
    // clean: stream rows, intern originals; each full chunk of new originals becomes a chunk job at once.
    let t0 = performance.now();
    const store = new CatalogStore();
    const errors = new OutputFile(`${options.outPrefix}.errors.csv`);
    outputs.push(errors);
    errors.write(csvLine(ERROR_COLUMNS));
    let errorCount = 0;
    const chunkIds: string[] = [];
    let chunkStart = 0;
    const flushChunk = async (end: number): Promise<void> => {
      if (end <= chunkStart) return;
      const id = `${run}-chunk-${chunkIds.length}`;
      await queue.add('chunk', { kind: 'chunk', run, chunk: chunkIds.length, originals: store.originals.values.slice(chunkStart, end) }, { ...jobOptions, jobId: id });
      chunkIds.push(id);
      jobIds.push(id);
      chunkCount = chunkIds.length;
      chunkStart = end;
    };
    progress.start('clean', null, 'rows');
    for await (const r of readCatalogRows(options.input)) {
      if (isRowError(r)) {
        errorCount++;
        errors.write(csvLine([r.row, r.line, r.error, r.excerpt]));
        continue;
      }
      const original = store.originals.id(r.text);
      store.rowNumber.push(r.row);
      store.rowOriginal.push(original);
      store.rowRestaurant.push(r.restaurant === null ? -1 : store.restaurants.id(r.restaurant));
      store.rowOutlet.push(r.outlet === null ? -1 : store.outlets.id(r.outlet));
      if (store.originals.size - chunkStart >= options.chunkRows) await flushChunk(store.originals.size);
      if (store.rows % 4096 === 0) {
        if (options.signal?.aborted) throw new CatalogInterrupted('clean', vectors.size, cacheDir);
        progress.update(store.rows);
      }
    }
    await flushChunk(store.originals.size);
    progress.update(store.rows);
    progress.end(`${store.rows} rows, ${errorCount} bad, ${chunkIds.length} chunk jobs queued`);
    seconds.clean = (performance.now() - t0) / 1000;

    // embed (by the workers): merge chunk results in chunk order, so texts and names get the ids a single process gives.
    t0 = performance.now();
    progress.start('embed', chunkIds.length, 'chunks');
    const chunks = await waitForJobs<ChunkResult>(queue, chunkIds, (d) => progress.update(d), options.signal, 'embed', vectors.size, cacheDir);
    let original = 0;
    for (let c = 0; c < chunks.length; c++) {
      const result = chunks[c]!;
      if (result.model !== deps.embedder.id) throw new Error(`worker ${result.worker} embeds with ${result.model}, this run with ${deps.embedder.id}`);
      const matrix = asFloat32(await getBlob(blobs, blobKey(run, 'chunk', c)));
      const dim = vectors.dim;
      vectors.append(result.texts, result.texts.map((_, t) => matrix.subarray(t * dim, (t + 1) * dim)));
      for (let k = 0; k < result.textOf.length; k++, original++) {
        const text = result.texts[result.textOf[k]!]!;
        const key = result.keys[result.textOf[k]!]!;
        const textId = store.texts.id(text);
        store.originalText.push(textId);
        store.originalNoisy.push(result.noisy[k]!);
        const before = store.nodeKeys.size;
        const node = store.nodeKeys.id(nodeKeyOf(key, store.originals.values[original]!));
        if (node === before) store.nodeText.push(textId);
        store.originalNode.push(node);
      }
    }
    const workersSeen = new Set(chunks.map((c) => c.worker));
    progress.end(`${chunks.length} chunks by ${workersSeen.size} workers, ${store.texts.size} distinct texts`);
    seconds.embed = (performance.now() - t0) / 1000;

    const threshold = options.cosineThreshold ?? DEFAULT_COSINE_THRESHOLD;
    let clusters: RowClusters | null = null;
    let candidatePairs: number | null = null;
    if (options.command === 'dedup' || options.command === 'report') {
      t0 = performance.now();
      const nodes = catalogNodes(deps.knowledge, store, vectors);
      const per = Math.max(1, options.shardNames ?? options.chunkRows);
      const shards = Math.ceil(nodes.count / per);
      shardCount = shards;
      const dim = nodes.dim;
      for (let s = 0; s < shards; s++) {
        const from = s * per;
        const to = Math.min(nodes.count, from + per);
        await putBlob(blobs, blobKey(run, 'names', s), new Uint8Array(nodes.matrix.buffer, nodes.matrix.byteOffset + from * dim * 4, (to - from) * dim * 4));
      }
      progress.start('index', shards + shards * shards, 'jobs');
      const shardIds: string[] = [];
      for (let s = 0; s < shards; s++) {
        const id = `${run}-shard-${s}`;
        await queue.add('shard', { kind: 'shard', run, shard: s, count: Math.min(nodes.count, (s + 1) * per) - s * per }, { ...jobOptions, jobId: id });
        shardIds.push(id);
        jobIds.push(id);
      }
      await waitForJobs(queue, shardIds, (d) => progress.update(d), options.signal, "index", vectors.size, cacheDir);
      const queryIds: string[] = [];
      const queryMeta: { shard: number; block: number }[] = [];
      for (let s = 0; s < shards; s++) {
        for (let b = 0; b < shards; b++) {
          const id = `${run}-query-${s}-${b}`;
          await queue.add('query', { kind: 'query', run, shard: s, block: b, threshold }, { ...jobOptions, jobId: id });
          queryIds.push(id);
          queryMeta.push({ shard: s, block: b });
          jobIds.push(id);
        }
      }
      const answers = await waitForJobs<QueryResult>(queue, queryIds, (d) => progress.update(shards + d), options.signal, 'index', vectors.size, cacheDir);
      // Merge: global ids, each pair once (lo < hi), exact cosines from the vectors.
      const n = nodes.count;
      const seen = new Set<number>();
      const a: number[] = [];
      const b: number[] = [];
      const cosine: number[] = [];
      answers.forEach((ans, k) => {
        const { shard, block } = queryMeta[k]!;
        for (let p = 0; p < ans.a.length; p++) {
          const i = block * per + ans.a[p]!;
          const j = shard * per + ans.b[p]!;
          if (i === j) continue;
          const [lo, hi] = i < j ? [i, j] : [j, i];
          if (seen.has(lo * n + hi)) continue;
          seen.add(lo * n + hi);
          let dot = 0;
          for (let d = 0; d < dim; d++) dot += nodes.matrix[lo * dim + d]! * nodes.matrix[hi * dim + d]!;
          if (dot < threshold) continue;
          a.push(lo);
          b.push(hi);
          cosine.push(dot);
        }
      });
      progress.end(`${shards} shards, ${queryIds.length} query jobs, ${a.length} candidate pairs`);
      seconds.index = (performance.now() - t0) / 1000;
      t0 = performance.now();
      const clustering = await clusterCatalog(deps.knowledge, nodes, {
        threshold,
        precision: deps.precision,
        precomputed: { a, b, cosine },
        signal: options.signal,
        progress,
        cacheDir,
        stored: vectors.size,
      });
      seconds.cluster = (performance.now() - t0) / 1000;
      candidatePairs = clustering.candidatePairs;
      clusters = rowClusters(store, clustering);
    }
    let classification: Classification | null = null;
    if (options.command === 'classify' || options.command === 'report') {
      t0 = performance.now();
      classification = await classifyCatalog(deps.knowledge, store, vectors, deps.heads, progress, options.signal);
      seconds.classify = (performance.now() - t0) / 1000;
    }
    t0 = performance.now();
    progress.start('write', store.rows, 'rows');
    if (options.command === 'dedup') outputs.push(...writeDedup(store, clusters!, options.outPrefix, progress, options.signal, vectors));
    else if (options.command === 'classify') outputs.push(...writeClassification(store, classification!, options.outPrefix, progress, options.signal, vectors));
    else if (options.command === 'report') outputs.push(...writeReport(store, clusters!, classification!, options.outPrefix, progress, options.signal, vectors));
    else outputs.push(...writeEmbeddings(store, vectors, options.outPrefix, progress, options.signal));
    progress.end(`${outputs.length} files`);
    seconds.write = (performance.now() - t0) / 1000;
    for (const f of outputs) f.commit();
    log(`distributed run ${run}: ${chunkIds.length} chunk jobs by ${workersSeen.size} workers (${[...workersSeen].sort().join(', ')})`);
    return {
      command: options.command,
      rows: store.rows,
      rowErrors: errorCount,
      distinctOriginals: store.originals.size,
      distinctTexts: store.texts.size,
      names: store.nodeKeys.size,
      embedded: store.texts.size,
      reusedEmbeddings: 0,
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
    // The run's jobs and blobs go; a dead coordinator's blobs expire on their own.
    await Promise.all(jobIds.map((id) => queue.remove(id).catch(() => 0)));
    const keys = [...chunkKeys(), ...shardKeys()];
    if (keys.length > 0) await blobs.del(keys).catch(() => 0);
    await blobs.quit().catch(() => {});
    await queue.close();
    await connection.quit().catch(() => {});
  }
}
