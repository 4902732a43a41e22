/**
 * POST /dedup through HTTP (in-process server, real models), plus the clustering core on constructed vectors where a
 * property needs exact control over cosines (the chaining guard).
 */
import t from 'tap';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';
import { wordDifference } from '../src/core/defining-words.js';
import { dedupPrepared as dedupIn, definingWordDifference as differenceIn, MAX_PAIRWISE_SCORES, type DedupOptions } from '../src/core/dedup.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { readCosineCalibration, readMatchGates } from '../src/core/match.js';
import { parseCleanedText, parseMenuText } from '../src/core/menu-text.js';

const knowledge = loadKnowledge();
/** No cross-encoder: the knowledge base and the committed cosine calibration and gates decide. */
const precision = { model: null, calibration: readCosineCalibration(), gates: readMatchGates() };
const definingWordDifference = (a: string, b: string, synonyms = false) => differenceIn(knowledge, a, b, synonyms);
/** Dedup of names that are already clean (made-up words the cleaner must not touch). */
const dedupPrepared = (names: string[], vectors: Float32Array[], options: DedupOptions) =>
  dedupIn(knowledge, names.map((n) => parseCleanedText(knowledge, n)), vectors, options);

const auth = { 'x-api-key': OPERATOR_KEY };

interface Cluster {
  cluster_id: number;
  canonical: string;
  members: string[];
  pairwise_scores: { text_a: string; text_b: string; score: number }[];
  pairwise_truncated: boolean;
}
interface DedupBody {
  clusters: Cluster[];
  singletons: string[];
  total_items: number;
  duplicate_items: number;
  processing_time_ms: number;
}

/** The cluster holding `text` (by original text), or undefined when it is a singleton. */
function clusterOf(body: DedupBody, text: string): Cluster | undefined {
  return body.clusters.find((c) => c.members.includes(text));
}

function together(body: DedupBody, a: string, b: string): boolean {
  const c = clusterOf(body, a);
  return c !== undefined && c.members.includes(b);
}

const MENU = [
  'Chicken Biryani Half', 'Chicken Biryani Full', 'Paneer Tikka (6 Pcs)', 'Paneer Tikka (8 Pcs) ₹320', 'Chicken Tikka',
  'Garlic Naan', 'Butter Naan', 'Chilli Chicken Dry', 'Chilli Chicken Gravy', 'Chicken Tikka Biryani',
  'Eggless Chocolate Cake', 'Chocolate Cake', 'Coke 500ml', 'Coke 1.25L', 'Pepsi', 'Butter Chicken', 'Murgh Makhani',
  'Dal Makhani', 'Dal Makhni [Bestseller]', 'Gulab Jamun (2 Pcs)', 'Veg Fried Rice', 'Egg Fried Rice', 'Masala Dosa',
];

