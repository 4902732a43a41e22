import t from 'tap';
import { compoundAlike as compoundAlikeIn, judgePairs as judgePairsIn, readCosineCalibration, readMatchGates, withoutAccompaniments as withoutAccompanimentsIn } from '../src/core/match.js';
import { describeDifference, variantDifference as variantDifferenceIn } from '../src/core/variants.js';
import { spelledAlike as spelledAlikeIn, swappedDefiningWords as swappedIn } from '../src/core/defining-words.js';
import { brandsDiffer, brandsOf as brandsOfIn } from '../src/core/knowledge/brands.js';
import { sameDishKey as sameDishKeyIn } from '../src/core/knowledge/equivalents.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseCleanedText } from '../src/core/menu-text.js';
import { dishWords } from '../src/core/dish-words.js';

const knowledge = loadKnowledge();
/** The test's names are read as cleaned names, the way the stages receive them. */
const read = (text: string) => parseCleanedText(knowledge, text);
const withoutAccompaniments = (text: string) => withoutAccompanimentsIn(knowledge, text);
/** No cross-encoder: the knowledge base and the committed cosine calibration and gates decide. */
const precision = { model: null, calibration: readCosineCalibration(), gates: readMatchGates() };
const judgePairs = (pairs: readonly (readonly [string, string])[], cosines: number[], threshold: number) =>
  judgePairsIn(knowledge, pairs.map(([a, b]) => [read(a), read(b)] as const), cosines, threshold, precision);
const variantDifference = (a: string, b: string) => variantDifferenceIn(read(a), read(b));
const spelledAlike = (a: string, b: string) => spelledAlikeIn(knowledge, dishWords(knowledge, a), dishWords(knowledge, b));
const swapped = (a: string, b: string) => swappedIn(knowledge, dishWords(knowledge, a), dishWords(knowledge, b));
const compoundAlike = (a: string, b: string) => compoundAlikeIn(dishWords(knowledge, a), dishWords(knowledge, b));
const brandsOf = (text: string) => brandsOfIn(knowledge.brands, text);
const sameDishKey = (key: string) => sameDishKeyIn(knowledge.equivalents, key);

t.test('withoutAccompaniments: the dish without a tail that only lists what comes with it', async (t) => {
  const cases: [string, string | null][] = [
    ['Paneer Tikka with Mint Chutney', 'paneer tikka'],
    ['Crunchy Chicken Nuggets + 2 Dips', 'crunchy chicken nuggets'],
    ['Idli with Chutney', 'idli'],
    ['Fish Fingers With Tartar Sauce', 'fish fingers'],
    ['Chicken Dum Biryani raita And Salad', 'chicken dum biryani'],
    ['Chicken Dum Biryani raita & Salad', 'chicken dum biryani'],
    // a combo: another dish or a drink after the marker
    ['Choco Lava Cake + Coke', null],
    ['Chicken Biryani + Chicken Seekh Kabab + Green Salad', 'chicken biryani chicken seekh kabab'],
    ['Veg Biryani with Extra Gravy Portion Inside', null],
    // dishes named after an accompaniment word stay dishes
    ['Boondi Raita', null],
    ['Chicken Salad', null],
    ['Green Salad', null],
    ['Salad', null],
    ['with Chutney', null],
    ['Mint Chutney', null],
    // no marker: one trailing accompaniment is the dish's own name, not a tail
    ['Aloo Tikki Chutney', null],
  ];
  for (const [text, core] of cases) t.equal(withoutAccompaniments(text), core, text);
});

t.test('variantDifference: a flavour added to a dish makes another item, a flavour the name is without does not', async (t) => {
  const why = (a: string, b: string) => describeDifference(variantDifference(a, b));
  t.equal(why('Naan', 'Garlic Naan'), '+garlic');
  t.equal(why('Fries', 'Peri Peri Fries'), '+peri');
  t.equal(why('Coke', 'Diet Coke'), '+diet');
  t.equal(why('Masala Dosa', 'Cheese Masala Dosa'), '+cheese');
  t.equal(why('Dal Makhani', 'Dal Makhani No Onion No Garlic'), null, 'the Jain way of the same dish');
  t.equal(why('Paneer Tikka', 'Paneer Tikka without Cheese'), null);
  t.equal(why('Veg Hakka Rice', 'Veg Hakka Combination'), 'combo', 'a menu\'s "combination" is a combo');
  t.equal(why('Egg Biryani in Veg Gravy', 'Egg Biryani in Non Veg Gravy'), 'non veg/veg', 'the non-veg gravy makes another item');
  t.equal(why('Premium Bacon Ranch Salad (without Chicken)', 'Premium Bacon Ranch Salad with Grilled Chicken'), 'without chicken/chicken',
    'one name is without what the other names');
  t.equal(why('Chicken Burger No Mayo', 'Chicken Mayo Burger'), 'no mayo/mayo');
  t.equal(why('Veg Burger No Onion', 'Veg Burger No Onion'), null, 'both without it');
  t.equal(why('Fruit Salad', 'Fruit Salad Our Combinations'), null, '"combinations" of fruit are not a combo');
});

