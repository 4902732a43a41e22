import { ApiError } from '../errors.js';
import type { TokenBatch } from './runner.js';

export type { TokenBatch } from './runner.js';

/** One inference run: returns one output vector per row, in row order. */
export type RunBatch = (batch: TokenBatch) => Promise<Float32Array[]>;

export interface Sequence {
  readonly ids: readonly number[];
  readonly typeIds?: readonly number[];
  /** Encoders: the vector size this text is wanted at. */
  readonly dimension?: number;
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
  /** Runs executed at the same time (one per inference worker); default 1. */
  readonly concurrency?: number;
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
 * Half-life, in busy seconds, of the measured throughput that admission divides by: short enough that a box slowed by
 * a neighbour is seen within a second of work, long enough to span a few runs of either worker.
 */
const RATE_HALF_LIFE_S = 0.25;

/**
 * Merges concurrent requests into micro-batches for the inference workers.
 *
 * Each pick is filled round-robin across waiting requests (a 5000-item /embed/batch cannot starve a 3-item /embed
 * behind it), then sorted by token length and cut where padding would exceed the token cap or a quarter of the run,
 * so padding waste stays small. Up to `concurrency` runs execute at once (one per worker); a pick is also cut into at
 * least that many runs when it is big enough, so one request uses every worker.
 *
 * New work is refused with 429 `overloaded` rather than queued without bound when `maxQueueItems` sequences are
 * waiting, or when it would wait more than `maxQueueWaitMs`: under round-robin a request of n texts waits for about
 * min(n, remaining) texts of every other waiting request (beyond the round in progress), at the rate the recent runs
 * took on all workers together. So a 3-item /embed is still admitted behind a 5000-item batch, while a flood of
 * requests is refused once it holds more than that many seconds of work, and the latency of what was admitted stays
 * bounded whatever the number of clients.
 */
export class InferenceBatcher {
  private readonly jobs: Job[] = [];
  private queued = 0;
  private running = false;
  private closed = false;
  private inFlight = 0;
  private slotFreed: (() => void) | null = null;
  /**
   * Throughput of all workers together while busy: rows finished and busy seconds (time with a run in flight), each
   * a sum that decays with busy time (RATE_HALF_LIFE_S), so their ratio is the recent rate. Measured rather than one
   * run's rate times the workers: two workers on a shared box do not always reach twice one worker's speed. The decay
   * is by time, not by run: a run that ends just after another is credited only the moments since, and a per-run decay
   * would weigh its rows against almost no time and read two workers in step as up to an eighth faster than they are.
   */
  private recentRows = 0;
  private recentBusySeconds = 0;
  /** Start of the current busy period (a run in flight throughout) and the last run's end. */
  private busySince = 0;
  private lastRunEnded = 0;
  readonly stats: BatcherStats = { runs: 0, rows: 0, paddedTokens: 0, realTokens: 0, rejected: 0 };

  constructor(private readonly run: RunBatch, private readonly opts: BatcherOptions) {}

  get queuedItems(): number {
    return this.queued;
  }

