import t from 'tap';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNOWLEDGE_DIR, REPO_ROOT } from '../src/core/paths.js';
import {
  CUISINE_LABELS,
  closerRelation,
  cuisineRelation,
  MIN_DISHES_PER_CUISINE,
  MIN_DISHES_TOTAL,
  loadDishBook,
  loadKnowledge,
  validateKnowledge,
} from '../src/core/knowledge/index.js';
import { lookupWords, splitCombo } from '../src/core/knowledge/lookup.js';
import { WORD_LIST_FILES } from '../src/core/knowledge/words.js';
import { proteinOf } from '../src/core/knowledge/cues.js';
import { measureCoverage } from '../src/core/knowledge/coverage.js';
import { sameWordInEnglish, toEnglishFoodWords } from '../src/core/knowledge/translate.js';
import { kindsNamed } from '../src/core/knowledge/kinds.js';

/** The checkout's knowledge, loaded once for this file. */
const knowledge = loadKnowledge();

const HEADER = 'name\tcuisine\tcourse\tdiet\tprotein\ttags\taliases';

/** A scratch knowledge folder: the real lexicons, hard negatives and non-food lists, and the dish files given. */
function scratchKnowledge(dishFiles: Record<string, string>, ambiguous = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'mi-knowledge-'));
  cpSync(join(KNOWLEDGE_DIR, 'lexicon'), join(dir, 'lexicon'), { recursive: true });
  cpSync(join(KNOWLEDGE_DIR, 'nonfood'), join(dir, 'nonfood'), { recursive: true });
  cpSync(join(KNOWLEDGE_DIR, 'hard_negatives.tsv'), join(dir, 'hard_negatives.tsv'));
  writeFileSync(join(dir, 'lexicon', 'ambiguous.txt'), `# test\n${ambiguous}\n`);
  mkdirSync(join(dir, 'dishes'));
  for (const [file, body] of Object.entries(dishFiles)) writeFileSync(join(dir, 'dishes', file), `${HEADER}\n${body}\n`);
  return dir;
}

t.test('the loader rejects bad dish files with file:line', async (t) => {
  const good = 'Paneer Tikka\tNorth Indian\tside\tveg\tpaneer\tgrilled\tPanner Tikka|पनीर टिक्का';
  const cases: { name: string; files: Record<string, string>; ambiguous?: string; error: RegExp }[] = [
    {
      name: 'an unknown cuisine label',
      files: { 'a.tsv': `${good}\nDal Makhani\tIndian\tmain\tveg\t-\tcreamy\t-` },
      error: /knowledge\/dishes\/a\.tsv:3: cuisine "Indian" is not one of North Indian/,
    },
    {
      name: 'an unknown tag',
      files: { 'a.tsv': `${good}\nDal Makhani\tNorth Indian\tmain\tveg\t-\tbuttery\t-` },
      error: /a\.tsv:3: tag "buttery"/,
    },
    {
      name: 'a duplicate dish name across files (case and punctuation ignored)',
      files: { 'a.tsv': good, 'b.tsv': 'paneer tikka!\tMughlai\tside\tveg\tpaneer\t-\t-' },
      error: /b\.tsv:2: duplicate dish name "paneer tikka!" \(also knowledge\/dishes\/a\.tsv:2\)/,
    },
    {
      name: 'an alias shared by two dishes that is not listed as ambiguous',
      files: { 'a.tsv': `${good}\nChicken Tikka\tNorth Indian\tside\tnon_veg\tchicken\tgrilled\tTikka` , 'b.tsv': 'Paneer Tikka Masala\tNorth Indian\tmain\tveg\tpaneer\t-\tTikka' },
      error: /"tikka" names "Chicken Tikka" \(knowledge\/dishes\/a\.tsv:3\) and "Paneer Tikka Masala" \(knowledge\/dishes\/b\.tsv:2\); list it in knowledge\/lexicon\/ambiguous\.txt/,
    },
    {
      name: 'a row with a missing column',
      files: { 'a.tsv': `${good}\nDal Makhani\tNorth Indian\tmain\tveg\tcreamy\t-` },
      error: /a\.tsv:3: expected 7 tab-separated columns, got 6/,
    },
    {
      name: 'a wrong header',
      files: { 'a.tsv': 'x' },
      error: /a\.tsv:1: header must be/,
    },
  ];
  for (const c of cases) {
    const dir = scratchKnowledge(c.files, c.ambiguous);
    if (c.name === 'a wrong header') writeFileSync(join(dir, 'dishes', 'a.tsv'), 'name\tcuisine\n');
    t.throws(() => loadDishBook(dir), c.error, c.name);
    t.throws(() => loadKnowledge(dir), c.error, `${c.name} (loadKnowledge)`);
    rmSync(dir, { recursive: true, force: true });
  }

  // The same shared alias is fine once it is declared ambiguous.
  const dir = scratchKnowledge(
    { 'a.tsv': `${good}\nChicken Tikka\tNorth Indian\tside\tnon_veg\tchicken\tgrilled\tTikka`, 'b.tsv': 'Paneer Tikka Masala\tNorth Indian\tmain\tveg\tpaneer\t-\tTikka' },
    'Tikka',
  );
  const book = loadDishBook(dir);
  t.equal(book.dishes.length, 3);
  t.same(book.byKey.get('tikka'), [1, 2], 'the ambiguous alias names both dishes');
  const k = loadKnowledge(dir);
  t.equal(k.resolveDish('Tikka'), null, 'an ambiguous name resolves to no dish');
  t.same(k.lookup.dishCandidates('TIKKA').map((d) => d.name), ['Chicken Tikka', 'Paneer Tikka Masala']);
  rmSync(dir, { recursive: true, force: true });
});