t.test('/dedup through HTTP', async (t) => {
  const srv = await startTestServer({}, undefined, true, knowledge);
  t.teardown(() => srv.close());
  const dedup = (body: object, headers: Record<string, string> = auth) => call<DedupBody>(srv.url, 'POST', '/dedup', body, headers);

  t.test('response shape and bookkeeping', async (t) => {
    const r = await dedup({ items: MENU });
    t.equal(r.status, 200);
    const b = r.body;
    t.equal(b.total_items, MENU.length);
    t.type(b.processing_time_ms, 'number');
    t.ok(b.processing_time_ms >= 0);
    t.same(b.clusters.map((c) => c.cluster_id), b.clusters.map((_, i) => i + 1), 'ids are 1..k');
    const seen = [...b.clusters.flatMap((c) => c.members), ...b.singletons].sort();
    t.same(seen, [...MENU].sort(), 'every item is in exactly one cluster or the singletons');
    t.equal(b.duplicate_items, b.clusters.reduce((s, c) => s + c.members.length - 1, 0), 'duplicate_items = Σ(size − 1)');
    const firstIndex = (c: Cluster) => Math.min(...c.members.map((m) => MENU.indexOf(m)));
    t.same(b.clusters.map(firstIndex), b.clusters.map(firstIndex).sort((x, y) => x - y), 'clusters in order of first appearance');
    for (const c of b.clusters) {
      t.ok(c.members.length >= 2, 'a cluster has at least two members');
      t.ok(c.members.includes(c.canonical), 'canonical is a member');
      t.equal(c.canonical.length, Math.min(...c.members.map((m) => m.length)), 'canonical is the shortest member');
      t.same(c.members, [...c.members].sort((x, y) => MENU.indexOf(x) - MENU.indexOf(y)), 'members in submission order');
      t.equal(c.pairwise_truncated, false);
      t.equal(c.pairwise_scores.length, (c.members.length * (c.members.length - 1)) / 2, 'one score per pair');
      for (const p of c.pairwise_scores) {
        t.ok(c.members.includes(p.text_a) && c.members.includes(p.text_b) && p.text_a !== p.text_b, 'pairs are of members');
        t.ok(p.score >= 0 && p.score <= 1, 'score in 0-1');
      }
    }
  });

  t.test('size variants and noise are duplicates; look-alikes are not', async (t) => {
    const b = (await dedup({ items: MENU })).body;
    const same: [string, string][] = [
      ['Chicken Biryani Half', 'Chicken Biryani Full'],
      ['Paneer Tikka (6 Pcs)', 'Paneer Tikka (8 Pcs) ₹320'],
      ['Coke 500ml', 'Coke 1.25L'],
      ['Butter Chicken', 'Murgh Makhani'],
      ['Dal Makhani', 'Dal Makhni [Bestseller]'],
    ];
    for (const [a, c] of same) t.ok(together(b, a, c), `${a} ~ ${c}`);
    const canonical = clusterOf(b, 'Chicken Biryani Half')!.canonical;
    t.equal(canonical, 'Chicken Biryani Half', 'equal lengths: the earlier member is canonical');
    const sizeScores = clusterOf(b, 'Coke 500ml')!.pairwise_scores;
    t.equal(sizeScores[0]!.score, 1, 'size variants clean to the same text: score 1');
    const synonymScore = clusterOf(b, 'Butter Chicken')!.pairwise_scores[0]!.score;
    t.ok(synonymScore >= precision.gates.knowledgeSame, `a knowledge-base synonym scores at least the knowledge base's same-dish probability (got ${synonymScore})`);
  });

  t.test('hard negatives stay apart at the default threshold and when grouping aggressively', async (t) => {
    const different: [string, string][] = [
      ['Chicken Tikka', 'Paneer Tikka (6 Pcs)'],
      ['Garlic Naan', 'Butter Naan'],
      ['Chilli Chicken Dry', 'Chilli Chicken Gravy'],
      ['Chicken Tikka', 'Chicken Tikka Biryani'],
      ['Eggless Chocolate Cake', 'Chocolate Cake'],
      ['Coke 500ml', 'Pepsi'],
      ['Veg Fried Rice', 'Egg Fried Rice'],
      ['Butter Chicken', 'Butter Naan'],
    ];
    for (const threshold of [0.85, 0.5, 0]) {
      const b = (await dedup({ items: MENU, cosine_threshold: threshold })).body;
      for (const [a, c] of different) t.notOk(together(b, a, c), `${a} ≁ ${c} at ${threshold}`);
      t.ok(together(b, 'Chicken Biryani Half', 'Chicken Biryani Full'), `size variants still together at ${threshold}`);
    }
  });

  t.test('spelling, script and synonym variants of one dish', async (t) => {
    const items = ['Paneer Tikka', 'Panner Tikka', 'पनीर टिक्का', 'Paneer Tikka [Must Try]', 'Chicken Tikka', 'Paneer Tikka Masala'];
    const b = (await dedup({ items })).body;
    const c = clusterOf(b, 'Paneer Tikka');
    t.ok(c, 'paneer tikka has duplicates');
    t.same([...c!.members].sort(), ['Paneer Tikka', 'Panner Tikka', 'पनीर टिक्का', 'Paneer Tikka [Must Try]'].sort());
    t.ok(b.singletons.includes('Chicken Tikka') && b.singletons.includes('Paneer Tikka Masala'));
  });

  t.test('a serving word is a size; a house-version word makes a second item', async (t) => {
    // "Bucket", "Family", "Solo" only say how many a dish is for (serving_words.tsv): the same biryani in two sizes,
    // even where the encoder puts the two below the threshold. "Special" beside the plain name is the menu's second
    // item (filler_words.tsv menu_label), however alike the words.
    const items = ['Egg Biryani', 'Egg Bucket Biryani (Serves 6-7)', 'Mutton Haleem Solo (Serves 1)', 'Mutton Haleem - Family Feast',
      'Masala Dosa', 'Special Masala Dosa', 'Paneer Biryani', 'Chicken Bucket Biryani'];
    const b = (await dedup({ items })).body;
    t.ok(together(b, 'Egg Biryani', 'Egg Bucket Biryani (Serves 6-7)'), 'a bucket of the biryani is the biryani');
    t.ok(together(b, 'Mutton Haleem Solo (Serves 1)', 'Mutton Haleem - Family Feast'), 'solo and family feast are two sizes');
    t.notOk(together(b, 'Masala Dosa', 'Special Masala Dosa'), 'the special is another item on this menu');
    t.notOk(together(b, 'Paneer Biryani', 'Chicken Bucket Biryani'), 'a serving word does not hide another protein');
    t.notOk(together(b, 'Egg Biryani', 'Chicken Bucket Biryani'), 'nor another main ingredient');
  });

  t.test('one food in two words: /dedup clusters what /match calls the same dish', async (t) => {
    // Words of one `same` group of knowledge/lexicon/search_equivalents.tsv (chai / tea, jeera / cumin, gobi /
    // cauliflower, lemon / lime) pair up in the word guard, as they do in /match's same-dish keys.
    const pairs: [string, string][] = [['Masala Chai', 'Masala Tea'], ['Jeera Rice', 'Cumin Rice'], ['Gobi Manchurian', 'Cauliflower Manchurian'], ['Lemon Soda', 'Fresh Lime Soda']];
    for (const [a, b] of pairs) {
      const m = await call(srv.url, 'POST', '/match', { pairs: [{ text_a: a, text_b: b }] }, auth);
      const d = (await dedup({ items: [a, b] })).body;
      t.equal(m.body.results[0].match, true, `/match: ${a} / ${b}`);
      t.same(d.clusters.map((c: { members: string[] }) => [...c.members].sort()), [[a, b].sort()], `/dedup: ${a} / ${b}`);
    }
    // A named variant beside its plain dish is still two items.
    const variants = (await dedup({ items: ['Veg Noodles', 'Veg Schezwan Noodles', 'Masala Chai', 'Ginger Tea'] })).body;
    t.equal(variants.clusters.length, 0, 'Veg Noodles / Veg Schezwan Noodles and Masala Chai / Ginger Tea stay apart');
  });

  t.test('exact duplicate texts are always one cluster, at any threshold', async (t) => {
    const items = ['Masala Dosa', 'Idli', 'Masala Dosa', 'Vada', 'Masala Dosa'];
    const b = (await dedup({ items, cosine_threshold: 1 })).body;
    t.equal(b.clusters.length, 1);
    t.same(b.clusters[0]!.members, ['Masala Dosa', 'Masala Dosa', 'Masala Dosa']);
    t.equal(b.clusters[0]!.pairwise_scores.length, 3);
    t.ok(b.clusters[0]!.pairwise_scores.every((p) => p.score === 1));
    t.equal(b.duplicate_items, 2);
    t.same(b.singletons, ['Idli', 'Vada']);
  });

  t.test('large clusters: pairwise scores capped, membership complete', async (t) => {
    const items = [...Array.from({ length: 20 }, (_, i) => `Veg Biryani ₹${180 + i}`), 'Curd Rice'];
    const b = (await dedup({ items })).body;
    t.equal(b.clusters.length, 1);
    const c = b.clusters[0]!;
    t.equal(c.members.length, 20, 'every member listed');
    t.equal(c.pairwise_truncated, true, '190 pairs are more than the cap');
    t.equal(c.pairwise_scores.length, MAX_PAIRWISE_SCORES);
    t.equal(c.canonical, 'Veg Biryani ₹180', 'equal lengths: the earliest is canonical');
    const first = c.pairwise_scores.slice(0, 19);
    t.ok(first.every((p) => p.text_a === c.canonical || p.text_b === c.canonical), 'the canonical is paired with every member first');
    t.equal(new Set(first.map((p) => (p.text_a === c.canonical ? p.text_b : p.text_a))).size, 19);
    t.equal(b.duplicate_items, 19);
  });

  t.test('chaining guard: a connected family of look-alikes is not one cluster', async (t) => {
    const family = [
      'Chicken Tikka', 'Chicken Tikka Masala', 'Chicken Tikka Biryani', 'Chicken Biryani', 'Chicken Keema Biryani',
      'Chicken Fried Rice', 'Chicken Tikka Roll', 'Chicken Roll',
    ];
    const threshold = 0.5;
    // The cosine graph above the threshold, measured through /match: union-find alone would join it into one cluster.
    const pairs = family.flatMap((a, i) => family.slice(i + 1).map((b) => ({ text_a: a, text_b: b })));
    const m = await call(srv.url, 'POST', '/match', { pairs, cosine_threshold: threshold }, auth);
    t.equal(m.status, 200);
    const parent = family.map((_, i) => i);
    const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
    m.body.results.forEach((r: { text_a: string; text_b: string; cosine: number }) => {
      if (r.cosine >= threshold) parent[find(family.indexOf(r.text_a))] = find(family.indexOf(r.text_b));
    });
    t.equal(new Set(family.map((_, i) => find(i))).size, 1, 'every item is linked to the others through cosine edges');
    const b = (await dedup({ items: family, cosine_threshold: threshold })).body;
    t.equal(b.clusters.length, 0, `no two of these are one dish (got ${JSON.stringify(b.clusters.map((c) => c.members))})`);
  });

  t.test('deterministic: same request, same answer; order does not change the groups', async (t) => {
    const r1 = await dedup({ items: MENU });
    const r2 = await dedup({ items: MENU });
    const strip = (b: DedupBody) => ({ ...b, processing_time_ms: 0 });
    t.same(strip(r2.body), strip(r1.body));
    const reversed = (await dedup({ items: [...MENU].reverse() })).body;
    const groups = (b: DedupBody) => b.clusters.map((c) => [...c.members].sort().join(' | ')).sort();
    t.same(groups(reversed), groups(r1.body));
  });

  t.test('validation: counts and lengths 422, threshold range 400', async (t) => {
    const cases: [object, number, string][] = [
      [{ items: [] }, 422, 'no items'],
      [{ items: Array.from({ length: 2001 }, (_, i) => `Dish ${i}`) }, 422, '2001 items'],
      [{ items: ['x'.repeat(501)] }, 422, 'a 501-character item'],
      [{}, 422, 'items missing'],
      [{ items: 'Masala Dosa' }, 422, 'items not a list'],
      [{ items: ['Idli', 3] }, 422, 'a non-string item'],
      [{ items: ['Idli'], cosine_threshold: 'high' }, 422, 'threshold not a number'],
      [{ items: ['Idli'], cosine_threshold: 1.5 }, 400, 'threshold above 1'],
      [{ items: ['Idli'], cosine_threshold: -0.1 }, 400, 'threshold below 0'],
    ];
    for (const [body, status, what] of cases) {
      const r = await dedup(body);
      t.equal(r.status, status, what);
      t.type((r.body as unknown as { detail: unknown }).detail, 'string', `${what}: detail`);
    }
    const ok = await dedup({ items: ['x'.repeat(500)], cosine_threshold: null });
    t.equal(ok.status, 200, '500 characters and a null threshold are fine');
    t.same(ok.body.singletons, ['x'.repeat(500)]);
    const noKey = await dedup({ items: ['Idli'] }, {});
    t.equal(noKey.status, 401);
  });

  t.test('2000 items: size variants of 1000 dishes found, fast once embedded', async (t) => {
    const names = [...new Set(knowledge.book.dishes.map((d) => d.name))].filter((n) => /^[A-Za-z ]+$/.test(n)).slice(0, 1000);
    t.equal(names.length, 1000);
    const items = [...names, ...names.map((n, i) => `${n} ${['(Half)', '[Full]', '₹249', 'Regular'][i % 4]}`)];
    const first = await dedup({ items });
    t.equal(first.status, 200);
    t.equal(first.body.total_items, 2000);
    const missed = names.filter((n, i) => !together(first.body, n, items[1000 + i]!));
    t.same(missed, [], 'every dish is clustered with its sized or priced variant');
    const again = await dedup({ items });
    t.comment(`2000 items: first call ${first.body.processing_time_ms} ms, repeat ${again.body.processing_time_ms} ms (embeddings cached)`);
    t.ok(again.body.processing_time_ms < 1500, `cached run ${again.body.processing_time_ms} ms`);
  });
});

