/**
 * POST /report through HTTP (in-process server, real models), and the quality-score formula as a pure function.
 */
import t from 'tap';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';
import { CUISINE_LABELS } from '../src/core/knowledge/index.js';
import { effectiveCuisines, qualityScore } from '../src/core/report.js';
import { classifierStatus } from '../src/core/classify.js';

const auth = { 'x-api-key': OPERATOR_KEY };

interface ReportBody {
  restaurant_name: string;
  total_items: number;
  noise_analysis: { items_with_noise: number; noise_percentage: number; examples: { original: string; cleaned: string }[] };
  dedup_summary: { total_clusters: number; total_duplicate_items: number; top_clusters: { canonical: string; size: number; members: string[] }[] };
  cuisine_breakdown: { distribution: Record<string, number> } | null;
  non_food_items: { item: string; category: string }[];
  quality_score: number;
  processing_time_ms: number;
}

/** A tidy menu of one restaurant: no noise, no duplicates, several cuisines, food only. */
const CLEAN_MENU = [
  'Paneer Butter Masala', 'Dal Makhani', 'Butter Naan', 'Masala Dosa', 'Idli Sambar', 'Veg Hakka Noodles',
  'Gobi Manchurian', 'Margherita Pizza', 'Penne Arrabbiata', 'Chocolate Brownie', 'Mango Lassi', 'Cold Coffee',
];

/** The same kind of menu with repeats, prices, sizes, promo labels and products that are not restaurant food. */
const MESSY_MENU = [
  'Paneer Butter Masala Half ₹220', 'Paneer Butter Masala Full ₹380', 'Panner Butter Masala [Bestseller]',
  'Dal Makhani (Serves 2)', 'Dal Makhni', 'Butter Naan', 'Butter Naan ₹60', 'Masala Dosa 🔥 Must Try', 'Masala Dosa',
  'Chicken Biryani Half', 'Chicken Biryani Full', 'Chicken Biryani [Serves 1]', 'Coke 500ml', 'Maggi Masala Noodles',
  'Paracetamol 500mg Tablet', 'Aashirvaad Whole Wheat Atta 5kg', 'Cotton Round Neck T-Shirt Size M',
];