t.test('validateKnowledge collects the problems a single loader cannot see', async (t) => {
  const dir = scratchKnowledge(
    {
      'a.tsv': [
        'Paneer Tikka\tNorth Indian\tside\tveg\tpaneer\tgrilled\tPanner Tikka|पनीर टिक्का',
        // A Devanagari alias that shares no word with the Latin names: probably on the wrong row.
        'Dal Makhani\tNorth Indian\tmain\tveg\t-\tcreamy\tमटन करी',
        // A translated Devanagari word (नींबू for lemon) is reported, not an error.
        'Lemon Rice\tSouth Indian\tmain\tveg\t-\trice\tनींबू राइस',
      ].join('\n'),
    },
    'Paneer Tikka Pizza',
  );
  const report = validateKnowledge(dir);
  t.match(report.problems.join('\n'), /ambiguous\.txt: "paneer tikka pizza" is listed as ambiguous but names 0 dish/);
  t.match(report.problems.join('\n'), /a\.tsv:3: Devanagari alias "मटन करी" of "Dal Makhani" matches no word/);
  t.match(report.problems.join('\n'), /Thai has 0 dishes, needs ≥ 60/);
  t.match(report.problems.join('\n'), /3 dishes, needs ≥ 2500/);
  t.same(report.partlyTranslatedAliases, ['knowledge/dishes/a.tsv:4: नींबू राइस (Lemon Rice)']);
  t.equal(report.perCuisine['North Indian'], 2);

  // A hard negative whose two texts name the same dish contradicts the dish book.
  writeFileSync(join(dir, 'hard_negatives.tsv'), 'text_a\ttext_b\tkind\tnote\nPaneer Tikka\tPanner Tikka\tprotein\tx\n');
  t.match(validateKnowledge(dir).problems.join('\n'), /hard_negatives\.tsv:2: "Paneer Tikka" and "Panner Tikka" are both names of the dish "Paneer Tikka"/);
  rmSync(dir, { recursive: true, force: true });
});

t.test('the word lists of the rules load from the lexicon, and a broken one fails the load with file:line', async (t) => {
  const words = knowledge.words;
  t.ok(words.queryFiller.has('something') && words.queryFiller.has('kuch'), 'query filler words');
  t.same([...words.numbers.serving].slice(0, 3), [['one', 1], ['two', 2], ['three', 3]], 'number words keep their value and order');
  t.equal(words.numbers.serving.get('chaar'), 4);
  t.notOk(words.numbers.spelledCount.has('chaar'), 'each rule reads only its own kind (chaar is a serving word only)');
  t.same(words.preparationPhrases[0], ['no', 'onion', 'no', 'garlic'], 'phrases keep file order, longest first');
  t.same(words.combo.chainMealCode, ['EVM', 'HM'], 'chain meal codes keep their case');
  t.ok(words.nonFoodCues.get('garment')!.includes('t ?-?shirts?'), 'non-food cue lists are pattern alternatives');
  t.ok(knowledge.comboPattern.test('hm chicken mcgrill'), 'the combo pattern reads chain codes in any case');
  t.equal(knowledge.singular('fries'), 'fries', 'a keep-final-s word keeps its s');
  t.equal(knowledge.singular('momos'), 'momo');
  for (const spec of WORD_LIST_FILES) t.ok((words.counts[spec.file] ?? 0) > 0, `${spec.file} has entries`);

  const broken: { name: string; file: string; edit: (text: string) => string; error: RegExp }[] = [
    { name: 'an unknown kind', file: 'query_words.tsv', edit: (s) => `${s}\nzzz\tmeal_words\n`, error: /query_words\.tsv:\d+: kind "meal_words" is not one of meal_word, negator, cuisine_filler/ },
    { name: 'a word listed twice in one kind', file: 'accompaniments.txt', edit: (s) => `${s}\nraita\n`, error: /accompaniments\.txt entry \d+: "raita" is listed twice/ },
    { name: 'a phrase where a word belongs', file: 'filler_words.tsv', edit: (s) => `${s}\nhouse special\tlookup\n`, error: /filler_words\.tsv:\d+: "house special" must be one word/ },
    { name: 'an upper-case word', file: 'piece_words.txt', edit: (s) => `${s}\nPlate\n`, error: /piece_words\.txt entry \d+: "Plate" must be lower case/ },
    { name: 'a number word without a value', file: 'number_words.tsv', edit: (s) => `${s}\nthirty\tmany\tserving\n`, error: /number_words\.tsv:\d+: value "many" is not a positive whole number/ },
    { name: 'a pattern that does not compile', file: 'nonfood_cues.tsv', edit: (s) => `${s}\nshirt(s\tgarment\n`, error: /nonfood_cues\.tsv:\d+: "shirt\(s" is not a valid pattern/ },
    { name: 'a tag that is not a tag', file: 'tag_roles.tsv', edit: (s) => `${s}\ncurry\tkind\n`, error: /tag_roles\.tsv:\d+: "curry" is not a tag/ },
    { name: 'a cuisine that is not a label', file: 'cuisine_queries.tsv', edit: (s) => `${s}\nscottish\tScottish\n`, error: /cuisine_queries\.tsv:\d+: cuisine "Scottish" is not one of/ },
    { name: 'an empty file', file: 'boundary_words.tsv', edit: () => '', error: /lexicon\/boundary_words\.tsv (?:is missing|has no entries)/ },
  ];
  for (const c of broken) {
    const dir = scratchKnowledge({ 'a.tsv': 'Paneer Tikka\tNorth Indian\tside\tveg\tpaneer\tgrilled\t-' });
    const path = join(dir, 'lexicon', c.file);
    writeFileSync(path, c.edit(readFileSync(path, 'utf8')));
    t.throws(() => loadKnowledge(dir), c.error, c.name);
    t.match(validateKnowledge(dir).problems.join('\n'), c.error, `${c.name}: check:knowledge reports it`);
    rmSync(dir, { recursive: true, force: true });
  }
});

