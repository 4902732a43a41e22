/**
 * POST /suggest through HTTP (in-process server, real models): shapes, limits, validation, the dietary rule, the
 * exclusion of cart items and their noisy or sized variants, missing-category priority (plan gating: http-plan-gating.test.ts).
 */
import t from 'tap';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';

const auth = { 'x-api-key': OPERATOR_KEY };
const CATEGORIES = ['main', 'beverage', 'bread', 'side', 'dessert'];

interface Suggestion {
  item: string;
  category: string;
  reason: string;
  score: number;
  cuisine_match: boolean;
}

/** A North Indian restaurant menu with every category, veg and non-veg, noisy names and two non-food listings. */
const MENU = [
  'Paneer Butter Masala [Full] ₹289',
  'Panner Butter Masala (Half)',
  'Dal Makhani',
  'Butter Chicken Bestseller',
  'Chicken Biryani',
  'Egg Curry',
  'Mutton Rogan Josh',
  'Butter Naan',
  'Garlic Naan',
  'Tandoori Roti',
  'Paneer Tikka (8 Pcs)',
  'Chicken Tikka',
  'Veg Spring Rolls',
  'Boondi Raita',
  'Sweet Lassi',
  'Coke 500ml',
  'Coca Cola 750 ml',
  'Masala Chai',
  'Gulab Jamun (2 Pcs)',
  'Rasmalai',
  'Chocolate Brownie',
  'Egg Pudding',
  'Dolo 650 Tablet',
  'Restaurant Logo T-Shirt Black XL',
];
const NON_VEG = new Set(['Butter Chicken Bestseller', 'Chicken Biryani', 'Egg Curry', 'Mutton Rogan Josh', 'Chicken Tikka', 'Egg Pudding']);