t.test('variantDifference: a serving word in the place of a filler word is another product line, not a serving', async (t) => {
  const why = (a: string, b: string) => describeDifference(variantDifference(a, b));
  t.equal(why('Veg Pahari Feast Steam Momo', 'Veg Pahari Fresh Steam Momo'), 'feast/fresh', 'the guards drop "fresh", so the two had read as a serving apart');
  t.equal(why('Chicken Pahari Fresh Fried Momo', 'Chicken Pahari Feast Fried Momo'), 'fresh/feast');
  t.equal(why('Mutton Kheema Biryani', 'Mutton Kheema Family Biryani'), null, 'a serving word added is the same dish');
  t.equal(why('Veg Pahari Feast Steam Momo', 'Veg Pahari Feast Fried Momo'), 'steam/fried', 'other swaps still read as before');
  t.equal(why('Fresh Veg Steam Momo', 'Veg Feast Steam Momo'), null, 'only a word in the same place counts');
});

t.test('judgePairs: the names a menu uses for one food read as the same words, search-only names do not', async (t) => {
  t.equal(sameDishKey('chicken dim sum'), sameDishKey('chicken momos'));
  t.not(sameDishKey('chicken wrap'), sameDishKey('chicken kathi roll'), 'a wrap and a kathi roll may be two items on one menu');
  // Cosines below the gate, no cross-encoder: only the knowledge can make these a match.
  const pairs = [['Chicken Dim Sum', 'Chicken Momo'], ['Chicken Gyoza', 'Chicken Potstickers'], ['Chicken Wrap', 'Chicken Kathi Roll'], ['Veg Dim Sum', 'Chicken Momo']] as const;
  const verdicts = await judgePairs(pairs, [0.3, 0.3, 0.3, 0.3], 0.85);
  t.same(verdicts.map((v) => v.match), [true, true, false, false]);
  t.equal(verdicts[0]!.reranker_score, precision.gates.knowledgeSame, 'scored as the same dish');
  t.ok(verdicts[3]!.dietary_conflict, 'a conflict still wins over the same words');
});

t.test('judgePairs: an added form word makes another item however sure the resolution', async (t) => {
  const [double, mc] = await judgePairs([['McAloo Tikki Double Patty Burger', 'McAloo Tikki Burger'], ['McAloo Tikki', 'McAloo Tikki Burger']], [0.94, 0.94], 0.85);
  t.equal(double!.match, false, 'the double is another item though both resolve to the Aloo Tikki Burger');
  t.equal(mc!.match, true, 'a word one of the dish\'s names has adds nothing');
  // A cut of the meat (form_words.txt): the bone-in and the leg-and-thigh dish are listed beside the plain one.
  const cuts = await judgePairs([['Kadai Chicken', 'Kadai Chicken Bone'], ['Chicken Roast', 'Chicken Joint Roast'], ['Chicken Curry Bone', 'Chicken Curry Bone [Full]']], [0.95, 0.95, 0.95], 0.85);
  t.same(cuts.map((j) => j!.match), [false, false, true], 'a cut word on one side makes another item; on both, a size is still the same item');
});

t.test('spelledAlike: two names that differ only by a misspelling are one name; two known words never are', async (t) => {
  const alike: [string, string][] = [
    ['Mughalaih Biryani', 'Mughlai Biryani'], // an unknown word two edits from a known one
    ['Hydrabadee Biryani', 'Hyderabadi Biryani'],
    ['Gooseberri Juice', 'Gooseberry Juice'],
    ['Chicken Tikka Masla', 'Chicken Tikka Masala'],
    ['Shahee Paneer', 'Shahi Paneer'], // two edits in a short word, its consonants kept
  ];
  for (const [a, b] of alike) t.ok(spelledAlike(a, b), `${a} / ${b}`);
  const apart: [string, string][] = [
    ['Malai Kofta', 'Malai Korma'], // two known dishes
    ['Chicken Keema', 'Chicken Kebab'],
    ['Bun Maska', 'Bun Masala'],
    ['Veg Pahari Fresh Steam Momo', 'Veg Pahari Feast Steam Momo'],
    ['Biryni', 'Biryani'], // no shared word: a lone typo is not read into a lone word
    ['Paneer Tikka', 'Paneer Tikka'], // the same words are not a spelling difference
    ['Garlic Naan', 'Butter Naan'],
    // Two edits in a short word that change a consonant are another word, not a misspelling of a known one.
    ['Palak Paneer', 'Paneer Pataka'],
    ['Magdal Laddoo', 'Magaj Laddoo'],
  ];
  for (const [a, b] of apart) t.notOk(spelledAlike(a, b), `${a} / ${b}`);
});

