import t from 'tap';
import {
  compoundParts as compoundPartsIn,
  conceptualQueryVector,
  hasWord as hasWordIn,
  menuSections as menuSectionsIn,
  rankSearch as rankSearchIn,
  rulesOutOnly,
  searchItems,
  understandQuery,
  usualCourse,
  type QueryUnderstanding,
} from '../src/core/search.js';
import { equivalenceTerms as termsIn, equivalenceTokens as tokensIn } from '../src/core/knowledge/equivalents.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText, type MenuText } from '../src/core/menu-text.js';
import { readSearchRanker } from '../src/core/search-relevance.js';
import type { MenuEncoder } from '../src/core/inference/encoder.js';

const knowledge = loadKnowledge();
const ranker = readSearchRanker();
/** A query as the search route reads it (after spelling): parsed once. */
const understand = (query: string) => understandQuery(parseMenuText(knowledge, query));
/** A menu item as the search route reads it. */
const item = (text: string) => parseMenuText(knowledge, text);
const rankSearch = (q: QueryUnderstanding, items: readonly MenuText[], cosines: readonly number[], topK: number) =>
  rankSearchIn(knowledge, ranker, q, items, cosines, topK);
const menuSections = (items: readonly MenuText[]) => menuSectionsIn(items, ranker.menu);
const equivalenceTerms = (words: readonly string[]) => termsIn(knowledge.equivalents, words);
const equivalenceTokens = (words: readonly string[]) => tokensIn(knowledge.equivalents, words);
const compoundParts = (word: string) => compoundPartsIn(knowledge, word);
const hasWord = (words: ReadonlySet<string>, word: string) => hasWordIn(knowledge, words, word);

t.test('understandQuery: a negated need names no course, and small words ask for nothing', async (t) => {
  const savoury = understand('something savoury, not sweet');
  t.same(savoury.avoid, ['sweet'], 'savoury and not sweet both rule sweet out');
  t.equal(savoury.course, null, 'the dessert course that "sweet" names is not asked for');
  t.equal(understand('sweet').course, 'dessert', 'the word alone still asks for a dessert');
  t.same(understand('high protein but no meat').words, [], '"but" asks for nothing (lexicon/query_filler.txt)');
  t.same(understand('side dish for my biryani').words, ['biryani'], 'nor does "my"');
  // After a context word (query_words.tsv: after, before) the query says when it is eaten, not what it asks for.
  const afterPizza = understand('something sweet after pizza');
  t.same(afterPizza.words, [], 'the pizza is eaten before: no item need hold "pizza"');
  t.same(afterPizza.tags, ['sweet'], 'the need is the sweet');
  t.ok(understand('light breakfast before gym').tags.includes('high_protein'), 'a need the context names still counts');
  // A negator a few small words before a need still turns it round.
  t.same(understand('a proper lunch not just coffee').avoid, ['caffeinated'], '"not just coffee" rules coffee out');
  t.same(understand('not a coffee').tags, [], 'and does not ask for it');
  // In Hindi word order the negator follows (query_words.tsv negator_after), past filler words too.
  for (const q of ['teekha nahi', 'teekha bilkul nahi']) {
    t.same([understand(q).tags, understand(q).avoid], [[], ['spicy']], `${q}: not spicy`);
  }
  const notSweet = understand('meetha nahi chahiye');
  t.same([notSweet.tags, notSweet.avoid, notSweet.course], [[], ['sweet'], null], 'every phrase of a translated word is turned round, and names no course');
  t.same([understand('spicy not sweet').tags, understand('spicy not sweet').avoid], [['spicy'], ['sweet']], 'an English negator turns round only what follows it');
  t.same(understand('teekha ke bina').avoid, ['spicy'], '"bina" after the need too');
  t.same(understand('char logon ke liye khana').words, [], 'a Hindi head count only says the serving');
  t.equal(understand('char logon ke liye khana').serving, 4);
});

t.test('rankSearch: a query that only rules tags out is answered by the food known to be without them', async (t) => {
  t.ok(rulesOutOnly(understand('not sweet')) && rulesOutOnly(understand('teekha nahi')), 'a negated need alone only rules out');
  t.notOk(rulesOutOnly(understand('mild curry, not spicy')), 'beside a dish word it narrows what is asked');
  t.notOk(rulesOutOnly(understand('not sweet lassi')), 'beside a dish word it narrows what is asked');
  // Cosines to the query moved away from the sweet centroid (conceptualQueryVector): all low, the sweet ones lowest.
  const menu = ['Chocolate Shake', 'Gulab Jamun', 'French Fries', 'Paneer Pakora', 'Mint Mojito', 'Walnut Sundae 2.0'];
  const got = rankSearch(understand('not sweet'), menu.map(item), [-0.55, -0.5, -0.2, -0.25, -0.3, -0.4], 10).results.map((r) => menu[r.index]);
  t.ok(got.length > 0, 'answered, not empty');
  t.same([...got].sort(), ['French Fries', 'Paneer Pakora'], 'savoury food the knowledge base knows: no sweet, no drink, no unknown item');
});

