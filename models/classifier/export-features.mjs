// Writes the training inputs of the cuisine and non-food heads to models/cache/classifier/work/ (not committed):
//   texts.json      unique cleaned texts, in vector order
//   vectors.f32     their 384-d embeddings from the served encoder (row-major float32, little-endian)
//   cuisine.json    one record per (dish, cleaned name): text index, cuisine and course indices, dish id, extra-feature indices
//   nonfood.json    one record per exemplar: text index, class index, split group, lexical-feature indices
//   meta.json       encoder id, labels and feature names (train.py refuses to mix them)
// Run by models/classifier/train after the TypeScript build: the features come from the same compiled functions
// the server calls (cuisineExtraFeatures, nonFoodLexicalFeatures), so training and serving cannot drift apart.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

const dist = new URL('../../dist/src/', import.meta.url);
const { loadConfig } = await import(new URL('config.js', dist));
const { Services } = await import(new URL('core/services.js', dist));
const { readList } = await import(new URL('core/knowledge/tsv.js', dist));
const { parseCleanedText } = await import(new URL('core/menu-text.js', dist));
const { KNOWLEDGE_DIR, MODELS_DIR } = await import(new URL('core/paths.js', dist));
const { CUISINE_LABELS, COURSES } = await import(new URL('core/knowledge/dishes.js', dist));
const { CUISINE_EXTRA_FEATURES, cuisineExtraFeatures } = await import(new URL('core/classify.js', dist));
const { NONFOOD_HEAD_LABELS, NONFOOD_LEXICAL_FEATURES, nonFoodLexicalFeatures, nonFoodPatterns } = await import(new URL('core/nonfood.js', dist));

const WORK = join(MODELS_DIR, 'cache', 'classifier', 'work');
mkdirSync(WORK, { recursive: true });