t.test('the real knowledge base loads, validates and covers every cuisine label', async (t) => {
  const started = performance.now();
  const fresh = loadKnowledge(KNOWLEDGE_DIR);
  const loadMs = performance.now() - started;
  const prepStarted = performance.now();
  fresh.lookup.prepare();
  const prepareMs = performance.now() - prepStarted;
  // Diagnostic only (timing depends on the machine): exact lookups are ready after the load, the fuzzy tables after prepare().
  t.comment(`knowledge load ${loadMs.toFixed(0)} ms (dish book ${fresh.loadMs.toFixed(0)} ms), prepare (fuzzy, token, Devanagari tables) ${prepareMs.toFixed(0)} ms`);

  const report = validateKnowledge();
  t.same(report.problems, [], 'no problems');
  t.ok(report.dishes >= MIN_DISHES_TOTAL, `${report.dishes} dishes ≥ ${MIN_DISHES_TOTAL}`);
  for (const c of CUISINE_LABELS) t.ok(report.perCuisine[c] >= MIN_DISHES_PER_CUISINE, `${c}: ${report.perCuisine[c]} ≥ ${MIN_DISHES_PER_CUISINE}`);
  t.ok(report.aliases > report.dishes * 2, 'dishes carry aliases');
  t.ok(report.hardNegatives > 0 && Object.values(report.nonFood).every((n) => n > 0), 'hard negatives and non-food exemplars present');

  const k = knowledge;
  t.ok(Object.isFrozen(k), 'the knowledge is frozen');
  const names = new Set(k.book.dishes.map((d) => d.name.toLowerCase()));
  t.equal(names.size, k.book.dishes.length, 'canonical names are unique');
  // Every ambiguous name is an alias of at least two dishes, and resolves to none of them.
  for (const name of k.book.ambiguous) {
    t.ok((k.book.byKey.get(name) ?? []).length >= 2, `ambiguous "${name}" names several dishes`);
  }
  t.equal(k.resolveDish('Pad Thai'), null);
});

t.test('check-knowledge.mjs prints the counts and fails on a broken folder', async (t) => {
  const script = join(REPO_ROOT, 'scripts', 'check-knowledge.mjs');
  const ok = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  t.equal(ok.status, 0, ok.stderr);
  t.match(ok.stdout, /per cuisine label \(need ≥ 60 each\)/);
  t.match(ok.stdout, /North Indian\s+\d{3}/);
  t.match(ok.stdout, /dishes\/south_indian\.tsv\s+\d+/);
  t.match(ok.stdout, /hard negatives: \d+/);
  t.match(ok.stdout, /nonfood\/grocery\.txt\s+\d+/);
  t.match(ok.stdout, /knowledge OK/);

  const dir = scratchKnowledge({ 'a.tsv': 'Dal Makhani\tNorth Indian\tmain\tvegetarian\t-\t-\t-' });
  const bad = spawnSync(process.execPath, [script, '--dir', dir], { encoding: 'utf8' });
  t.equal(bad.status, 1);
  t.match(bad.stderr, /knowledge\/dishes\/a\.tsv:2: diet "vegetarian" is not one of veg, egg, non_veg/);
  const json = spawnSync(process.execPath, [script, '--json'], { encoding: 'utf8' });
  t.equal(JSON.parse(json.stdout).problems.length, 0, '--json prints the report');
  rmSync(dir, { recursive: true, force: true });
});

