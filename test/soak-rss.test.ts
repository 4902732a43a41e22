/** The soak's RSS growth statistic (test/helpers/abuse.ts rssWindowGrowth): a leak shows; GC swings, a dip and the
 * heap settling after warm-up do not. */
import t from 'tap';
import { rssWindowGrowth } from './helpers/abuse.js';

// 600 s sampled every 2 s; V8's heap between major collections: 40 MiB swings on a 30 s period.
const SECONDS = 600;
const WINDOW = 60;
const sawtooth = (at: number): number => 40 * ((at % 30) / 30);
const series = (level: (at: number) => number) => Array.from({ length: SECONDS / 2 + 1 }, (_, i) => ({ at: i * 2, value: level(i * 2) + sawtooth(i * 2) }));

t.test('a flat run with a deep dip right after warm-up has no growth', async (t) => {
  const points = series((at) => 600 - (at === 6 ? 90 : 0));
  const growth = rssWindowGrowth(points, WINDOW, SECONDS);
  t.ok(Math.abs(growth) < 0.02, `flat with a dip: ${(100 * growth).toFixed(1)} %`);
  const floor = (from: number, to: number) => Math.min(...points.filter((p) => p.at >= from && p.at <= to).map((p) => p.value));
  t.ok(floor(SECONDS - WINDOW, SECONDS) / floor(0, WINDOW) - 1 > 0.1, 'the window floors would read the same run as growth');
});

t.test('the heap settling after warm-up (a drop, then back to its level) is no growth', async (t) => {
  // High for the first minute, 90 MiB lower for the next two, back to a level just under the first by minute four.
  const level = (at: number): number => (at < 60 ? 630 : at < 180 ? 540 : at < 240 ? 540 + (at - 180) * 1.1 : 606);
  const growth = rssWindowGrowth(series(level), WINDOW, SECONDS);
  t.ok(growth < 0.01, `settling: ${(100 * growth).toFixed(1)} %`);
});

t.test('a leak of 15 % over the run is seen', async (t) => {
  const growth = rssWindowGrowth(series((at) => 600 * (1 + (0.15 * at) / SECONDS)), WINDOW, SECONDS);
  t.ok(growth > 0.1, `leak: ${(100 * growth).toFixed(1)} %`);
});

t.test('a leak of 5 % stays under the bar', async (t) => {
  const growth = rssWindowGrowth(series((at) => 600 * (1 + (0.05 * at) / SECONDS)), WINDOW, SECONDS);
  t.ok(growth > 0.03 && growth <= 0.1, `small leak: ${(100 * growth).toFixed(1)} %`);
});
