import t from 'tap';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { searchItems, understandQuery } from '../src/core/search.js';
import { RELEVANCE_FEATURE_NAMES, RELEVANCE_ORDERS, SEARCH_RANKER_PATH, readSearchRanker, relevanceFeatures } from '../src/core/search-relevance.js';

const knowledge = loadKnowledge();
const { menu } = readSearchRanker();

/** The named features of one (query, item) pair, as /search computes them, at the given cosine. */
function featuresOf(query: string, item: string, cosine = 0.7): (name: string) => number {
  const q = understandQuery(parseMenuText(knowledge, query));
  const [it] = searchItems(knowledge, q, [parseMenuText(knowledge, item)], menu);
  const f = relevanceFeatures(knowledge, q, it!, cosine);
  const out: { [name: string]: number } = {};
  RELEVANCE_FEATURE_NAMES.forEach((n, i) => (out[n] = f[i]!));
  return (name) => {
    const v = out[name];
    if (v === undefined) throw new Error(`no feature ${name}`);
    return v;
  };
}

t.test('features: the dish and words of the query against the item', async (t) => {
  const same = featuresOf('paneer tikka', 'Paneer Tikka (8 pcs)');
  t.equal(same('words_same_dish'), 1, 'the item is the dish and holds the words');
  t.equal(same('dish_other'), 0);
  const family = featuresOf('paneer tikka', 'Chicken Tikka');
  t.equal(family('words_same_dish') + family('words_other_dish'), 0, 'another dish does not hold "paneer"');
  t.equal(family('dish_same_family') + family('dish_other'), 1, 'another known dish, of the family or not');
  t.equal(featuresOf('paneer tikka', 'Paneer Tikka Pizza')('words_other_dish'), 1, 'a form holding the words');
});

t.test('features: an item holds the kind its food is one of (kinds.tsv), one way only', async (t) => {
  t.equal(featuresOf('cheese', 'Veggies & Mozza Sandwich')('words_other_dish'), 1, 'mozza is a cheese');
  t.equal(featuresOf('cheese', 'Mozarella Sticks')('words_other_dish'), 1, 'a spelling in the same group of search_equivalents.tsv too');
  t.equal(featuresOf('ice cream', 'Choco Brownie Sundae')('words_other_dish'), 1, 'a sundae is an ice cream');
  t.equal(featuresOf('sundae', 'Vanilla Ice Cream')('words_other_dish'), 0, 'an ice cream is not a sundae');
  t.equal(featuresOf('curry', 'Chicken Pulusu')('kind_word'), 1, 'a kind row of translations.tsv: pulusu is a curry');
});

t.test('features: diet and protein conflicts, stated by the query', async (t) => {
  const f = featuresOf('veg biryani', 'Chicken Dum Biryani');
  t.equal(f('diet_conflict'), 1, 'a chicken dish contradicts a veg query');
  t.equal(featuresOf('veg biryani', 'Veg Dum Biryani')('diet_conflict'), 0);
  t.equal(featuresOf('chicken biryani', 'Mutton Biryani')('protein_conflict'), 1, 'another meat');
  t.equal(featuresOf('biryani', 'Mutton Biryani')('protein_conflict'), 0, 'no protein asked, no conflict');
  // A name of the query's dish that leaves its meat unsaid ("Rogan Josh") is not held by an item of another protein.
  const otherMeat = featuresOf('mutton rogan josh', 'Paneer Rogan Josh');
  t.equal(otherMeat('words_other_dish'), 0, 'paneer rogan josh does not hold the mutton dish');
  t.equal(otherMeat('protein_conflict'), 1);
  t.equal(featuresOf('minced mutton', 'Mutton Keema Kaleji')('words_other_dish'), 1, 'a form of the dish the query names, of its meat, holds it');
  // The head word says "the same kind of dish" only within the query's diet and protein.
  t.equal(featuresOf('hyderabadi biryani', 'Lucknowi Biryani')('head_word'), 1, 'another biryani is of the kind asked');
  t.equal(featuresOf('chicken biryani', 'Veg Dum Biryani')('head_word'), 0, 'a veg biryani is not of a chicken biryani\'s kind');
  t.equal(featuresOf('paneer tikka', 'Lal Mirch Fish Tikka')('head_word'), 0, 'nor a fish tikka of a paneer tikka\'s');
  // A protein that names a kind (proteins.tsv: seafood) is asked for by every protein of that kind.
  const seafood = featuresOf('something with seafood', 'Prawn Fried Rice');
  t.equal(seafood('protein_conflict'), 0, 'a prawn dish is seafood');
  t.equal(seafood('words_other_dish'), 1, 'and holds the kind the query names, by its protein');
  t.equal(featuresOf('something with seafood', 'Chicken Fried Rice')('protein_conflict'), 1, 'a chicken dish is not');
  t.equal(featuresOf('prawn fried rice', 'Fish Fried Rice')('protein_conflict'), 1, 'one sea protein does not stand for another');
});