t.test('clustering core: anti-chaining on constructed vectors', async (t) => {
  // Names differing only by words the knowledge base does not know leave the decision to the cosine. Vectors with
  // cos(i, j) = 0.9^|i−j| link only neighbours at 0.85: a chain A~B~C~D~E that union-find would join whole.
  const names = ['Vorbel', 'Vorbel Quint', 'Vorbel Quint Zarn', 'Vorbel Quint Zarn Plim', 'Vorbel Quint Zarn Plim Dax'];
  for (let i = 1; i < names.length; i++) t.equal(definingWordDifference(names[0]!, names[i]!), null, 'no word guard in the way');
  const dim = 8;
  const rho = 0.9;
  const vectors: Float32Array[] = [];
  for (let i = 0; i < names.length; i++) {
    const v = new Float32Array(dim);
    if (i === 0) v[0] = 1;
    else {
      for (let d = 0; d < dim; d++) v[d] = rho * vectors[i - 1]![d]!;
      v[i] = Math.sqrt(1 - rho * rho);
    }
    vectors.push(v);
  }
  const outcome = await dedupPrepared(names, vectors, { cosineThreshold: 0.85, precision });
  t.same(outcome.clusters.map((c) => c.members), [[0, 1, 2], [3, 4]], 'the core (B) keeps its neighbours; D and E form their own group');
  t.equal(outcome.stats.chainSplits, 1);
  const loose = await dedupPrepared(names, vectors, { cosineThreshold: 0.5, precision });
  t.same(loose.clusters.map((c) => c.members), [[0, 1, 2, 3, 4]], 'a lower threshold groups more aggressively');
});

