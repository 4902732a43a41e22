/**
 * dedupRefusal: the steps /dedup takes before the precision stage it shares with /match, each named, and the dedup
 * judge (precisionJudge) refusing exactly the pairs one of them refuses. The cosine is handed in, so each case sets it
 * where the step under test decides; the node vectors do not matter to the refusal.
 */
import t from 'tap';
import { dedupRefusal, nodeSet, precisionJudge } from '../src/core/dedup.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { readCosineCalibration, readMatchGates } from '../src/core/match.js';
import { parseMenuText } from '../src/core/menu-text.js';

const knowledge = loadKnowledge();
const precision = { model: null, calibration: readCosineCalibration(), gates: readMatchGates() };

function pairNodes(a: string, b: string) {
  const texts = [a, b].map((x) => parseMenuText(knowledge, x));
  const matrix = new Float32Array(2 * 4);
  matrix[0] = 1;
  matrix[4] = 1;
  return nodeSet(texts, matrix, 4);
}

function refusal(a: string, b: string, cosine: number, threshold = 0.85) {
  return dedupRefusal(knowledge, pairNodes(a, b), 0, 1, cosine, threshold);
}

t.test('each step is named where it decides', async (t) => {
  // A house-version word on one name only: a second item on one menu, whatever the cosine.
  t.equal(refusal('Masala Dosa', 'Special Masala Dosa', 0.99), 'house_label');
  // Under the threshold with nothing that waives it: refused before any word is read.
  t.equal(refusal('Veg Burger', 'Paneer Wrap', 0.6), 'below_threshold');
  // Over the threshold, one name is the other plus a word that makes another item.
  t.equal(refusal('Crispy French Fries', 'French Fries', 0.95), 'defining_word');
  // Nothing refuses a misspelling of the same name, nor two names of one knowledge-base dish under the threshold.
  t.equal(refusal('Paneer Tikka', 'Panner Tikka', 0.99), null);
  t.equal(refusal('Jeera Rice', 'Cumin Rice', 0.3), null);
});

t.test('the threshold is the request\'s: lowering it lets the same pair through the cosine step', async (t) => {
  t.equal(refusal('Veg Burger', 'Paneer Wrap', 0.6, 0.85), 'below_threshold');
  t.not(refusal('Veg Burger', 'Paneer Wrap', 0.6, 0.5), 'below_threshold');
});

t.test('the dedup judge refuses every pair a step refuses, and only then skips the precision stage', async (t) => {
  const cases: [string, string, number][] = [
    ['Masala Dosa', 'Special Masala Dosa', 0.99],
    ['Veg Burger', 'Paneer Wrap', 0.6],
    ['Crispy French Fries', 'French Fries', 0.95],
    ['Paneer Tikka', 'Panner Tikka', 0.99],
    ['Jeera Rice', 'Cumin Rice', 0.3],
  ];
  const judge = precisionJudge(knowledge, { cosineThreshold: 0.85, precision });
  for (const [a, b, cosine] of cases) {
    const [accepted] = await judge.judge(pairNodes(a, b), [[0, 1]], [cosine]);
    const step = refusal(a, b, cosine);
    if (step !== null) t.equal(accepted, false, `${a} / ${b}: refused by ${step}`);
    else t.equal(accepted, true, `${a} / ${b}: no step refuses it and the knowledge base reads one dish`);
  }
});