/** [menu text, expected dish (null = must not resolve), how] */
const RESOLVE_CASES: [string, string | null, ('exact' | 'fuzzy')?][] = [
  // exact names and aliases (case, punctuation and accents do not matter)
  ['Paneer Tikka', 'Paneer Tikka', 'exact'],
  ['PANEER TIKKA', 'Paneer Tikka', 'exact'],
  ['Chicken Tikka', 'Chicken Tikka', 'exact'],
  ['Butter Chicken', 'Butter Chicken', 'exact'],
  ['Murgh Makhani', 'Butter Chicken', 'exact'],
  ['Dal Makhani', 'Dal Makhani', 'exact'],
  ['Paneer Makhani', 'Paneer Butter Masala', 'exact'],
  ['Panner Butter Masala', 'Paneer Butter Masala', 'exact'],
  ['Chicken Biriyani', 'Chicken Biryani', 'exact'],
  ['Masala Dosa', 'Masala Dosa', 'exact'],
  ['Dosa', 'Plain Dosa', 'exact'],
  ['Fried Rice', 'Veg Fried Rice', 'exact'],
  ['Momos', 'Veg Steamed Momos', 'exact'],
  ['Hakka Noodles', 'Veg Hakka Noodles', 'exact'],
  ['Mac & Cheese', 'Mac and Cheese', 'exact'],
  ['Filet-O-Fish', 'Fish Burger', 'exact'],
  ['Crème Brûlée', 'Creme Brulee', 'exact'],
  ['Tiramisu', 'Tiramisu', 'exact'],
  ['Margherita', 'Margherita Pizza', 'exact'],
  ['Gulab Jamun', 'Gulab Jamun', 'exact'],
  ['Masala Chai', 'Masala Chai', 'exact'],
  ['Chicken Shawarma', 'Chicken Shawarma Roll', 'exact'],
  ['Khao Soi', 'Khao Soi Gai', 'exact'],
  ['Imli Chawal', 'Tamarind Rice', 'exact'],
  ['Peshawari Naan', 'Peshawari Naan', 'exact'],
  // Devanagari: an alias, or transliterated through the learned dictionary
  ['पनीर टिक्का', 'Paneer Tikka', 'exact'],
  ['दाल मखनी', 'Dal Makhani', 'exact'],
  ['छोले भटूरे', 'Chole Bhature', 'exact'],
  ['मसाला डोसा', 'Masala Dosa', 'exact'],
  ['चिकन बिरयानी', 'Chicken Biryani', 'exact'],
  ['मलाई कोफ्ता', 'Malai Kofta', 'exact'],
  ['पनीर बिरयानी', 'Paneer Biryani', 'exact'],
  ['अचारी पनीर टिक्का', 'Achari Paneer Tikka', 'exact'],
  ['मटर पनीर', 'Matar Paneer', 'exact'],
  // fuzzy: word order, plurals, fillers, typos, glued words, spelling variants, modifiers
  ['Tikka Paneer', 'Paneer Tikka', 'fuzzy'],
  ['paneer tika', 'Paneer Tikka', 'fuzzy'],
  ['chiken biriyani', 'Chicken Biryani', 'fuzzy'],
  ['Butter Chiken', 'Butter Chicken', 'fuzzy'],
  ['Masla Dosa', 'Masala Dosa', 'fuzzy'],
  ['pavbhajji', 'Pav Bhaji', 'fuzzy'],
  ['Veg Burgers', 'Veg Burger', 'fuzzy'],
  ['Special Veg Fried Rice', 'Veg Fried Rice', 'fuzzy'],
  ['Chicken Dum Biryani Hyderabadi Style', 'Hyderabadi Chicken Biryani', 'fuzzy'],
  ['Shahi Paneer No Onion No Garlic', 'Shahi Paneer', 'fuzzy'],
  ['Jain Paneer Butter Masala', 'Paneer Butter Masala', 'fuzzy'],
  ['BK Veggie Burger', 'Veg Burger', 'fuzzy'],
  ['Chicken Wings Fried Fifteen Pieces', 'Chicken Wings', 'fuzzy'],
  ['Zinger Pro Burger', 'Zinger Burger', 'fuzzy'],
  ['Taj-e-Khumb Biryani Mushroom Biryani', 'Mushroom Biryani', 'fuzzy'],
  ['Bucket Chicken Biryani', 'Chicken Biryani', 'fuzzy'],
  ['Farmhouse Thin and Crispy', 'Farmhouse Pizza', 'fuzzy'],
  // the dough or the fat is how it is made, not which dish: not the plain paratha a "Whole Wheat Paratha" alias names
  ['Aloo Paratha Whole Wheat', 'Aloo Paratha', 'fuzzy'],
  ['Jalebi Desi Ghee', 'Jalebi', 'fuzzy'],
  // a word that is non-veg only by default adds nothing beside one that is non-veg outright
  ['Boneless Chicken Lababdar', 'Chicken Lababdar', 'fuzzy'],
  // must not resolve: protein and diet words never change, ambiguous names stay unresolved, unknowns stay unknown
  ['Tikka', null],
  ['Paneer Chicken Tikka', null],
  ['Mushroom Tikka Pizza Burger', null],
  ['Chicken Tikka Sourdough Pizza', null],
  ['Chiken Tikka Pizza', 'Chicken Tikka Pizza', 'fuzzy'],
  ['Pad Thai', null],
  ['Seekh Kebab', null],
  ['Roti', null],
  ['Thai Green Curry', null],
  ['Crispy Veg', null],
  ['Ladoo', null],
  ['Veg Chicken Biryani', null],
  ['Egg Paneer Curry', null],
  ['Aloo Tika', null],
  ['Qwerty Zxcvb', null],
  ['Biryani', null],
  ['Chicken', null],
  ['Veg Burger + Fries', null],
  // One word names a family, never the one dish that adds a word to it.
  ['Soup', null],
  ['Soups', null],
  ['Pizza', null],
  ['Desserts', null],
];

