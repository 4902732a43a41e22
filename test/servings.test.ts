import t from 'tap';
import { servingOf, servingsAgree } from '../src/core/servings.js';

t.test('servingOf reads head counts from the size words cleaning strips', async (t) => {
  const cases: [string, number | null][] = [
    ['Jashn ki Daawat - Veg (Serves 6-8)', 6],
    ['Taj-e-Khumb Biryani (Mushroom Biryani - Serves 1)', 1],
    ['Grand Veg Biryani Party Combo for 8-10', 8],
    ['Party Combo for 5-6: Veg Biryani + Kebabs', 5],
    ['Chicken Bucket for Two', 2],
    ['Single Veg Pack Of 4', 4],
    ['pizza deal for 4 people', 4],
    ['bucket for a party of four', 4],
    ['party pack for a big group', 4],
    ['Family Feast', 4],
    ['single serving cup for one', 1],
    ['Margherita Pizza - Personal', 1],
    ['Mixed Berries Ice Cream 100ml', 1],
    ['Chicken Burger Buddy Meal', 2],
    // Quantities of things, prices and big packs of a drink say nothing about people.
    ['Chicken Wings 8 pcs', null],
    ['Paneer Tikka for 249', null],
    ['Combo for ₹199', null],
    ['Coke 1.25L', null],
    ['Roasted Almond Ice Cream 500ml', null],
    ['Butter Chicken', null],
  ];
  for (const [text, want] of cases) t.equal(servingOf(text), want, text);
});

t.test('servingsAgree compares one, two and a group', async (t) => {
  t.ok(servingsAgree(1, 1));
  t.ok(servingsAgree(4, 8), 'any group is a group');
  t.ok(servingsAgree(2, 2));
  t.notOk(servingsAgree(1, 4));
  t.notOk(servingsAgree(2, 4));
  t.notOk(servingsAgree(4, 1));
});

t.test('servingOf: a big pack, a pack for home and friends are for a group', async (t) => {
  for (const q of ['ghar ke liye bada pack', 'big pack of ice cream', 'something to share with friends', 'large pack for home']) t.equal(servingOf(q), 4, q);
  t.equal(servingOf('bada pav'), null, 'a big pav is no pack');
});
