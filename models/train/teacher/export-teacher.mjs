#!/usr/bin/env node
// The whole current system (cleaning, knowledge base, /match's precision stage with its cross-encoder, /search's
// relevance) as a teacher for the next encoders: it judges pairs of real menu names and grades generated queries over
// real menus, and writes what it is sure of under models/cache/teacher/ (never committed; the recipes that read it
// record its sha256).
//
//   npx tspc -p tsconfig.json && node models/train/teacher/export-teacher.mjs [--out DIR] [--menus N] [--threads N]
//        [--parts pairs,search]
//
// --parts runs some of the two teacher parts (same-dish pairs, search grades); each has its own seeded random stream,
// so a part's output is the same whether the other ran in the same process or not, and the manifest is merged.
// Needs the compiled service (dist/) and the served models built (models/build/). Deterministic for a given checkout,
// ../shared/data and build: seeded sampling, no clocks. Outputs:
//   corpus.jsonl        one real menu name per line: source, restaurant, original and cleaned text
//   same_pairs.jsonl    pairs of cleaned names with /match's verdict: label 1 (a confident match), 0 (a confident
//                       "different", the hard negatives), with the cosine, the precision score and the candidate kind
//   search_menus.jsonl  the menus queries were asked over (<= 512 items each, original and cleaned texts)
//   search_pairs.jsonl  one generated query per line over one menu: every item /search returned with its relevance and
//                       grade, and the items of highest raw cosine it did not return (grade 0)
//   dev_labels.jsonl    the graded queries of the development sets that may be trained on (holdback.json), as direct labels
//   dev_eval.json       every development set's texts as the eval embeds them (cleaned), for the trainers' own scoring
//   manifest.json       counts, the options, and the sha256 of each file above
//
// Held out of everything: the held-out restaurants of eval/split.json (only its dev_restaurants of swiggy_menus_more
// are read), and the development sets of holdback.json: their restaurants (any corpus restaurant sharing a third of a
// held-back menu's names) and every text they hold.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dist = (p) => join(ROOT, 'dist', p);
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const OUT = option('--out', join(ROOT, 'models', 'cache', 'teacher'));
const MAX_MENUS = Number(option('--menus', '100000'));
const THREADS = option('--threads', '2');
const PARTS = new Set(option('--parts', 'pairs,search').split(','));
const log = (m) => console.log(`[teacher] ${m}`);

const { loadConfig } = await import(dist('src/config.js'));
const { Services } = await import(dist('src/core/services.js'));
const { matchRoute } = await import(dist('src/routes/match.js'));
const { searchRoute } = await import(dist('src/routes/search.js'));
const { nameKey } = await import(dist('src/core/knowledge/index.js'));
const { parseMenuText, parseCleanedText } = await import(dist('src/core/menu-text.js'));
const { cosineTopK } = await import(dist('src/native/index.js'));
const { readCsv, seededRandom, SHARED_DATA } = await import(dist('eval/data.js'));
const { loadDevSets, devSameDishPairs } = await import(dist('eval/sets.js'));
const { typoCopies } = await import(dist('eval/typos.js'));

const holdback = JSON.parse(readFileSync(join(ROOT, 'models', 'train', 'teacher', 'holdback.json'), 'utf8'));
const split = JSON.parse(readFileSync(join(ROOT, 'eval', 'split.json'), 'utf8'));
const SEED = 20261129;
/** A same-dish verdict is a positive only when the cross-encoder alone gives at least this (see the pairs part). */
const POSITIVE_MODEL_FLOOR = 0.5;
// Each part draws from its own stream (see --parts).
let random = seededRandom(SEED);
const startPart = (offset) => { random = seededRandom(SEED + offset); };
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const shuffled = (xs) => {
  const copy = [...xs];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
};

// ---------------------------------------------------------------------------------------------------------------
// The development sets: held-back ones are kept out of every output; the rest give direct labels.
const dev = loadDevSets();
const heldSearch = dev.search.filter((s) => holdback.search.includes(s.name));
const heldMatch = dev.match.filter((m) => holdback.match.includes(m.name));
const heldTexts = new Set();
for (const s of heldSearch) {
  for (const items of Object.values(s.menus)) for (const t of items) heldTexts.add(nameKey(t));
  for (const q of s.queries) heldTexts.add(nameKey(q.query));
}
for (const m of heldMatch) for (const r of m.rows) { heldTexts.add(nameKey(r.text_a)); heldTexts.add(nameKey(r.text_b)); }
for (const r of devSameDishPairs()) { heldTexts.add(nameKey(r.text_a)); heldTexts.add(nameKey(r.text_b)); }
const heldMenus = heldSearch.flatMap((s) => Object.values(s.menus).map((items) => new Set(items.map(nameKey))));