t.test('searchItems: a name that says it is not spicy is not spicy, whatever its dish or its other words', async (t) => {
  const q = understand('veg momos non spicy');
  t.same(q.avoid, ['spicy']);
  const menu = ['Chilli Paneer', 'Chilli Paneer (Non Spicy)', 'Chatpata Paneer Momo (Non Spicy)', 'Chatpata Paneer Momo', 'Paneer Tikka (Less Spicy)'];
  const items = searchItems(knowledge, q, menu.map(item), ranker.menu);
  const spicy = menu.filter((_, i) => items[i]!.tags.has('spicy'));
  t.same(spicy, ['Chilli Paneer', 'Chatpata Paneer Momo'], `only the names that do not turn it round: ${spicy.join(', ')}`);
  // Through rankSearch, at equal cosines: the item that says it is not spicy answers a query that rules spicy out first.
  const got = rankSearch(understand('non spicy chatpata paneer momo'), [item('Chatpata Paneer Momo'), item('Chatpata Paneer Momo (Non Spicy)')], [0.7, 0.7], 2).results.map((r) => r.index);
  t.equal(got[0], 1, 'the non-spicy momo first');
});

t.test('rankSearch: a protein kind named by its own name is held by the dishes of its proteins', async (t) => {
  // Cosines as low as the encoder gives a kind word and a dish of one of its proteins.
  const menu = ['Prawn Fried Rice', 'Fish Tikka', 'Chicken Fried Rice', 'Veg Noodles'];
  const got = rankSearch(understand('something with seafood'), menu.map(item), [0.28, 0.2, 0.24, 0.1], 10).results;
  t.same(got.filter((r) => !r.is_fallback).map((r) => menu[r.index]).sort(), ['Fish Tikka', 'Prawn Fried Rice'], 'the prawn and the fish dish pass the gates; the chicken one does not');
});

t.test('understandQuery: a food the query says it is without is no word to hold, and an item named with it is left out', async (t) => {
  const q = understand('pizza without onion');
  t.same(q.without, ['onion'], 'the onion is ruled out');
  t.same(q.words, ['pizza'], 'the pizza is what is asked for');
  t.same(understand('sandwich with no cheese and no mayo').without, ['cheese', 'mayo'], 'each negated food');
  t.same(understand('no chicken burger').without, [], 'a meat ruled out is the diet, read elsewhere');
  t.same(understand('no 1 biryani').without, [], 'a number after "no" is no food');
  const menu = ['Onion Pizza', 'Margherita Pizza', 'Veg Pizza No Onion No Garlic', 'Onion Rings'];
  const got = rankSearch(q, menu.map(item), [0.8, 0.7, 0.65, 0.5], 10).results.map((r) => menu[r.index]);
  t.notOk(got.includes('Onion Pizza'), 'the onion pizza is not offered, however close');
  t.ok(got.includes('Margherita Pizza') && got.includes('Veg Pizza No Onion No Garlic'), 'a pizza without it is, one that says so too');
});

t.test('rankSearch: a query for fasting food finds what a menu makes for the fast, by its dishes and its words', async (t) => {
  t.same(understand('vrat wala khana').tags, ['fasting'], 'vrat asks for fasting food');
  const menu = ['Sabudana Khichdi Bowl', 'Kuttu Ki Puri with Aloo', 'Dal Makhani Rice Bowl', 'Farali Pattice'];
  const got = rankSearch(understand('vrat wala khana'), menu.map(item), [0.3, 0.3, 0.45, 0.25], 10).results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  t.notOk(got.includes('Dal Makhani Rice Bowl'), 'not the closest name that is no food for the fast');
  t.ok(['Sabudana Khichdi Bowl', 'Kuttu Ki Puri with Aloo', 'Farali Pattice'].every((m) => got.includes(m)), 'the dishes for the fast, and a name that says it is one');
});

t.test('understandQuery: the words a query asks an item to hold', async (t) => {
  // Hinglish "wala/wali" ("the one with") names no dish: an item must not hold it to contain the query.
  t.same(understand('chicken wala sandwich').words, ['chicken', 'sandwich']);
  t.same(understand('dahi wali drink').words, ['dahi'], '"drink" is the beverage course');
  const pack = understand('ghar ke liye bada pack');
  t.same([pack.words, pack.serving, pack.abstractness], [[], 4, 1], 'Hindi\'s little words are filler: the query is all serving');
  t.same(understand('chow mein').words, ['chow', 'mein'], '"mein" is no filler in a dish name');
});

t.test('understandQuery: a diet or protein only implied by a word is not asked for', async (t) => {
  // "whopper" usually carries chicken, but a customer typing it wants the veg Whopper too, and "keema" the chicken keema.
  for (const q of ['whopper', 'keema', 'seekh', 'frankfurter']) {
    const u = understand(q);
    t.same([u.stated.diet, u.stated.protein], ['unknown', null], q);
  }
  t.same([understand('chicken whopper').stated.diet, understand('chicken whopper').stated.protein], ['non_veg', 'chicken'], 'a meat the words name is asked for');
  t.equal(understand('veg whopper').stated.diet, 'veg');
});

t.test('understandQuery: a dish named exactly lends its course and its names', async (t) => {
  const crepe = understand('semolina crepe');
  t.equal(crepe.profile.dish?.name, 'Rava Dosa');
  t.equal(crepe.course, null, '"crepe" alone reads as a dessert; the dish it names is not one');
  t.ok(crepe.dishNames.some((names) => names.has('rava') && names.has('dosa') && names.size === 2), 'an item holding "rava dosa" holds the dish');
  t.equal(understand('gulab jamun').course, 'dessert', 'a dessert dish keeps its dessert course');
  t.same(understand('something sweet').dishNames, [], 'an abstract query names no dish');
});

