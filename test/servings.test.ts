import t from 'tap';
import { servingOf as servingWith, servingsAgree as agreeWith } from '../src/core/servings.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';

const patterns = loadKnowledge().servings;
const servingOf = (text: string, options?: { item?: boolean }) => servingWith(patterns, text, options);
const servingsAgree = (query: Parameters<typeof agreeWith>[1], item: Parameters<typeof agreeWith>[2]) => agreeWith(patterns.portions, query, item);

t.test('servingOf reads head counts from the size words cleaning strips', async (t) => {
  const cases: [string, number | null][] = [
    ['Jashn ki Daawat - Veg (Serves 6-8)', 6],
    ['Taj-e-Khumb Biryani (Mushroom Biryani - Serves 1)', 1],
    ['Grand Veg Biryani Party Combo for 8-10', 8],
    ['Party Combo for 5-6: Veg Biryani + Kebabs', 5],
    ['Chicken Bucket for Two', 2],
    ['pizza deal for 4 people', 4],
    ['bucket for a party of four', 4],
    ['party pack for a big group', 4],
    ['Family Feast', 4],
    ['single serving cup for one', 1],
    ['Margherita Pizza - Personal', 1],
    ['Mixed Berries Ice Cream 100ml', 1],
    ['Chicken Burger Buddy Meal', 2],
    // The words for people after a count are serving_words.tsv head rows, Hindi ones too.
    ['biryani do logon ke liye', 2],
    ['char logon ke liye khana', 4],
    ['Veg Thali for 3 adults', 3],
    ['Chocolate Log Cake', null],
    // The words a head count follows and the order words "of" counts are serving_words.tsv rows (serve_word, order_of),
    // as cleaning reads them; a group word before "of" takes a count too.
    ['Matki Special Veg Biryani [served 1-2]', 1],
    ['Mutton Biryani (Servings: 3)', 3],
    ['Chicken Biryani Feed 4', 4],
    ['Hot Wings Bucket of 8', 8],
    ['catering for a crowd of 20', 20],
    // Quantities of things, prices and big packs of a drink say nothing about people.
    ['Chicken Wings 8 pcs', null],
    ['Paneer Tikka for 249', null],
    ['Combo for ₹199', null],
    ['Coke 1.25L', null],
    ['Roasted Almond Ice Cream 500ml', null],
    ['Butter Chicken', null],
  ];
  for (const [text, want] of cases) t.equal(servingOf(text), want, text);
  t.equal(servingOf('something to share with friends'), 'shared', 'sharing asks for two or more, however many');
  t.equal(servingOf('2 samosa'), null, "a query's leading number is how many it wants of the dish");
});

t.test('servingOf reads an order count, a pack and a platter from a menu item', async (t) => {
  const cases: [string, number | 'shared' | null][] = [
    ['6 Crispy Veg', 6],
    ['4 Crispy Chicken + 2 Medium Fries', 4],
    ['2 x Chatpata Chana Veg Burger Meal', 2],
    ['Any 2 Rice Bowls + Any Starter', 2],
    ['2Crispy Veg Burger+Korean Spicy Fries+2Coke.', 2],
    ['1 Jr Veg Whopper +1 Chocolate Thick Shake', 1],
    ['Classic Family Feast for 4 - Veg', 4],
    // Counts of pieces, types and breads are not people; a pack or a platter is to share.
    ['5 Pc Smoky Chicken Mojito Combo', null],
    ['7 Types Of Cheese Pizza', null],
    ['4 Cheese Pizza [6 inch]', null],
    ['2 chapati with chicken korma', null],
    ['7UP Can 300 ml', null],
    ['Gulab Jamuns (Pack Of 10)', 'shared'],
    ['Mini Punjabi Samosa [Pack of 6]', 'shared'],
    ['Classic Tandoori Aloo [10 Pcs]', 'shared'],
    // Any pack word of cleaning_words.tsv and any piece word of piece_words.txt.
    ['Kaju Katli (Tub of 2)', 'shared'],
    ['Angoori Jamun (12 Nos)', 'shared'],
    ['(18Pcs) Crunchy Chicken Nuggets + 3 Dips', 'shared'],
    ['Gulab Jamun Minis Box [500 gm]', 'shared'],
    ['Red Velvet Cake [1/2kg]', 'shared'],
    ['Idly [2 Pc]', null],
    ['Desi Ghee Moong Dal Halwa [100 gm]', null],
  ];
  for (const [text, want] of cases) t.equal(servingOf(text, { item: true }), want, text);
});

t.test('servingsAgree compares one, two and a group', async (t) => {
  t.ok(servingsAgree(1, 1));
  t.ok(servingsAgree(4, 8), 'any group is a group');
  t.ok(servingsAgree(2, 2));
  t.notOk(servingsAgree(1, 4));
  t.notOk(servingsAgree(2, 4));
  t.notOk(servingsAgree(4, 1));
  t.ok(servingsAgree('shared', 2), 'two share');
  t.ok(servingsAgree('shared', 'shared'));
  t.ok(servingsAgree('shared', 6));
  t.notOk(servingsAgree('shared', 1), 'a single serving is not to share');
  t.equal(servingsAgree(4, 'shared'), null, 'a platter says nothing of a meal for a family');
});

t.test('servingOf: a big pack and a pack for home are for a group', async (t) => {
  for (const q of ['ghar ke liye bada pack', 'big pack of ice cream', 'large pack for home']) t.equal(servingOf(q), 4, q);
  t.equal(servingOf('bada pav'), null, 'a big pav is no pack');
});

t.test('portions.tsv: how many people a portion word or size stands for is data', async (t) => {
  t.equal(servingOf('Family Feast'), 4);
  t.equal(servingOf('Tandoori Aloo [8 Pcs]', { item: true }), 'shared');
  const portions = { ...patterns.portions, groupPeople: 6, platterMinPieces: 10 };
  const edited = { ...patterns, portions };
  t.equal(servingWith(edited, 'Family Feast'), 6, 'a group word counts as the table says');
  t.equal(servingWith(edited, 'Tandoori Aloo [8 Pcs]', { item: true }), null, 'eight pieces no longer make a platter');
  t.ok(agreeWith(patterns.portions, 3, 4), 'three is a group');
  t.notOk(agreeWith({ ...patterns.portions, groupFromPeople: 4 }, 3, 4), 'three is no group once groups start at four');
});
