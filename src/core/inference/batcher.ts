import { ApiError } from '../errors.js';

/** One inference run over a padded batch: returns one output vector per row. */
export type RunBatch = (batch: PaddedBatch) => Promise<Float32Array[]>;

export interface PaddedBatch {
  readonly rows: number;
  readonly seqLen: number;
  readonly inputIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  readonly tokenTypeIds: BigInt64Array;
}

export interface Sequence {
  readonly ids: readonly number[];
  readonly typeIds?: readonly number[];
}

interface Job {
  readonly seqs: readonly Sequence[];
  readonly out: Float32Array[];
  next: number; // index of the next sequence to schedule
  pending: number; // sequences scheduled or waiting, not yet finished
  failed: boolean;
  resolve: (v: Float32Array[]) => void;
  reject: (e: unknown) => void;
}

export interface BatcherOptions {
  readonly maxBatchTokens: number;
  readonly maxBatchItems: number;
  readonly maxQueueItems: number;
  /**
   * Admission by expected wait: a request that would wait longer than this for the work ahead of it (at the
   * throughput the recent runs measured) is refused with 429 `overloaded`. 0 turns it off (the item cap only).
   */
  readonly maxQueueWaitMs?: number;
  /** Per job and round: how many sequences one request may put into a batch before others get their turn. */
  readonly fairShare?: number;
  /** Told about every inference run (for the /metrics histograms); must not throw. */
  readonly observer?: BatchObserver;
}

/** One finished inference run: rows, padded tokens (rows × longest) and real tokens. */
export type BatchObserver = (run: { rows: number; paddedTokens: number; realTokens: number }) => void;

export interface BatcherStats {
  runs: number;
  rows: number;
  paddedTokens: number;
  realTokens: number;
  rejected: number;
}

/**
 * Owns one inference session and merges concurrent requests into micro-batches.
 *
 * Why this shape: a single ONNX Runtime session already uses every core for one run, so runs are serialised and the
 * gain comes from batching. Each batch is filled round-robin across waiting requests (a 5000-item /embed/batch
 * cannot starve a 3-item /embed behind it), then sorted by token length and cut where padding would exceed the
 * token cap, so padding waste stays small. New work is refused with 429 `overloaded` rather than queued without
 * bound when `maxQueueItems` sequences are waiting, or when it would wait more than `maxQueueWaitMs`: under
 * round-robin a request of n texts waits for about min(n, remaining) texts of every other waiting request (beyond
 * the round in progress), at the items per second the recent runs took. So a 3-item /embed is still admitted behind a
 * 5000-item batch, while a flood of requests is refused once it holds more than that many seconds of work, and the
 * latency of what was admitted stays bounded whatever the number of clients.
 */
export class InferenceBatcher {
  private readonly jobs: Job[] = [];
  private queued = 0;
  private running = false;
  private closed = false;
  /** Sequences per second of the recent runs (exponentially weighted); 0 until the first run. */
  private itemsPerSecond = 0;
  readonly stats: BatcherStats = { runs: 0, rows: 0, paddedTokens: 0, realTokens: 0, rejected: 0 };

  constructor(private readonly run: RunBatch, private readonly opts: BatcherOptions) {}

  get queuedItems(): number {
    return this.queued;
  }