// ---------------------------------------------------------------------------------------------------------------
// Real menus of ../shared/data, by restaurant.
function readMenus() {
  const menus = new Map(); // key -> {source, restaurant, items: [original]}
  const add = (source, restaurant, name) => {
    const text = (name ?? '').trim();
    if (!text || !restaurant) return;
    const key = `${source}:${restaurant}`;
    let m = menus.get(key);
    if (!m) menus.set(key, (m = { source, restaurant, items: [], seen: new Set() }));
    const k = nameKey(text);
    if (!k || m.seen.has(k)) return;
    m.seen.add(k);
    m.items.push(text);
  };
  for (const r of readCsv('swiggy_menu_dumps/swiggy_menu_items.csv')) add('swiggy_menu_dumps', r.restaurant, r.item_name);
  for (const r of readCsv('zomato_roorkee_menus/zomato_roorkee_menu_items.csv')) add('zomato_roorkee_menus', r.restaurant, r.item_name);
  for (const r of readCsv('swiggy_blr_menus/swiggy_all_menus_bangalore.csv')) add('swiggy_blr_menus', r['Restaurant Name'], r['Dish Name']);
  // Only the development restaurants of swiggy_menus_more: the held-out ones are never read into anything.
  const devRestaurants = new Set(split.dev_restaurants);
  for (const r of readCsv('swiggy_menus_more/swiggy_menus_more.csv')) if (devRestaurants.has(r.restaurant)) add('swiggy_menus_more', r.restaurant, r.item_name);
  for (const r of readCsv('nutritionix_us_chain_items/MenuItem.csv')) add('nutritionix_us_chain_items', r['Restaurant Name'], r['Original food Item']);
  for (const r of readCsv('mcdonalds_us_menu/mcdonalds_menu_items.csv')) add('mcdonalds_us_menu', "McDonald's US", r.item);
  const out = [];
  let droppedRestaurants = 0, droppedTexts = 0;
  const leftOut = [];
  for (const m of menus.values()) {
    const keys = m.items.map(nameKey);
    const overlapsHeld = heldMenus.some((held) => {
      const shared = keys.filter((k) => held.has(k)).length;
      return shared >= Math.max(3, held.size / 3);
    });
    if (overlapsHeld) {
      droppedRestaurants++;
      leftOut.push(`${m.source}:${m.restaurant}`);
      continue;
    }
    const items = m.items.filter((t, i) => !heldTexts.has(keys[i]));
    droppedTexts += m.items.length - items.length;
    out.push({ source: m.source, restaurant: m.restaurant, items });
  }
  log(`${out.length} restaurants (${droppedRestaurants} left out: they hold a held-back development menu), ${droppedTexts} texts of held-back sets left out`);
  log(`left out: ${leftOut.join(' · ')}`);
  return out;
}

const config = loadConfig({ ...process.env, MENU_CACHE_BYTES: String(512 * 1024 * 1024), MENU_THREADS: THREADS });
const services = new Services(config);
await services.ready;
const enc = services.requireEncoder();
log(`teacher: encoder ${enc.model.id}, match reranker ${services.matchReranker?.id ?? 'none'}, shared data ${SHARED_DATA}`);
const ctx = { services, isOperator: true, balance: async () => ({ customer: 'teacher', credits_remaining: 0, unlimited: true }) };
const clean = (t) => services.cleaner.clean(t).text;

mkdirSync(OUT, { recursive: true });
const written = {};
function writeLines(name, rows) {
  const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(join(OUT, name), text);
  written[name] = { rows: rows.length, sha256: createHash('sha256').update(text).digest('hex') };
  log(`wrote ${name}: ${rows.length} rows`);
}