t.test('/suggest through HTTP', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const base = srv.url;
  const suggest = (body: unknown) => call(base, 'POST', '/suggest', body, auth);

  t.test('response shape, defaults and the cart summary', async (t) => {
    const r = await suggest({ cart: ['Butter Chicken', 'Butter Naan (2 Pcs)'], menu: MENU });
    t.equal(r.status, 200);
    t.same(Object.keys(r.body).sort(), ['cart_categories', 'cart_cuisine', 'cart_dietary', 'processing_time_ms', 'suggestions']);
    t.equal(r.body.suggestions.length, 5, 'top_k defaults to 5');
    t.equal(r.body.cart_cuisine, 'North Indian');
    t.equal(r.body.cart_dietary, 'non_veg', 'bread does not make a chicken cart mixed');
    t.same(r.body.cart_categories, ['main', 'bread']);
    t.type(r.body.processing_time_ms, 'number');
    let previous = Infinity;
    for (const s of r.body.suggestions as Suggestion[]) {
      t.same(Object.keys(s).sort(), ['category', 'cuisine_match', 'item', 'reason', 'score']);
      t.ok(MENU.includes(s.item), `"${s.item}" is the menu's original text`);
      t.ok(CATEGORIES.includes(s.category), `${s.category} is a category`);
      t.ok(s.score >= 0 && s.score <= 1, 'score in 0–1');
      t.ok(s.score <= previous, 'scores never increase down the list');
      previous = s.score;
      t.ok(s.reason.length > 10, 'a reason in words');
      t.type(s.cuisine_match, 'boolean');
    }
    const items = (r.body.suggestions as Suggestion[]).map((s) => s.item);
    t.notOk(items.includes('Dolo 650 Tablet'), 'medicine on a menu is never an upsell');
    t.notOk(items.includes('Restaurant Logo T-Shirt Black XL'), 'merchandise is never an upsell');
  });

  t.test('missing categories come first, one each, with a plain reason', async (t) => {
    const r = await suggest({ cart: ['Dal Makhani', 'Butter Naan'], menu: MENU, top_k: 10 });
    t.equal(r.status, 200);
    t.same(r.body.cart_categories, ['main', 'bread']);
    const s = r.body.suggestions as Suggestion[];
    const firstThree = s.slice(0, 3).map((x) => x.category).sort();
    t.same(firstThree, ['beverage', 'dessert', 'side'], 'the three missing categories fill the first three places');
    const drink = s.find((x) => x.category === 'beverage')!;
    t.equal(drink.reason, 'Adds a drink: your cart has none');
    t.ok(s.slice(0, 3).every((x) => /your cart has none/.test(x.reason)), 'each says which gap it fills');
    t.ok(s.slice(3).every((x) => !/your cart has none/.test(x.reason)), 'later ones do not claim a gap');
    t.ok(Math.min(...s.slice(0, 3).map((x) => x.score)) > Math.max(...s.slice(3).map((x) => x.score)), 'gap fillers outscore the rest');
    const cuisineMatched = s.filter((x) => x.cuisine_match);
    t.ok(cuisineMatched.length > 0 && cuisineMatched.every((x) => x.category !== 'beverage'), 'cuisine_match is true for North Indian dishes, not for drinks');

    const noDrinkNoDessert = await suggest({ cart: ['Masala Chai'], menu: MENU, top_k: 4 });
    t.same(noDrinkNoDessert.body.cart_categories, ['beverage']);
    t.same(
      (noDrinkNoDessert.body.suggestions as Suggestion[]).map((x) => x.category).sort(),
      ['bread', 'dessert', 'main', 'side'],
      'a drink-only cart gets a main, a bread, a side and a dessert first',
    );
  });

  t.test('a combo in the cart counts the courses it comes with', async (t) => {
    const r = await suggest({ cart: ['Shahi Paneer with 4 Tawa Roti'], menu: MENU, top_k: 5 });
    t.equal(r.status, 200);
    t.same(r.body.cart_categories, ['main', 'bread'], 'the rotis are bread in the cart');
    const s = r.body.suggestions as Suggestion[];
    t.same(s.slice(0, 3).map((x) => x.category).sort(), ['beverage', 'dessert', 'side'], 'the gaps are a drink, a side and a dessert');
    t.notOk(s.some((x) => x.category === 'bread' && /your cart has none/.test(x.reason)), 'no bread is offered as a missing course');
  });

  t.test('an all-veg cart never gets non-veg, egg or unknown-diet items', async (t) => {
    const r = await suggest({ cart: ['Paneer Tikka', 'Veg Biryani', 'Sweet Lassi'], menu: MENU, top_k: 20 });
    t.equal(r.status, 200);
    t.equal(r.body.cart_dietary, 'veg');
    const items = (r.body.suggestions as Suggestion[]).map((s) => s.item);
    t.ok(items.length >= 5, `${items.length} suggestions`);
    for (const item of items) t.notOk(NON_VEG.has(item), `${item} is veg`);
    t.notOk(items.includes('Chocolate Brownie'), 'a brownie may hold egg: not offered to a veg cart');
    t.ok(items.includes('Rasmalai') || items.includes('Gulab Jamun (2 Pcs)'), 'a veg dessert is offered instead');

    const mixed = await suggest({ cart: ['Paneer Tikka', 'Chicken Biryani'], menu: MENU, top_k: 20 });
    t.equal(mixed.body.cart_dietary, 'mixed', 'a veg dish beside a non-veg one is mixed');
    t.ok((mixed.body.suggestions as Suggestion[]).some((s) => NON_VEG.has(s.item)), 'a mixed cart may get non-veg');

    // A brownie is egg only by its usual recipe: in a veg cart it must not turn the cart mixed (which would let
    // chicken through), and the cart is still read as veg.
    const withBrownie = await suggest({ cart: ['Dal Makhani', 'Veg Biryani', 'Chocolate Brownie'], menu: MENU, top_k: 20 });
    t.equal(withBrownie.body.cart_dietary, 'veg', 'a brownie does not make a veg cart mixed');
    for (const s of withBrownie.body.suggestions as Suggestion[]) t.notOk(NON_VEG.has(s.item), `${s.item} is veg`);
    const eggCart = await suggest({ cart: ['Dal Makhani', 'Egg Curry'], menu: MENU });
    t.equal(eggCart.body.cart_dietary, 'mixed', 'a named egg dish still counts as non-veg');
  });

  t.test('cart items and their noisy or sized variants are never suggested', async (t) => {
    const r = await suggest({ cart: ['Paneer Butter Masala (Half) ₹249', 'Coke', 'Garlic Naan Bestseller'], menu: MENU, top_k: 20 });
    t.equal(r.status, 200);
    const items = (r.body.suggestions as Suggestion[]).map((s) => s.item);
    for (const variant of ['Paneer Butter Masala [Full] ₹289', 'Panner Butter Masala (Half)', 'Coke 500ml', 'Coca Cola 750 ml', 'Garlic Naan']) {
      t.notOk(items.includes(variant), `${variant} is already in the cart`);
    }
    t.ok(items.includes('Butter Naan'), 'a different naan is still offered');
    t.equal(new Set(items).size, items.length, 'no item twice');
    // Another item to /match, but the cart's own bread again: a flavour variant of a cart item is not an upsell.
    const paratha = await suggest({ cart: ['Lachha Paratha', 'Dal Makhani'], menu: [...MENU, 'Lachha Paratha', 'Garlic Lachha Paratha'], top_k: 20 });
    const offered = (paratha.body.suggestions as Suggestion[]).map((s) => s.item);
    t.ok(offered.length > 0, 'the cart still gets suggestions');
    t.notOk(offered.includes('Garlic Lachha Paratha'), 'the garlic variant of the cart\'s paratha is not offered');
    // Neither name sure of its dish, both read as one: another flavour of the cart's own roll is not an upsell either.
    const rolls = await suggest({ cart: ['Jalapeno Paneer Roll'], menu: [...MENU, 'Jalapeno Paneer Roll', 'Achari Paneer Roll'], top_k: 20 });
    const rollOffers = (rolls.body.suggestions as Suggestion[]).map((s) => s.item);
    t.ok(rollOffers.length > 0, 'the cart still gets suggestions');
    t.notOk(rollOffers.includes('Achari Paneer Roll'), 'the other flavour of the cart\'s roll is not offered');
  });

  t.test('a menu listing one dish twice yields it once', async (t) => {
    const r = await suggest({ cart: ['Dal Makhani'], menu: ['Coke 300 ml', 'Coke 500 ml', 'Coca-Cola Can', 'Butter Naan'], top_k: 5 });
    t.equal(r.status, 200);
    const items = (r.body.suggestions as Suggestion[]).map((s) => s.item);
    t.equal(items.filter((i) => /co(ke|ca)/i.test(i)).length, 1, 'one Coke among three listings');
    t.same(items.length, 2);
  });

  t.test('top_k bounds what comes back', async (t) => {
    const one = await suggest({ cart: ['Dal Makhani'], menu: MENU, top_k: 1 });
    t.equal(one.body.suggestions.length, 1);
    const twenty = await suggest({ cart: ['Dal Makhani'], menu: MENU, top_k: 20 });
    t.ok(twenty.body.suggestions.length <= 20 && twenty.body.suggestions.length > 5);
  });

  t.test('limits and validation', async (t) => {
    const big = await suggest({ cart: Array.from({ length: 50 }, (_, i) => `Paneer Tikka ${i}`), menu: Array.from({ length: 500 }, (_, i) => `Masala Chai ${i}`) });
    t.equal(big.status, 200, '50 cart and 500 menu items are allowed');
    const cases: [unknown, number, string][] = [
      [{ cart: [], menu: MENU }, 422, 'empty cart'],
      [{ cart: ['Idli'], menu: [] }, 422, 'empty menu'],
      [{ cart: Array.from({ length: 51 }, () => 'Idli'), menu: MENU }, 422, '51 cart items'],
      [{ cart: ['Idli'], menu: Array.from({ length: 501 }, () => 'Vada') }, 422, '501 menu items'],
      [{ cart: ['x'.repeat(501)], menu: MENU }, 422, 'a cart item over 500 characters'],
      [{ cart: ['Idli'], menu: ['y'.repeat(501)] }, 422, 'a menu item over 500 characters'],
      [{ menu: MENU }, 422, 'cart missing'],
      [{ cart: ['Idli'] }, 422, 'menu missing'],
      [{ cart: ['Idli'], menu: MENU, top_k: '5' }, 422, 'top_k of the wrong type'],
      [{ cart: ['Idli'], menu: MENU, top_k: 0 }, 400, 'top_k 0'],
      [{ cart: ['Idli'], menu: MENU, top_k: 21 }, 400, 'top_k 21'],
      [{ cart: ['Idli'], menu: MENU, top_k: 2.5 }, 400, 'top_k not whole'],
      [{ cart: ['Idli'], menu: MENU, top_k: -3 }, 400, 'top_k negative'],
    ];
    for (const [body, status, what] of cases) {
      const r = await suggest(body);
      t.equal(r.status, status, `${what} → ${status}`);
      t.type(r.body.detail, 'string');
    }
    t.equal((await suggest({ cart: ['Idli'], menu: MENU, top_k: null })).status, 200, 'top_k null means the default');
    t.equal((await call(base, 'POST', '/suggest', { cart: ['Idli'], menu: MENU })).status, 401, 'no key → 401');
  });
});