  submit(seqs: readonly Sequence[]): Promise<Float32Array[]> {
    if (seqs.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new ApiError('shutting_down', 'the server is shutting down; retry on another replica', { 'Retry-After': '1' }));
    if (this.queued > 0) {
      const waitMs = this.expectedWaitMs(seqs.length);
      const maxWaitMs = this.opts.maxQueueWaitMs ?? 0;
      if (this.queued + seqs.length > this.opts.maxQueueItems || (maxWaitMs > 0 && waitMs > maxWaitMs)) {
        this.stats.rejected++;
        const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)));
        return Promise.reject(
          new ApiError('overloaded', `inference queue is full (${this.queued} texts waiting, about ${Math.ceil(waitMs)} ms of work); retry after ${retryAfter} s`, { 'Retry-After': retryAfter }),
        );
      }
    }
    return new Promise((resolve, reject) => {
      this.jobs.push({ seqs, out: new Array(seqs.length), next: 0, pending: seqs.length, failed: false, resolve, reject });
      this.queued += seqs.length;
      this.kick();
    });
  }

  /**
   * Throws 429 `overloaded` when even a one-text request would be refused: lets a caller shed a request before it
   * spends anything on it (body parsing, cleaning, tokenising), so a flood is refused at the cost of a header read.
   */
  refuseIfSaturated(): void {
    const maxWaitMs = this.opts.maxQueueWaitMs ?? 0;
    if (this.queued === 0) return;
    const waitMs = this.expectedWaitMs(1);
    if (this.queued + 1 > this.opts.maxQueueItems || (maxWaitMs > 0 && waitMs > maxWaitMs)) {
      this.stats.rejected++;
      const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)));
      throw new ApiError('overloaded', `inference queue is full (${this.queued} texts waiting, about ${Math.ceil(waitMs)} ms of work); retry after ${retryAfter} s`, { 'Retry-After': retryAfter });
    }
  }

  /**
   * How long a new request of `n` sequences would wait for the queued work it shares the runs with (0 before any run
   * was measured). The round already picked for the runs in progress (at most 4 × maxBatchItems sequences) is left
   * out: it is a bounded wait every request has, and on a slow host it alone would refuse a 3-item request behind
   * one large batch.
   */
  expectedWaitMs(n: number): number {
    if (this.itemsPerSecond <= 0) return 0;
    let ahead = 0;
    for (const job of this.jobs) ahead += Math.min(job.seqs.length - job.next, n);
    return (ahead / this.itemsPerSecond) * 1000;
  }

  /** Stops accepting work; resolves when everything already submitted has finished. */
  async drain(): Promise<void> {
    this.closed = true;
    while (this.running || this.jobs.length > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    // setImmediate lets requests that arrive in the same tick join this batch.
    setImmediate(() => void this.loop());
  }

  private async loop(): Promise<void> {
    try {
      while (this.jobs.length > 0) {
        const picked = this.pick();
        picked.sort((a, b) => a.seq.ids.length - b.seq.ids.length);
        // Cut the length-sorted selection into runs whose padded size stays under the token cap.
        let start = 0;
        while (start < picked.length) {
          let end = start + 1;
          let real = picked[start]!.seq.ids.length;
          while (end < picked.length && end - start < this.opts.maxBatchItems) {
            const len = picked[end]!.seq.ids.length;
            const padded = (end - start + 1) * len;
            // Cut when the run would exceed the token cap or carry more than 25% padding (measured: a 100-name
            // request padded to its longest name cost ~1.8x the ORT time of length-bucketed runs).
            if (padded > this.opts.maxBatchTokens || padded > 1.25 * (real + len)) break;
            real += len;
            end++;
          }
          await this.runOne(picked.slice(start, end));
          start = end;
        }
      }
    } finally {
      this.running = false;
      if (this.jobs.length > 0) this.kick();
    }
  }

  private pick(): { job: Job; index: number; seq: Sequence }[] {
    const picked: { job: Job; index: number; seq: Sequence }[] = [];
    const share = this.opts.fairShare ?? 64;
    const cap = this.opts.maxBatchItems * 4; // a few runs' worth per pick keeps sorting effective
    let progress = true;
    while (picked.length < cap && progress) {
      progress = false;
      for (const job of this.jobs) {
        let taken = 0;
        while (job.next < job.seqs.length && taken < share && picked.length < cap) {
          picked.push({ job, index: job.next, seq: job.seqs[job.next]! });
          job.next++;
          taken++;
          progress = true;
        }
      }
    }
    // Jobs fully scheduled leave the round-robin list; they finish when their last run returns.
    for (let i = this.jobs.length - 1; i >= 0; i--) if (this.jobs[i]!.next >= this.jobs[i]!.seqs.length) this.jobs.splice(i, 1);
    return picked;
  }

  private async runOne(items: { job: Job; index: number; seq: Sequence }[]): Promise<void> {
    const rows = items.length;
    const seqLen = items.reduce((m, it) => Math.max(m, it.seq.ids.length), 1);
    const inputIds = new BigInt64Array(rows * seqLen);
    const attentionMask = new BigInt64Array(rows * seqLen);
    const tokenTypeIds = new BigInt64Array(rows * seqLen);
    let real = 0;
    items.forEach((it, r) => {
      const { ids, typeIds } = it.seq;
      real += ids.length;
      for (let t = 0; t < ids.length; t++) {
        inputIds[r * seqLen + t] = BigInt(ids[t]!);
        attentionMask[r * seqLen + t] = 1n;
        if (typeIds) tokenTypeIds[r * seqLen + t] = BigInt(typeIds[t]!);
      }
    });
    let outputs: Float32Array[] | null = null;
    let error: unknown = null;
    const runStarted = performance.now();
    try {
      outputs = await this.run({ rows, seqLen, inputIds, attentionMask, tokenTypeIds });
    } catch (e) {
      error = e;
    }
    const runSeconds = (performance.now() - runStarted) / 1000;
    if (error === null && runSeconds > 0) {
      const rate = rows / runSeconds;
      this.itemsPerSecond = this.itemsPerSecond === 0 ? rate : 0.8 * this.itemsPerSecond + 0.2 * rate;
    }
    this.stats.runs++;
    this.stats.rows += rows;
    this.stats.paddedTokens += rows * seqLen;
    this.stats.realTokens += real;
    this.queued -= rows;
    this.opts.observer?.({ rows, paddedTokens: rows * seqLen, realTokens: real });
    items.forEach((it, r) => {
      const job = it.job;
      if (job.failed) return;
      if (error !== null) {
        job.failed = true;
        // Drop its unscheduled sequences from the queue count too.
        this.queued -= job.seqs.length - job.next;
        job.next = job.seqs.length;
        const idx = this.jobs.indexOf(job);
        if (idx >= 0) this.jobs.splice(idx, 1);
        job.reject(error);
        return;
      }
      job.out[it.index] = outputs![r]!;
      job.pending--;
      if (job.pending === 0) job.resolve(job.out);
    });
  }
}