t.test('understandQuery: "to go with X" asks for what accompanies X, not for X', async (t) => {
  const biryani = understand('something to go with biryani');
  t.same(biryani.pairWith, { course: 'main', cuisine: 'Mughlai', rice: true });
  t.same(biryani.words, [], 'the biryani is not a word the answer must hold');
  t.equal(biryani.stated.diet, 'unknown', 'nor does its diet bind the answer');
  t.equal(understand('sides for my pizza').pairWith?.course, 'main');
  t.equal(understand('chicken biryani').pairWith, null);
});

t.test('understandQuery: occasions and diet words in a query for a need', async (t) => {
  const curry = understand('spicy non veg curry');
  t.same(curry.words, [], '"non veg" is the diet, not words an item must hold');
  t.equal(curry.stated.diet, 'non_veg', 'and the diet still binds');
  t.same(understand('veg momos').words, ['veg', 'momos'], 'a dish query keeps its diet word as a word');
  const hot = understand('refreshing drink for a hot day');
  t.same([hot.words, [...hot.tags].sort(), hot.avoid, hot.course], [[], ['cold_drink', 'fruity', 'tangy'], ['hot_drink'], 'beverage'],
    'a hot day asks for a tangy or fruity cold drink, and rules out a hot one');
  const chai = understand('garam chai');
  t.ok(chai.tags.includes('hot_drink') && chai.avoid.includes('cold_drink'), 'a hot drink rules out the cold ones');
  t.notOk(understand('tea time snacks').avoid.includes('cold_drink'), 'a query that asks no drink temperature rules none out');
  t.same([understand('tea time snacks').course, understand('tea time snacks').tags], ['side', ['snack']], 'tea time asks for snacks, not tea');
  t.same(understand('complete meal for one person').tags, ['filling']);
  t.equal(understand('healthy vegetarian lunch').course, 'main', 'a need for lunch is food, whatever words come between');
  t.equal(understand('healthy drink').course, 'beverage');
  t.same(understand('party order for 6 people').words, [], 'an order is filler: the serving is the whole ask');
  t.same([...understand('something easy on the stomach when unwell').tags].sort(), ['light', 'soup']);
});

t.test('search equivalents: the names a menu uses for the same food answer for each other', async (t) => {
  t.same(equivalenceTerms(['dumplings']), equivalenceTerms(['momos']), 'plurals folded, one group');
  t.same(equivalenceTerms(['dim', 'sum']), equivalenceTerms(['momo']), 'a phrase is one term');
  t.notSame(equivalenceTerms(['ragi']), equivalenceTerms(['jowar']), 'two millets are two groups, not one "millet"');
  t.same(equivalenceTerms(['margherita', 'pizza']), ['margherita', 'pizza'], 'words outside every group stay as typed');
  t.same([...equivalenceTokens(['paneer', 'dim', 'sums', 'steamed'])].sort(), [...equivalenceTerms(['paneer']), ...equivalenceTerms(['dumpling'])].sort(),
    'an item holds the tokens of every group it names');
  const instant = understand('instant noodles');
  t.same(instant.terms, equivalenceTerms(['maggi']), '"instant noodles" is one food, Maggi');
  t.same(instant.tags, [], 'its last word is not the noodles concept');
  t.same(understand('flattened rice').terms, equivalenceTerms(['poha']));
});

t.test('rankSearch: an item holding the query under another name passes the gates', async (t) => {
  // The cosines are fixed, so only the knowledge decides: at 0.45 nothing passes on its cosine alone.
  const profiles = ['Paneer Dim Sums Steamed', 'Veg Fried Rice', 'Chocolate Shake'].map(item);
  const cosines = [0.45, 0.45, 0.45];
  const dumplings = rankSearch(understand('dumplings'), profiles, cosines, 10).results;
  t.same(dumplings.map((r) => [r.index, r.is_fallback]), [[0, false]], '"dumplings" finds the dim sums, and only them');
  t.ok(dumplings[0]!.reranker_score! > 0.5, 'above the relevance floor');
  const pizza = rankSearch(understand('pizza'), profiles, cosines, 10).results;
  t.ok(pizza.every((r) => r.is_fallback), 'a query no item names under any name gets only fallbacks');
});

t.test('understandQuery: a curry is no rice dish, a light dinner is a main, a need alone is wholly abstract', async (t) => {
  const mild = understand('mild curry, not spicy');
  t.same([[...mild.tags].sort(), [...mild.avoid].sort(), mild.course], [['creamy'], ['noodles', 'rice', 'spicy'], 'main']);
  t.equal(understand('light dinner').course, 'main', 'a dinner is a main course, not a side salad');
  const family = understand('meal for a family');
  t.equal(family.serving, 4);
  t.equal(family.abstractness, 1, 'cleaning strips "family" as size noise; what is left is filler, so the serving is the whole ask');
});

t.test('understandQuery: a veg ingredient is not the query asking for veg', async (t) => {
  t.equal(understand('chocolate lover').stated.diet, 'unknown', 'the egg mousse answers a chocolate lover too');
  t.equal(understand('veg burger').stated.diet, 'veg', '"veg" is asked for');
  t.equal(understand('eggless cake').stated.diet, 'veg');
  t.equal(understand('chicken biryani').stated.diet, 'non_veg');
});

