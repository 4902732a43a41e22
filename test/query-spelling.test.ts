import t from 'tap';
import { QuerySpeller, hinglishFold, loadQueryVocabulary } from '../src/core/query-spelling.js';
import { resolveBuiltModel } from '../src/core/inference/model-files.js';
import { vocabularyWords } from '../src/core/inference/tokenizer.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';

const knowledge = loadKnowledge();
const speller = new QuerySpeller(loadQueryVocabulary(knowledge, vocabularyWords(resolveBuiltModel(undefined).dir)));
const spelling = knowledge.words.spelling;
const MENU = ['Oreo Shake', 'Mango Shake', 'Chicken Biryani', 'Zinger Burger', 'Gulab Jamun', 'Masala Chai'];

t.test('a typo of a knowledge-base word reads as the word', async (t) => {
  const cases: [string, string][] = [
    ['bevrrages', 'beverages'], // two edits from eight letters on
    ['mocktailss', 'mocktails'], // a doubled final s is no plural
    ['drinkss', 'drinks'],
    ['dsserts', 'desserts'], // deserts is a word, but not a food word: no tie
    ['chinesse', 'chinese'], // chinese and its plural are one reading: the one ending as the typo does
    ['syarters', 'starters'],
  ];
  for (const [typed, meant] of cases) t.equal(speller.correct(typed, []).text, meant, typed);
});

t.test('one slip from several words: the likeliest slip reads it, slips as likely tie', async (t) => {
  const cases: [string, string][] = [
    ['sieds', 'sides'], // two letters swapped, not seeds by a wrong letter
    ['kgani', 'khani'], // a neighbouring key, not kani with an extra g
    ['friea', 'fries'], // a on s's key neighbour, not fried nor fria
    ['drnks', 'drinks'], // a dropped letter
    ['mmos', 'momos'],
    ['adna', 'anda'], // swapped, not adana with a dropped letter
  ];
  for (const [typed, meant] of cases) t.equal(speller.correct(typed, []).text, meant, typed);
  const vocabulary = { known: new Set<string>(), candidates: new Map([['breads', 'breads'], ['breast', 'breast'], ['bread', 'bread']]), spelling };
  const tiny = new QuerySpeller(vocabulary);
  t.equal(tiny.correct('breas', []).text, 'breas', 'a dropped d or a dropped t: as likely, left as typed');
  t.equal(tiny.correct('breadt', []).text, 'breast', 'd beside s on the keyboard: breast, not breads with t for s');
});

t.test('a listed misspelling is read though known; a three-letter word only as a word of the menu', async (t) => {
  t.equal(speller.correct('breds', []).text, 'breads', 'the plural of the listed "bred"');
  t.equal(speller.correct('jeera rce', ['Jeera Rice', 'Veg Pulao']).text, 'jeera rice');
  t.equal(speller.correct('jeera rce', ['Veg Pulao']).text, 'jeera rce', 'no rice on the menu: left as typed');
  t.equal(speller.correct('mlk shake', ['Milk Shake', 'Mango Shake']).text, 'milk shake');
  t.equal(speller.correct('cke', ['Chocolate Cake', 'Coke']).text, 'cke', 'cake and coke: a tie');
});

t.test('romanised Hindi vowels fold before any edit is counted', async (t) => {
  t.equal(hinglishFold('haddee'), 'hadi');
  t.equal(hinglishFold('neembu'), 'nimbu');
  const cases: [string, string][] = [['haddee', 'haddi'], ['neembu', 'nimbu'], ['waali', 'wali'], ['chaatt', 'chaat'], ['badaa', 'bada']];
  for (const [typed, meant] of cases) t.equal(speller.correct(typed, []).text, meant, typed);
});

t.test('the menu being searched breaks ties and supplies its own words', async (t) => {
  t.equal(speller.correct('sjakes', []).text, 'sjakes', 'sakes, shakes, snakes: a tie leaves the word as typed');
  t.equal(speller.correct('sjakes', MENU).text, 'shakes', 'the menu sells shakes');
  t.equal(speller.correct('zingr burger', MENU).text, 'zinger burger', "a menu's coined word is a candidate too");
  t.equal(speller.correct('birryani', MENU).text, 'biryani');
  const vocabulary = { known: new Set<string>(), candidates: new Map([['cake', 'cake'], ['coke', 'coke']]), spelling };
  const tiny = new QuerySpeller(vocabulary);
  t.equal(tiny.correct('cuke', []).text, 'cuke', 'cake and coke are one edit each: left as typed');
  t.equal(tiny.correct('cuke', ['Coke 300ml']).text, 'coke', 'the menu has coke');
});

t.test('known words, short words and other scripts are never changed', async (t) => {
  for (const q of ['something to share with friends', 'gond ke laddu', 'paneer tikka', 'margarita', 'dps', 'पनीर टिक्का', 'chicken 65']) {
    const r = speller.correct(q, MENU);
    t.equal(r.text, q, q);
    t.same(r.corrections, [], `${q}: no corrections`);
  }
});

t.test('corrections say what was read as what, and the rest of the query is kept', async (t) => {
  const r = speller.correct('Mango Sjakes under 200!', MENU);
  t.equal(r.text, 'Mango shakes under 200!');
  t.same(r.corrections, [{ from: 'Sjakes', to: 'shakes' }]);
});

t.test('how long a word must be before it is corrected is read from lexicon/spelling.tsv', async (t) => {
  const candidates = new Map([['masala', 'masala'], ['biryani', 'biryani']]);
  const as = (conventions: typeof spelling) => new QuerySpeller({ known: new Set<string>(), candidates, spelling: conventions });
  t.equal(as(spelling).correct('masla', []).text, 'masala', 'one edit at five letters');
  t.equal(as({ ...spelling, typoMinLetters: 6, twoTyposMinLetters: 9 }).correct('masla', []).text, 'masla', 'too short once typos wait for six letters');
  t.equal(as(spelling).correct('biryni', []).text, 'biryani');
  t.equal(as(spelling).correct('brayni', []).text, 'brayni', 'two edits at six letters: too many');
  t.equal(as({ ...spelling, twoTyposMinLetters: 6 }).correct('brayni', []).text, 'biryani', 'two edits allowed from six letters');
});
