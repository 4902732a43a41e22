/** The soak's RSS growth statistic (test/helpers/abuse.ts theilSenEnds): a leak shows, GC swings and dips do not. */
import t from 'tap';
import { theilSenEnds } from './helpers/abuse.js';

// A sawtooth like V8's heap between major collections: 600 s sampled every 2 s, 40 MiB swings on a 30 s period.
const sawtooth = (at: number): number => 40 * ((at % 30) / 30);

t.test('a flat run with a deep dip right after warm-up has no growth', async (t) => {
  const points = Array.from({ length: 300 }, (_, i) => ({ at: i * 2, value: 600 + sawtooth(i * 2) - (i === 3 ? 90 : 0) }));
  const { first, last } = theilSenEnds(points);
  t.ok(Math.abs(last / first - 1) < 0.02, `flat: ${(100 * (last / first - 1)).toFixed(1)} %`);
  // What the floors would have said: the dip makes 15 % out of nothing.
  const floor = (from: number, to: number) => Math.min(...points.filter((p) => p.at >= from && p.at < to).map((p) => p.value));
  t.ok(floor(540, 600) / floor(0, 60) - 1 > 0.1, 'the window floors read the same run as growth');
});

t.test('a leak of 15 % over the run is seen as about 15 %, swings and all', async (t) => {
  const points = Array.from({ length: 300 }, (_, i) => ({ at: i * 2, value: 600 * (1 + (0.15 * i) / 299) + sawtooth(i * 2) }));
  const { first, last } = theilSenEnds(points);
  const growth = last / first - 1;
  t.ok(growth > 0.12 && growth < 0.18, `leak: ${(100 * growth).toFixed(1)} %`);
});