t.test('resolveDish: a dish named twice ("X (Y)") is that dish; two different dishes are not', async (t) => {
  const k = knowledge;
  const twice = k.resolveDish('Mosambi Juice Sweet Lime Juice');
  t.equal(twice?.dish.name, 'Mosambi Juice');
  t.equal(twice?.how, 'exact', 'both halves are names of the dish');
  t.not(k.resolveDish('Mosambi Juice Masala Chaas')?.how, 'exact', 'halves naming two dishes are no exact name');
});

t.test('resolveDish: a vessel that is a party portion of a dish (filler_words.tsv vessel_portion) is read from the lexicon', async (t) => {
  t.equal(knowledge.resolveDish('Mutton Bucket Biryani')?.dish.name, 'Mutton Biryani', 'a bucket of biryani is that biryani');
  t.equal(knowledge.resolveDish('Chicken Bucket')?.dish.name, 'Chicken Bucket', 'a bucket of chicken is a dish of its own');
  // The same checkout's knowledge without the row: the bucket stays a word of the name.
  const dir = mkdtempSync(join(tmpdir(), 'kb-vessel-'));
  cpSync(KNOWLEDGE_DIR, dir, { recursive: true });
  const fillers = join(dir, 'lexicon', 'filler_words.tsv');
  writeFileSync(fillers, readFileSync(fillers, 'utf8').split('\n').filter((line) => !line.endsWith('\tvessel_portion')).join('\n'));
  const without = loadKnowledge(dir);
  t.not(without.resolveDish('Mutton Bucket Biryani')?.dish.name, 'Mutton Biryani', 'without the row it is no plain Mutton Biryani');
  rmSync(dir, { recursive: true, force: true });
});

t.test('translations.tsv: each row says whether its English word is the same food or the kind it is one of', async (t) => {
  t.ok(sameWordInEnglish(knowledge.translations, 'macchi', 'fish'), 'a same row pairs the word with its English word');
  t.ok(sameWordInEnglish(knowledge.translations, 'kodi', 'kozhi'), 'two words of one English word pair');
  t.notOk(sameWordInEnglish(knowledge.translations, 'pulusu', 'curry'), 'a kind row does not');
  t.notOk(sameWordInEnglish(knowledge.translations, 'chicken', 'chicken'), 'a word no row lists is left to the caller');
  t.equal(toEnglishFoodWords(knowledge.translations, 'Chicken Pulusu'), 'chicken curry', 'the encoder still reads the kind');
  const dir = mkdtempSync(join(tmpdir(), 'kb-translations-'));
  cpSync(KNOWLEDGE_DIR, dir, { recursive: true });
  const file = join(dir, 'lexicon', 'translations.tsv');
  writeFileSync(file, readFileSync(file, 'utf8').replace('pulusu\tcurry\tkind', 'pulusu\tcurry\tsame'));
  t.ok(sameWordInEnglish(loadKnowledge(dir).translations, 'pulusu', 'curry'), 'the relation is read from the file');
  writeFileSync(file, readFileSync(file, 'utf8').replace('pulusu\tcurry\tsame', 'pulusu\tcurry\thypernym'));
  t.throws(() => loadKnowledge(dir), /translations\.tsv:\d+: relation "hypernym" is not one of same, kind/, 'an unknown relation names its line');
  rmSync(dir, { recursive: true, force: true });
});