  submit(seqs: readonly Sequence[]): Promise<Float32Array[]> {
    if (seqs.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new ApiError('shutting_down', 'the server is shutting down; retry on another replica', { 'Retry-After': '1' }));
    try {
      this.refuseIfOver(seqs.length);
    } catch (e) {
      return Promise.reject(e);
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
    this.refuseIfOver(1);
  }

  /** Throws 429 `overloaded` when a request of `n` sequences would be refused now (what `submit` checks first). */
  refuseIfOver(n: number): void {
    if (this.queued === 0) return;
    const waitMs = this.expectedWaitMs(n);
    const maxWaitMs = this.opts.maxQueueWaitMs ?? 0;
    if (this.queued + n > this.opts.maxQueueItems || (maxWaitMs > 0 && waitMs > maxWaitMs)) {
      this.stats.rejected++;
      const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)));
      throw new ApiError('overloaded', `inference queue is full (${this.queued} texts waiting, about ${Math.ceil(waitMs)} ms of work); retry after ${retryAfter} s`, { 'Retry-After': retryAfter });
    }
  }

  /**
   * How long a new request of `n` sequences would wait for the queued work it shares the runs with (0 before any run
   * was measured). The round already picked for the runs in progress (at most 4 × maxBatchItems sequences) is left
   * out: it is a bounded wait every request has, and on a slow host it alone would refuse a 3-item request behind
   * one large batch. The rate is that of all workers together while they were busy.
   */
  expectedWaitMs(n: number): number {
    if (this.recentRows <= 0 || this.recentBusySeconds <= 0) return 0;
    let ahead = 0;
    for (const job of this.jobs) ahead += Math.min(job.seqs.length - job.next, n);
    return (ahead / (this.recentRows / this.recentBusySeconds)) * 1000;
  }

  /** Stops accepting work; resolves when everything already submitted has finished. */
  async drain(): Promise<void> {
    this.closed = true;
    while (this.running || this.jobs.length > 0 || this.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    // setImmediate lets requests that arrive in the same tick join this batch.
    setImmediate(() => void this.loop());
  }

  private async loop(): Promise<void> {
    const concurrency = Math.max(1, this.opts.concurrency ?? 1);
    try {
      while (this.jobs.length > 0) {
        const picked = this.pick();
        picked.sort((a, b) => a.seq.ids.length - b.seq.ids.length);
        // With several workers, a pick of enough texts is cut into at least one run per worker (runs of 8 or more).
        const rowCap = concurrency > 1 ? Math.min(this.opts.maxBatchItems, Math.max(8, Math.ceil(picked.length / concurrency))) : this.opts.maxBatchItems;
        // Runs of even size: 100 texts at 32 a run are four runs of 25, not three of 32 and one of 4.
        const maxRows = Math.ceil(picked.length / Math.ceil(picked.length / rowCap));
        // Cut the length-sorted selection into runs whose padded size stays under the token cap.
        let start = 0;
        while (start < picked.length) {
          let end = start + 1;
          let real = picked[start]!.seq.ids.length;
          while (end < picked.length && end - start < maxRows) {
            const len = picked[end]!.seq.ids.length;
            const padded = (end - start + 1) * len;
            // Cut when the run would exceed the token cap or carry more than 25% padding (measured: a 100-name
            // request padded to its longest name cost ~1.8x the ORT time of length-bucketed runs).
            if (padded > this.opts.maxBatchTokens || padded > 1.25 * (real + len)) break;
            real += len;
            end++;
          }
          while (this.inFlight >= concurrency) await new Promise<void>((r) => (this.slotFreed = r));
          if (this.inFlight === 0) this.busySince = performance.now();
          this.inFlight++;
          void this.runOne(picked.slice(start, end)).finally(() => {
            this.inFlight--;
            const wake = this.slotFreed;
            this.slotFreed = null;
            wake?.();
          });
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
    let real = 0;
    let seqLen = 1;
    let typed = false;
    let withDimension = false;
    for (const it of items) {
      real += it.seq.ids.length;
      seqLen = Math.max(seqLen, it.seq.ids.length);
      typed ||= it.seq.typeIds !== undefined;
      withDimension ||= it.seq.dimension !== undefined;
    }
    const tokens = new Int32Array(real);
    const lengths = new Uint16Array(rows);
    const typeIds = typed ? new Uint8Array(real) : null;
    const dimensions = withDimension ? new Uint16Array(rows) : null;
    let k = 0;
    items.forEach((it, r) => {
      const { ids, typeIds: types, dimension } = it.seq;
      lengths[r] = ids.length;
      if (dimensions) dimensions[r] = dimension ?? 0;
      for (let t = 0; t < ids.length; t++, k++) {
        tokens[k] = ids[t]!;
        if (typeIds && types) typeIds[k] = types[t]!;
      }
    });
    let outputs: Float32Array[] | null = null;
    let error: unknown = null;
    try {
      outputs = await this.run({ rows, seqLen, tokens, lengths, typeIds, dimensions });
    } catch (e) {
      error = e;
    }
    // Busy time since the later of the last run's end and the start of this busy period: a run was in flight
    // throughout, so rows over busy seconds is what the workers did together (two runs ending together count their
    // shared time once).
    const ended = performance.now();
    const busySeconds = (ended - Math.max(this.lastRunEnded, this.busySince)) / 1000;
    this.lastRunEnded = ended;
    if (error === null) {
      const kept = 0.5 ** (busySeconds / RATE_HALF_LIFE_S);
      this.recentRows = kept * this.recentRows + rows;
      this.recentBusySeconds = kept * this.recentBusySeconds + busySeconds;
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