t.test('swappedDefiningWords: one dish word in the place of another makes two dishes; a spelling, a serving or a participle does not', async (t) => {
  t.same(swapped('Malai Kofta', 'Malai Korma'), ['kofta', 'korma'], 'two known dish words');
  t.same(swapped('Paneer Keema', 'Paneer Kebab'), ['keema', 'kebab']);
  t.equal(swapped('Paneer Tikka', 'Paneer Tika'), null, 'a misspelling pairs with its word');
  t.equal(swapped('Stuffed Kulcha', 'Stuff Kulcha'), null, 'a participle is its word');
  t.equal(swapped('Dal Soup Bowl', 'Dal Soup Cup'), null, 'what it is served in says nothing of the dish');
  t.equal(swapped('Chicken Dim Sum', 'Chicken Momo'), null, 'the names a menu uses for one food');
  t.equal(swapped('Cheese Burger', 'Cheese Spicy Burger'), null, 'an added word is not a swap');
  t.equal(swapped('Zorba Paneer Wrap', 'Kripton Paneer Wrap'), null, 'unknown words are left to the models');
  // Through /match's judge: the swap is a knowledge-base difference, whatever the cosine.
  const [verdict] = await judgePairs([['Malai Kofta', 'Malai Korma']], [0.9], 0.85);
  t.equal(verdict!.match, false, 'two dishes, though their cosine passes the threshold');
});

t.test('brands: two names of two brands are two items, one brand under its several names is not', async (t) => {
  t.same([...brandsOf('A&W Root Beer, 20 oz')], ['a-and-w'], 'A&W is read through its cleaned words');
  t.same([...brandsOf('Veg Pizza McPuff')], ['mcdonalds'], 'a Mc- name is McDonald\'s');
  t.same([...brandsOf('Mcegg')], ['mcdonalds']);
  t.same([...brandsOf('Mug Cake')], [], 'a mug cake names no brand');
  t.same([...brandsOf('Chicken 65')], []);
  const differ: [string, string][] = [
    ['Mug Root Beer 12oz', 'A&W Root Beer, 20 oz'],
    ['Tropicana Twister, Orange', 'Fanta Orange, Large'],
    ['Schweppes Water bottle', 'Bailley One - Mineral Water'],
    ['Veg Pizza McPuff', 'BK Veg Pizza Puff'],
    ['Coke Zero Can', 'Pepsi Zero Sugar Can'],
  ];
  for (const [a, b] of differ) t.ok(brandsDiffer(brandsOf(a), brandsOf(b)), `${a} / ${b}`);
  const oneBrand: [string, string][] = [
    ['Coke 300ml', 'Coca-Cola Can'], // one brand, two names
    ['KFC Chicken Popcorn', 'Chicken Popcorn - Medium'], // only one names a brand
    ['Mountain Dew 500ml', 'Mtn Dew, 12 oz'],
    ['Zinger Burger', 'KFC Zinger'],
  ];
  for (const [a, b] of oneBrand) t.notOk(brandsDiffer(brandsOf(a), brandsOf(b)), `${a} / ${b}`);
});

t.test('a bowl added to a rice or noodle dish is the dish in a bowl; a bowl that brings the rice is another item', async (t) => {
  t.equal(describeDifference(variantDifference('Veg Chilli Garlic Noodles Bowl', 'Veg Chilli Garlic Noodles')), null);
  t.equal(describeDifference(variantDifference('Egg Curry Rice', 'Egg Curry Steamed Rice Bowl')), null);
  t.equal(describeDifference(variantDifference('Brinjal Curry', 'Brinjal Curry Rice Bowl')), '+bowl', 'the rice comes with the bowl');
  t.equal(describeDifference(variantDifference('Chicken Shawarma', 'Chicken Shawarma Bowl')), '+bowl');
});