t.test('features: a course need, weighted by how abstract the query is', async (t) => {
  const sweet = featuresOf('dessert', 'Gulab Jamun (2 pcs)');
  t.equal(sweet('course_match'), 1);
  t.equal(sweet('course_match_abstract'), 1, 'a one-word need is wholly abstract');
  t.equal(featuresOf('dessert', 'Masala Dosa')('course_other_group'), 1, 'a main is no dessert');
  t.equal(featuresOf('paneer tikka', 'Gulab Jamun')('course_match') + featuresOf('paneer tikka', 'Gulab Jamun')('course_other_group'), 0, 'a dish query asks no course');
});

t.test('features: the asked tags an item has, as any and as a share (concepts.tsv: "healthy" asks healthy and light)', async (t) => {
  const both = featuresOf('healthy', 'Chicken Noodle Soup');
  t.equal(both('tag_hit'), 1, 'a soup tagged healthy and light has an asked tag');
  t.equal(both('tag_share'), 1, 'and all of them');
  const one = featuresOf('healthy', 'Grilled Chicken Burger');
  t.equal(one('tag_hit'), 1, 'a burger tagged healthy has one');
  t.equal(one('tag_share'), 0.5, 'half of what is asked');
  t.equal(one('tag_share_abstract'), 0.5, 'a one-word need is wholly abstract');
  const none = featuresOf('healthy', 'Gulab Jamun');
  t.equal(none('tag_hit') + none('tag_share'), 0, 'a sweet has neither');
  t.equal(none('tag_miss'), 1, 'and is known to miss them');
  t.equal(featuresOf('paneer tikka', 'Chicken Noodle Soup')('tag_hit'), 0, 'a dish query asks no tags');
});

t.test('features: the cosine is read as given, and only one cosine feature is set', async (t) => {
  const f = featuresOf('paneer tikka', 'Paneer Tikka', 0.83);
  t.equal(f('cosine'), 0.83);
  t.equal(f('cosine_serving_only'), 0);
  t.equal(f('serving_only'), 0);
});

t.test('the committed ranker: fitted on these features, sane signs, gates in range', async (t) => {
  const ranker = readSearchRanker();
  const raw = JSON.parse(readFileSync(SEARCH_RANKER_PATH, 'utf8')) as { features: string[]; encoder: string; fitted_by: string; data: { sha256: string } };
  t.same(raw.features, RELEVANCE_FEATURE_NAMES, 'one weight per named feature, in order');
  t.match(raw.fitted_by, /fit-search-ranker/, 'written by the fit script');
  t.match(raw.data.sha256, /^[0-9a-f]{64}$/, 'records the data it was fitted on');
  const w = (name: string) => ranker.weights[RELEVANCE_FEATURE_NAMES.indexOf(name)]!;
  t.ok(w('cosine') > 0, 'a closer item is more relevant');
  t.ok(w('words_same_dish') > 0, 'the query dish holding its words counts for it');
  t.ok(w('diet_conflict') < 0, 'a diet conflict counts against');
  t.ok(RELEVANCE_ORDERS.length > 0, 'the features declare orders');
  for (const [stronger, weaker] of RELEVANCE_ORDERS) {
    t.ok(ranker.weights[stronger]! >= ranker.weights[weaker]!, `${RELEVANCE_FEATURE_NAMES[stronger]} weighs at least ${RELEVANCE_FEATURE_NAMES[weaker]}`);
  }
  t.ok(ranker.floor > 0 && ranker.floor < 1 && ranker.band > 0 && ranker.band <= 1);
  // The same item scores higher with the words than without.
  const q = understandQuery(parseMenuText(knowledge, 'paneer tikka'));
  const items = searchItems(knowledge, q, ['Paneer Tikka', 'Aloo Tikki'].map((x) => parseMenuText(knowledge, x)), ranker.menu);
  t.ok(ranker.relevance(relevanceFeatures(knowledge, q, items[0]!, 0.7)) > ranker.relevance(relevanceFeatures(knowledge, q, items[1]!, 0.7)));
});