t.test('usualCourse: an ice-cream menu makes its house names desserts, a food menu says nothing', async (t) => {
  const parlour = ['Vanilla Ice Cream', 'Chocolate Ice Cream', 'Mango Kulfi', 'Gulab Jamun', 'Butterscotch Ice Cream', 'Brownie Sundae', 'Alphonso Mango 100ml', 'Cold Coffee'];
  t.equal(usualCourse(parlour.map((s) => item(s).profile), ranker.menu), 'dessert');
  const diner = ['Paneer Tikka', 'Dal Makhani', 'Butter Naan', 'Gulab Jamun', 'Masala Chai', 'Veg Biryani'];
  t.equal(usualCourse(diner.map((s) => item(s).profile), ranker.menu), null);
  // Through rankSearch: at the parlour, "Alphonso Mango 100ml" (course open) answers a dessert query on its cosine.
  const profiles = parlour.map(item);
  const cosines = parlour.map((s) => (s.startsWith('Alphonso') ? 0.55 : 0.3));
  const got = rankSearch(understand('mango dessert'), profiles, cosines, 10).results.map((r) => parlour[r.index]);
  t.ok(got.includes('Alphonso Mango 100ml'), `a mango dessert at the parlour: ${got.join(', ')}`);
});

t.test('understandQuery: "wraps and rolls" takes either', async (t) => {
  t.ok(understand('wraps and rolls').anyOf);
  t.notOk(understand('dal chawal').anyOf);
  t.notOk(understand('mac and cheese').anyOf, 'a dish named with "and" is one thing');
  const corpus = ['Paneer Shawarma Wrap', 'Regular Shawarma Roll', 'Chocolate Shake'].map(item);
  const got = rankSearch(understand('wraps and rolls'), corpus, [0.5, 0.5, 0.5], 10).results.filter((r) => !r.is_fallback).map((r) => r.index);
  t.same(got.sort(), [0, 1], 'both the wrap and the roll, not the shake');
});

t.test('menuSections: an open item takes the course of the section it is listed in', async (t) => {
  // A café's shakes: the house names between "Banana Shake" and the coffees say nothing of their course themselves.
  const menu = ['Paneer Tikka', 'Veg Biryani', 'Cold Coffee', 'Masala Chai', 'Oreo n Oreo', 'Lotus Biscoff', 'Banana Shake', 'Strawberry Shake', 'Dal Makhani'];
  const profiles = menu.map(item);
  const open = menu.filter((_, i) => profiles[i]!.profile.courseConfidence < ranker.menu.openCourse);
  t.ok(open.includes('Oreo n Oreo') && open.includes('Lotus Biscoff'), `the house names are open: ${open.join(', ')}`);
  const sections = menuSections(profiles).map((s) => s?.course ?? null);
  t.equal(sections[menu.indexOf('Oreo n Oreo')], 'beverage', 'between drinks, a drink');
  t.equal(sections[menu.indexOf('Lotus Biscoff')], 'beverage');
  t.equal(sections[menu.indexOf('Cold Coffee')], null, 'an item whose course its text says is never moved');
  // Between a main and a drink the section is unclear: the item keeps its own reading.
  const mixed = ['Paneer Tikka', 'Dal Makhani', 'Lotus Biscoff', 'Cold Coffee', 'Masala Chai'].map(item);
  t.equal(menuSections(mixed)[2], null, 'neighbours that disagree say nothing');
  // Through rankSearch: a drinks query at the café finds the house shake.
  const got = rankSearch(understand('beverages'), profiles, menu.map(() => 0.5), 20).results.map((r) => menu[r.index]);
  t.ok(got.includes('Oreo n Oreo'), `the house shake is a beverage: ${got.join(', ')}`);
  t.notOk(got.includes('Veg Biryani'));
});

t.test('rankSearch: a name that says rice is a rice dish, and still a curry', async (t) => {
  const menu = ['Homestyle Dal Tadka With Steamed Rice', 'Classic Curd Rice', 'Dal Makhani Chawal', 'Chicken Pulusu Rice Bowl', 'Chicken Tikka Masala Biryani', 'Gulab Jamun'];
  const profiles = menu.map(item);
  const cosines = [0.7, 0.75, 0.65, 0.6, 0.55, 0.2];
  const dalChawal = rankSearch(understand('dal chawal'), profiles, cosines, 10).results.map((r) => menu[r.index]);
  // The dal with steamed rice is the dish by another name; the curd rice holds only the rice.
  t.ok(dalChawal.indexOf('Homestyle Dal Tadka With Steamed Rice') >= 0 && dalChawal.indexOf('Homestyle Dal Tadka With Steamed Rice') < dalChawal.indexOf('Classic Curd Rice'),
    `dal with rice before curd rice: ${dalChawal.join(', ')}`);
  // "curry" rules rice dishes out (a biryani is no curry), but a curry served with rice named so ("pulusu" is an Andhra curry the knowledge base does not resolve) is still a curry.
  const q = understand('chicken curry');
  t.ok(q.avoid.includes('rice'), 'the curry concept rules rice dishes out');
  const curry = rankSearch(q, profiles, cosines, 10).results;
  const bowl = curry.find((r) => menu[r.index] === 'Chicken Pulusu Rice Bowl');
  // It answers level with the biryani of a tikka masala (a curry in rice), ahead of the dishes that are rice alone.
  const place = curry.findIndex((r) => menu[r.index] === 'Chicken Pulusu Rice Bowl');
  t.ok(bowl && !bowl.is_fallback && place >= 0 && place <= 1 && curry.slice(0, place).every((r) => menu[r.index] === 'Chicken Tikka Masala Biryani'),
    `the curry rice bowl answers a curry, though its name says rice: ${curry.map((r) => `${menu[r.index]} ${r.reranker_score}`).join(', ')}`);
});

