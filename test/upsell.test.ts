import t from 'tap';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPSELL_FEATURE_NAMES, UPSELL_MODEL_PATH, UPSELL_ORDERS, readUpsellModel, upsellFeatures, type UpsellEvidence } from '../src/core/upsell.js';

const base: UpsellEvidence = { relation: 'same', category: 'side', cartHasMain: true, cartHasBreadMain: true, categoryInCart: false, closeness: 0.4 };

/** The named features of one candidate. */
function featuresOf(e: Partial<UpsellEvidence>): (name: string) => number {
  const f = upsellFeatures({ ...base, ...e });
  return (name) => {
    const i = UPSELL_FEATURE_NAMES.indexOf(name);
    if (i < 0) throw new Error(`no feature ${name}`);
    return f[i]!;
  };
}

t.test('features: one cuisine relation and one course situation per candidate, and the closeness', async (t) => {
  const relations = UPSELL_FEATURE_NAMES.filter((n) => n.startsWith('cuisine_'));
  for (const [relation, name] of [['same', 'cuisine_same'], ['same_family', 'cuisine_same_family'], ['goes_with_anything', 'cuisine_goes_with_anything'], ['meal_unknown', 'cuisine_cart_unknown'], ['item_unknown', 'cuisine_item_unknown'], ['other_family', 'cuisine_other_family']] as const) {
    const f = featuresOf({ relation });
    t.same(relations.filter((n) => f(n) === 1), [name], `${relation} sets ${name} alone`);
  }
  const courses = UPSELL_FEATURE_NAMES.filter((n) => !n.startsWith('cuisine_') && !['closeness', 'category_in_cart'].includes(n));
  const situation = (e: Partial<UpsellEvidence>): string[] => courses.filter((n) => featuresOf(e)(n) === 1);
  t.same(situation({ category: 'bread', cartHasBreadMain: true }), ['bread_for_bread_main'], 'a naan beside a curry');
  t.same(situation({ category: 'bread', cartHasBreadMain: false }), ['bread_otherwise'], 'a naan beside a biryani');
  t.same(situation({ category: 'side', cartHasMain: false }), ['side_without_main']);
  t.same(situation({ category: 'dessert', cartHasMain: true }), ['dessert_with_main']);
  t.same(situation({ category: 'main', cartHasMain: true }), ['main_with_main'], 'a second main');
  t.same(situation({ category: 'main', cartHasMain: false }), ['main_without_main']);
  t.same(situation({ category: 'beverage', cartHasMain: false }), ['beverage'], 'a drink, whatever the cart');
  t.equal(featuresOf({ closeness: 0.63 })('closeness'), 0.63, 'the cosine as it is');
  t.equal(featuresOf({ categoryInCart: true })('category_in_cart'), 1, 'a second side');
});

t.test('the committed model: fitted on the graded carts, orders held, the cart cuisine preferred', async (t) => {
  const model = readUpsellModel();
  const raw = JSON.parse(readFileSync(UPSELL_MODEL_PATH, 'utf8')) as { fitted_by: string; data: { sha256: string; graded_candidates: number }; metrics: { leave_one_cart_out_ndcg_at_5: number; closeness_alone_ndcg_at_5: number } };
  t.match(raw.fitted_by, /fit-suggest-upsell/, 'written by the fit script');
  t.match(raw.data.sha256, /^[0-9a-f]{64}$/, 'records the data it was fitted on');
  t.ok(raw.data.graded_candidates > 500, `${raw.data.graded_candidates} graded candidates`);
  t.ok(raw.metrics.leave_one_cart_out_ndcg_at_5 > raw.metrics.closeness_alone_ndcg_at_5, 'carts it never saw are ranked better than by closeness alone');
  for (const [stronger, weaker] of UPSELL_ORDERS) t.ok(model.weights[stronger]! >= model.weights[weaker]!, `${UPSELL_FEATURE_NAMES[stronger]} ≥ ${UPSELL_FEATURE_NAMES[weaker]}`);
  const q = (e: Partial<UpsellEvidence>): number => model.goodness(upsellFeatures({ ...base, ...e }));
  t.ok(q({ relation: 'same' }) > q({ relation: 'other_family' }), "a side of the cart's cuisine beats one of another family");
  t.ok(q({ category: 'bread', cartHasBreadMain: true }) > q({ category: 'bread', cartHasBreadMain: false, cartHasMain: true }), 'bread goes with a curry, not with a biryani');
  for (const e of [{}, { category: 'main' as const }, { relation: 'item_unknown' as const, closeness: -0.2 }]) {
    const g = q(e);
    t.ok(g > 0 && g < 1, `goodness ${g} in (0, 1)`);
  }
});

t.test('a model file fitted on other features, out of order or of another format is refused', async (t) => {
  const raw = JSON.parse(readFileSync(UPSELL_MODEL_PATH, 'utf8')) as { features: string[]; weights: number[] };
  const dir = mkdtempSync(join(tmpdir(), 'upsell-'));
  const path = join(dir, 'suggest-upsell.json');
  writeFileSync(path, JSON.stringify({ ...raw, features: [...raw.features].reverse() }));
  t.throws(() => readUpsellModel(path), /refit with scripts\/fit-suggest-upsell\.mjs/);
  writeFileSync(path, JSON.stringify({ ...raw, format: 'other@1' }));
  t.throws(() => readUpsellModel(path), /format/);
  const [stronger, weaker] = UPSELL_ORDERS[0]!;
  const flipped = [...raw.weights];
  flipped[stronger] = flipped[weaker]! - 1;
  writeFileSync(path, JSON.stringify({ ...raw, weights: flipped }));
  t.throws(() => readUpsellModel(path), /against its declared order/);
  writeFileSync(path, JSON.stringify({ ...raw, weights: raw.weights.slice(1) }));
  t.throws(() => readUpsellModel(path), /finite weights/);
  for (const decay of [0, 1.5, undefined]) {
    writeFileSync(path, JSON.stringify({ ...raw, repeat_decay: decay }));
    t.throws(() => readUpsellModel(path), /repeat_decay must be a share/, `repeat_decay ${decay} is refused`);
  }
});

t.test("the list's spread is the fit's choice: the best top-5 grade of its grid, ties to the largest share", async (t) => {
  const raw = JSON.parse(readFileSync(UPSELL_MODEL_PATH, 'utf8')) as { repeat_decay: number; metrics: { top5_mean_grade_by_repeat_decay: Record<string, number> } };
  const grid = Object.entries(raw.metrics.top5_mean_grade_by_repeat_decay).map(([d, g]) => [Number(d), g] as const);
  t.ok(grid.length >= 5, 'a grid of shares was tried');
  const best = Math.max(...grid.map(([, g]) => g));
  const chosen = Math.max(...grid.filter(([, g]) => g === best).map(([d]) => d));
  t.equal(raw.repeat_decay, chosen);
  t.equal(readUpsellModel().repeatDecay, chosen, 'and the service reads it');
});