// ---------------------------------------------------------------------------------------------------------------
// Corpus: every real name once (by cleaned text), with the restaurants it is sold at.
const menus = readMenus().slice(0, MAX_MENUS);
const corpusIndex = new Map(); // cleaned -> index
const corpus = []; // {cleaned, original, source, restaurants:Set}
for (const m of menus) {
  for (const original of m.items) {
    const cleaned = clean(original);
    if (!cleaned || heldTexts.has(nameKey(cleaned))) continue;
    let i = corpusIndex.get(cleaned);
    if (i === undefined) {
      corpusIndex.set(cleaned, (i = corpus.length));
      corpus.push({ cleaned, original, source: m.source, restaurants: new Set() });
    }
    corpus[i].restaurants.add(`${m.source}:${m.restaurant}`);
  }
}
const knowledge = services.knowledge;
const profileItem = (cleaned) => parseCleanedText(knowledge, cleaned).profile;
const book = knowledge.book;
const kbNames = [];
for (const d of book.dishes) for (const form of [d.name, ...d.aliases]) if (!heldTexts.has(nameKey(form))) kbNames.push({ dish: d.id, text: form });
log(`corpus: ${corpus.length} distinct cleaned real names; knowledge base: ${kbNames.length} names of ${book.dishes.length} dishes`);
writeLines('corpus.jsonl', corpus.map((c) => ({ cleaned: c.cleaned, original: c.original, source: c.source, restaurants: [...c.restaurants].sort() })));