t.test('rankSearch: "<curry> chawal" asks for the curry with plain rice, not for rice dishes', async (t) => {
  t.same(understand('rajma chawal').tags, [], '"chawal" after a curry is its side, no rice concept');
  t.same(understand('राजमा चावल').tags, [], 'in Devanagari too');
  t.same(understand('jeera rice').tags, ['rice'], '"jeera rice" is a rice dish: other rice dishes answer it');
  const menu = ['Rajma (500g)', 'Classic Curd Rice', 'Classic Rajma Chawal', 'Steamed Rice (300g)'];
  const profiles = menu.map(item);
  // The cosines of the dev menu this was seen on: the curd rice's is above the plain rajma's.
  const got = rankSearch(understand('rajma chawal'), profiles, [0.85, 0.72, 0.82, 0.66], 10).results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  t.equal(got[0], 'Classic Rajma Chawal', got.join(', '));
  // With the fitted ranker the curd rice (a higher cosine here) may come before the plain rajma; the rajma is answered.
  t.ok(got.indexOf('Rajma (500g)') >= 0 && (got.indexOf('Steamed Rice (300g)') < 0 || got.indexOf('Steamed Rice (300g)') > got.indexOf('Rajma (500g)')), `the rajma is answered before plain rice: ${got.join(', ')}`);
});

t.test('rankSearch: the dish a query names, holding its words, comes before the same words by another name', async (t) => {
  const menu = ['Black Chana with Steamed Rice', 'Chole Chawal', 'Classic Curd Rice'];
  const profiles = menu.map(item);
  // The cosines of the dev menu this was seen on: holding the query's words by another name (+3) outweighed them.
  const got = rankSearch(understand('chole chawal'), profiles, [0.71, 0.77, 0.73], 10).results.map((r) => menu[r.index]);
  t.equal(got[0], 'Chole Chawal', got.join(', '));
  t.ok(got.includes('Black Chana with Steamed Rice'), 'chana is chole by another name: it answers too');
});

t.test('menuSections: a house name among the coolers is a cold drink, not an answer to a hot one', async (t) => {
  const menu = ['Lime Mint Cooler', 'Mojito Mint', 'Blue Angel', 'Lime Soda', 'Ginger Lime Soda', 'Chocolate Ice Cream'];
  const profiles = menu.map(item);
  t.ok(profiles[2]!.profile.courseConfidence < ranker.menu.openCourse, 'the house name says nothing of its course');
  t.same(menuSections(profiles)[2], { course: 'beverage', tags: ['cold_drink'] });
  const cosines = menu.map((s) => (s === 'Blue Angel' ? 0.55 : 0.4));
  const got = rankSearch(understand('garam chai'), profiles, cosines, 10).results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  t.same(got, [], `a juice bar has no hot drink: ${got.join(', ')}`);
});

t.test('rankSearch: a query for a group or to share is answered by the orders, packs and platters for that many', async (t) => {
  const menu = ['2 Crispy Chicken Burger + 4Pc Fried Wings + 2 Coca Cola', '6 Crispy Veg', '(18Pcs) Crunchy Chicken Nuggets + 3 Dips', 'Crispy Veg Burger', 'Gulab Jamun Minis Box [500 gm]'];
  const profiles = menu.map(item);
  // Equal cosines: only the servings decide the order.
  const rank = (query: string, cosine: number) => rankSearch(understand(query), profiles, menu.map(() => cosine), 10)
    .results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  // At a cosine that passes the gates alone, an item that says nothing of a family passes and one that disagrees does not.
  const family = rank('meal for a family', 0.65);
  t.equal(family[0], '6 Crispy Veg', `six burgers are a family's meal: ${family.join(', ')}`);
  t.ok(!family.includes('(18Pcs) Crunchy Chicken Nuggets + 3 Dips') || family.indexOf('(18Pcs) Crunchy Chicken Nuggets + 3 Dips') > 0, 'a platter, which says nothing of a family, never leads');
  t.notOk(family.includes('2 Crispy Chicken Burger + 4Pc Fried Wings + 2 Coca Cola'), 'an order for two is no family meal');
  const share = rank('something to share with friends', 0.5);
  t.same(share.slice(0, 4).sort(), ['(18Pcs) Crunchy Chicken Nuggets + 3 Dips', '2 Crispy Chicken Burger + 4Pc Fried Wings + 2 Coca Cola', '6 Crispy Veg', 'Gulab Jamun Minis Box [500 gm]'],
    `anything for two or more is to share, the single burger is not: ${share.join(', ')}`);
  t.notOk(share.slice(0, 4).includes('Crispy Veg Burger'));
});

t.test('rankSearch: a meal for some number of people is food, not a drink, a dessert or a lone side for that many', async (t) => {
  t.equal(understand('spicy veg meal for one').course, 'main', 'with a need, a meal is a main');
  const family = understand('meal for a family');
  t.same([family.course, family.meal], [null, true], 'alone, it only rules out what is no meal');
  const menu = ['2 Fries (R)', '2 McFlurry Oreo (S)', '2 McVeggie Burger + Fries (L) + 2 Coke', '2 Cappuccino', 'McVeggie Burger'];
  const profiles = menu.map(item);
  // Equal cosines, just under the relevance midpoint: the servings and the meal decide what passes the floor.
  const got = rankSearch(understand('meal for two'), profiles, menu.map(() => 0.6), 10)
    .results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  t.equal(got[0], '2 McVeggie Burger + Fries (L) + 2 Coke', got.join(', '));
  // The fitted gates keep a weak tail: what is no meal (a drink, a dessert, a lone side) may follow the meal, never
  // come before it, and scores well under it.
  const scores = new Map(rankSearch(understand('meal for two'), profiles, menu.map(() => 0.6), 10).results.map((r) => [menu[r.index]!, r.reranker_score]));
  for (const notMeal of ['2 McFlurry Oreo (S)', '2 Cappuccino', '2 Fries (R)']) {
    t.ok(!got.includes(notMeal) || got.indexOf(notMeal) > 0, `${notMeal} is for two but no meal: ${got.join(', ')}`);
    t.ok((scores.get(notMeal) ?? 0) < 0.75 * scores.get('2 McVeggie Burger + Fries (L) + 2 Coke')!, `${notMeal} scores well under the meal`);
  }
});