t.test('/report through HTTP', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const report = (body: object, headers: Record<string, string> = auth) => call<ReportBody>(srv.url, 'POST', '/report', body, headers);

  t.test('shape, restaurant name and bookkeeping', async (t) => {
    const r = await report({ items: MESSY_MENU, restaurant_name: 'Hotel Saravana' });
    t.equal(r.status, 200);
    const b = r.body;
    t.equal(b.restaurant_name, 'Hotel Saravana');
    t.equal(b.total_items, MESSY_MENU.length);
    t.type(b.processing_time_ms, 'number');
    t.ok(Number.isInteger(b.quality_score) && b.quality_score >= 0 && b.quality_score <= 100, 'quality_score is an integer in 0-100');
    const unnamed = await report({ items: CLEAN_MENU });
    t.equal(unnamed.body.restaurant_name, '', 'restaurant_name defaults to the empty string');
    const nulled = await report({ items: CLEAN_MENU, restaurant_name: null });
    t.equal(nulled.status, 200);
    t.equal(nulled.body.restaurant_name, '');
  });

  t.test('noise analysis: counts what cleaning removed, up to five examples', async (t) => {
    const b = (await report({ items: MESSY_MENU })).body;
    const noisy = [
      'Paneer Butter Masala Half ₹220', 'Paneer Butter Masala Full ₹380', 'Panner Butter Masala [Bestseller]',
      'Dal Makhani (Serves 2)', 'Butter Naan ₹60', 'Masala Dosa 🔥 Must Try', 'Chicken Biryani Half', 'Chicken Biryani Full',
      'Chicken Biryani [Serves 1]', 'Coke 500ml',
    ];
    t.ok(b.noise_analysis.items_with_noise >= noisy.length, `at least the ${noisy.length} obviously noisy names (got ${b.noise_analysis.items_with_noise})`);
    t.ok(b.noise_analysis.items_with_noise < MESSY_MENU.length, 'clean names are not noise');
    t.equal(b.noise_analysis.noise_percentage, Math.round((10000 * b.noise_analysis.items_with_noise) / MESSY_MENU.length) / 100);
    t.equal(b.noise_analysis.examples.length, 5);
    for (const e of b.noise_analysis.examples) {
      t.ok(MESSY_MENU.includes(e.original), 'an example shows a submitted text');
      t.ok(e.cleaned.length > 0 && e.cleaned.length < e.original.length, `${e.original} → ${e.cleaned}`);
    }
    t.equal(b.noise_analysis.examples[0]!.original, 'Paneer Butter Masala Half ₹220', 'examples in submission order');
    t.same(b.noise_analysis.examples.find((e) => e.original === 'Dal Makhani (Serves 2)'), { original: 'Dal Makhani (Serves 2)', cleaned: 'Dal Makhani' });
    const clean = (await report({ items: CLEAN_MENU })).body;
    t.equal(clean.noise_analysis.items_with_noise, 0);
    t.equal(clean.noise_analysis.noise_percentage, 0);
    t.same(clean.noise_analysis.examples, []);
  });

  t.test('dedup summary agrees with /dedup on the same items', async (t) => {
    const b = (await report({ items: MESSY_MENU })).body;
    const d = (await call(srv.url, 'POST', '/dedup', { items: MESSY_MENU }, auth)).body;
    t.equal(b.dedup_summary.total_clusters, d.clusters.length);
    t.equal(b.dedup_summary.total_duplicate_items, d.duplicate_items);
    const tops = b.dedup_summary.top_clusters;
    t.ok(tops.length <= 10);
    t.same(tops.map((c) => c.size), [...tops.map((c) => c.size)].sort((x, y) => y - x), 'largest first');
    for (const c of tops) {
      t.equal(c.size, c.members.length);
      t.ok(c.members.includes(c.canonical));
    }
    const biryani = tops.find((c) => c.members.includes('Chicken Biryani Half'));
    t.same(biryani?.members, ['Chicken Biryani Half', 'Chicken Biryani Full', 'Chicken Biryani [Serves 1]']);
    const paneer = tops.find((c) => c.members.includes('Paneer Butter Masala Half ₹220'));
    t.same(paneer?.members, ['Paneer Butter Masala Half ₹220', 'Paneer Butter Masala Full ₹380', 'Panner Butter Masala [Bestseller]']);
    t.equal(tops[0]!.size, 3, 'the largest clusters have three members');
  });

  t.test('top clusters: at most ten, the largest', async (t) => {
    const names = srv.services.knowledge.book.dishes.map((d) => d.name).filter((n) => /^[A-Za-z ]+$/.test(n)).slice(0, 14);
    // Dish k appears k % 4 + 2 times (as sized variants): sizes 2..5.
    const items = names.flatMap((n, k) => Array.from({ length: (k % 4) + 2 }, (_, j) => `${n} ${['Half', 'Full', '₹199', '(Regular)', '[Serves 2]'][j]}`));
    const b = (await report({ items })).body;
    t.equal(b.dedup_summary.total_clusters, 14);
    t.equal(b.dedup_summary.top_clusters.length, 10);
    t.same(b.dedup_summary.top_clusters.map((c) => c.size), [5, 5, 5, 4, 4, 4, 3, 3, 3, 3]);
    t.equal(b.dedup_summary.total_duplicate_items, items.length - 14);
  });

  t.test('non-food items are flagged; drinks and instant noodles on a menu are food', async (t) => {
    const b = (await report({ items: MESSY_MENU })).body;
    const flagged = Object.fromEntries(b.non_food_items.map((x) => [x.item, x.category]));
    t.equal(flagged['Paracetamol 500mg Tablet'], 'pharmacy');
    t.equal(flagged['Aashirvaad Whole Wheat Atta 5kg'], 'grocery');
    t.equal(flagged['Cotton Round Neck T-Shirt Size M'], 'merchandise');
    t.notOk('Coke 500ml' in flagged, 'Coke 500ml is a drink on a menu');
    t.notOk('Maggi Masala Noodles' in flagged, 'Maggi Masala Noodles is a dish on a menu');
    t.equal(b.non_food_items.length, 3, `only those three (got ${JSON.stringify(b.non_food_items)})`);
    const clean = (await report({ items: CLEAN_MENU })).body;
    t.same(clean.non_food_items, []);
  });

  t.test('cuisine breakdown: one count per food item, null without a classifier', async (t) => {
    const b = (await report({ items: MESSY_MENU })).body;
    if (classifierStatus(srv.services.heads) === null) {
      t.equal(b.cuisine_breakdown, null, 'no classifier loaded, so the breakdown is null');
      return;
    }
    t.ok(b.cuisine_breakdown, 'a classifier is loaded, so there is a breakdown');
    const dist = b.cuisine_breakdown!.distribution;
    for (const label of Object.keys(dist)) t.ok((CUISINE_LABELS as readonly string[]).includes(label) || label === 'uncertain', `${label} is a label`);
    const counted = Object.values(dist).reduce((s, n) => s + n, 0);
    t.equal(counted, b.total_items - b.non_food_items.length, 'every food item counted once; non-food items have no cuisine');
    const counts = Object.values(dist);
    t.same(counts, [...counts].sort((x, y) => y - x), 'most frequent cuisine first');
    t.ok((dist['North Indian'] ?? 0) + (dist['Mughlai'] ?? 0) >= 5, 'a curry-house menu is mostly North Indian / Mughlai');
  });

  t.test('quality: a tidy menu scores higher than a messy one', async (t) => {
    const clean = (await report({ items: CLEAN_MENU })).body;
    const messy = (await report({ items: MESSY_MENU })).body;
    t.ok(clean.quality_score >= 90, `tidy, diverse menu: ${clean.quality_score}`);
    t.ok(messy.quality_score < clean.quality_score - 30, `messy menu: ${messy.quality_score}`);
    t.equal(messy.quality_score, qualityScore({
      totalItems: messy.total_items,
      duplicateItems: messy.dedup_summary.total_duplicate_items,
      noisyItems: messy.noise_analysis.items_with_noise,
      nonFoodItems: messy.non_food_items.length,
      distribution: messy.cuisine_breakdown?.distribution ?? null,
    }), 'the documented formula, from the report\'s own numbers');
  });

  t.test('validation: counts and lengths 422', async (t) => {
    const cases: [object, number, string][] = [
      [{ items: [] }, 422, 'no items'],
      [{ items: Array.from({ length: 2001 }, (_, i) => `Dish ${i}`) }, 422, '2001 items'],
      [{ items: ['x'.repeat(501)] }, 422, 'a 501-character item'],
      [{}, 422, 'items missing'],
      [{ items: ['Idli'], restaurant_name: 7 }, 422, 'restaurant_name not a string'],
      [{ items: ['Idli'], restaurant_name: 'r'.repeat(501) }, 422, 'a 501-character restaurant name'],
    ];
    for (const [body, status, what] of cases) {
      const r = await report(body);
      t.equal(r.status, status, what);
      t.type((r.body as unknown as { detail: unknown }).detail, 'string', `${what}: detail`);
    }
    t.equal((await report({ items: ['Idli'] }, {})).status, 401, 'no key');
  });

  t.test('2000 items', async (t) => {
    const names = [...new Set(srv.services.knowledge.book.dishes.map((d) => d.name))].slice(0, 1500);
    const items = [...names, ...names.slice(0, 500).map((n) => `${n} (Half) ₹149`)];
    const r = await report({ items, restaurant_name: 'Everything House' });
    t.equal(r.status, 200);
    t.equal(r.body.total_items, 2000);
    t.ok(r.body.dedup_summary.total_duplicate_items >= 500, 'the 500 sized copies are duplicates');
    t.ok(r.body.noise_analysis.items_with_noise >= 500);
    const again = await report({ items, restaurant_name: 'Everything House' });
    t.comment(`report of 2000 items: first call ${r.body.processing_time_ms} ms, repeat ${again.body.processing_time_ms} ms (embeddings cached)`);
    t.same({ ...again.body, processing_time_ms: 0 }, { ...r.body, processing_time_ms: 0 }, 'deterministic');
  });
});

