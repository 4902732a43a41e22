/**
 * The non-food detector and the trained heads: lexical cues alone (no model), then the full decision with the served
 * encoder, then the heads' files (trained on the served encoder, refused for any other).
 */
import { HeadFiles } from '../src/core/heads.js';
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { Services } from '../src/core/services.js';
import {
  CLASSIFIER_DIR,
  CUISINE_EXTRA_FEATURES,
  classifierStatus,
  headProbabilities,
  predictCuisines,
  readLinearHead,
} from '../src/core/classify.js';
import {
  NONFOOD_HEAD_LABELS,
  NONFOOD_LEXICAL_FEATURES,
  detectNonFood,
  judgeNonFood,
  nonFoodLexicalFeatures as lexicalFeatures,
  nonFoodPatterns,
  nonFoodStatus,
} from '../src/core/nonfood.js';
import { CUISINE_LABELS, loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';

const knowledge = loadKnowledge();
const patterns = nonFoodPatterns(knowledge.words);
const nonFoodLexicalFeatures = (original: string, cleaned: string) => lexicalFeatures(knowledge, patterns, original, cleaned);

function cues(original: string, cleaned = original): Set<string> {
  const f = nonFoodLexicalFeatures(original, cleaned);
  return new Set(NONFOOD_LEXICAL_FEATURES.filter((_, i) => f[i] === 1));
}

t.test('lexical cues read sizes, doses and garments from the original text', async (t) => {
  t.ok(cues('Azee 500 Tablet Strip of 3').has('dosage_form'), 'tablet is a dosage form');
  t.ok(cues('Azee 500 Tablet Strip of 3').has('pharmacy_count'), 'strip of 3 is how pharmacies count');
  t.ok(cues('Cetirizine 10mg').has('medicine_strength'), '10mg is a strength, glued or not');
  t.ok(cues('Cetirizine 10 MG').has('medicine_strength'));
  t.notOk(cues('Chicken 65').has('medicine_strength'), 'a bare number is not a dose');
  t.notOk(cues('100% Whole Wheat Bread').has('medicine_strength'), 'a bare percentage is not a strength');
  t.ok(cues('Sunflower Oil 5 L').has('bulk_size'), '5 L is a bulk pack');
  t.notOk(cues('Chicken Biryani 1 kg').has('bulk_size'), '1 kg biryani is a menu size');
  t.ok(cues('Toor Dal 1 kg', 'Toor Dal').has('staple_pack'), 'a staple word with a pack size');
  t.notOk(cues('Dal Tadka').has('staple_pack'), 'a staple word alone is a dish');
  t.ok(cues('Band Logo Hoodie Grey XL').has('apparel_size'), 'XL at the end is an apparel size');
  t.notOk(cues('Pepsi 1 L').has('apparel_size'), 'a litre is not a size L');
  const vocab = nonFoodLexicalFeatures('Paneer Butter Masala', 'Paneer Butter Masala');
  t.equal(vocab[NONFOOD_LEXICAL_FEATURES.indexOf('dish_word_share')], 1, 'every word of a dish name is food vocabulary');
  const product = nonFoodLexicalFeatures('Zorvex Quantel', 'Zorvex Quantel');
  t.equal(product[NONFOOD_LEXICAL_FEATURES.indexOf('no_dish_word')], 1, 'invented product words are not');
});

t.test('detector with the served encoder', async (t) => {
  const services = new Services(loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0' }), knowledge);
  t.teardown(() => services.close());
  await services.ready;
  const cases: [string, 'pharmacy' | 'grocery' | 'merchandise' | null][] = [
    // Spec examples that must stay food, with sizes and brands.
    ['Coke 500ml', null],
    ['Bisleri 1L', null],
    ['Maggi Masala Noodles', null],
    ['Chocolate Truffle Cake 1 kg', null],
    ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', null],
    ['Paneer Tikka (8 Pcs)', null],
    ['Gulab Jamun Tin 1 kg', null],
    // Non-food, written for this test (not lines of knowledge/nonfood).
    ['Montek LC Tablet 10s', 'pharmacy'],
    ['Amoxicillin 250mg Capsule', 'pharmacy'],
    ['Benadryl Cough Syrup 150 ml', 'pharmacy'],
    ['Surf Excel Quick Wash Detergent Powder 2 kg', 'grocery'],
    ['Clinic Plus Shampoo 340 ml', 'grocery'],
    ['Fortune Kachi Ghani Mustard Oil 5 L', 'grocery'],
    ['Tandoor Nights Logo T-Shirt Maroon XL', 'merchandise'],
    ['Cafe Gift Card Rs 500', 'merchandise'],
  ];
  const texts = cases.map(([text]) => text);
  const { texts: items, vectors } = await services.embedTexts(texts, 384);
  const got = await detectNonFood(services, items, vectors);
  cases.forEach(([text, want], i) => t.equal(got[i], want, `${text} → ${want ?? 'food'}`));

  const verdicts = judgeNonFood(knowledge, services.heads, items, vectors);
  t.ok(verdicts.every((v) => v.foodProbability >= 0 && v.foodProbability <= 1), 'food probabilities are in 0–1');
  t.equal(verdicts[0]!.source, 'dish', 'Coke 500ml is food because the knowledge base knows Coke');

  // A head trained on another encoder is refused: rules and the knowledge base still answer.
  const elsewhere = new HeadFiles().for('some-other-encoder');
  t.equal(nonFoodStatus(elsewhere), null, 'status is null for another encoder');
  const fallback = judgeNonFood(knowledge, elsewhere, items, vectors);
  t.equal(fallback[texts.indexOf('Amoxicillin 250mg Capsule')]!.category, 'pharmacy', 'a dose still decides without the head');
  t.equal(fallback[texts.indexOf('Coke 500ml')]!.category, null, 'a known dish is still food without the head');
  t.ok(fallback.every((v) => v.source !== 'head'), 'the refused head is never used');
});

t.test('head files: shapes, encoder and calibration fields', async (t) => {
  const config = loadConfig({ ...process.env });
  const services = new Services(config, knowledge);
  t.teardown(() => services.close());
  await services.ready;
  const cuisine = readLinearHead(join(CLASSIFIER_DIR, 'cuisine-head.json'));
  t.equal(cuisine.encoder, services.modelId, 'cuisine head trained on the served encoder');
  t.same(cuisine.labels, CUISINE_LABELS);
  t.same(cuisine.extraFeatures, CUISINE_EXTRA_FEATURES);
  t.ok(cuisine.threshold > 0 && cuisine.threshold < 1, 'uncertain threshold chosen inside (0, 1)');
  const nonfood = readLinearHead(join(CLASSIFIER_DIR, 'nonfood-head.json'));
  t.same(nonfood.labels, NONFOOD_HEAD_LABELS);
  t.same(nonfood.extraFeatures, NONFOOD_LEXICAL_FEATURES, 'the head was trained on the current lexical features');
  const metrics = JSON.parse(readFileSync(join(CLASSIFIER_DIR, 'metrics.json'), 'utf8'));
  t.ok(metrics.cuisine.heldout_answered_accuracy >= 0.9, 'the threshold keeps held-out answered accuracy ≥ 0.90');

  // Probabilities sum to 1 and the status names the head; another encoder gets null.
  const { vectors } = await services.embedTexts(['Pad Thai'], 384);
  const p = headProbabilities(cuisine, vectors[0]!, new Float32Array(CUISINE_EXTRA_FEATURES.length));
  t.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-9, 'softmax sums to 1');
  t.match(classifierStatus(services.heads), /^ready \(cuisine-logreg-v1 on /);
  const elsewhere = new HeadFiles().for('some-other-encoder');
  t.equal(classifierStatus(elsewhere), null, 'refused for another encoder');
  const [refused] = predictCuisines(knowledge, elsewhere, [parseMenuText(knowledge, 'Zorvex Quantel Plate')], [vectors[0]!]);
  t.equal(refused!.cuisine, 'uncertain', 'without a usable head an unknown name is uncertain');
});
