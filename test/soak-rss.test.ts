/** The soak's memory growth statistic (test/helpers/abuse.ts rssWindowGrowth over heldBytes): a leak shows; GC swings,
 * a dip, the heap settling after warm-up and garbage awaiting a full collection do not. */
import t from 'tap';
import { heldBytes, rssWindowGrowth } from './helpers/abuse.js';

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

t.test('garbage piling up between rarer full collections moves RSS, not the memory held', async (t) => {
  // Native 620 MiB and a live heap of 55 MiB throughout; the heap committed climbs from 110 to 260 MiB of garbage over
  // the run's second half (full collections growing rarer), and RSS with it.
  const at = (i: number) => i * 2;
  const committed = (s: number) => (s < SECONDS / 2 ? 110 : 110 + (150 * (s - SECONDS / 2)) / (SECONDS / 2));
  const samples = Array.from({ length: SECONDS / 2 + 1 }, (_, i) => ({ at: at(i), rss: 620 + committed(at(i)), heapCommitted: committed(at(i)), heapLive: 55 }));
  const rss = rssWindowGrowth(samples.map((s) => ({ at: s.at, value: s.rss })), WINDOW, SECONDS);
  const held = rssWindowGrowth(samples.map((s) => ({ at: s.at, value: heldBytes(s) })), WINDOW, SECONDS);
  t.ok(rss > 0.1, `RSS reads it as growth: ${(100 * rss).toFixed(1)} %`);
  t.ok(Math.abs(held) < 0.005, `memory held does not: ${(100 * held).toFixed(1)} %`);
});

t.test('a leak in live objects or in native memory moves the memory held', async (t) => {
  const run = (live: (s: number) => number, native: (s: number) => number) =>
    Array.from({ length: SECONDS / 2 + 1 }, (_, i) => {
      const s = i * 2;
      const committed = live(s) + 60 + sawtooth(s);
      return { at: s, value: heldBytes({ rss: native(s) + committed, heapCommitted: committed, heapLive: live(s) }) };
    });
  const jsLeak = rssWindowGrowth(run((s) => 55 + (100 * s) / SECONDS, () => 620), WINDOW, SECONDS);
  const nativeLeak = rssWindowGrowth(run(() => 55, (s) => 620 + (100 * s) / SECONDS), WINDOW, SECONDS);
  t.ok(jsLeak > 0.1, `live heap +100 MiB: ${(100 * jsLeak).toFixed(1)} %`);
  t.ok(nativeLeak > 0.1, `native +100 MiB: ${(100 * nativeLeak).toFixed(1)} %`);
});