t.test('quality score formula', async (t) => {
  const none = { totalItems: 100, duplicateItems: 0, noisyItems: 0, nonFoodItems: 0 };
  const diverse = { 'North Indian': 10, Chinese: 10, Italian: 10 };
  t.equal(qualityScore({ ...none, distribution: diverse }), 100, 'nothing wrong: 100');
  t.equal(qualityScore({ ...none, distribution: null }), 100, 'no classifier: no diversity penalty');
  t.equal(qualityScore({ ...none, duplicateItems: 15, distribution: diverse }), 83, 'half the duplicate saturation: −17.5');
  t.equal(qualityScore({ ...none, noisyItems: 50, distribution: diverse }), 80, 'noise saturates at 50 %: −20');
  t.equal(qualityScore({ ...none, nonFoodItems: 5, distribution: diverse }), 83, '5 % non-food: −17.5');
  t.equal(qualityScore({ ...none, distribution: { 'South Indian': 30, uncertain: 5 } }), 90, 'one cuisine: −10');
  t.equal(qualityScore({ ...none, distribution: { 'South Indian': 15, Chinese: 15 } }), 95, 'two even cuisines: −5');
  t.equal(qualityScore({ totalItems: 10, duplicateItems: 9, noisyItems: 10, nonFoodItems: 10, distribution: { Bakery: 1 } }), 0, 'everything wrong: 0');
  t.ok(Math.abs(effectiveCuisines({ A: 5, B: 5, uncertain: 50 }) - 2) < 1e-9, 'uncertain items do not count as a cuisine');
  t.equal(effectiveCuisines({ uncertain: 3 }), 0);
});
