/**
 * POST /classify through HTTP (in-process server, real models): shapes, order, limits, validation, the knowledge
 * base's labelling conventions, "uncertain"; plan gating for every endpoint is in http-plan-gating.test.ts.
 */
import t from 'tap';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';
import { CUISINE_LABELS } from '../src/core/knowledge/index.js';
import { readCuisineSourceConfidence } from '../src/core/profile-confidence.js';

const auth = { 'x-api-key': OPERATOR_KEY };
const LABELS = new Set<string>([...CUISINE_LABELS, 'uncertain']);

t.test('/classify through HTTP', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const base = srv.url;

  t.test('one result per item, in order, text as submitted', async (t) => {
    const items = [
      'Chicken Dum Biryani [Serves 2] ₹299 Bestseller',
      'panner tikka',
      'Gobi Manchurian Dry',
      'Masala Chai',
      'Margherita Pizza (Medium)',
      'Masala Dosa',
      'Chocolate Truffle Cake 1 kg',
      'Gulab Jamun (2 Pcs)',
      'Pad Thai Noodles',
      'पनीर टिक्का',
    ];
    const r = await call(base, 'POST', '/classify', { items }, auth);
    t.equal(r.status, 200);
    t.same(Object.keys(r.body), ['results']);
    t.equal(r.body.results.length, items.length);
    r.body.results.forEach((res: { text: string; cuisine: string; confidence: number }, i: number) => {
      t.same(Object.keys(res).sort(), ['confidence', 'cuisine', 'text']);
      t.equal(res.text, items[i], 'text is the submitted text, noise and all');
      t.ok(LABELS.has(res.cuisine), `${res.cuisine} is a label or uncertain`);
      t.ok(res.confidence >= 0 && res.confidence <= 1, 'confidence in 0–1');
    });
    const cuisines = r.body.results.map((x: { cuisine: string }) => x.cuisine);
    // The knowledge base's conventions: biryani → Mughlai, Indo-Chinese → Chinese, drinks → Beverages,
    // cakes → Bakery, sweets → Desserts; a misspelling and a Devanagari name still land.
    t.same(cuisines, [
      'Mughlai', 'North Indian', 'Chinese', 'Beverages', 'Italian', 'South Indian', 'Bakery', 'Desserts', 'Thai', 'North Indian',
    ]);
  });

  t.test('names the knowledge base does not hold go through the trained head', async (t) => {
    // Invented dish names with a clear form: the head must place them, with less confidence than a known dish.
    const items = ['Smoky Chipotle Paneer Burrito Bowl', 'Tonkotsu Miso Ramen Deluxe', 'Kerala Style Prawn Moilee Curry', 'Paneer Butter Masala'];
    const r = await call(base, 'POST', '/classify', { items }, auth);
    t.equal(r.status, 200);
    const [burrito, ramen, moilee, known] = r.body.results;
    t.equal(burrito.cuisine, 'Mexican');
    t.equal(ramen.cuisine, 'Japanese');
    t.equal(moilee.cuisine, 'South Indian');
    t.equal(known.cuisine, 'North Indian');
    t.equal(known.confidence, readCuisineSourceConfidence().dish, 'an exact knowledge-base dish: the measured share right of such answers');
    t.ok(known.confidence >= 0.95, 'which is high');
  });

  t.test('gibberish is uncertain, not a guess', async (t) => {
    const r = await call(base, 'POST', '/classify', { items: ['Qwxzy Blorp', 'asdf jkl'] }, auth);
    t.equal(r.status, 200);
    for (const res of r.body.results) {
      t.equal(res.cuisine, 'uncertain', `${res.text} is uncertain`);
      t.ok(res.confidence < 0.5, 'with a low confidence');
    }
  });

  t.test('the same text gets the same answer wherever it sits in a batch', async (t) => {
    const single = await call(base, 'POST', '/classify', { items: ['Hakka Noodles'] }, auth);
    const batch = await call(base, 'POST', '/classify', { items: ['Tiramisu', 'Hakka Noodles', 'Cold Coffee'] }, auth);
    t.same(batch.body.results[1], single.body.results[0]);
  });

  t.test('limits and validation', async (t) => {
    const max = await call(base, 'POST', '/classify', { items: Array.from({ length: 512 }, (_, i) => `Paneer Tikka ${i}`) }, auth);
    t.equal(max.status, 200, '512 items are allowed');
    t.equal(max.body.results.length, 512);
    const cases: [unknown, number, string][] = [
      [{ items: [] }, 422, 'no items'],
      [{ items: Array.from({ length: 513 }, () => 'Idli') }, 422, '513 items'],
      [{ items: ['x'.repeat(501)] }, 422, 'an item over 500 characters'],
      [{ items: 'Idli' }, 422, 'items not an array'],
      [{ items: ['Idli', 7] }, 422, 'a non-string item'],
      [{}, 422, 'items missing'],
      ['{"items": [', 400, 'malformed JSON'],
    ];
    for (const [body, status, what] of cases) {
      const r = await call(base, 'POST', '/classify', body, auth);
      t.equal(r.status, status, `${what} → ${status}`);
      t.type(r.body.detail, 'string', 'with a detail');
    }
    t.equal((await call(base, 'POST', '/classify', { items: ['x'.repeat(500)] }, auth)).status, 200, '500 characters are allowed');
    t.equal((await call(base, 'POST', '/classify', { items: ['Idli'] })).status, 401, 'no key → 401');
  });

  t.test('/health reports the classifier to the operator', async (t) => {
    const r = await call(base, 'GET', '/health', undefined, auth);
    t.equal(r.status, 200);
    t.ok('classifier' in r.body, 'the diagnostic view has a classifier field');
  });
});
