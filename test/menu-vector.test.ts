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
import { anchorText, DishAnchors, menuVectors, readMenuVectorSpec, MENU_VECTOR_FORMAT } from '../src/core/menu-vector.js';
import type { MenuEncoder } from '../src/core/inference/encoder.js';
import { CONFIDENT_DISH_SCORE } from '../src/core/match.js';
import { trigramVector } from './helpers/fake-embedder.js';

const knowledge = loadKnowledge();
const read = (text: string) => parseMenuText(knowledge, text);
const seen: string[] = [];
const projected: number[] = [];
const encoder = {
  encode: async (texts: readonly string[], d: number) => texts.map((x) => (seen.push(x), trigramVector(x).slice(0, d))),
  // A stand-in projection (the first d dimensions): what matters here is which vector is projected, and how often.
  project: (v: Float32Array, d: number) => (projected.push(d), v.slice(0, d)),
} as unknown as MenuEncoder;
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, v, i) => s + v * b[i]!, 0);
const anchors = await DishAnchors.build(knowledge, encoder);

t.test('without an anchor the vector is the embedding of the English food words', async (t) => {
  seen.length = 0;
  const [hindi] = await menuVectors(encoder, { anchorWeight: 0 }, anchors, [read('Murgh Makhani')], 384);
  t.same(seen, ['chicken makhani'], 'the encoder reads the English rendering, not the Hindi words');
  t.same(Array.from(hindi!), Array.from(trigramVector('chicken makhani')));
});

t.test('a text the knowledge base resolves is pulled towards its dish name, by the weight', async (t) => {
  const text = read('Murgh Makhani');
  t.equal(anchorText(text), 'Butter Chicken', 'anchored to the dish it names');
  seen.length = 0;
  const [v] = await menuVectors(encoder, { anchorWeight: 1 }, anchors, [text], 384);
  t.same(seen, ['chicken makhani'], 'the request encodes only its own text: the dish name was embedded with the anchors');
  const own = trigramVector('chicken makhani'), dish = trigramVector('Butter Chicken');
  const sum = own.map((x, i) => x + dish[i]!);
  const norm = Math.sqrt(dot(sum, sum));
  t.ok(Array.from(v!).every((x, i) => Math.abs(x - sum[i]! / norm) < 1e-6), 'normalise(own + weight · dish)');
  t.ok(Math.abs(dot(v!, v!) - 1) < 1e-5, 'unit length');
  // Two names of one dish meet: the anchored cosine exceeds the plain one.
  const pair = [read('Baingan Bharta'), read('Smoked Eggplant Mash')];
  const [a0, b0] = await menuVectors(encoder, { anchorWeight: 0 }, anchors, pair, 384);
  const [a1, b1] = await menuVectors(encoder, { anchorWeight: 1 }, anchors, pair, 384);
  t.ok(dot(a1!, b1!) > dot(a0!, b0!) + 0.2, `synonyms closer anchored (${dot(a0!, b0!).toFixed(3)} → ${dot(a1!, b1!).toFixed(3)})`);
});

t.test('a lower dimension blends the projected dish vector, projected once per dish', async (t) => {
  const text = read('Murgh Makhani');
  projected.length = 0;
  const [v] = await menuVectors(encoder, { anchorWeight: 1 }, anchors, [text], 128);
  const [again] = await menuVectors(encoder, { anchorWeight: 1 }, anchors, [text], 128);
  t.same(projected, [128], 'projected on first use, then kept');
  const own = trigramVector('chicken makhani').slice(0, 128), dish = trigramVector('Butter Chicken').slice(0, 128);
  const sum = own.map((x, i) => x + dish[i]!);
  const norm = Math.sqrt(dot(sum, sum));
  t.ok(Array.from(v!).every((x, i) => Math.abs(x - sum[i]! / norm) < 1e-6), 'normalise(own + weight · projected dish)');
  t.same(Array.from(again!), Array.from(v!));
  t.throws(() => anchors.vectorOf({ ...text.dish!.dish, id: -1 }, 384), /not in the book/, 'a dish of another book is refused');
});

t.test('the projections are filled in the background, and the fill stops when asked', async (t) => {
  const fresh = await DishAnchors.build(knowledge, encoder);
  projected.length = 0;
  let turns = 0;
  await fresh.fillProjections(() => ++turns > 5);
  t.equal(projected.length, 5, 'stopped after the fifth dish');
  projected.length = 0;
  await fresh.fillProjections(() => false);
  t.equal(projected.length, 2 * knowledge.book.dishes.length - 5, 'every dish at 128 and 256, none twice');
  projected.length = 0;
  await menuVectors(encoder, { anchorWeight: 1 }, fresh, [read('Murgh Makhani')], 256);
  t.same(projected, [], 'a request after the fill projects nothing');
});

t.test('no anchor below the floor, for an unknown name, or for the dish name itself', async (t) => {
  t.equal(anchorText(read('Xyzzy Special')), null, 'an unknown name keeps its own vector');
  // A name that holds a dish's words and adds its own is another item, not a name of that dish.
  const holds = read('Peppery Chicken Roll');
  t.ok(holds.profile.dish !== null && holds.profile.dishScore < CONFIDENT_DISH_SCORE, 'resolved loosely by its words');
  t.equal(anchorText(holds), null, 'a loose resolution anchors nothing');
  seen.length = 0;
  const [own] = await menuVectors(encoder, { anchorWeight: 1 }, anchors, [read('Butter Chicken')], 384);
  t.same(seen, ['Butter Chicken'], 'a request encodes only its own texts: the dish names were embedded when the anchors were made');
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