if (PARTS.has('pairs')) {
  startPart(1);
  const t0 = Date.now();
  const vectors = await enc.encode(corpus.map((c) => c.cleaned), 384);
  const matrix = new Float32Array(corpus.length * 384);
  vectors.forEach((v, i) => matrix.set(v, i * 384));
  log(`embedded the corpus in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  // ---------------------------------------------------------------------------------------------------------------
  // Same-dish pairs: candidates by cosine (the nearest names within one restaurant and across restaurants) and by the
  // knowledge base (two names of one dish), judged by /match as served.
  const candidates = new Map(); // "i\tj" (i<j by text) -> kind
  const addPair = (a, b, kind) => {
    if (a === b) return;
    const [x, y] = a < b ? [a, b] : [b, a];
    const key = `${x}\t${y}`;
    if (!candidates.has(key)) candidates.set(key, kind);
  };
  const byRestaurant = new Map();
  corpus.forEach((c, i) => { for (const r of c.restaurants) { let l = byRestaurant.get(r); if (!l) byRestaurant.set(r, (l = [])); l.push(i); } });
  for (const idx of byRestaurant.values()) {
    if (idx.length < 2) continue;
    const sub = new Float32Array(idx.length * 384);
    idx.forEach((ci, k) => sub.set(vectors[ci], k * 384));
    const k = Math.min(5, idx.length);
    const top = cosineTopK(sub, sub, 384, k);
    for (let q = 0; q < idx.length; q++) {
      for (let r = 0; r < k; r++) {
        const j = top.indices[q * k + r], s = top.scores[q * k + r];
        if (j !== q && s >= 0.5) addPair(corpus[idx[q]].cleaned, corpus[idx[j]].cleaned, 'same_restaurant');
      }
    }
  }
  const within = candidates.size;
  {
    const K = 6;
    for (let start = 0; start < corpus.length; start += 512) {
      const n = Math.min(512, corpus.length - start);
      const top = cosineTopK(matrix.subarray(start * 384, (start + n) * 384), matrix, 384, K);
      for (let q = 0; q < n; q++) {
        const i = start + q;
        for (let r = 0; r < K; r++) {
          const j = top.indices[q * K + r], s = top.scores[q * K + r];
          if (j === i || s < 0.6) continue;
          const shared = [...corpus[i].restaurants].some((x) => corpus[j].restaurants.has(x));
          if (!shared) addPair(corpus[i].cleaned, corpus[j].cleaned, 'across_restaurants');
        }
      }
    }
  }
  const across = candidates.size - within;
  // Knowledge-base synonyms: a real name the knowledge base resolves surely, beside another name of that dish (an alias,
  // or another restaurant's name for it): "Murgh Makhani" / "Butter Chicken" are far apart by cosine.
  const namesOfDish = new Map();
  for (const n of kbNames) { let l = namesOfDish.get(n.dish); if (!l) namesOfDish.set(n.dish, (l = [])); l.push(clean(n.text)); }
  const realOfDish = new Map();
  for (const c of corpus) {
    const p = profileItem(c.cleaned);
    if (p.dish && p.dishScore >= 0.85) { let l = realOfDish.get(p.dish.id); if (!l) realOfDish.set(p.dish.id, (l = [])); l.push(c.cleaned); }
  }
  for (const [dish, reals] of realOfDish) {
    const names = namesOfDish.get(dish) ?? [];
    for (const real of reals) {
      for (const other of shuffled(names).slice(0, 2)) addPair(real, other, 'knowledge_alias');
      for (const other of shuffled(reals).slice(0, 2)) addPair(real, other, 'knowledge_same_dish');
    }
  }
  log(`same-dish candidates: ${within} within restaurants, ${across} across, ${candidates.size - within - across} from the knowledge base`);

  const pairRows = [];
  {
    const keys = [...candidates.keys()];
    const t1 = Date.now();
    for (let i = 0; i < keys.length; i += 100) {
      const chunk = keys.slice(i, i + 100).map((k) => k.split('\t'));
      const req = matchRoute.parse({ pairs: chunk.map(([a, b]) => ({ text_a: a, text_b: b })) });
      const res = (await matchRoute.handle(req, ctx)).results;
      // The cross-encoder's own probability, before the knowledge base's identity overrides it: a "same" that rests on
      // two names resolving loosely to one dish ("Afgaani Chaap Roll" / "Malai Chaap Roll", both read as Chaap Roll)
      // is kept as a positive only when the model agrees. (Memoised: the route just scored these renderings.)
      const scorer = services.pairPrecision().model;
      const rendered = chunk.map(([a, b]) => [parseMenuText(knowledge, a).english, parseMenuText(knowledge, b).english]);
      const modelP = scorer ? await scorer.score(rendered) : chunk.map(() => null);
      res.forEach((r, k) => {
        const conflict = r.dietary_conflict || r.protein_conflict;
        const p = r.reranker_score;
        const model = modelP[k] === null ? null : Math.round(modelP[k] * 1e4) / 1e4;
        let label = null;
        if (r.match && p !== null && p >= 0.8 && !conflict && (model === null || model >= POSITIVE_MODEL_FLOOR)) label = 1;
        else if (!r.match && r.cosine >= 0.5 && (conflict || (p !== null && p <= 0.1))) label = 0;
        if (label !== null) {
          pairRows.push({ a: chunk[k][0], b: chunk[k][1], label, cosine: r.cosine, p, model_p: model, diet: r.dietary_conflict, protein: r.protein_conflict, kind: candidates.get(keys[i + k]) });
        }
      });
      if ((i / 100) % 100 === 0) log(`judged ${i + chunk.length}/${keys.length} pairs (${((Date.now() - t1) / 1000).toFixed(0)} s)`);
    }
  }
  log(`same-dish pairs kept: ${pairRows.filter((r) => r.label === 1).length} positives, ${pairRows.filter((r) => r.label === 0).length} hard negatives of ${candidates.size} judged`);
  writeLines('same_pairs.jsonl', pairRows);
}


// ---------------------------------------------------------------------------------------------------------------
// Search: queries generated from the knowledge base over real menus, graded by /search as served.
const translations = readFileSync(join(ROOT, 'knowledge', 'lexicon', 'translations.tsv'), 'utf8').split('\n')
  .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t')).filter((c) => c.length >= 2 && c[0] !== 'word');
const otherWordsFor = new Map(); // english word -> other-language / Hinglish words
for (const [word, english] of translations) {
  const e = english.trim().toLowerCase();
  if (e.split(' ').length !== 1 || word.trim().split(' ').length !== 1) continue;
  let l = otherWordsFor.get(e);
  if (!l) otherWordsFor.set(e, (l = []));
  l.push(word.trim());
}
const conceptPhrases = readFileSync(join(ROOT, 'knowledge', 'lexicon', 'concepts.tsv'), 'utf8').split('\n')
  .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t')[0].trim()).filter((p) => p && p !== 'phrase');
const DIET_WORDS = ['veg', 'non veg', 'chicken', 'paneer', 'egg', 'mutton', 'fish', 'spicy', 'cheesy', 'sweet', 'cold', 'hot', 'crispy'];
const KIND_WORDS = ['starters', 'snacks', 'curry', 'rice', 'soup', 'dessert', 'drinks', 'burger', 'pizza', 'sandwich', 'noodles',
  'rolls', 'biryani', 'salad', 'breakfast', 'shake', 'main course', 'bread', 'wrap', 'momos', 'pasta', 'coffee', 'ice cream'];
const isDevanagari = (t) => /[\u0900-\u097f]/.test(t);

/** Another-language rendering of an English name, word by word (at least one word changed), or null. */
function translated(text) {
  const words = text.toLowerCase().split(/\s+/);
  let changed = false;
  const out = words.map((w) => {
    const others = otherWordsFor.get(w);
    if (others && random() < 0.8) { changed = true; return pick(others); }
    return w;
  });
  return changed ? out.join(' ') : null;
}

function queriesFor(items) {
  const profiles = items.map((t) => profileItem(clean(t)));
  const dishes = new Map();
  profiles.forEach((p) => { if (p.dish && p.dishScore >= 0.85) dishes.set(p.dish.id, p.dish); });
  const out = [];
  const add = (query, kind) => { if (query && query.length <= 60 && !heldTexts.has(nameKey(query))) out.push({ query: query.toLowerCase().trim(), kind }); };
  for (const dish of shuffled([...dishes.values()]).slice(0, 14)) {
    add(random() < 0.5 ? dish.name : pick(items.filter((t, i) => profiles[i].dish?.id === dish.id)).replace(/\s*[([].*$/, ''), 'exact');
    const ascii = dish.aliases.filter((a) => !isDevanagari(a) && nameKey(a) !== nameKey(dish.name));
    if (ascii.length) add(pick(ascii), 'synonym');
    const deva = dish.aliases.filter(isDevanagari);
    if (deva.length && random() < 0.6) add(pick(deva), 'devanagari');
    const other = translated(dish.name);
    if (other) add(other, 'other_language');
  }
  for (const phrase of shuffled(conceptPhrases).slice(0, 14)) add(phrase, 'abstract');
  for (let k = 0; k < 8; k++) add(`${pick(DIET_WORDS)} ${pick(KIND_WORDS)}`, 'abstract');
  // The menu's own kinds of thing, by the last word of its names ("biryani", "momos", "shakes").
  const heads = new Map();
  for (const t of items) { const w = nameKey(clean(t)).split(' ').pop(); if (w && w.length > 3) heads.set(w, (heads.get(w) ?? 0) + 1); }
  for (const [w] of shuffled([...heads].filter(([, n]) => n >= 3)).slice(0, 6)) add(random() < 0.5 ? w : `${pick(DIET_WORDS)} ${w}`, 'category');
  // Dishes the menu does not sell, of another cuisine: mostly no-match queries.
  const cuisines = new Set([...dishes.values()].map((d) => d.cuisine));
  const elsewhere = book.dishes.filter((d) => !cuisines.has(d.cuisine) && !dishes.has(d.id));
  for (let k = 0; k < 4 && elsewhere.length; k++) add(pick(elsewhere).name, 'no_match');
  // Misspelled copies of some of the above (the eval's own slip generator, another seed).
  const typed = typoCopies(out.map((q) => ({ ...q, relevant: { x: 1 } })), Math.floor(random() * 1e9));
  for (const c of shuffled(typed).slice(0, 8)) add(c.typed, 'misspelled');
  const seen = new Set();
  return out.filter((q) => !seen.has(q.query) && seen.add(q.query));
}

const GRADE_BANDS = [[0.9, 3], [0.7, 2], [0.5, 1]];
const gradeOf = (relevance) => GRADE_BANDS.find(([floor]) => relevance >= floor)?.[1] ?? 0;
if (PARTS.has('search')) {
  startPart(2);
  const menuRows = [];
  const searchRows = [];
  {
    const t2 = Date.now();
    let n = 0;
    for (const m of menus) {
      const items = m.items.filter((t) => clean(t));
      for (let start = 0; start < items.length; start += 512) {
        const chunk = items.slice(start, start + 512);
        if (chunk.length < 8) continue;
        const id = `${m.source}:${m.restaurant}:${start / 512}`;
        const cleaned = chunk.map(clean);
        menuRows.push({ menu: id, source: m.source, restaurant: m.restaurant, items: chunk, cleaned });
        const itemVectors = await enc.encode(cleaned, 384);
        for (const q of queriesFor(chunk)) {
          let res;
          try {
            res = await searchRoute.handle(searchRoute.parse({ query: q.query, corpus: chunk, top_k: 1000 }), ctx);
          } catch (err) {
            log(`skipped "${q.query}" over ${id}: ${err instanceof Error ? err.message : err}`);
            continue;
          }
          const graded = new Map();
          for (const r of res.results) {
            if (r.is_fallback || r.reranker_score === null) continue;
            const i = chunk.indexOf(r.text);
            if (i >= 0 && !graded.has(i)) graded.set(i, { i, grade: gradeOf(r.reranker_score), relevance: r.reranker_score });
          }
          const [qv] = await enc.encode([clean(q.query)], 384);
          const cos = itemVectors.map((v) => v.reduce((s, x, k) => s + x * qv[k], 0));
          const hard = cos.map((c, i) => [c, i]).filter(([, i]) => !graded.has(i)).sort((a, b) => b[0] - a[0]).slice(0, 10).map(([c, i]) => ({ i, cosine: Math.round(c * 1e4) / 1e4 }));
          searchRows.push({ menu: id, query: q.query, cleaned_query: clean(q.query), kind: q.kind, graded: [...graded.values()], hard });
          n++;
        }
      }
    }
    log(`graded ${n} generated queries over ${menuRows.length} menus in ${((Date.now() - t2) / 1000).toFixed(0)} s`);
  }
  writeLines('search_menus.jsonl', menuRows);
  writeLines('search_pairs.jsonl', searchRows);
}


// Direct labels: the graded queries of the development sets that are not held back (grades 3/2/1; absent = 0).
const devLabels = [];
for (const s of dev.search.filter((x) => !holdback.search.includes(x.name))) {
  for (const q of s.queries) {
    const items = s.menus[q.menu];
    if (!items) continue;
    devLabels.push({ set: s.name, menu: q.menu, query: q.query, cleaned_query: clean(q.query), kind: q.kind, items, cleaned: items.map(clean), grades: items.map((t) => q.relevant[t] ?? 0) });
  }
}
for (const m of dev.match.filter((x) => !holdback.match.includes(x.name))) {
  for (const r of m.rows) devLabels.push({ set: m.name, a: clean(r.text_a), b: clean(r.text_b), same: r.same ? 1 : 0, dietary_conflict: r.dietary_conflict, protein_conflict: r.protein_conflict });
}
writeLines('dev_labels.jsonl', devLabels);

// Every development set as the eval embeds it (cleaned texts), so a trainer can score the raw vector per set.
const devEval = { holdback, match: [], search: [] };
for (const m of dev.match) devEval.match.push({ set: m.name, held_back: holdback.match.includes(m.name), a: m.rows.map((r) => clean(r.text_a)), b: m.rows.map((r) => clean(r.text_b)), same: m.rows.map((r) => (r.same ? 1 : 0)) });
{
  const rows = devSameDishPairs();
  devEval.match.push({ set: 'same_dish_dev_pairs', held_back: true, a: rows.map((r) => clean(r.text_a)), b: rows.map((r) => clean(r.text_b)), same: rows.map((r) => (r.same ? 1 : 0)) });
}
for (const s of dev.search) {
  const queries = s.queries.filter((q) => s.menus[q.menu] && Object.keys(q.relevant).length > 0)
    .map((q) => ({ menu: q.menu, kind: q.kind, query: clean(q.query), grades: s.menus[q.menu].map((t) => q.relevant[t] ?? 0) }));
  devEval.search.push({ set: s.name, held_back: holdback.search.includes(s.name), menus: Object.fromEntries(Object.entries(s.menus).map(([k, v]) => [k, v.map(clean)])), queries });
}
{
  const text = JSON.stringify(devEval);
  writeFileSync(join(OUT, 'dev_eval.json'), text);
  written['dev_eval.json'] = { sha256: createHash('sha256').update(text).digest('hex') };
}

// Merged with the manifest of an earlier run of the other part (--parts); each file keeps the teacher that wrote it.
let earlier = { files: {} };
try { earlier = JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8')); } catch { /* first run */ }
const teacher = { encoder: enc.model.id, match_reranker: services.matchReranker?.id ?? null, search: 'rankSearch relevance as /search serves it' };
for (const entry of Object.values(written)) entry.teacher = teacher;
for (const [name, entry] of Object.entries(earlier.files ?? {})) if (!(name in written) && existsSync(join(OUT, name))) written[name] = entry;
const manifest = {
  options: { menus: MAX_MENUS, seed: SEED, grade_bands: GRADE_BANDS, positive: `match, reranker_score >= 0.8, no conflict, and the cross-encoder alone >= ${POSITIVE_MODEL_FLOOR}`, negative: 'no match, cosine >= 0.5, and a conflict or reranker_score <= 0.1' },
  holdback,
  files: written,
};
// One digest of the whole teacher data set, recorded by the recipes that train on it.
manifest.sha256 = createHash('sha256').update(JSON.stringify(Object.entries(written).map(([k, v]) => [k, v.sha256]).sort())).digest('hex');
writeFileSync(join(OUT, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
log(`teacher data sha256 ${manifest.sha256}`);
await services.close();
process.exit(0);