t.test('rankSearch: a name sized in inches that names no dish is a pizza', async (t) => {
  const menu = ["Mama Mexicana Large 12''", "Sweet Corn & Cheese Medium 9''", 'French Fries', 'Chicken Tikka Sub (6inch)', 'Mama Mexicana Pizza'];
  const profiles = menu.map(item);
  const rank = (query: string, cosines: number[]) => rankSearch(understand(query), profiles, cosines, 10).results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  // The cosines of the dev menu: without the word "pizza" the 12'' pizza held only half the query.
  const mexicana = rank('mexicana piza', [0.6, 0.45, 0.2, 0.3, 0.8]);
  t.ok(mexicana.includes("Mama Mexicana Large 12''"), `the 12'' Mama Mexicana is the pizza asked for: ${mexicana.join(', ')}`);
  const sides = rank('sides', [0.5, 0.55, 0.6, 0.4, 0.4]);
  t.ok(!sides.includes("Sweet Corn & Cheese Medium 9''") || sides.indexOf("Sweet Corn & Cheese Medium 9''") > sides.indexOf('French Fries'), `a 9'' pizza is no side: it never comes before one (${sides.join(', ')})`);
  t.ok(sides.includes('French Fries'));
  const sub = rank('pizza', [0.3, 0.3, 0.2, 0.5, 0.8]);
  t.notOk(sub.includes('Chicken Tikka Sub (6inch)'), 'a sub sized in inches is still a sub');
});

t.test('rankSearch: a dish named without a serving comes before an order for several of it, not before a bigger portion', async (t) => {
  const menu = ['2 McVeggie Burger', 'McVeggie Burger', 'Chicken Dum Biryani [Serves 2]', 'Chicken Dum Biryani'];
  const profiles = menu.map(item);
  const rank = (query: string) => rankSearch(understand(query), profiles, menu.map(() => 0.8), 10).results.map((r) => menu[r.index]);
  const burger = rank('mcveggie burger');
  t.ok(burger.indexOf('McVeggie Burger') < burger.indexOf('2 McVeggie Burger'), `the one before the two, at equal cosines: ${burger.join(', ')}`);
  t.ok(burger.includes('2 McVeggie Burger'), 'the order for two is still an answer');
  const biryani = rankSearch(understand('chicken dum biryani'), profiles, menu.map(() => 0.8), 10).results;
  const score = (name: string) => biryani.find((r) => menu[r.index] === name)?.reranker_score;
  t.equal(score('Chicken Dum Biryani [Serves 2]'), score('Chicken Dum Biryani'), 'a portion for two is as full an answer');
});

t.test('rankSearch: a protein the query names counts once, not again as a word of every dish named with it', async (t) => {
  const menu = ['Kalmi Kebab', 'Empire Special Chilli Kebab', 'Chilli Chicken Dry', 'Mango Lassi'];
  const profiles = menu.map(item);
  // The cosines of the dev menu this was seen on.
  const got = rankSearch(understand('spicy chicken starter'), profiles, [0.45, 0.66, 0.63, 0.3], 10).results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  t.equal(got[0], 'Chilli Chicken Dry', got.join(', '));
  const plain = got.indexOf('Kalmi Kebab');
  t.ok(got.indexOf('Empire Special Chilli Kebab') >= 0 && (plain < 0 || got.indexOf('Empire Special Chilli Kebab') < plain),
    `the chilli kebab answers a spicy starter before a plain chicken kebab: ${got.join(', ')}`);
});

t.test("understandQuery: other languages' little words a translation leaves are filler", async (t) => {
  t.same(understand('dolce al cioccolato').words, ['chocolate'], '"al" is no word an item must hold');
  t.ok(understand('dhabe da keema').words.includes('keema'), 'the dish words stay');
});

t.test('understandQuery: a plural names the dish its singular names', async (t) => {
  const cakes = understand('steamed rice cakes');
  t.same([cakes.profile.dish?.name, cakes.profile.dishHow, cakes.course], ['Idli', 'exact', null], 'idlis, not a dessert for "cakes"');
  t.equal(understand('gulab jamuns').profile.dish?.name, 'Gulab Jamun');
});

t.test('rankSearch: a one-word category query puts the items named with its word first', async (t) => {
  t.same(understand('shakes').kindWords, ['shake']);
  t.same(understand('something cold to drink').kindWords, [], 'not for a longer query');
  const menu = ['Fresh Watermelon & Mint Juice', 'Coke', 'Oreo & Chocolate Shake', 'French Vanilla Biscuit Shake'];
  const profiles = menu.map(item);
  // The cosines of the dev menu this was seen on: the juice and the coke above the shakes.
  const got = rankSearch(understand('shakes'), profiles, [0.709, 0.698, 0.693, 0.642], 10).results.map((r) => menu[r.index]);
  t.same(got.slice(0, 2).sort(), ['French Vanilla Biscuit Shake', 'Oreo & Chocolate Shake'], got.join(', '));
});

