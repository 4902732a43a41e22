/**
 * The abbreviated units menus print after an amount (cleaning_words.tsv unit and volume_unit rows) are knowledge read
 * by three stages: cleaning strips an amount and its unit, suggest takes a stripped volume for a drink's size, and
 * servings takes a number before a unit for an amount rather than a head count. Adding a row reaches all three.
 */
import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { servingOf } from '../src/core/servings.js';
import { suggestCategory } from '../src/core/suggest.js';
import { HeadFiles } from '../src/core/heads.js';

const k = loadKnowledge();

t.test('the unit rows are loaded by kind', async (t) => {
  t.ok(k.words.cleaning.unit.includes('kg') && k.words.cleaning.unit.includes('cm'), 'weight and length');
  t.ok(k.words.cleaning.volumeUnit.includes('ml') && k.words.cleaning.volumeUnit.includes('fl oz'), 'volume, a phrase among them');
  t.notOk(k.words.cleaning.unit.includes('ml'), 'a volume unit is not listed as weight or length');
});

t.test('cleaning strips an amount with any listed unit, and leaves a unit without an amount', async (t) => {
  const cases: [string, string][] = [
    ['Cold Brew Coffee 12 fl oz', 'Cold Brew Coffee'],
    ['Cold Brew Coffee (12 Fl. Oz)', 'Cold Brew Coffee'],
    ['Mango Juice [250 ml]', 'Mango Juice'],
    ['Kaju Katli 500 g', 'Kaju Katli'],
    ['Ribeye Steak 1 lb', 'Ribeye Steak'],
    ['Margherita Pizza 30 cm', 'Margherita Pizza'],
    ['L Shaped Paratha', 'L Shaped Paratha'],
  ];
  for (const [raw, want] of cases) t.equal(parseMenuText(k, raw).name, want, raw);
});

t.test('a stripped volume makes a drink of a name with no course word; a stripped weight does not', async (t) => {
  const noHeads = new HeadFiles(mkdtempSync(join(tmpdir(), 'no-heads-'))).for(null);
  const category = (raw: string) => {
    const text = parseMenuText(k, raw);
    return suggestCategory(k, text.profile, text.removed, 'uncertain', new Float32Array(384), noHeads);
  };
  t.equal(category('Zorvex Cooler (12 fl oz)'), 'beverage');
  t.equal(category('Zorvex Cooler 330 ml'), 'beverage');
  t.equal(category('Zorvex Cooler 1.25 L'), 'beverage');
  t.not(category('Zorvex Platter 500 g'), 'beverage', 'grams are no drink size');
});

t.test('a number before a unit is an amount, not a head count', async (t) => {
  t.equal(servingOf(k.servings, 'Combo for 2'), 2, 'a head count');
  t.equal(servingOf(k.servings, 'Combo for 2 people'), 2);
  t.equal(servingOf(k.servings, 'Lassi for 500 ml'), null, 'an amount of a drink');
  t.equal(servingOf(k.servings, 'Kebab Platter for 2 kg'), null, 'an amount by weight');
  t.equal(servingOf(k.servings, 'Meal for 2 Classic Burgers'), 2, 'a word that starts like a unit ("cl") is still a head count');
});