t.test('a ranker file fitted on other features is refused with what to do', async (t) => {
  const raw = JSON.parse(readFileSync(SEARCH_RANKER_PATH, 'utf8')) as { features: string[] };
  const dir = mkdtempSync(join(tmpdir(), 'ranker-'));
  const path = join(dir, 'search-relevance.json');
  writeFileSync(path, JSON.stringify({ ...raw, features: [...raw.features].reverse() }));
  t.throws(() => readSearchRanker(path), /refit with scripts\/fit-search-ranker\.mjs/);
  writeFileSync(path, JSON.stringify({ ...raw, format: 'other@1' }));
  t.throws(() => readSearchRanker(path), /format/);
  writeFileSync(path, JSON.stringify({ ...raw, floor: 2 }));
  t.throws(() => readSearchRanker(path), /floor and band/);
  const menu = (raw as unknown as { menu: Record<string, number> }).menu;
  writeFileSync(path, JSON.stringify({ ...raw, menu: { ...menu, reach: undefined } }));
  t.throws(() => readSearchRanker(path), /menu must give .*reach/, 'a menu rule without its reach');
  writeFileSync(path, JSON.stringify({ ...raw, menu: { ...menu, openCourse: 0.9, sureCourse: 0.5 } }));
  t.throws(() => readSearchRanker(path), /openCourse ≤ sureCourse/, 'an open course above the sure one');
  writeFileSync(path, JSON.stringify({ ...raw, menu: { ...menu, neighbours: 5 } }));
  t.equal(readSearchRanker(path).menu.neighbours, 5, 'the rule is read from the file');
  t.ok(Object.isFrozen(readSearchRanker(path).menu), 'and frozen');
  writeFileSync(path, JSON.stringify({ ...raw, menu: { ...menu, reach: 7.5 } }));
  t.throws(() => readSearchRanker(path), /whole numbers neighbours, reach/, 'a reach that is no whole number of places');
  const fallback = (raw as unknown as { fallback: Record<string, number> }).fallback;
  writeFileSync(path, JSON.stringify({ ...raw, fallback: { ...fallback, band: undefined } }));
  t.throws(() => readSearchRanker(path), /fallback must give .*band/, 'a fallback rule without its band');
  writeFileSync(path, JSON.stringify({ ...raw, fallback: { ...fallback, most: 2.5 } }));
  t.throws(() => readSearchRanker(path), /whole number most/, 'a fallback size that is no whole number');
  writeFileSync(path, JSON.stringify({ ...raw, fallback: { ...fallback, most: 3 } }));
  t.equal(readSearchRanker(path).fallback.most, 3, 'the fallback rule is read from the file');
  const blend = (raw as unknown as { blend: Record<string, number> }).blend;
  writeFileSync(path, JSON.stringify({ ...raw, blend: { ...blend, perAbstractness: undefined } }));
  t.throws(() => readSearchRanker(path), /blend must give .*perAbstractness/, 'a concept blend without its slope');
  writeFileSync(path, JSON.stringify({ ...raw, blend: { ...blend, base: -1 } }));
  t.throws(() => readSearchRanker(path), /blend must give/, 'a blend that moves away from what is asked');
  writeFileSync(path, JSON.stringify({ ...raw, blend: { base: 0.25, perAbstractness: 2 } }));
  t.same(readSearchRanker(path).blend, { base: 0.25, perAbstractness: 2 }, 'the concept blend is read from the file');
});