t.test('compoundAlike: one name written with a word split or joined', async (t) => {
  t.ok(compoundAlike('gosse berry juice', 'gooseberry juice'), 'split, and one slip in a long name');
  t.ok(compoundAlike('ras malai', 'rasmalai'));
  t.notOk(compoundAlike('pav bhaji', 'pav bhaji'), 'the same words are for the other checks');
  t.notOk(compoundAlike('veg roll', 'egg roll'), 'the same number of words: no split');
  t.notOk(compoundAlike('ban maska', 'bunmasala'), 'more than one slip');
  const [juice] = await judgePairs([['Gosse Berry Juice', 'Gooseberry Juice']], [0.68], 0.85);
  t.ok(juice!.match, `the dev pair the cosine missed: ${JSON.stringify(juice)}`);
});

t.test('variantDifference: a bread against a rice, a different count of one ingredient, two letter codes', async (t) => {
  const why = (a: string, b: string) => describeDifference(variantDifference(a, b));
  t.equal(why('Kake Da Butter Chicken Paratha Bowl', 'Kake Da Butter Chicken Masala Rice Bowl'), 'paratha/masala rice');
  t.equal(why('Chole Bhature', 'Chole Chawal'), 'bhature/chawal');
  t.equal(why('Chole Chawal', 'Chole Rice'), null, 'two names of the rice are no bread');
  t.equal(why('Four Cheese Pizza', '8-Cheese Pizza'), '4 cheese/8 cheese');
  t.equal(why('Four Cheese Pizza', '4 Cheese Pizza'), null, 'one count, spelled two ways');
  t.equal(why('Party for 2', 'Party for 4'), null, 'a count of people is a size, not a recipe');
  t.equal(why('PC Rice Bowlz', 'HC Rice Bowlz'), 'PC/HC');
  t.equal(why('PAV BHAJI', 'PAO BHAJI'), null, 'in a name all in capitals short words are words');
  t.equal(why('BBQ Chicken Wings', 'BBQ Chicken Wings Large'), null, 'one code on both sides');
  t.equal(why("Devil's Chicken Sub", "Devil's Chicken Wrap"), 'sub/wrap', 'each served as its own thing');
  t.equal(why('Chicken Kathi Roll', 'Chicken Wrap'), null, 'two names of one thing are no two forms');
  t.equal(why('Chicken Frankie', 'Chicken Roll'), null, 'a roll is the roll of "kathi roll"');
  t.equal(why('EVM Veg Surprise', 'Veg Surprise'), 'combo', 'an extra value meal is a combo');
  t.equal(why('HM Chicken McGrill', 'Happy Meal-Chicken McGrill'), null, 'HM is the Happy Meal: both are meals');
  t.equal(why('Coolberg Non Alcoholic Beer Peach', 'Coolberg Peach'), null, '"non" is another item only as "non veg"');
  t.equal(why('Veg Momos', 'Non Veg Momos'), 'non veg/veg');
  t.equal(why('Tandoori Chicken', 'Tandoori Chicken Masala'), '+masala');
  t.equal(why('Mexican Fiesta', 'Mexican Fiesta Thin n Crispy'), '+thin', 'another crust');
  const [chole, tandoori] = await judgePairs([['Chole', 'Chole Masala'], ['Tandoori Chicken', 'Tandoori Chicken Masala']], [0.84, 0.77], 0.85);
  t.ok(chole!.match, 'the knowledge base lists both names for one dish');
  t.notOk(tandoori!.match, 'the masala is the gravy dish');
  t.equal(why('Iced Americano', 'Americano'), '+iced');
  t.equal(why('Chicken Burger with Cheese', 'Chicken Burger with Cheese and Egg'), '+egg');
});

t.test('with no cross-encoder the calibrated cosine of the served encoder scores a pair the knowledge cannot judge', async (t) => {
  const { slope, midpoint } = precision.calibration;
  const expected = (cosine: number) => Math.round(1e4 / (1 + Math.exp(-slope * (cosine - midpoint)))) / 1e4;
  const pair: [string, string] = ['Blue Lagoon Cooler', 'Sunset Breeze Cooler'];
  const below = midpoint - 0.15, above = midpoint + 0.15;
  const [low, high] = await judgePairs([pair, pair], [below, above], 0.95);
  t.equal(low!.reranker_score, expected(below), 'the probability is the committed logistic, not a constant');
  t.equal(high!.reranker_score, expected(above));
  t.notOk(low!.match, 'well under even odds and under the threshold: no confirmation');
  t.ok(high!.match, 'well over even odds: a synonym the threshold misses is confirmed');
});