t.test('understandQuery: in "<vegetable> wali sabzi" the named vegetable is the word an item must hold', async (t) => {
  const q = understand('aloo wali sabzi');
  t.notOk(q.words.includes('vegetable'), `the sabzi's translation is no word an item must hold: ${q.words.join(', ')}`);
  t.ok(q.words.includes('aloo') || q.terms.length > 0);
  t.ok(understand('grilled chicken with vegetables').words.some((w) => w.startsWith('vegetable')), 'a vegetable the query names stays');
});

t.test('understandQuery: words of a mood or a price are no words an item must hold', async (t) => {
  t.same(understand('street food cravings').words, [], '"cravings" names no dish');
  t.same(understand('quick cheap momos').words, ['momos']);
});

t.test('understandQuery: a diet word before a plural kind of dish asks for every item of that kind and diet', async (t) => {
  const rolls = understand('veg rolls');
  t.same([rolls.words, rolls.kindWords, rolls.stated.diet], [['rolls'], ['roll'], 'veg']);
  t.same(understand('veg roll').words, ['veg', 'roll'], 'the singular names the dish Veg Roll');
  t.same(understand('veg momos').words, ['veg', 'momos'], 'a plural that is itself the name of a dish stays that dish');
  const menu = ['Tandoori Mixed Veg Roll', 'Tawa Paneer Roll', 'Chicken Tikka Roll', 'Tandoori Aloo Roll', 'Calcutta Veg Chop'];
  const profiles = menu.map(item);
  const got = rankSearch(rolls, profiles, [0.73, 0.57, 0.6, 0.5, 0.5], 10).results.filter((r) => !r.is_fallback).map((r) => menu[r.index]);
  t.same(got.slice(0, 3).sort(), ['Tandoori Aloo Roll', 'Tandoori Mixed Veg Roll', 'Tawa Paneer Roll'], got.join(', '));
  t.notOk(got.slice(0, 3).includes('Chicken Tikka Roll'), 'not the chicken roll');
});

t.test('rankSearch: two words a menu ran together are both held; labels cleaning strips still tag the item', async (t) => {
  const pizzas = ['Cheeseburst - Farmhouse Pizza', 'Ultimate Spinach Pizza', 'Four Cheese Pizza', 'Pineapple Pizza'];
  const got = rankSearch(understand('cheese burst pizza'), pizzas.map(item), [0.6, 0.7, 0.7, 0.6], 10).results.map((r) => pizzas[r.index]);
  t.equal(got[0], 'Cheeseburst - Farmhouse Pizza', got.join(', '));
  t.same(compoundParts('cheeseburst'), ['cheese', 'burst']);
  t.same(compoundParts('pineapple'), [], 'a known word is never split: pineapple holds no apple');
  const bowls = ['Butter Chicken Rice Bowl (Protein-42g)', 'Veg Fried Rice Bowl', 'Paneer Lababdar Rice Bowl (High Protein)', 'Curd Rice Bowl'];
  const protein = rankSearch(understand('high protein lunch'), bowls.map(item), [0.55, 0.6, 0.55, 0.6], 10).results.map((r) => bowls[r.index]);
  t.same(protein.slice(0, 2).sort(), ['Butter Chicken Rice Bowl (Protein-42g)', 'Paneer Lababdar Rice Bowl (High Protein)'], protein.join(', '));
});

t.test('understandQuery: a meal of a diet is any main of that diet; words of a style are no words to hold', async (t) => {
  const meal = understand('simple homestyle veg meal');
  t.same([meal.words, meal.course, meal.stated.diet], [[], 'main', 'veg']);
  t.same(understand('veg burger').words, ['veg', 'burger'], 'a dish keeps its diet word');
  t.notOk(understand('homestyle chicken curry').words.includes('homestyle'), 'no menu name needs to say homestyle');
});

t.test('understandQuery: a concept phrase whose last word comes as a plural is that concept', async (t) => {
  const curries = understand('curries');
  t.same([curries.words, curries.course, [...curries.avoid].sort()], [[], 'main', ['noodles', 'rice']]);
});

t.test('rankSearch: a salad by its name answers "salads"; "cheese" is held by a cheesy name', async (t) => {
  const menu = ['Pesto & Chicken Honest Salad', 'Herb Chicken Keto Bowl', 'Veggie Delight Happy Salad [451 Kcal]', 'Mineral Water'];
  const got = rankSearch(understand('salads'), menu.map(item), [0.73, 0.7, 0.68, 0.56], 10).results.map((r) => menu[r.index]);
  t.same(got.slice(0, 2).sort(), ['Pesto & Chicken Honest Salad', 'Veggie Delight Happy Salad [451 Kcal]'], got.join(', '));
  t.ok(hasWord(new Set(['cheesy', 'paneer', 'tikka']), 'cheese'), 'cheese in a cheesy name');
  t.ok(hasWord(new Set(['cheese', 'toast']), 'cheesy'), 'and cheesy in a cheese one');
  t.ok(hasWord(new Set(['crispy', 'corn']), 'crisp'));
  t.notOk(hasWord(new Set(['minty', 'cooler']), 'mint'), 'not below five letters: a word that short is too often another word with a y');
});