t.test('dish-defining word guard', async (t) => {
  const differ: [string, string][] = [
    ['Garlic Naan', 'Butter Naan'], ['Chilli Paneer Dry', 'Chilli Paneer Gravy'], ['Chicken Tikka', 'Chicken Tikka Biryani'],
    ['Eggless Chocolate Cake', 'Chocolate Cake'], ['Coke', 'Pepsi'], ['Chicken 65', 'Chicken 555'],
  ];
  for (const [a, b] of differ) t.not(definingWordDifference(a, b), null, `${a} / ${b}`);
  const same: [string, string][] = [
    ['Veg Hakka Noodles', 'Hakka Noodles Veg'], ['Chocolate Milk Shake', 'Chocolate Milkshake'],
    ['Shahi Paneer', 'Shahee Paneer'], ['Chicken Biryani Special', 'Chicken Biryani'], ['Momos', 'Momo'],
    // Short and long forms a menu writes for one food (search_equivalents.tsv).
    ['Veg Hakka Noodles', 'Vegetable Hakka Noodles'], ['Mix Veg Pakora', 'Mixed Vegetable Pakora'],
    // What the item is packed in (variant_words.tsv packed_in), on one side or swapped for another.
    ['Mango Juice Can', 'Mango Juice Bottle'], ['Kaju Barfi Box', 'Kaju Barfi'], ['Lime Soda Pet', 'Lime Soda'],
  ];
  for (const [a, b] of same) t.equal(definingWordDifference(a, b), null, `${a} / ${b}`);
  // A swapped word that is not packaging still makes two items, beside packaging too.
  t.equal(definingWordDifference('Mango Juice Can', 'Guava Juice Bottle'), 'mango', 'the flavour still differs');
  // One food word in two languages (translations.tsv relation same) is one word; a regional dish the row renders by
  // its kind (relation kind) is another item than the kind itself.
  for (const [a, b] of [['Macchi Fry', 'Fish Fry'], ['Andhra Kodi Kura', 'Andhra Chicken Curry'], ['Croissant au Fromage', 'Cheese Croissant']] as const) {
    t.equal(definingWordDifference(a, b), null, `${a} / ${b}: one dish in two languages`);
  }
  // A -y adjective of the same length as its noun, a participle, a possessive's s.
  for (const [a, b] of [['Cheese Garlic Bread', 'Cheesy Garlic Bread'], ['Stuff Kulcha', 'Stuffed Kulcha'], ["Chef's Paneer Tikka", 'Chef Paneer Tikka']] as const) {
    t.equal(definingWordDifference(a, b), null, `${a} / ${b}: one name`);
  }
  for (const [a, b] of [['Chicken Pulusu', 'Chicken Curry'], ['Mutton Rassa', 'Mutton Curry']] as const) {
    t.not(definingWordDifference(a, b), null, `${a} / ${b}: a regional curry beside the plain one`);
  }
  // A menu's abbreviations (misspellings.tsv, kept in the cleaned name) are folded in the words dedup compares.
  const parsedWords = (s: string) => parseMenuText(knowledge, s).dishWords;
  for (const [a, b] of [['Dbl Egg Roll', 'Double Egg Roll'], ['Tand. Roti', 'Tandoori Roti'], ['Hyd Chicken Curry', 'Hyderabadi Chicken Curry']] as const) {
    t.equal(wordDifference(knowledge, parsedWords(a), parsedWords(b), false), null, `${a} / ${b}`);
  }
  t.equal(definingWordDifference('Butter Chicken', 'Murgh Makhani', true), null, 'a knowledge-base synonym with no shared word');
  t.not(definingWordDifference('Chilli Thattai', 'Pepper Thattai', true), null, 'two named variants stay apart even under one dish');
  // Two known words near in spelling are one word only when the knowledge base lists both names for one dish.
  t.equal(definingWordDifference('Matter Paneer', 'Matar Paneer', true), null, 'near spellings in two names of one dish are one word');
  t.not(definingWordDifference('Paneer Tikka', 'Paneer Tikki', false), null, 'two known words near in spelling stay two words otherwise');
  // One name is the other plus words, both filed under one dish by the knowledge base.
  for (const [a, b] of [['Ghee Uttapam', 'Uttapam'], ['Dry Fruit Rabdi', 'Rabdi']] as const) {
    const [ea, eb] = [parseMenuText(knowledge, a).exactDishId, parseMenuText(knowledge, b).exactDishId];
    t.ok(ea !== null && ea === eb, `${a} and ${b} are names of one knowledge-base dish`);
    t.not(definingWordDifference(a, b, true), null, `${a} / ${b}: a food word that makes a version is a second item`);
  }
  t.equal(definingWordDifference('Cappuccino Coffee', 'Cappuccino', true), null, 'a word that says what the dish is adds nothing');
  t.equal(definingWordDifference('Veg Chinese Fried Rice', 'Veg Fried Rice', true), null, 'a cuisine name adds nothing');
  t.equal(definingWordDifference('Chicken Quesadilla', 'Quesadilla de Pollo', true), null, 'a joining word of another language adds nothing');
  t.equal(definingWordDifference('Hara Bhara Kabab', 'Hara Bara Veg Kebab', true), null, 'a veg marker on a name that reads veg adds nothing');
  t.not(definingWordDifference('Manchurian', 'Veg Manchurian', true), null, 'on a name that does not, it names the veg one');
  t.not(definingWordDifference('Veg Chinese Fried Rice', 'Veg Fried Rice', false), null, 'without the synonym, a known word one side adds still differs');
});