t.test('kinds.tsv: what a food is a kind of, with its same-group spellings and the kind translations', async (t) => {
  const kinds = (text: string) => kindsNamed(knowledge.kinds, knowledge.equivalents, text.split(' ')).map((k) => k.join(' '));
  t.same(kinds('veggies mozza sandwich'), ['cheese']);
  t.same(kinds('mozarella sticks'), ['cheese'], 'a spelling of the group the name belongs to');
  t.same(kinds('mango gelato sundae'), ['ice cream'], 'each kind once');
  t.same(kinds('chicken pulusu'), ['curry'], 'a kind row of translations.tsv');
  t.same(kinds('vanilla ice cream'), [], 'the kind itself names no kind');
  t.same(kinds('masala chai latte'), ['tea'], 'a word read as part of a longer name is not read again: no coffee');
  t.same(kinds('cheese maggi'), ['noodle'], 'a brand in the same group as a listed name');
  const dir = mkdtempSync(join(tmpdir(), 'kb-kinds-'));
  cpSync(KNOWLEDGE_DIR, dir, { recursive: true });
  const file = join(dir, 'lexicon', 'kinds.tsv');
  writeFileSync(file, `${readFileSync(file, 'utf8')}feta\tcheese\t\n`);
  t.throws(() => loadKnowledge(dir), /kinds\.tsv:\d+: "feta" is already listed on line \d+/, 'a name listed twice names both lines');
  writeFileSync(file, `${readFileSync(file, 'utf8').replace(/feta\tcheese\t\n$/, '')}curry\tcurry\t\n`);
  t.throws(() => loadKnowledge(dir), /"curry" is given as its own kind/);
  rmSync(dir, { recursive: true, force: true });
});

t.test('resolveDish: exact, aliases, transliteration, fuzzy and traps', async (t) => {
  const k = knowledge;
  t.ok(RESOLVE_CASES.length >= 60, `${RESOLVE_CASES.length} cases`);
  for (const [text, expected, how] of RESOLVE_CASES) {
    const m = k.resolveDish(text);
    if (expected === null) {
      t.equal(m, null, `"${text}" must not resolve${m ? ` (got ${m.dish.name})` : ''}`);
      continue;
    }
    t.equal(m?.dish.name, expected, `"${text}" → ${expected}`);
    if (how) t.equal(m?.how, how, `"${text}" is ${how}`);
    if (m?.how === 'exact') t.equal(m.score, 1);
    if (m?.how === 'fuzzy') t.ok(m.score >= 0.7 && m.score < 1, `fuzzy score ${m.score} in [0.7, 1)`);
  }
});

t.test('a fuzzy match never crosses a protein or diet word', async (t) => {
  const k = knowledge;
  // Every dish name with one protein or diet word swapped for another: it must resolve to a dish with the new
  // word's protein/diet, or not at all — never back to the original dish.
  const swaps: [RegExp, string][] = [[/\bPaneer\b/, 'Chicken'], [/\bChicken\b/, 'Paneer'], [/\bVeg\b/, 'Egg'], [/\bMutton\b/, 'Fish'], [/\bPrawn\b/, 'Chicken']];
  let checked = 0;
  for (const dish of k.book.dishes) {
    for (const [from, to] of swaps) {
      if (!from.test(dish.name)) continue;
      const swapped = dish.name.replace(from, to);
      const m = k.resolveDish(swapped);
      checked++;
      if (m && m.dish.id === dish.id) t.fail(`"${swapped}" resolved back to "${dish.name}"`);
    }
  }
  t.ok(checked > 300, `${checked} swapped names checked`);
});

t.test('token index, cues, optional words, spelling variants and combos', async (t) => {
  const k = knowledge;
  const { lookup } = k;
  const paneerIds = lookup.dishesByToken.get('paneer') ?? [];
  t.ok(paneerIds.length > 50, 'many dishes use "paneer"');
  t.same([...paneerIds].sort((a, b) => a - b), paneerIds, 'ids ascending');
  t.ok(paneerIds.every((id) => k.book.dishes[id]!.keys.some((key) => key.split(' ').includes('paneer'))));
  const biryani = lookup.tokenCue('biryani');
  t.ok(biryani && [...biryani.cuisines.entries()].sort((a, b) => b[1] - a[1])[0]![0] === 'Mughlai', 'biryani mostly Mughlai');
  const paneer = lookup.tokenCue('paneer')!;
  t.equal(paneer.diets.get('non_veg') ?? 0, 0, 'no paneer dish is non-veg');
  t.equal(lookup.tokenCue('zzzz'), undefined);

  for (const word of ['chicken', 'paneer', 'veg', 'egg', 'mutton', 'garlic']) t.notOk(lookup.optionalWords.has(word), `"${word}" is never optional`);
  t.equal(lookup.spellingVariants.get('masla'), 'masala', 'masla is a spelling of masala');
  t.notOk(lookup.spellingVariants.has('tikki'), 'tikki is not a spelling of tikka');

  const words = lookupWords(k.words);
  t.same(splitCombo('Veg Whopper + Fries (Reg)'.replace(/\(.*\)/, ''), words), ['Veg Whopper', 'Fries']);
  t.same(splitCombo('Zinger Burger Meal', words), ['Zinger Burger']);
  t.same(splitCombo('Paneer Tikka', words), []);
  const combo = lookup.resolveCombo('Veg Whopper + French Fries + Coke');
  t.equal(combo?.main?.dish.name, 'Veg Whopper');
  t.same(combo?.parts.map((p) => p?.dish.name ?? null), ['Veg Whopper', 'French Fries', 'Coca-Cola']);
  t.equal(combo?.complete, true);
  t.equal(lookup.resolveCombo('Paneer Tikka')?.parts.length, 1, 'a single dish is a one-part combo');
  t.equal(lookup.resolveCombo('Qwerty'), null);
});

