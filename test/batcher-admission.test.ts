/**
 * The inference batcher's admission under a flood, with a stand-in model that takes 1 ms per row: requests beyond
 * MENU_QUEUE_MAX_WAIT_MS of expected wait get 429 overloaded with a Retry-After, what is admitted finishes within
 * about that wait, and a small request behind one huge batch is still admitted (round-robin shares the runs); with
 * several inference workers the runs overlap and the expected wait is at their combined speed.
 */
import t from 'tap';
import { InferenceBatcher, type TokenBatch } from '../src/core/inference/batcher.js';
import { isApiError } from '../src/core/errors.js';

const MS_PER_ROW = 1;
let runsFinished = 0;
const run = async (b: TokenBatch): Promise<Float32Array[]> => {
  // A run takes at least its rows' time: a timer alone may fire a millisecond early, and the bounds below are exact.
  const until = performance.now() + b.rows * MS_PER_ROW;
  while (performance.now() < until) await new Promise((resolve) => setTimeout(resolve, Math.max(1, until - performance.now())));
  runsFinished++;
  return Array.from({ length: b.rows }, () => new Float32Array(4));
};
const seqs = (n: number) => Array.from({ length: n }, (_, i) => ({ ids: [101, 2000 + (i % 50), 102] }));

t.test('a flood is refused past the expected wait; what is admitted stays within it', async (t) => {
  const batcher = new InferenceBatcher(run, { maxBatchTokens: 8192, maxBatchItems: 64, maxQueueItems: 1_000_000, maxQueueWaitMs: 500 });
  await batcher.submit(seqs(200)); // one measured run sets the throughput
  const started = performance.now();
  const runsBefore = runsFinished;
  const outcomes = await Promise.all(
    Array.from({ length: 400 }, async () => {
      try {
        await batcher.submit(seqs(16));
        return { ok: true, runsSeen: runsFinished };
      } catch (error) {
        return { ok: false, runsSeen: runsFinished, error };
      }
    }),
  );
  const admitted = outcomes.filter((o) => o.ok);
  const refused = outcomes.filter((o) => !o.ok);
  t.comment(`${admitted.length} admitted, ${refused.length} refused in ${(performance.now() - started).toFixed(0)} ms`);
  t.ok(refused.length > 200, 'most of 400 × 16 rows (6.4 s of work) is refused at once');
  t.ok(admitted.length >= 20, 'about 0.5 s of work is admitted');
  for (const r of refused.slice(0, 5)) {
    t.ok(isApiError(r.error) && r.error.code === 'overloaded', '429 overloaded');
    t.ok(isApiError(r.error) && Number(r.error.headers['Retry-After']) >= 1, 'with Retry-After in whole seconds');
  }
  t.ok(refused.every((r) => r.runsSeen === runsBefore), 'a refusal is immediate: it comes before any run of the flood ends');
  // The stand-in runs at most 1000 rows/s, so 0.5 s of expected wait admits at most 500 rows beyond the first.
  t.ok(admitted.length * 16 <= 500 + 16, `what is admitted is at most the wait cap's worth of work (${admitted.length * 16} rows)`);
  t.equal(batcher.queuedItems, 0, 'the queue is empty afterwards');
});

t.test('a small request behind a huge batch is admitted; a second huge batch is not', async (t) => {
  const batcher = new InferenceBatcher(run, { maxBatchTokens: 8192, maxBatchItems: 64, maxQueueItems: 1_000_000, maxQueueWaitMs: 1000 });
  await batcher.submit(seqs(64));
  const huge = batcher.submit(seqs(3000)); // 3 s of work
  await new Promise((resolve) => setTimeout(resolve, 20));
  const t0 = performance.now();
  await batcher.submit(seqs(3));
  const smallMs = performance.now() - t0;
  t.ok(smallMs < 1000, `a 3-item request behind 3000 queued items finishes in ${smallMs.toFixed(0)} ms`);
  await t.rejects(batcher.submit(seqs(3000)), { code: 'overloaded' }, 'a second 3000-item batch would wait > 1 s: refused');
  await huge;
  await t.resolves(batcher.submit(seqs(3000)), 'alone, a big batch is always admitted');
});

t.test('with the wait cap off, only the item cap refuses', async (t) => {
  const batcher = new InferenceBatcher(run, { maxBatchTokens: 8192, maxBatchItems: 64, maxQueueItems: 100, maxQueueWaitMs: 0 });
  const first = batcher.submit(seqs(80));
  await t.rejects(batcher.submit(seqs(30)), { code: 'overloaded' }, '80 + 30 > 100 items');
  await t.resolves(batcher.submit(seqs(10)), '80 + 10 fit');
  await first;
  t.equal(batcher.expectedWaitMs(10), 0, 'nothing waiting: no wait');
});

t.test('with two inference workers: runs overlap, and the expected wait counts both workers', async (t) => {
  let running = 0;
  let mostAtOnce = 0;
  const overlapping = async (b: TokenBatch): Promise<Float32Array[]> => {
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    try {
      return await run(b);
    } finally {
      running--;
    }
  };
  const opts = { maxBatchTokens: 8192, maxBatchItems: 64, maxQueueItems: 1_000_000, maxQueueWaitMs: 500 };
  const two = new InferenceBatcher(overlapping, { ...opts, concurrency: 2 });
  const one = new InferenceBatcher(run, opts);
  await two.submit(seqs(256));
  await one.submit(seqs(256));
  t.equal(mostAtOnce, 2, 'a 256-text request runs on both workers at once');

  // The same backlog behind each: the two workers were measured working it off about twice as fast.
  const backlogTwo = two.submit(seqs(3000)).catch(() => null);
  const backlogOne = one.submit(seqs(3000)).catch(() => null);
  const ratio = one.expectedWaitMs(3000) / two.expectedWaitMs(3000);
  t.ok(ratio > 1.3 && ratio < 3, `one worker's expected wait / two workers' = ${ratio.toFixed(2)} (about 2)`);
  await Promise.all([backlogTwo, backlogOne]);

  // A flood on two workers: refused past 0.5 s of work at their combined speed (each at most 1000 rows/s).
  const outcomes = await Promise.all(Array.from({ length: 400 }, () => two.submit(seqs(16)).then(() => true, () => false)));
  const admitted = outcomes.filter(Boolean).length;
  t.ok(admitted * 16 <= 1000 + 16, `at most two workers' 0.5 s of work is admitted (${admitted * 16} rows)`);
  t.ok(outcomes.length - admitted > 200, 'most of the flood is refused');
  t.equal(two.queuedItems, 0, 'the queue is empty afterwards');
});