/** Deterministic 32-bit hash of a string (split assignment and augmentation choices). */
function hash32(text) {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/**
 * Menu-style sizes and counts, written by us from how Indian delivery menus print them, added to a copy of each
 * dish name for the non-food head: on a menu "Coke 500 ml", "Chicken Biryani 1 kg" and "Momos (8 Pcs)" are food, so
 * a size alone must not look like a grocery pack.
 */
const MENU_SIZES = {
  beverage: ['300 ml', '500 ml', '1 L', '250ml', 'Can 330 ml', '1.25 L', '(Large)', '200 ml'],
  dessert: ['500 g', '1 kg', '2 Pcs', '(1 pc)', 'Tub 500 ml', '100 ml', '250 g', '2 kg'],
  main: ['Half', 'Full', '(Serves 2)', '1 kg', 'Family Pack', 'Regular', '500 g', '[Serves 1]'],
  side: ['6 Pcs', '250 g', '(8 Pcs)', 'Pack of 2', 'Medium', '4 pieces', '200 g', 'Large'],
  bread: ['1 pc', '2 Pcs', 'Pack of 4', '(1 Piece)', '400 g'],
};

const services = new Services(loadConfig({ ...process.env, MENU_CACHE_BYTES: String(512 * 1024 * 1024) }));
await services.ready;
const encoderId = services.modelId;
// The served graph's sha256 from the build lock: a retrained encoder keeps its id, so the id alone cannot tell
// whether cached vectors are still its own.
const lock = JSON.parse(readFileSync(new URL('../build/manifest.lock.json', import.meta.url), 'utf8'));
const encoderGraph = lock.files[`${encoderId}/encoder-int8.onnx`] ?? null;
// The trained delta the encoder was built from: the heads record it, the set-up refits them when the served one is
// another, and a test holds them to it.
const encoderSpec = JSON.parse(readFileSync(new URL('../manifest.json', import.meta.url), 'utf8')).models[encoderId];
const encoderDelta = encoderSpec?.delta
  ? createHash('sha256').update(readFileSync(new URL(`../../${encoderSpec.delta}/delta.safetensors`, import.meta.url))).digest('hex')
  : null;
const knowledge = services.knowledge;
const nonFoodCuePatterns = nonFoodPatterns(knowledge.words);

const texts = [];
const textIndex = new Map();
function indexOf(cleaned) {
  let i = textIndex.get(cleaned);
  if (i === undefined) {
    i = texts.length;
    texts.push(cleaned);
    textIndex.set(cleaned, i);
  }
  return i;
}
const onesOf = (arr) => [...arr.keys()].filter((k) => arr[k] !== 0);

// Cuisine: every name and alias of every dish, cleaned as a request would be.
const cuisine = [];
const foodOriginals = [];
for (const dish of knowledge.book.dishes) {
  const seen = new Set();
  for (const name of [dish.name, ...dish.aliases]) {
    const cleaned = services.cleaner.clean(name).text;
    if (!cleaned || seen.has(cleaned)) continue;
    seen.add(cleaned);
    cuisine.push({
      t: indexOf(cleaned),
      y: CUISINE_LABELS.indexOf(dish.cuisine),
      course: COURSES.indexOf(dish.course),
      dish: dish.id,
      extra: onesOf(cuisineExtraFeatures(knowledge, cleaned)),
    });
    foodOriginals.push({ original: name, cleaned, dish: dish.id, course: dish.course });
  }
}

// Non-food: the three exemplar lists against every dish name (plain and with a menu size) and stays_food.txt.
const nonfood = [];
// A dish's own names are scored against the vocabulary of the other dishes (leave-one-dish-out), as an unseen
// dish would be at serving time.
const addNonFood = (original, y, group, excludeDishId) => {
  const cleaned = services.cleaner.clean(original).text;
  if (!cleaned) return;
  const lex = nonFoodLexicalFeatures(knowledge, nonFoodCuePatterns, original, cleaned, excludeDishId);
  nonfood.push({ t: indexOf(cleaned), y, group, lex: onesOf(lex).map((k) => [k, lex[k]]) });
};
for (const f of foodOriginals) {
  addNonFood(f.original, 0, `dish:${f.dish}`, f.dish);
  const sizes = MENU_SIZES[f.course];
  const size = sizes[hash32(f.original) % sizes.length];
  addNonFood(`${f.original} ${size}`, 0, `dish:${f.dish}`, f.dish);
}
for (const line of readList(join(KNOWLEDGE_DIR, 'nonfood', 'stays_food.txt'))) addNonFood(line, 0, `stays:${line}`);
// Each exemplar also without its pack size: shops list "Everest Garam Masala" as often as "… 100 g", so the size
// must not be what makes it grocery (the mirror of the sizes added to dish names above).
for (const [file, y] of [['grocery.txt', 1], ['pharmacy.txt', 2], ['merchandise.txt', 3]]) {
  for (const line of readList(join(KNOWLEDGE_DIR, 'nonfood', file))) {
    addNonFood(line, y, `${file}:${line}`);
    const bare = services.cleaner.clean(line).text;
    if (bare && bare !== line) addNonFood(bare, y, `${file}:${line}`);
  }
}

// Vectors of an earlier export by the same encoder graph are reused (re-exports after a feature change take seconds).
const previous = new Map();
if (existsSync(join(WORK, 'meta.json')) && existsSync(join(WORK, 'vectors.f32'))) {
  const oldMeta = JSON.parse(readFileSync(join(WORK, 'meta.json'), 'utf8'));
  if (oldMeta.encoder === encoderId && encoderGraph !== null && oldMeta.encoder_graph_sha256 === encoderGraph && oldMeta.menu_vector === services.menuVectorId) {
    const oldTexts = JSON.parse(readFileSync(join(WORK, 'texts.json'), 'utf8'));
    const buf = readFileSync(join(WORK, 'vectors.f32'));
    const oldVectors = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    oldTexts.forEach((t, i) => previous.set(t, oldVectors.subarray(i * 384, (i + 1) * 384)));
  }
}
const t0 = performance.now();
const vectors = new Float32Array(texts.length * 384);
const missing = [];
texts.forEach((t, i) => {
  const v = previous.get(t);
  if (v) vectors.set(v, i * 384);
  else missing.push(i);
});
const CHUNK = 512;
for (let i = 0; i < missing.length; i += CHUNK) {
  const idx = missing.slice(i, i + CHUNK);
  // The vectors the service serves for these texts (menu vectors: English food words, anchored to their dish).
  const encoded = await services.vectorsOf(idx.map((k) => parseCleanedText(knowledge, texts[k])), 384);
  encoded.forEach((v, k) => vectors.set(v, idx[k] * 384));
}
const embedSeconds = (performance.now() - t0) / 1000;

// Split groups: a dish (all its names) or one exemplar line goes wholly to train or to held-out.
const splitOf = (group) => (hash32(group) % 5 === 0 ? 1 : 0);
for (const r of cuisine) r.heldout = splitOf(`dish:${r.dish}`);
for (const r of nonfood) r.heldout = splitOf(r.group);

writeFileSync(join(WORK, 'texts.json'), JSON.stringify(texts));
writeFileSync(join(WORK, 'vectors.f32'), Buffer.from(vectors.buffer));
writeFileSync(join(WORK, 'cuisine.json'), JSON.stringify(cuisine));
writeFileSync(join(WORK, 'nonfood.json'), JSON.stringify(nonfood));
writeFileSync(join(WORK, 'meta.json'), JSON.stringify({
  encoder: encoderId,
  encoder_graph_sha256: encoderGraph,
  menu_vector: services.menuVectorId,
  encoder_delta_sha256: encoderDelta,
  dim: 384,
  cuisine_labels: CUISINE_LABELS,
  course_labels: COURSES,
  cuisine_extra_features: CUISINE_EXTRA_FEATURES,
  nonfood_labels: NONFOOD_HEAD_LABELS,
  nonfood_lexical_features: NONFOOD_LEXICAL_FEATURES,
  dishes: knowledge.book.dishes.length,
  knowledge_sha256: createHash('sha256').update(JSON.stringify(knowledge.book.dishes.map((d) => [d.name, d.cuisine, d.aliases]))).digest('hex'),
}, null, 2));
console.log(`exported ${texts.length} texts (${cuisine.length} cuisine rows, ${nonfood.length} non-food rows) from ${encoderId}; embedded ${missing.length} new texts in ${embedSeconds.toFixed(1)} s`);
await services.close();
