import t from 'tap';
import { understandQuery } from '../src/core/search.js';
import { clean } from '../src/core/text/clean.js';

const understand = (query: string) => understandQuery(clean(query).text, query);

t.test('understandQuery: the words a query asks an item to hold', async (t) => {
  // Hinglish "wala/wali" ("the one with") names no dish: an item must not hold it to contain the query.
  t.same(understand('chicken wala sandwich').words, ['chicken', 'sandwich']);
  t.same(understand('dahi wali drink').words, ['dahi'], '"drink" is the beverage course');
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
});
