/**
 * The menu vector (src/core/menu-vector.ts): a text's embedding is made from its English food words and, when the
 * text names a knowledge-base dish itself, pulled towards the dish name's embedding. A stand-in encoder (character
 * trigrams) makes the arithmetic checkable; the served encoder and the fitted weight are checked in models.test.
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { anchorText, menuVectors, readMenuVectorSpec, MENU_VECTOR_FORMAT } from '../src/core/menu-vector.js';
import type { MenuEncoder } from '../src/core/inference/encoder.js';
import { CONFIDENT_DISH_SCORE } from '../src/core/match.js';
import { trigramVector } from './helpers/fake-embedder.js';

const knowledge = loadKnowledge();
const read = (text: string) => parseMenuText(knowledge, text);
const seen: string[] = [];
const encoder = { encode: async (texts: readonly string[]) => texts.map((x) => (seen.push(x), trigramVector(x))) } as unknown as MenuEncoder;
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, v, i) => s + v * b[i]!, 0);

t.test('without an anchor the vector is the embedding of the English food words', async (t) => {
  seen.length = 0;
  const [hindi] = await menuVectors(encoder, { anchorWeight: 0 }, [read('Murgh Makhani')], 384);
  t.same(seen, ['chicken makhani'], 'the encoder reads the English rendering, not the Hindi words');
  t.same(Array.from(hindi!), Array.from(trigramVector('chicken makhani')));
});

t.test('a text the knowledge base resolves is pulled towards its dish name, by the weight', async (t) => {
  const text = read('Murgh Makhani');
  t.equal(anchorText(text), 'Butter Chicken', 'anchored to the dish it names');
  const [v] = await menuVectors(encoder, { anchorWeight: 1 }, [text], 384);
  const own = trigramVector('chicken makhani'), dish = trigramVector('Butter Chicken');
  const sum = own.map((x, i) => x + dish[i]!);
  const norm = Math.sqrt(dot(sum, sum));
  t.ok(Array.from(v!).every((x, i) => Math.abs(x - sum[i]! / norm) < 1e-6), 'normalise(own + weight · dish)');
  t.ok(Math.abs(dot(v!, v!) - 1) < 1e-5, 'unit length');
  // Two names of one dish meet: the anchored cosine exceeds the plain one.
  const pair = [read('Baingan Bharta'), read('Smoked Eggplant Mash')];
  const [a0, b0] = await menuVectors(encoder, { anchorWeight: 0 }, pair, 384);
  const [a1, b1] = await menuVectors(encoder, { anchorWeight: 1 }, pair, 384);
  t.ok(dot(a1!, b1!) > dot(a0!, b0!) + 0.2, `synonyms closer anchored (${dot(a0!, b0!).toFixed(3)} → ${dot(a1!, b1!).toFixed(3)})`);
});

t.test('no anchor below the floor, for an unknown name, or for the dish name itself', async (t) => {
  t.equal(anchorText(read('Xyzzy Special')), null, 'an unknown name keeps its own vector');
  // A name that holds a dish's words and adds its own is another item, not a name of that dish.
  const holds = read('Peppery Chicken Roll');
  t.ok(holds.profile.dish !== null && holds.profile.dishScore < CONFIDENT_DISH_SCORE, 'resolved loosely by its words');
  t.equal(anchorText(holds), null, 'a loose resolution anchors nothing');
  seen.length = 0;
  const [own] = await menuVectors(encoder, { anchorWeight: 1 }, [read('Butter Chicken')], 384);
  t.same(seen, ['Butter Chicken'], 'the dish name is not embedded twice');
  t.same(Array.from(own!), Array.from(trigramVector('Butter Chicken')));
});

t.test('the fitted file is checked on load', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'menu-vector-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (body: object): string => {
    const p = join(dir, `${Math.random()}.json`);
    writeFileSync(p, JSON.stringify(body));
    return p;
  };
  t.same(readMenuVectorSpec(write({ format: MENU_VECTOR_FORMAT, encoder: 'e', anchor_weight: 0.5 })), { encoder: 'e', anchorWeight: 0.5 });
  t.throws(() => readMenuVectorSpec(write({ format: MENU_VECTOR_FORMAT, encoder: 'e', anchor_weight: -1 })), /anchor_weight/);
  t.throws(() => readMenuVectorSpec(write({ format: MENU_VECTOR_FORMAT, encoder: 'e' })), /anchor_weight/);
  t.throws(() => readMenuVectorSpec(write({ format: 'other', encoder: 'e', anchor_weight: 1 })), /format/);
});
