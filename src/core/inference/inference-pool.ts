import { Worker } from 'node:worker_threads';
import type { WorkerInit, WorkerReply } from './inference-worker.js';
import { SessionRunner, type RunOutput, type RunnerKind, type SessionSettings, type TokenBatch } from './runner.js';

export interface PoolSettings {
  /** Worker threads, each with its own session; 0 runs the session on the calling (main) thread. */
  readonly workers: number;
  readonly session: SessionSettings;
  readonly what: RunnerKind;
}

interface Pending {
  readonly batch: TokenBatch;
  readonly resolve: (out: RunOutput) => void;
  readonly reject: (err: unknown) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  busy: Pending | null;
}

/**
 * Runs inference on worker threads, one ONNX Runtime session each, so the main thread keeps parsing requests,
 * cleaning text and writing responses while the model runs, and two runs can use two cores at once. `concurrency` is
 * how many runs it executes at a time (the batcher keeps at most that many in flight). A worker that dies fails the
 * run it held and is replaced; its session is created again from the same file.
 */
export class InferencePool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Pending[] = [];
  private local: SessionRunner | null = null;
  private closed = false;

  private constructor(private readonly settings: PoolSettings) {}

  static async start(settings: PoolSettings): Promise<InferencePool> {
    const pool = new InferencePool(settings);
    if (settings.workers === 0) {
      pool.local = await SessionRunner.create(settings.session, settings.what);
      return pool;
    }
    const started = await Promise.allSettled(Array.from({ length: settings.workers }, () => pool.spawn()));
    const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) {
      await pool.close();
      throw failure.reason;
    }
    return pool;
  }

  get concurrency(): number {
    return Math.max(1, this.settings.workers);
  }

  run(batch: TokenBatch): Promise<RunOutput> {
    if (this.closed) return Promise.reject(new Error('inference pool is closed'));
    if (this.local) return this.local.run(batch);
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.waiting.length === 0) return;
      if (!slot.ready || slot.busy) continue;
      const job = this.waiting.shift()!;
      slot.busy = job;
      const b = job.batch;
      const transfer = [b.tokens.buffer, b.lengths.buffer, ...(b.typeIds ? [b.typeIds.buffer] : []), ...(b.dimensions ? [b.dimensions.buffer] : [])];
      slot.worker.postMessage({ batch: b }, transfer as ArrayBuffer[]);
    }
  }

  /** Starts one worker and resolves when its session is loaded. */
  private spawn(): Promise<void> {
    const init: WorkerInit = { settings: this.settings.session, what: this.settings.what };
    const worker = new Worker(new URL('./inference-worker.js', import.meta.url), { workerData: init });
    const slot: Slot = { worker, ready: false, busy: null };
    this.slots.push(slot);
    return new Promise((resolve, reject) => {
      let settled = false;
      worker.on('message', (msg: WorkerReply) => {
        if ('ready' in msg) {
          slot.ready = true;
          settled = true;
          resolve();
          this.dispatch();
          return;
        }
        if ('failed' in msg) {
          settled = true;
          this.slots.splice(this.slots.indexOf(slot), 1);
          reject(new Error(`inference worker could not load ${this.settings.session.path}: ${msg.failed}`));
          void worker.terminate();
          return;
        }
        const job = slot.busy;
        slot.busy = null;
        if (job) {
          if ('error' in msg) job.reject(new Error(msg.error));
          else job.resolve({ data: msg.data, offsets: msg.offsets });
        }
        this.dispatch();
      });
      const died = (err: Error): void => {
        const index = this.slots.indexOf(slot);
        if (index < 0) return;
        this.slots.splice(index, 1);
        slot.busy?.reject(err);
        slot.busy = null;
        if (!settled) {
          settled = true;
          reject(err);
          return;
        }
        if (!this.closed) {
          // Replace it; runs wait for the replacement (or another worker) meanwhile.
          this.spawn().catch((e: unknown) => {
            for (const job of this.waiting.splice(0)) job.reject(e);
          });
        }
      };
      worker.on('error', died);
      worker.on('exit', (code) => died(new Error(`inference worker exited with code ${code}`)));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new Error('inference pool is closed'));
    if (this.local) {
      await this.local.release();
      this.local = null;
    }
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
