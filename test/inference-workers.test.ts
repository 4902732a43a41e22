import t from 'tap';
import { InferenceBatcher, type TokenBatch } from '../src/core/inference/batcher.js';
import { InferencePool } from '../src/core/inference/inference-pool.js';
import { MenuEncoder, dot } from '../src/core/inference/encoder.js';
import { resolveBuiltModel } from '../src/core/inference/model-files.js';
import { MenuTokenizer } from '../src/core/inference/tokenizer.js';
import { projectInto } from '../src/core/inference/runner.js';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const NAMES = [
  'Chicken Dum Biryani', 'Paneer Butter Masala', 'Gulab Jamun', 'Cold Coffee', 'Veg Hakka Noodles', 'Masala Dosa',
  'Tandoori Roti', 'Mutton Rogan Josh', 'Chocolate Brownie with Ice Cream', 'Egg Fried Rice', 'Dal Makhani',
  'Chilli Paneer Dry', 'Hyderabadi Veg Biryani Family Pack', 'Fresh Lime Soda', 'Chicken 65', 'Aloo Paratha',
];

/** n distinct menu-like texts of varied length. */
function texts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${NAMES[i % NAMES.length]} ${i}`);
}

function projection(m: { dir: string; dimensionMode: string; hiddenSize: number }): { projMean: Float32Array; projComponents: Float32Array; projCols: number } {
  if (m.dimensionMode === 'prefix') return { projMean: new Float32Array(0), projComponents: new Float32Array(0), projCols: 0 };
  const read = (f: string): Float32Array => {
    const buf = readFileSync(join(m.dir, f));
    return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  };
  const projComponents = read('projection.components.f32');
  return { projMean: read('projection.mean.f32'), projComponents, projCols: projComponents.length / m.hiddenSize };
}

const batcherLimits = { maxBatchTokens: 8192, maxBatchItems: 256, maxQueueItems: 100_000 };

t.test('the batcher keeps at most `concurrency` runs in flight, returns rows in order, and cuts one request into a run per worker', async (t) => {
  let inFlight = 0;
  let peak = 0;
  const runs: number[] = [];
  // A run that takes a while and answers each row with its own first token id, so order can be checked.
  const batcher = new InferenceBatcher(async (b: TokenBatch) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    runs.push(b.rows);
    await new Promise((r) => setTimeout(r, 20));
    inFlight--;
    const out: Float32Array[] = [];
    let k = 0;
    for (let r = 0; r < b.rows; r++) {
      out.push(Float32Array.of(b.tokens[k]!, b.dimensions?.[r] ?? -1));
      k += b.lengths[r]!;
    }
    return out;
  }, { ...batcherLimits, concurrency: 2 });
  const seqs = Array.from({ length: 100 }, (_, i) => ({ ids: Array.from({ length: 3 + (i % 7) }, (_, j) => (j === 0 ? i : 1)), dimension: 128 }));
  const [a, b] = await Promise.all([batcher.submit(seqs), batcher.submit(seqs.slice(0, 10))]);
  t.equal(peak, 2, 'two runs overlapped, never three');
  t.ok(runs.length >= 2, `the 110 texts went out as ${runs.length} runs`);
  t.same(a.map((v) => v[0]), seqs.map((_, i) => i), 'every row comes back in its request position');
  t.same(b.map((v) => v[0]), seqs.slice(0, 10).map((_, i) => i));
  t.ok(a.every((v) => v[1] === 128), 'the dimension each text asked for reached the run');
  await batcher.drain();
  t.equal(inFlight, 0, 'drain waits for runs in flight');
});

t.test('the batcher still refuses work past its admission limit with concurrency', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const batcher = new InferenceBatcher(async (b) => {
    await gate;
    return Array.from({ length: b.rows }, () => new Float32Array(1));
  }, { ...batcherLimits, maxQueueItems: 50, concurrency: 2 });
  const first = batcher.submit(Array.from({ length: 40 }, () => ({ ids: [1, 2, 3] })));
  await t.rejects(batcher.submit(Array.from({ length: 20 }, () => ({ ids: [1, 2] }))), { code: 'overloaded' });
  release();
  t.equal((await first).length, 40);
});

const model = (() => {
  try {
    return resolveBuiltModel(undefined);
  } catch {
    return null;
  }
})();

t.test('inference on worker threads', { skip: model ? false : 'models are not built (node scripts/setup.mjs)' }, async (t) => {
  const built = model!;
  const tokenizer = new MenuTokenizer(built.dir, 64);
  const common = { intraOpThreads: 1, executionProvider: 'cpu' as const, cacheBytes: 0, maxSequenceTokens: 64, ...batcherLimits };
  const onMain = await MenuEncoder.load(built, { ...common, inferenceWorkers: 0 });
  const onWorkers = await MenuEncoder.load(built, { ...common, inferenceWorkers: 2 });
  t.teardown(async () => {
    await onMain.close();
    await onWorkers.close();
  });

  t.test('a worker computes what the main thread computes on the same run, at every dimension', async (t) => {
    const what = { kind: 'encoder' as const, hiddenSize: built.hiddenSize, dimensionMode: built.dimensionMode, ...projection(built) };
    const session = { path: join(built.dir, built.file ?? 'encoder-int8.onnx'), intraOpThreads: 1, executionProvider: 'cpu' as const };
    const local = await InferencePool.start({ workers: 0, session, what });
    const pooled = await InferencePool.start({ workers: 2, session, what });
    t.teardown(async () => {
      await local.close();
      await pooled.close();
    });
    const ids = texts(48).map((s) => tokenizer.encode(s).ids);
    const dims = [128, 256, 384];
    const batch = (): TokenBatch => ({
      rows: ids.length,
      seqLen: Math.max(...ids.map((x) => x.length)),
      tokens: Int32Array.from(ids.flat()),
      lengths: Uint16Array.from(ids.map((x) => x.length)),
      typeIds: null,
      dimensions: Uint16Array.from(ids.map((_, i) => dims[i % 3]!)),
    });
    const [a, b, c] = await Promise.all([local.run(batch()), pooled.run(batch()), pooled.run(batch())]);
    t.same([...b.offsets], [...a.offsets], 'each row has the size it asked for');
    t.equal(a.offsets[1], 128);
    t.same(b.data, a.data, 'bit for bit the same vectors');
    t.same(c.data, a.data, 'from either worker');
  });

  t.test('the graph pools and projects as the JavaScript path does', async (t) => {
    const m = projection(built);
    const pool = await InferencePool.start({
      workers: 0,
      session: { path: join(built.dir, built.file ?? 'encoder-int8.onnx'), intraOpThreads: 1, executionProvider: 'cpu' },
      what: { kind: 'encoder', hiddenSize: built.hiddenSize, dimensionMode: built.dimensionMode, ...m },
    });
    t.teardown(() => pool.close());
    const ids = texts(24).map((s) => tokenizer.encode(s).ids);
    const run = (dimension: number) => pool.run({
      rows: ids.length, seqLen: Math.max(...ids.map((x) => x.length)), tokens: Int32Array.from(ids.flat()),
      lengths: Uint16Array.from(ids.map((x) => x.length)), typeIds: null, dimensions: Uint16Array.from(ids.map(() => dimension)),
    });
    const full = await run(built.hiddenSize);
    for (const d of [256, 128]) {
      const small = await run(d);
      let worst = 1;
      for (let r = 0; r < ids.length; r++) {
        const mine = projectInto(full.data.subarray(r * built.hiddenSize, (r + 1) * built.hiddenSize), new Float32Array(d), built.hiddenSize, built.dimensionMode, m.projMean, m.projComponents, m.projCols);
        worst = Math.min(worst, dot(mine, small.data.subarray(r * d, (r + 1) * d)));
      }
      t.ok(worst > 0.99999, `${d}: the graph's vector equals projecting its ${built.hiddenSize}-d vector in JavaScript (min cosine ${worst})`);
    }
  });

  t.test('an encoder on two workers splits a request across both and agrees with one on the main thread', async (t) => {
    const sample = texts(64);
    const runsBefore = onWorkers.batcher.stats.runs;
    for (const dimension of [128, 384] as const) {
      const [a, b] = await Promise.all([onMain.encode(sample, dimension), onWorkers.encode(sample, dimension)]);
      t.ok(b.every((v) => v.length === dimension), `every vector has ${dimension} components`);
      let worst = 1;
      for (let i = 0; i < sample.length; i++) worst = Math.min(worst, dot(a[i]!, b[i]!));
      // Dynamic int8 scales activations per run, so a text's vector depends slightly on its run-mates: the build's
      // int8 parity gate (0.99) is the tolerance, not bit equality.
      t.ok(worst > 0.99, `${dimension}: min cosine main vs workers ${worst}`);
    }
    t.ok(onWorkers.batcher.stats.runs - runsBefore >= 4, `each 64-text request went out as at least two runs (${onWorkers.batcher.stats.runs - runsBefore} runs for 2)`);
  });

  t.test('the event loop keeps turning while the workers run', async (t) => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    await onWorkers.encode(texts(1500).map((s) => `${s} special`), 384);
    const wall = performance.now() - t0;
    clearInterval(timer);
    // A main-thread run blocks for its whole duration; here the loop is free: at least a tenth of the 5 ms ticks.
    t.ok(ticks >= Math.floor(wall / 5 / 10), `${ticks} timer ticks in ${wall.toFixed(0)} ms of inference`);
  });

  /** A pool of one worker over the built encoder, and a one-row batch of token ids, for the failure cases. */
  const oneWorkerPool = () => InferencePool.start({
    workers: 1,
    session: { path: join(built.dir, built.file ?? 'encoder-int8.onnx'), intraOpThreads: 1, executionProvider: 'cpu' },
    what: { kind: 'encoder', hiddenSize: built.hiddenSize, dimensionMode: 'prefix', projMean: new Float32Array(0), projComponents: new Float32Array(0), projCols: 0 },
  });
  const batch = (ids: number[]): TokenBatch => ({ rows: 1, seqLen: ids.length, tokens: Int32Array.from(ids), lengths: Uint16Array.of(ids.length), typeIds: null, dimensions: null });

  t.test('a failed run rejects its request, and the pool keeps serving', async (t) => {
    const pool = await oneWorkerPool();
    t.teardown(() => pool.close());
    await t.rejects(pool.run(batch([101, 10 ** 8, 102])), 'a token id outside the vocabulary fails in ONNX Runtime');
    const ok = await pool.run(batch(tokenizer.encode('masala dosa').ids as number[]));
    t.equal(ok.data.length, built.hiddenSize, 'the next run is served');
  });

  // Skipped: terminating a worker while ONNX Runtime runs on it can abort the whole process ("terminate called after
  // throwing an instance of 'Napi::Error'": onnxruntime-node completes the run into the torn-down thread), in about one
  // run in four here. The service never does this (close drains the runs in flight first, tested above); a worker that
  // dies on its own is what this case stands for, and it needs a way to die that does not race ONNX Runtime.
  t.test('a worker that dies fails the run it held and is replaced', { skip: 'terminating a worker mid-run can abort the process (onnxruntime-node); see the comment' }, async (t) => {
    const pool = await oneWorkerPool();
    t.teardown(() => pool.close());
    // A worker thread that dies fails the run it held and is replaced. The run is made long (256 rows of 128 tokens,
    // hundreds of milliseconds) so that it is still running when the worker is terminated: a one-text run can finish
    // first, and then nothing fails.
    const slots = (pool as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots;
    const words = tokenizer.encode('paneer tikka masala').ids.slice(1, -1) as number[];
    const [cls, sep] = [tokenizer.encode('a').ids[0]!, tokenizer.encode('a').ids.at(-1)!];
    const rows = 256, seqLen = 128;
    const tokens = new Int32Array(rows * seqLen);
    for (let r = 0; r < rows; r++) {
      tokens[r * seqLen] = cls;
      for (let c = 1; c < seqLen - 1; c++) tokens[r * seqLen + c] = words[c % words.length]!;
      tokens[r * seqLen + seqLen - 1] = sep;
    }
    const pending = pool.run({ rows, seqLen, tokens, lengths: new Uint16Array(rows).fill(seqLen), typeIds: null, dimensions: null });
    await slots[0]!.worker.terminate();
    await t.rejects(pending, /exited/, 'the run held by the dead worker fails');
    const again = await pool.run(batch(tokenizer.encode('paneer tikka').ids as number[]));
    t.equal(again.data.length, built.hiddenSize, 'a replacement worker serves the next run');
  });
});