t.test('understandQuery: a meat the query says it is without is its diet, not words to hold', async (t) => {
  const sandwich = understand('bina meat wala sandwich');
  t.same([sandwich.words, sandwich.stated.diet], [['sandwich'], 'veg']);
  const burger = understand('no chicken burger');
  t.same([burger.words, burger.stated.diet, burger.stated.protein], [['burger'], 'veg', null], 'the chicken is not asked for');
  const khana = understand('bina non veg khana');
  t.same([khana.words, khana.stated.diet, khana.course], [[], 'veg', 'main']);
  t.same(understand('non veg burger').stated.diet, 'non_veg', '"non veg" itself is no negation');
  // The diet and protein are read from the English reading, as the words are.
  const cake = understand('bina ande ka cake');
  t.same([cake.words, cake.stated.diet, cake.stated.protein], [['eggless', 'cake'], 'veg', null], 'without eggs is no egg cake');
});

t.test('a diet the query\'s own words state keeps the other diet out of the results, however close', async (t) => {
  t.ok(understand('spicy non veg curry').dietStated, '"non veg" states the diet');
  t.ok(understand('no chicken burger').dietStated, 'so does a meat it is without');
  t.notOk(understand('chicken biryani').dietStated, 'a meat named is a dish asked for, not a diet stated');
  t.notOk(understand('veg dish that tastes like mutton').dietStated, 'a diet word the reading contradicts states nothing');
  // The diet words are read in the English reading too, as the diet is.
  t.ok(understand('bina ande ka cake').dietStated, 'without eggs states eggless');
  t.ok(understand('shakahari khana').dietStated, 'Hinglish "shakahari" is "vegetarian"');
  t.ok(understand('मांसाहारी').dietStated, 'Devanagari "non veg"');
  const thali = rankSearch(understand('शाकाहारी थाली'), ['Chicken Thali', 'Veg Thali'].map(item), [0.95, 0.6], 10).results.map((r) => r.index);
  t.notOk(thali.includes(0), 'a Devanagari veg ask never gets the chicken');
  const menu = ['Chilli Garlic Potato', 'Chicken Chettinad', 'Laal Maas'];
  // The veg item has the highest cosine; it still never comes back, as a result or a fallback.
  const got = rankSearch(understand('spicy non veg curry'), menu.map(item), [0.95, 0.5, 0.4], 10).results.map((r) => menu[r.index]);
  t.notOk(got.includes('Chilli Garlic Potato'), got.join(', '));
  const veg = rankSearch(understand('veg starter'), ['Chicken 65', 'Paneer Tikka'].map(item), [0.99, 0.3], 10).results.map((r) => r.index);
  t.notOk(veg.includes(0), 'a veg query never gets the chicken');
  // A recipe's usual egg is not the item's words: an eggless query at an eggless bakery still finds its mousse.
  t.same([item('Chocolate Mousse Cup').profile.diet, item('Chocolate Mousse Cup').profile.eggByRecipeOnly], ['egg', true]);
  // A loose reading of a veg dish passes over words that may be the meat: it leaves the diet open, never veg.
  t.same([item('Chicago Delight Pizza').profile.dishHow, item('Chicago Delight Pizza').profile.diet], ['fuzzy', 'unknown']);
  t.equal(item('Deep Dish Pizza').profile.diet, 'veg', 'the dish by its own name is veg');
  t.equal(item('Peri Peri Veg Pizza').profile.diet, 'veg', 'a veg word still says veg');
  const bakery = ['Chocolate Mousse Cup', 'Chicken Puff'];
  const sweet = rankSearch(understand('eggless sweet'), bakery.map(item), [0.9, 0.3], 10).results.map((r) => bakery[r.index]);
  t.ok(sweet.includes('Chocolate Mousse Cup') && !sweet.includes('Chicken Puff'), sweet.join(', '));
});

t.test('understandQuery: a Jain ask finds the items marked either way; "sukhi" is how a sabzi is cooked', async (t) => {
  const jain = understand('bina pyaaz lehsun ka khana');
  t.same(jain.terms, equivalenceTerms(['jain']), `one term, the Jain group: ${jain.terms.join(', ')}`);
  t.same(understand('aloo ki sukhi sabzi').words, ['aloo']);
});

t.test('conceptualQueryVector: the query leans towards what it asks for as far as the fitted blend says', async (t) => {
  const unit = (i: number) => Float32Array.from({ length: 384 }, (_, j) => (j === i ? 1 : 0));
  const centroids = { byTag: new Map([['spicy' as const, unit(1)]]) };
  const encoder = { project: (v: Float32Array) => v } as unknown as MenuEncoder;
  const q = understand('something spicy');
  t.same(q.tags, ['spicy']);
  t.equal(q.abstractness, 1, 'a need and nothing else');
  const lean = (base: number, perAbstractness: number) => conceptualQueryVector(unit(0), q, centroids, encoder, 384, { base, perAbstractness })[1]!;
  t.equal(lean(0, 0), 0, 'no blend: the query vector as encoded');
  t.ok(Math.abs(lean(1, 0) - Math.SQRT1_2) < 1e-6, 'a blend of 1: halfway to the concept (45°)');
  t.ok(Math.abs(lean(0, 1) - Math.SQRT1_2) < 1e-6, 'the same from the slope, the query being wholly abstract');
  t.ok(lean(0.5, 1.5) > lean(1, 0), 'a stronger blend leans further');
  const dish = understand('spicy paneer tikka');
  t.ok(dish.abstractness < 1, 'a dish query is less abstract');
  const dishLean = conceptualQueryVector(unit(0), dish, centroids, encoder, 384, { base: 0, perAbstractness: 2 })[1]!;
  t.ok(dishLean > 0 && dishLean < lean(0, 2), 'and leans less for the same slope');
});