t.test('one name by its words is judged whatever its cosine; a negated word keeps two items apart', async (t) => {
  // Unit vectors along their own axes: every pair has cosine 0, far under the threshold.
  const apartVectors = (n: number): Float32Array[] => Array.from({ length: n }, (_, i) => {
    const v = new Float32Array(8);
    v[i] = 1;
    return v;
  });
  const clustered = async (names: string[], vectors: Float32Array[]): Promise<number[][]> =>
    (await dedupPrepared(names, vectors, { cosineThreshold: 0.85, precision })).clusters.map((c) => [...c.members]);
  // A translation the knowledge base lists as one food (search_equivalents.tsv, scope same) and a misspelled word.
  for (const pair of [['Kaju Masala', 'Cashew Masala'], ['Chocolate Lava', 'Chocolate Lawa'], ['Bhindi Masala', 'Lady Finger Masala']]) {
    t.same(await clustered(pair, apartVectors(2)), [[0, 1]], `${pair.join(' / ')}: one name by its words`);
  }
  // The control: other words at cosine 0 stay apart, and two edits in a short word that change its first letter are
  // not a misspelling (zinger / longer).
  for (const pair of [['Kaju Masala', 'Paneer Masala'], ['Veg Zinger Burger', 'Veg Longer Burger']]) {
    t.same(await clustered(pair, apartVectors(2)), [], `${pair.join(' / ')}: apart`);
  }
  t.equal(definingWordDifference('Shahee Paneer', 'Shahi Paneer'), null, 'two edits with the first letter kept are still a misspelling');

  // The same vector for both (cosine 1): only the words can keep them apart.
  const one = (n: number): Float32Array[] => Array.from({ length: n }, () => Float32Array.from([1, 0, 0, 0]));
  for (const pair of [['Chicken Curry Bone', 'Chicken Curry Boneless'], ['Fish Fry Bone', 'Fish Fry Bone Less'], ['Sugar Lassi', 'Sugarless Lassi'],
    ['Besan Laddu Desi Ghee', 'Besan Ladoo Vanaspati Ghee'], ['Roti', 'Pulka']]) {
    t.same(await clustered(pair, one(2)), [], `${pair.join(' / ')}: two items`);
    t.not(definingWordDifference(pair[0]!, pair[1]!), null, `${pair.join(' / ')}: the guard says why`);
  }
  t.not(definingWordDifference('Chicken Curry Bone', 'Chicken Curry Boneless', true), null, 'a negated word differs even between names of one dish');
  // A phrase both names hold a name of (cottage cheese / paneer) is read as one word; one the other lacks still counts.
  t.equal(definingWordDifference('Cottage Cheese Tikka Masala', 'Paneer Tikka Masala', true), null);
  t.not(definingWordDifference('Chicken Momo', 'Chicken'), null, 'momo still makes another item');
  // A size said as an adjective, or the plain version, is the same item (lexicon/variant_words.tsv same_item).
  for (const pair of [['Big Kouju Pitta Fry', 'Kouju Pitta Fry'], ['Jumbo Chicken Biryani', 'Chicken Biryani'], ['Plain Curd Rice', 'Curd Rice']]) {
    t.equal(definingWordDifference(pair[0]!, pair[1]!), null, `${pair.join(' / ')}: one item`);
    t.same(await clustered(pair, one(2)), [[0, 1]], `${pair.join(' / ')}: clustered`);
  }
  t.not(definingWordDifference('Plain Dosa', 'Masala Dosa'), null, 'the flavour word on the other side still differs');
});
