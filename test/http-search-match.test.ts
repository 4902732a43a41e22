import t from 'tap';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';
import { readMatchGates } from '../src/core/match.js';

/** The measured probabilities of a pair the knowledge base reads as one dish, or as two items. */
const { knowledgeSame, knowledgeDifferent } = readMatchGates();

const auth = { 'x-api-key': OPERATOR_KEY };
const SOUTH_INDIAN = [
  'Masala Dosa ₹90', 'Plain Dosa', 'Mysore Masala Dosa', 'Idli Sambar (2 Pcs)', 'Medu Vada', 'Rava Kesari', 'Filter Coffee',
  'Curd Rice', 'Lemon Rice', 'Paneer Butter Masala', 'Butter Naan', 'Gulab Jamun', 'Fresh Lime Soda', 'Mango Lassi',
  'Veg Biryani', 'Chicken Biryani [Serves 1]', 'Chicken 65', 'Gobi Manchurian', 'Badam Milk', 'Onion Uttapam',
  'Chocolate Brownie', 'Tomato Soup', 'Garden Salad', 'Egg Fried Rice',
];

t.test('/search and /match through HTTP', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const search = (body: object) => call(srv.url, 'POST', '/search', body, auth);
  const match = (pairs: [string, string][], extra: object = {}) =>
    call(srv.url, 'POST', '/match', { pairs: pairs.map(([text_a, text_b]) => ({ text_a, text_b })), ...extra }, auth);

  t.test('search: misspellings, Devanagari, abstract needs, categories', async (t) => {
    const cases: [string, string, string[]][] = [
      ['chiken biriyani', 'chicken biryani', ['Chicken Biryani [Serves 1]']],
      ['dosa', 'dosa', ['Plain Dosa', 'Masala Dosa ₹90', 'Mysore Masala Dosa']],
      ['cold drink', 'cold drink', ['Fresh Lime Soda']],
      ['something sweet', 'something sweet', ['Gulab Jamun']],
      ['thayir sadam', 'thayir sadam', ['Curd Rice']],
      // typos no lexicon lists: read against the knowledge base and this menu's own words
      ['onion uttapm', 'onion uttapam', ['Onion Uttapam']],
      ['gulab jamn', 'gulab jamun', ['Gulab Jamun']],
      ['bevrrages', 'beverages', ['Filter Coffee', 'Badam Milk']],
    ];
    for (const [query, pre, expected] of cases) {
      const r = await search({ query, corpus: SOUTH_INDIAN, top_k: 5 });
      t.equal(r.status, 200, `${query}: 200`);
      t.equal(r.body.query_preprocessed, pre, `${query}: preprocessed`);
      const texts = r.body.results.map((x: { text: string }) => x.text);
      for (const e of expected) t.ok(texts.includes(e), `${query} finds ${e} (got ${texts.join(', ')})`);
      t.ok(r.body.results.length <= 5, 'at most top_k');
      for (const x of r.body.results) {
        t.ok(x.score >= 0 && x.score <= 1, 'score is a cosine in 0-1');
        t.ok(x.reranker_score === null || (x.reranker_score >= 0 && x.reranker_score <= 1), 'reranker_score in 0-1');
        t.type(x.is_fallback, 'boolean');
      }
      const rel = r.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback).map((x: { reranker_score: number }) => x.reranker_score);
      t.same(rel, [...rel].sort((a, b) => b - a), `${query}: sorted by relevance`);
    }
    const sweet = await search({ query: 'something sweet', corpus: SOUTH_INDIAN, top_k: 10 });
    t.notOk(sweet.body.results.some((x: { text: string }) => /Chicken|Biryani|Naan/.test(x.text)), 'no savoury items for a sweet craving');
    const drink = await search({ query: 'cold drink', corpus: SOUTH_INDIAN, top_k: 10 });
    t.notOk(drink.body.results.some((x: { text: string }) => /Dosa|Biryani|Chicken/.test(x.text)), 'a drink query gets drinks');
    const dev = await search({ query: 'पनीर', corpus: SOUTH_INDIAN, top_k: 3 });
    t.equal(dev.body.query_preprocessed, 'paneer');
    t.equal(dev.body.results[0]?.text, 'Paneer Butter Masala', 'Devanagari query finds the paneer dish');
  });

  t.test('search: translated concepts, cuisines, plurals, spelling, knowledge-base names, starters', async (t) => {
    const MIXED = [
      'Veg Hakka Noodles', 'Chilli Paneer Dry', 'Veg Manchurian Gravy', 'Chicken Fried Rice', 'Chicken Sweet Corn Soup',
      'Hot & Sour Chicken', 'Paneer Butter Masala', 'Dal Makhani', 'Butter Naan', 'Karela Fried', 'Gulab Jamun',
      'Mini Pancake [8 Pieces]', 'Cheese Garlic Bread', 'Four Cheese Pizza', 'Curd Rice with Pomegranate', 'Masala Chaas',
      'Chicken 65', 'Chicken Chettinad',
    ];
    const texts = async (query: string, topK = 10): Promise<string[]> => {
      const r = await search({ query, corpus: MIXED, top_k: topK });
      t.equal(r.status, 200);
      return r.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback).map((x: { text: string }) => x.text);
    };
    const chinese = await texts('chinese food');
    t.ok(['Veg Hakka Noodles', 'Chilli Paneer Dry', 'Chicken Fried Rice'].every((x) => chinese.includes(x)), `a cuisine query finds its dishes (got ${chinese.join(', ')})`);
    t.notOk(chinese.slice(0, 3).some((x) => ['Dal Makhani', 'Butter Naan', 'Gulab Jamun'].includes(x)), 'other cuisines are not on top');
    const postre = await texts('postre');
    t.ok(postre.includes('Gulab Jamun') && postre.every((x) => ['Gulab Jamun', 'Mini Pancake [8 Pieces]'].includes(x)), `a Spanish dessert query gets the desserts (got ${postre.join(', ')})`);
    t.ok((await texts('pancakes')).includes('Mini Pancake [8 Pieces]'), 'plural query, singular item');
    t.ok((await texts('garlic bred')).includes('Cheese Garlic Bread'), 'a corrected query is read in the dish spelling');
    t.equal((await texts('bitter gourd'))[0], 'Karela Fried', 'the knowledge base knows karela as bitter gourd');
    t.ok((await texts('yogurt rice')).includes('Curd Rice with Pomegranate'), 'an item with a topping is its dish for search');
    const soups = await texts('soup');
    t.ok(soups.includes('Hot & Sour Chicken') && soups.includes('Chicken Sweet Corn Soup'), `chicken soups are soups (got ${soups.join(', ')})`);
    const vegPizzeria = await search({ query: 'chicken pizza', corpus: ['Margherita Pizza', 'Cheezy-7 Pizza', 'Farmhouse Pizza', 'Garlic Bread', 'Veg Taco'], top_k: 5 });
    t.same(vegPizzeria.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback), [], 'a chicken pizza query at a veg pizzeria is not answered by pizzas that name no chicken');
    const starters = await texts('spicy starter');
    t.ok(starters.indexOf('Chicken 65') >= 0 && (starters.indexOf('Chicken Chettinad') < 0 || starters.indexOf('Chicken 65') < starters.indexOf('Chicken Chettinad')), `a spicy starter ranks above a spicy main (got ${starters.join(', ')})`);
  });

  t.test('search: flavour words, serving sizes, mocktails, a dish\'s head part, negation', async (t) => {
    const PARLOUR = [
      'Roasted Almond Ice Cream 100ml', 'Coffee Walnut Ice Cream 500ml', 'Kesar Pista Kulfi', 'Strawberry Shake',
      'Black Current Shake', 'Vanilla Ice Cream 100ml', 'Cold Coffee', 'Veg Sandwich', 'French Fries',
      'Party Combo for 5-6: Veg Burgers + Fries', 'Family Pack Ice Cream 1L (Serves 4)', 'Veg Burger',
    ];
    const texts = async (query: string): Promise<string[]> => {
      const r = await search({ query, corpus: PARLOUR, top_k: 10 });
      t.equal(r.status, 200);
      return r.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback).map((x: { text: string }) => x.text);
    };
    const nutty = await texts('something nutty');
    t.same(nutty.slice(0, 3).sort(), ['Coffee Walnut Ice Cream 500ml', 'Kesar Pista Kulfi', 'Roasted Almond Ice Cream 100ml'], `nut words answer "nutty" (got ${nutty.join(', ')})`);
    t.notOk(nutty.includes('French Fries'), 'fries are not nutty');
    const fruity = await texts('something fruity');
    t.ok(fruity.indexOf('Black Current Shake') >= 0 && fruity.indexOf('Black Current Shake') < 3, `a misspelt currant is a fruit (got ${fruity.join(', ')})`);
    t.notOk(fruity.includes('Cold Coffee'), 'coffee is not fruity');
    const party = await texts('party pack for a big group');
    t.ok(party.slice(0, 2).includes('Party Combo for 5-6: Veg Burgers + Fries') && party.slice(0, 2).includes('Family Pack Ice Cream 1L (Serves 4)'), `items for a group come first (got ${party.join(', ')})`);
    const drinks = await search({ query: 'mocktail', corpus: ['Strawberry Shake', 'Cold Coffee', 'Mint Mojito', 'Watermelon Cooler', 'Oreo Shake'], top_k: 5 });
    t.same(drinks.body.results.slice(0, 2).map((x: { text: string }) => x.text).sort(), ['Mint Mojito', 'Watermelon Cooler'], 'a mocktail query gets the mojitos and coolers before the shakes');
    const sodas = await search({ query: 'fizzy soft drink', corpus: ['Mango Thick Shake', 'Iced Latte', 'Sprite Medium', 'Berry Blast Thick Shake', 'Medium Thums Up', 'Cold Coffee'], top_k: 6 });
    t.same(sodas.body.results.slice(0, 2).map((x: { text: string }) => x.text).sort(), ['Medium Thums Up', 'Sprite Medium'], 'a soft drink query gets the sodas before the shakes and coffees');
    const idli = await search({ query: 'इडली सांबर', corpus: ['Extra Sambar (250ml)', 'Masala Dosa', 'Idli (2pc)', 'Medu Vada'], top_k: 4 });
    t.equal(idli.body.results[0]?.text, 'Idli (2pc)', 'idli is the head of "idli sambar"');
    const CURRIES = ['Chicken Chettinad', 'Laal Maas', 'Shahi Paneer', 'Navratan Korma', 'Malai Kofta', 'Mirchi Ka Salan', 'Butter Naan'];
    const mild = await search({ query: 'mild curry, not spicy', corpus: CURRIES, top_k: 7 });
    const mildTexts = mild.body.results.map((x: { text: string }) => x.text);
    t.ok(mildTexts.slice(0, 3).every((x: string) => ['Shahi Paneer', 'Navratan Korma', 'Malai Kofta'].includes(x)), `a mild query puts the mild curries first (got ${mildTexts.join(', ')})`);
    const notSpicy = await search({ query: 'not spicy', corpus: CURRIES, top_k: 7 });
    t.notOk(notSpicy.body.results.slice(0, 3).some((x: { text: string }) => ['Chicken Chettinad', 'Laal Maas', 'Mirchi Ka Salan'].includes(x.text)), 'a negated concept turns round');
    // A query that names a dish by another of its names finds the items that hold that dish's name, and takes the
    // dish's course: "semolina crepe" is Rava Dosa (not a dessert crepe), "minced mutton" is Mutton Keema.
    const crepe = await search({ query: 'semolina crepe', corpus: ['Chocolate Crepe', 'Filter Coffee', 'Rava Dosa', 'Ghee Rava Dosa', 'Vanilla Ice Cream'], top_k: 5 });
    const crepeTexts = crepe.body.results.map((x: { text: string }) => x.text);
    t.equal(crepeTexts[0], 'Rava Dosa', `Rava Dosa answers "semolina crepe" (got ${crepeTexts.join(', ')})`);
    // The fitted gates keep a weak tail (floor 0.15): a dessert crepe may follow, never lead.
    const firstDessert = crepeTexts.findIndex((x: string) => x === 'Chocolate Crepe' || x === 'Vanilla Ice Cream');
    t.ok(crepeTexts.includes('Ghee Rava Dosa') && (firstDessert < 0 || firstDessert > crepeTexts.indexOf('Ghee Rava Dosa')), `and both dosas come before any dessert (got ${crepeTexts.join(', ')})`);
    const keema = await search({ query: 'minced mutton', corpus: ['Mutton Rogan Josh', 'Mutton Biryani', 'Mutton Keema Kaleji', 'Chicken Keema', 'Mutton Seekh Kebab'], top_k: 5 });
    t.equal(keema.body.results[0]?.text, 'Mutton Keema Kaleji', `an item holding Mutton Keema answers "minced mutton" (got ${keema.body.results.map((x: { text: string }) => x.text).join(', ')})`);
    // Both are spicy starters in the knowledge base; the one whose name says so answers "spicy" more surely.
    const spicy = await search({ query: 'spicy starter', corpus: ['Gobi Manchurian', 'Veg Spring Roll', 'Chilli Mushroom', 'Veg Manchurian'], top_k: 4 });
    const spicyTexts = spicy.body.results.map((x: { text: string }) => x.text);
    t.equal(spicyTexts[0], 'Chilli Mushroom', `a name that says the flavour comes first (got ${spicyTexts.join(', ')})`);
    // One word that names an item's dish by another of its names: "quail" is Bater, which the encoder does not know.
    const quail = await search({ query: 'quail', corpus: ['Chicken Tikka', 'Fish Tikka', 'Tandoori Bater', 'Mutton Seekh Kebab'], top_k: 4 });
    t.equal(quail.body.results[0]?.text, 'Tandoori Bater', `"quail" finds the bater (got ${quail.body.results.map((x: { text: string }) => x.text).join(', ')})`);
    const pairs = await search({ query: 'something to go with chicken biryani', corpus: ['Chicken Biryani', 'Veg Biryani', 'Mint Raita', 'Mirchi Ka Salan', 'Butter Naan', 'Gulab Jamun'], top_k: 6 });
    const pairTexts = pairs.body.results.map((x: { text: string }) => x.text);
    t.same(pairTexts.slice(0, 2).sort(), ['Mint Raita', 'Mirchi Ka Salan'], `the sides come first (got ${pairTexts.join(', ')})`);
    t.notOk(pairTexts.some((x: string) => x.includes('Biryani')), 'and no biryani is offered with a biryani');
    const parlour = await search({ query: 'something to go with biryani', corpus: ['Kesar Pista Kulfi', 'Chocochips Ice Cream 500ml', 'Mango Shake', 'Belgian Chocolate Sundae'], top_k: 4 });
    t.same(parlour.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback), [], 'an ice-cream parlour has nothing to go with a biryani');
    // A combo of a curry and breads is a filling meal, though its dish (Butter Chicken) is not tagged so.
    const meal = await search({ query: 'complete meal for one', corpus: ['Green Salad', 'Masala Papad', 'Butter Chicken + 3 Roti + Green Salad', 'Gulab Jamun', 'Chicken Seekh Kebab'], top_k: 5 });
    t.same(meal.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback).map((x: { text: string }) => x.text), ['Butter Chicken + 3 Roti + Green Salad'],
      'a curry-and-roti combo is the complete meal, found by the search itself, not by the fallback');
    // A menu lists sandwiches as mains; a snack query still wants them.
    const snack = await search({ query: 'light evening snack', corpus: ['Chicken Dum Biryani', 'Veg Grilled Sandwich', 'Mint Raita', 'Dal Makhani', 'Steamed Rice'], top_k: 5 });
    const snackScores = new Map<string, number>(snack.body.results.map((x: { text: string; reranker_score: number }) => [x.text, x.reranker_score]));
    const bestSnack = Math.max(...snackScores.values());
    t.ok((snackScores.get('Veg Grilled Sandwich') ?? 0) >= bestSnack - 0.01,
      `a sandwich answers a snack query as surely as a side does (got ${[...snackScores].map(([k, v]) => `${k} ${v}`).join(', ')})`);
    const juiceShop = await search({ query: 'garam chai', corpus: ['Ginger Lime Soda', 'Lassi Sweet', 'Musambi Juice', 'Lime Mint Cooler', 'Masala Chai'], top_k: 5 });
    const chaiTexts = juiceShop.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback).map((x: { text: string }) => x.text);
    t.same(chaiTexts, ['Masala Chai'], `a hot drink is not answered by the cold ones (got ${chaiTexts.join(', ')})`);
    const noChai = await search({ query: 'garam chai', corpus: ['Ginger Lime Soda', 'Lassi Sweet', 'Musambi Juice', 'Lime Mint Cooler'], top_k: 4 });
    t.same(noChai.body.results, [], 'and a juice shop has nothing for it, not even a fallback');
    const nonVeg = await search({ query: 'spicy non veg curry', corpus: ['Chilli Garlic Potato', 'Chicken Chettinad', 'Paneer Butter Masala', 'Laal Maas'], top_k: 4 });
    const nonVegTexts = nonVeg.body.results.map((x: { text: string }) => x.text);
    t.notOk(nonVegTexts.some((x: string) => x === 'Chilli Garlic Potato' || x === 'Paneer Butter Masala'), `a need query's diet keeps veg items out (got ${nonVegTexts.join(', ')})`);
    t.ok(nonVegTexts.includes('Chicken Chettinad') && nonVegTexts.includes('Laal Maas'), 'and finds the spicy non-veg curries');
    const single = await texts('single serving cup for one');
    t.notOk(single.slice(0, 2).some((x) => /Party|Family/.test(x)), `a single serving is not a party pack (got ${single.join(', ')})`);
  });

  t.test('search and match: another name a menu uses for the same food', async (t) => {
    const MOMO = ['Veg. Dim Sums Steamed', 'Paneer Dim Sums Fried', 'Veg Hakka Noodles', 'Chilli Paneer Dry', 'Bhindi Chana', 'Masala Maggi', 'Plain Maggi', 'Cold Coffee'];
    const texts = async (query: string): Promise<string[]> => {
      const r = await search({ query, corpus: MOMO, top_k: 10 });
      t.equal(r.status, 200);
      return r.body.results.filter((x: { is_fallback: boolean }) => !x.is_fallback).map((x: { text: string }) => x.text);
    };
    const dumplings = await texts('dumplings');
    t.ok(dumplings.includes('Veg. Dim Sums Steamed') && dumplings.includes('Paneer Dim Sums Fried'), `dumplings: ${dumplings.join(', ')}`);
    t.notOk(dumplings.includes('Cold Coffee'), 'and not the coffee');
    const momos = await texts('paneer wale momos');
    t.equal(momos[0], 'Paneer Dim Sums Fried', `paneer momos: ${momos.join(', ')}`);
    const instant = await texts('instant noodles');
    t.ok(instant.includes('Plain Maggi') && instant.includes('Masala Maggi'), `instant noodles: ${instant.join(', ')}`);
    t.ok((await texts('okra')).includes('Bhindi Chana'), 'okra finds bhindi');
    const r = await match([['Chicken Dim Sum', 'Chicken Momo'], ['Veg Dim Sums Steamed', 'Veg Steamed Momos'], ['Chicken Wrap', 'Chicken Kathi Roll'], ['Veg Dim Sum', 'Chicken Momo']]);
    t.equal(r.status, 200);
    t.same(r.body.results.map((x: { match: boolean }) => x.match), [true, true, false, false], 'same food by another name matches; a conflict still wins');
    t.equal(r.body.results[0].reranker_score, knowledgeSame, 'scored with the measured same-dish probability');
    t.ok(r.body.results[3].dietary_conflict);
  });

  t.test('search: nothing sensible → no results; weak tail dropped', async (t) => {
    const sushi = await search({ query: 'sushi', corpus: SOUTH_INDIAN, top_k: 10 });
    t.same(sushi.body.results, [], 'sushi at a South Indian place returns nothing');
    const one = await search({ query: 'filter coffee', corpus: SOUTH_INDIAN, top_k: 50 });
    t.ok(one.body.results.length < SOUTH_INDIAN.length, 'fewer than top_k come back');
    t.equal(one.body.results[0].text, 'Filter Coffee');
  });

  t.test('search: corpus_embeddings skip encoding and are validated', async (t) => {
    const emb = await call(srv.url, 'POST', '/embed', { items: SOUTH_INDIAN, dimension: 256 }, auth);
    const withEmb = await search({ query: 'chiken biriyani', corpus: SOUTH_INDIAN, corpus_embeddings: emb.body.embeddings, top_k: 3 });
    t.equal(withEmb.status, 200);
    t.equal(withEmb.body.results[0].text, 'Chicken Biryani [Serves 1]', 'works at 256-d with the query embedded to match');
    const short = await search({ query: 'x', corpus: SOUTH_INDIAN, corpus_embeddings: emb.body.embeddings.slice(1) });
    t.equal(short.status, 422);
    t.match(short.body.detail, /must match/);
    const badDim = await search({ query: 'x', corpus: ['a'], corpus_embeddings: [[0.1, 0.2, 0.3]] });
    t.equal(badDim.status, 422);
    const mixed = await search({ query: 'x', corpus: ['a', 'b'], corpus_embeddings: [Array(128).fill(0.1), Array(256).fill(0.1)] });
    t.equal(mixed.status, 422);
  });

  t.test('search: validation', async (t) => {
    const cases: [object, number, string][] = [
      [{ corpus: ['a'] }, 422, 'validation_error'],
      [{ query: '', corpus: ['a'] }, 422, 'validation_error'],
      [{ query: 'a'.repeat(501), corpus: ['a'] }, 422, 'validation_error'],
      [{ query: 'a', corpus: [] }, 422, 'validation_error'],
      [{ query: 'a', corpus: Array(513).fill('x') }, 422, 'validation_error'],
      [{ query: 'a', corpus: ['a'], top_k: 0 }, 400, 'invalid_parameter'],
      [{ query: 'a', corpus: ['a'], top_k: 1001 }, 400, 'invalid_parameter'],
      [{ query: 'a', corpus: ['a'], top_k: 'ten' }, 422, 'validation_error'],
    ];
    for (const [body, status, code] of cases) {
      const r = await search(body);
      t.equal(r.status, status, JSON.stringify(body).slice(0, 60));
      t.equal(r.body.code, code);
    }
    const big = await search({ query: 'biryani', corpus: Array.from({ length: 512 }, (_, i) => `Item ${i} Veg Biryani`), top_k: 1000 });
    t.equal(big.status, 200, 'top_k 1000 over 512 items');
  });

  t.test('match: accompaniments never make another dish, combos do', async (t) => {
    const r = await match([
      ['Crunchy Chicken Nuggets (Six Pcs).', '(6Pc) Crunchy Chicken Nuggets + 1 Dip'],
      ['Paneer Tikka with Mint Chutney', 'Paneer Tikka'],
      ['Chicken Dum Biryani [Raita and Salad]', 'Chicken Dum Biryani'],
      ['Choco Lava Cake + Coke', 'Choco Lava Cake'],
      ['Paneer Tikka with Mint Chutney', 'Chicken Tikka with Mint Chutney'],
    ]);
    t.equal(r.status, 200);
    const [nuggets, tikka, biryani, combo, conflict] = r.body.results;
    t.equal(nuggets.match, true, 'a dip that comes with the nuggets does not make another dish');
    t.ok(nuggets.reranker_score >= knowledgeSame, `the knowledge-level identity sets the precision score (${nuggets.reranker_score})`);
    t.equal(tikka.match, true, '"with Mint Chutney" is an accompaniment');
    t.equal(biryani.match, true, 'a bracketed "raita and salad" is an accompaniment');
    t.equal(combo.match, false, 'a drink after "+" makes a combo');
    t.equal(conflict.match, false, 'the same accompaniment does not hide a protein conflict');
    t.equal(conflict.protein_conflict, true);
  });

  t.test('match: same dish, conflicts, sizes, thresholds', async (t) => {
    const r = await match([
      ['Chicken Biryani', 'Chiken Biriyani ₹250'],
      ['Paneer Tikka', 'Chicken Tikka'],
      ['Coke 500ml', 'Coca Cola 1.25L'],
      ['Veg Fried Rice', 'Egg Fried Rice'],
      ['Butter Chicken Half', 'Butter Chicken Full'],
      ['Murgh Makhani', 'Butter Chicken'],
      ['Chicken 65', 'Gobi 65'],
      ['Gobi Manchurian Dry', 'Gobi Manchurian Gravy'],
      ['Masala Dosa', 'Chocolate Milkshake'],
    ]);
    t.equal(r.status, 200);
    const [biryani, tikka, coke, friedRice, half, makhani, g65, dryGravy, unrelated] = r.body.results;
    t.equal(biryani.match, true, 'misspelled biryani matches');
    t.equal(tikka.match, false);
    t.equal(tikka.protein_conflict, true, 'paneer vs chicken is a protein conflict');
    t.equal(tikka.dietary_conflict, true);
    t.equal(coke.match, true, 'sizes never break a match');
    t.equal(friedRice.dietary_conflict, true, 'egg counts as non-veg');
    t.equal(friedRice.match, false, 'a conflict forces match false');
    t.equal(half.match, true, 'Half = Full plate');
    t.equal(makhani.match, true, 'Murgh Makhani = Butter Chicken');
    t.equal(g65.dietary_conflict, true);
    t.equal(g65.protein_conflict, false, 'gobi has no protein');
    t.equal(dryGravy.match, false, 'dry vs gravy are different dishes');
    t.equal(unrelated.match, false);
    t.equal(unrelated.reranker_score, null, 'below the cosine gate: no precision score');
    t.equal(biryani.text_a, 'Chicken Biryani', 'texts come back as submitted');
    t.equal(biryani.text_b, 'Chiken Biriyani ₹250');
    for (const x of r.body.results) t.ok(x.cosine >= 0 && x.cosine <= 1);
    // The menu's own pairing tells the diet: an eggless twin means the plain cake has egg; a "Non Veg" twin means the
    // plain dish is the veg one. Other-language words rendered in English make the same dish.
    const twins = await match([
      ['Opium Cake [1/2kg]', 'Eggless Opium Cake [1/2kg]'],
      ['Singapore Noodles', 'Non Veg Singapore Noodles'],
      ['Macchi Fry', 'Fish Fry'],
      ['Veg Hakka Ndls', 'Veg Hakka Noodles'],
    ]);
    const [eggless, nonVegTwin, macchi, abbreviated] = twins.body.results;
    t.equal(eggless.dietary_conflict, true, 'eggless vs plain cake is veg vs egg');
    t.equal(eggless.match, false);
    t.equal(nonVegTwin.dietary_conflict, true, '"Non Veg X" beside "X"');
    t.equal(macchi.match, true, 'macchi = fish');
    t.ok(macchi.reranker_score >= knowledgeSame, 'the same words once rendered in English: at least the same-dish probability');
    t.equal(abbreviated.match, true, 'Ndls = Noodles');
    // Variants of one family by the hard negatives' word swaps, a combo against its single item, the meat twin of an
    // open name; and a "Veg" marker in another language is still a marker.
    const families = await match([
      ['Chicken Darjeeling Steam Momo', 'Chicken Darjeeling Fried Momo'],
      ['Choco Lava Cake', 'Choco Lava Cake + Coke Combo @ Rs.79'],
      ['Grand Cheese Burger', 'Grand Chicken Burger'],
      ['Chicken Dum Biryani', 'Chicken Biryani'],
      ['B/L Chicken Biryani', 'Boneless Chicken Biryani'],
      ['Singapore Noodles', 'Vegetariano Singapore Noodles'],
    ]);
    const [steamFried, combo, meatTwin, dum, boneless, spanishMarker] = families.body.results;
    t.equal(steamFried.match, false, 'steamed vs fried momos are two items');
    t.ok(steamFried.reranker_score <= knowledgeDifferent, 'the swap is knowledge that they differ');
    t.equal(combo.match, false, 'a combo is not its single item');
    t.equal(meatTwin.dietary_conflict, true, 'the cheese twin of a chicken item is the veg one');
    t.equal(dum.match, true, 'dum is how biryani is made');
    t.equal(boneless.match, true, 'B/L = boneless');
    t.equal(spanishMarker.dietary_conflict, true, 'vegetariano marks the veg twin');
    // A form word added to a dish makes another item; a drink added to food makes a combo, and the combo is as
    // non-veg as its meat part; the knowledge base's own aliases still say same.
    const added = await match([
      ['Egg Bhurji', 'Egg Bhurji Grilled Sandwich [4 Pieces]'],
      ['Idli With Chutney', 'Fried Idli With Chutney'],
      ['Double Down Burger', 'Double Down Burger & Pepsi'],
      ['Veg Momos', 'Steamed Veg Momos'],
      ['Masala Chai', 'Masala Chai Tea'],
      ['Korean Cheese Delight Burger', 'Korean Chicken Burger'],
    ]);
    const [sandwich, friedIdli, withDrink, steamedMomos, chaiTea, twoWordTwin] = added.body.results;
    t.equal(sandwich.match, false, 'a sandwich of a dish is another item');
    t.equal(friedIdli.match, false, 'fried idli is another item');
    t.equal(withDrink.match, false, 'a burger with a drink is a combo');
    t.equal(withDrink.dietary_conflict, false, 'the combo with the chicken burger is not veg because Pepsi is');
    t.equal(steamedMomos.match, true, 'steamed is how the knowledge base\'s momos are made');
    t.equal(chaiTea.match, true, 'a drink word added to a drink is its name, not a combo');
    t.equal(twoWordTwin.dietary_conflict, true, 'two open words swapped for a meat word: the veg twin');
    // A flavour that makes another item outweighs a resolution by contained words; a dish whose own name has the added
    // word, and a name that says it is without the word, stay the same item.
    const flavours = await match([
      ['Lachha Paratha', 'Garlic Lachha Paratha'],
      ['McSpicy Paneer Burger', 'Piri Piri McSpicy Paneer Burger'],
      ['Medium Soft Drink (Cola)', 'Medium Soft Drink (Diet Cola)'],
      ['Pav Bhaji', 'Pav Bhaji Pull Apart'],
      ['McAloo Tikki', 'McAloo Tikki Burger'],
      ['Dal Makhani', 'Dal Makhani No Onion No Garlic'],
    ]);
    const [garlicParatha, piriPiri, dietCola, pullApart, mcAlooBurger, jain] = flavours.body.results;
    t.equal(garlicParatha.match, false, 'garlic lachha paratha is another item');
    t.ok(garlicParatha.reranker_score <= knowledgeDifferent, 'the added flavour is knowledge that they differ');
    t.equal(piriPiri.match, false, 'the piri piri burger is another item');
    t.equal(dietCola.match, false, 'diet cola is another drink');
    t.equal(pullApart.match, false, 'the pull-apart loaf is another item');
    t.equal(mcAlooBurger.match, true, 'the McAloo Tikki is a burger');
    t.equal(jain.match, true, '"no garlic" adds no garlic');
    // Two sure, different course groups are two items, whatever flavour word they share.
    const courses = await match([
      ['Cham Cham ( Orange )', 'Orange Juice'],
      ['Strawberry Shake', 'Strawberry Sundae'],
      ['Mango Lassi', 'Mango Lassi (500 ml)'],
    ]);
    const [chamCham, shakeSundae, lassi] = courses.body.results;
    t.equal(chamCham.match, false, 'a sweet is not a juice');
    t.ok(chamCham.reranker_score <= knowledgeDifferent, 'the courses are knowledge that they differ');
    t.equal(shakeSundae.match, false, 'a shake is not a sundae');
    t.equal(lassi.match, true, 'the same drink in another size');
    const strict = await match([['Paneer Butter Masala', 'Paneer Makhani Masala']], { cosine_threshold: 0.99 });
    const loose = await match([['Paneer Butter Masala', 'Paneer Makhani Masala']], { cosine_threshold: 0.1 });
    t.ok(Number(loose.body.results[0].match) >= Number(strict.body.results[0].match), 'a lower threshold never matches less');
    const bad = await call(srv.url, 'POST', '/match', { pairs: [{ text_a: 'a', text_b: 'b' }], cosine_threshold: 1.5 }, auth);
    t.equal(bad.status, 400);
    const none = await call(srv.url, 'POST', '/match', { pairs: [] }, auth);
    t.equal(none.status, 422);
    const many = await call(srv.url, 'POST', '/match', { pairs: Array(101).fill({ text_a: 'a', text_b: 'b' }) }, auth);
    t.equal(many.status, 422);
    const missing = await call(srv.url, 'POST', '/match', { pairs: [{ text_a: 'a' }] }, auth);
    t.equal(missing.status, 422);
  });
});
