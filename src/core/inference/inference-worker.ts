/**
 * An inference worker thread: one ONNX Runtime session (SessionRunner) fed over postMessage. onnxruntime-node's
 * session.run executes synchronously on the calling thread, so on the main thread it stalled every other request for a
 * whole run; here it blocks only this thread. The session is made from workerData; then each { batch } is answered with { data, offsets } or
 * { error }. Buffers travel as transfers, never copies.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SessionRunner, type RunnerKind, type SessionSettings, type TokenBatch } from './runner.js';

export interface WorkerInit {
  readonly settings: SessionSettings;
  readonly what: RunnerKind;
}

/** One run at a time per worker: the pool sends the next only after the reply. */
export type WorkerRequest = { readonly batch: TokenBatch };
export type WorkerReply =
  | { readonly data: Float32Array; readonly offsets: Uint32Array }
  | { readonly error: string }
  | { readonly ready: true }
  | { readonly failed: string };

const port = parentPort;
if (!port) throw new Error('inference-worker.js runs only as a worker thread');

const init = workerData as WorkerInit;
SessionRunner.create(init.settings, init.what).then(
  (runner) => {
    port.on('message', (msg: WorkerRequest) => {
      runner.run(msg.batch).then(
        (out) => port.postMessage({ data: out.data, offsets: out.offsets } satisfies WorkerReply, [out.data.buffer as ArrayBuffer, out.offsets.buffer as ArrayBuffer]),
        (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
      );
    });
    port.postMessage({ ready: true } satisfies WorkerReply);
  },
  (err: unknown) => port.postMessage({ failed: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
);