t.test('measureCoverage counts exact, fuzzy, combo, ambiguous and misses', async (t) => {
  const names = ['Paneer Tikka ₹249', 'Paneer Tikka [Bestseller]', 'Tikka Paneer', 'Pad Thai', 'Veg Whopper + Fries', 'Qwerty Zxcvb', 'Qwerty Zxcvb'];
  const r = measureCoverage(knowledge, names, { top: 5 });
  t.equal(r.total, 7);
  t.equal(r.exact, 2, 'cleaning strips the price and the promo label before the lookup');
  t.equal(r.fuzzy, 1);
  t.equal(r.combo, 1);
  t.equal(r.ambiguous, 1);
  t.equal(r.unresolved, 3);
  t.equal(r.share, 3 / 7);
  t.equal(r.shareWithCombos, 4 / 7);
  t.same(r.distinct, { total: 5, resolved: 3, share: 3 / 5 });
  t.same(r.misses.map((m) => [m.name, m.count, m.kind]), [['Qwerty Zxcvb', 2, 'unknown'], ['Pad Thai', 1, 'ambiguous']]);
});

t.test('knowledge/README.md documents the conventions the data follows', async (t) => {
  const readme = readFileSync(join(KNOWLEDGE_DIR, 'README.md'), 'utf8');
  t.match(readme, /Ambur/, 'regional biryanis convention');
  t.match(readme, /ambiguous/i);
  t.match(readme, /Devanagari/);
});

// lexicon/cuisines.tsv and lexicon/proteins.tsv: what a cuisine is as a kitchen and what kind of food a protein is.
t.test('cuisines.tsv: every cuisine label once, read into the kitchen table', async (t) => {
  const { cuisines } = knowledge.book;
  t.same([...cuisines.family.keys()].sort(), [...CUISINE_LABELS].sort(), 'one row per cuisine label');
  t.equal(cuisines.family.get('Mughlai'), 'indian');
  t.equal(cuisines.family.get('Korean'), 'east_asian');
  t.equal(cuisines.family.get('Beverages'), 'anything');
  t.ok(cuisines.eatenWithBread.has('North Indian') && !cuisines.eatenWithBread.has('Chinese'), 'bread column');
  t.equal(cuisineRelation(cuisines, 'Chinese', 'Chinese'), 'same');
  t.equal(cuisineRelation(cuisines, 'Thai', 'Chinese'), 'same_family');
  t.equal(cuisineRelation(cuisines, 'Italian', 'Chinese'), 'other_family');
  t.equal(cuisineRelation(cuisines, 'Desserts', 'Chinese'), 'goes_with_anything');
  t.equal(cuisineRelation(cuisines, 'Chinese', 'uncertain'), 'meal_unknown');
  t.equal(cuisineRelation(cuisines, 'uncertain', 'Chinese'), 'item_unknown');
  t.equal(closerRelation('other_family', 'same_family'), 'same_family', 'the stronger of two relations, either way round');
  t.equal(closerRelation('goes_with_anything', 'item_unknown'), 'goes_with_anything');
});

t.test('cuisines.tsv and proteins.tsv: the loader rejects a missing, repeated or unknown row with file:line', async (t) => {
  const edits: { name: string; file: string; edit: (body: string) => string; error: RegExp }[] = [
    { name: 'a cuisine without its row', file: 'cuisines.tsv', edit: (b) => b.replace(/^Korean\t.*\n/m, ''), error: /cuisines\.tsv: no row for Korean/ },
    { name: 'a label that is no cuisine', file: 'cuisines.tsv', edit: (b) => `${b}Indian\tindian\tyes\t\n`, error: /cuisines\.tsv:\d+: cuisine "Indian" is not one of North Indian/ },
    { name: 'a cuisine twice', file: 'cuisines.tsv', edit: (b) => `${b}Thai\teast_asian\tno\t\n`, error: /cuisines\.tsv:\d+: cuisine "Thai" is listed twice/ },
    { name: 'an unknown family', file: 'cuisines.tsv', edit: (b) => b.replace(/^Thai\teast_asian/m, 'Thai\tasian'), error: /cuisines\.tsv:\d+: family "asian" is not one of/ },
    { name: 'a bread value other than yes or no', file: 'cuisines.tsv', edit: (b) => b.replace(/^Thai\teast_asian\tno/m, 'Thai\teast_asian\tsometimes'), error: /cuisines\.tsv:\d+: bread "sometimes"/ },
    { name: 'a protein without its row', file: 'proteins.tsv', edit: (b) => b.replace(/^tofu\t.*\n/m, ''), error: /proteins\.tsv: no row for tofu/ },
    { name: 'an unknown protein kind', file: 'proteins.tsv', edit: (b) => b.replace(/^squid\tseafood/m, 'squid\tfish'), error: /proteins\.tsv:\d+: kind "fish" is not one of meat, seafood, egg, vegetarian/ },
    { name: 'a portion convention without its row', file: 'portions.tsv', edit: (b) => b.replace(/^group_people\t.*\n/m, ''), error: /portions\.tsv: no row for group_people/ },
    { name: 'a count that is no whole number', file: 'portions.tsv', edit: (b) => b.replace(/^group_people\t4/m, 'group_people\t4.5'), error: /portions\.tsv:\d+: "4\.5" is not a whole number of people, pieces or grams/ },
    { name: 'a group that starts at two', file: 'portions.tsv', edit: (b) => b.replace(/^group_from_people\t3/m, 'group_from_people\t2'), error: /portions\.tsv: group_from_people must be above two/ },
    { name: 'a spelling convention without its row', file: 'spelling.tsv', edit: (b) => b.replace(/^plural_min_letters\t.*\n/m, ''), error: /spelling\.tsv: no row for plural_min_letters/ },
    { name: 'an unknown spelling convention', file: 'spelling.tsv', edit: (b) => `${b}typo_max_letters\t9\n`, error: /spelling\.tsv:\d+: convention "typo_max_letters" is not one of/ },
    { name: 'a length that is no whole number', file: 'spelling.tsv', edit: (b) => b.replace(/^typo_min_letters\t4/m, 'typo_min_letters\tfour'), error: /spelling\.tsv:\d+: "four" is not a whole number of letters/ },
    { name: 'two typos allowed before one', file: 'spelling.tsv', edit: (b) => b.replace(/^two_typos_min_letters\t8/m, 'two_typos_min_letters\t3'), error: /spelling\.tsv: two edits must wait for longer words than one edit/ },
  ];
  for (const c of edits) {
    const dir = mkdtempSync(join(tmpdir(), 'kb-kitchen-'));
    cpSync(KNOWLEDGE_DIR, dir, { recursive: true });
    const path = join(dir, 'lexicon', c.file);
    writeFileSync(path, c.edit(readFileSync(path, 'utf8')));
    t.throws(() => loadKnowledge(dir), c.error, c.name);
    rmSync(dir, { recursive: true, force: true });
  }
});

t.test('spelling.tsv: the name lookup, the plural fold and the word guards read one set of lengths', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kb-spelling-'));
  cpSync(KNOWLEDGE_DIR, dir, { recursive: true });
  const path = join(dir, 'lexicon', 'spelling.tsv');
  t.equal(knowledge.resolveDish('Chicken Biryanu')?.dish.name, 'Chicken Biryani', 'seven letters, one edit: a typo');
  t.equal(knowledge.singular('naans'), 'naan');
  t.equal(knowledge.singular('dals'), 'dal', 'four letters: a plural');
  writeFileSync(path, readFileSync(path, 'utf8').replace(/^typo_min_letters\t4/m, 'typo_min_letters\t8').replace(/^two_typos_min_letters\t8/m, 'two_typos_min_letters\t9').replace(/^plural_min_letters\t4/m, 'plural_min_letters\t5'));
  const edited = loadKnowledge(dir);
  t.equal(edited.resolveDish('Chicken Biryanu'), null, 'typos wait for eight letters');
  t.equal(edited.singular('naans'), 'naan');
  t.equal(edited.singular('dals'), 'dals', 'plurals wait for five letters');
  rmSync(dir, { recursive: true, force: true });
});

t.test('proteins.tsv decides between named proteins: its kinds, not a list in the code', async (t) => {
  // With squid read as meat, a fish-and-squid name is no longer "several sea proteins" (seafood) but two meats, the
  // first named leading; with paneer read as meat, it beats the egg of a paneer egg roll.
  const dir = mkdtempSync(join(tmpdir(), 'kb-protein-kinds-'));
  cpSync(KNOWLEDGE_DIR, dir, { recursive: true });
  const path = join(dir, 'lexicon', 'proteins.tsv');
  t.equal(proteinOf(knowledge.cues, 'Fish and Squid Platter').value, 'seafood');
  t.equal(proteinOf(knowledge.cues, 'Paneer Egg Roll').value, 'egg');
  writeFileSync(path, readFileSync(path, 'utf8').replace(/^squid\tseafood/m, 'squid\tmeat').replace(/^paneer\tvegetarian/m, 'paneer\tmeat'));
  const edited = loadKnowledge(dir);
  t.equal(proteinOf(edited.cues, 'Fish and Squid Platter').value, 'fish');
  t.equal(proteinOf(edited.cues, 'Paneer Egg Roll').value, 'paneer');
  rmSync(dir, { recursive: true, force: true });
});
