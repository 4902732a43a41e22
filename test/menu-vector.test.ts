/**
 * The menu vector (src/core/menu-vector.ts): a text's embedding is made from its English food words and pulled towards
 * the anchor of the knowledge-base dish it is read as (the sum of its names' embeddings), by a weight that depends on
 * how it names the dish. A stand-in encoder (character trigrams) makes the arithmetic checkable; the served encoder and
 * the fitted weights are checked in models.test.
 */
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { anchorOf, anchorTexts, DishAnchors, menuVectors, NO_ANCHORS, readMenuVectorSpec, MENU_VECTOR_FORMAT, type AnchorWeights } from '../src/core/menu-vector.js';
import type { MenuEncoder } from '../src/core/inference/encoder.js';
import { CONFIDENT_DISH_SCORE } from '../src/core/knowledge/lookup.js';
import { trigramVector } from './helpers/fake-embedder.js';

const knowledge = loadKnowledge();
const read = (text: string) => parseMenuText(knowledge, text);
const seen: string[] = [];
const projected: number[] = [];
const encoder = {
  model: { id: 'trigrams' },
  encode: async (texts: readonly string[], d: number) => texts.map((x) => (seen.push(x), trigramVector(x).slice(0, d))),
  // A stand-in projection (the first d dimensions): what matters here is which vector is projected, and how often.
  project: (v: Float32Array, d: number) => (projected.push(d), v.slice(0, d)),
} as unknown as MenuEncoder;
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, v, i) => s + v * b[i]!, 0);
const unit = (v: Float32Array): Float32Array => {
  const n = Math.sqrt(dot(v, v));
  return v.map((x) => x / n);
};
const near = (a: Float32Array, b: Float32Array): boolean => a.length === b.length && Array.from(a).every((x, i) => Math.abs(x - b[i]!) < 1e-5);
const cacheDir = mkdtempSync(join(tmpdir(), 'anchors-'));
t.teardown(() => rmSync(cacheDir, { recursive: true, force: true }));
const anchors = await DishAnchors.build(knowledge, encoder, cacheDir);
const weights: AnchorWeights = { anchorWeight: 1, looseAnchorWeight: 0.25, comboAnchorWeight: 0.5 };
const dishNamed = (name: string) => knowledge.book.dishes.find((d) => d.name === name)!;
/** A dish's anchor as the contract states it: the normalised sum of its names' trigram vectors. */
const anchorByHand = (name: string): Float32Array => {
  const sum = new Float32Array(trigramVector('x').length);
  for (const text of anchorTexts(knowledge, dishNamed(name))) trigramVector(text).forEach((x, i) => (sum[i]! += x));
  return unit(sum);
};

t.test('without anchors the vector is the embedding of the English food words', async (t) => {
  seen.length = 0;
  const [hindi] = await menuVectors(encoder, NO_ANCHORS, anchors, [read('Murgh Makhani')], 384);
  t.same(seen, ['chicken makhani'], 'the encoder reads the English rendering, not the Hindi words');
  t.same(Array.from(hindi!), Array.from(trigramVector('chicken makhani')));
});

t.test("a dish's anchor is the normalised sum of its names' embeddings", async (t) => {
  const texts = anchorTexts(knowledge, dishNamed('Butter Chicken'));
  t.equal(texts[0], 'Butter Chicken', 'the name first');
  t.ok(texts.length > 2 && new Set(texts).size === texts.length, `its aliases too, each once (${texts.length} texts)`);
  t.ok(near(anchors.vectorOf(dishNamed('Butter Chicken'), 384), anchorByHand('Butter Chicken')));
});

t.test('a text that names a dish itself is pulled towards its anchor by the full weight', async (t) => {
  const text = read('Murgh Makhani');
  t.equal(anchorOf(text, weights)?.dish.name, 'Butter Chicken', 'anchored to the dish it names');
  t.equal(anchorOf(text, weights)?.weight, 1);
  seen.length = 0;
  const [v] = await menuVectors(encoder, weights, anchors, [text], 384);
  t.same(seen, ['chicken makhani'], 'the request encodes only its own text: the dish names were embedded with the anchors');
  t.ok(near(v!, unit(trigramVector('chicken makhani').map((x, i) => x + anchorByHand('Butter Chicken')[i]!))), 'normalise(own + weight · anchor)');
  // The dish name itself is pulled to the same anchor: every name of a dish meets there.
  const [own] = await menuVectors(encoder, weights, anchors, [read('Butter Chicken')], 384);
  t.ok(near(own!, unit(trigramVector('Butter Chicken').map((x, i) => x + anchorByHand('Butter Chicken')[i]!))));
  const pair = [read('Baingan Bharta'), read('Smoked Eggplant Mash')];
  const [a0, b0] = await menuVectors(encoder, NO_ANCHORS, anchors, pair, 384);
  const [a1, b1] = await menuVectors(encoder, weights, anchors, pair, 384);
  t.ok(dot(a1!, b1!) > dot(a0!, b0!) + 0.2, `synonyms closer anchored (${dot(a0!, b0!).toFixed(3)} → ${dot(a1!, b1!).toFixed(3)})`);
});

t.test('a loose reading and a combo take their own weights; an unknown name none', async (t) => {
  const loose = read('Peppery Chicken Roll');
  t.ok(loose.dish !== null && loose.dish.score < CONFIDENT_DISH_SCORE, 'resolved loosely by its words');
  t.same(anchorOf(loose, weights), { dish: loose.dish!.dish, weight: 0.25 });
  t.equal(anchorOf(loose, { ...weights, looseAnchorWeight: 0 }), null, 'a zero weight anchors nothing');
  const combo = read('Butter Chicken + Coke');
  t.equal(combo.dish, null, 'a combo is not one dish');
  t.same(anchorOf(combo, weights), { dish: dishNamed('Butter Chicken'), weight: 0.5 }, 'its first part, by the combo weight');
  t.equal(anchorOf(read('Xyzzy Special'), weights), null, 'an unknown name keeps its own vector');
  const [v] = await menuVectors(encoder, weights, anchors, [loose], 384);
  const a = anchors.vectorOf(loose.dish!.dish, 384);
  t.ok(near(v!, unit(trigramVector(loose.english).map((x, i) => x + 0.25 * a[i]!))));
});

t.test('the table is kept on disk and read back by the next start', async (t) => {
  const files = readdirSync(cacheDir);
  t.equal(files.length, 1, 'one table, no partial file left');
  t.match(files[0], /^trigrams-[0-9a-f]{64}\.f32$/);
  seen.length = 0;
  const again = await DishAnchors.build(knowledge, encoder, cacheDir);
  t.same(seen, [], 'nothing encoded on a second start');
  t.equal(again.id, anchors.id);
  const d = dishNamed('Butter Chicken');
  t.same(Array.from(again.vectorOf(d, 384)), Array.from(anchors.vectorOf(d, 384)));
  // A table of the wrong size (another book) is remade, not read.
  writeFileSync(join(cacheDir, files[0]!), new Uint8Array(12));
  const remade = await DishAnchors.build(knowledge, encoder, cacheDir);
  t.ok(seen.length > 1000, 'remade from the names');
  t.ok(near(remade.vectorOf(d, 384), anchors.vectorOf(d, 384)));
  t.ok(existsSync(join(cacheDir, files[0]!)));
  // Writing a table removes this encoder's tables of earlier books, and nothing else.
  const stale = `trigrams-${'0'.repeat(64)}.f32`, otherEncoder = `other-${'0'.repeat(64)}.f32`, unrelated = 'trigrams-notes.f32';
  for (const name of [stale, otherEncoder, unrelated]) writeFileSync(join(cacheDir, name), new Uint8Array(4));
  rmSync(join(cacheDir, files[0]!));
  await DishAnchors.build(knowledge, encoder, cacheDir);
  t.same(readdirSync(cacheDir).sort(), [files[0]!, otherEncoder, unrelated].sort(), 'the earlier book\'s table is gone, the rest kept');
  // A cache that cannot be written (here a file where its directory should be) costs only the time to make the table.
  const blocked = join(cacheDir, 'not-a-directory');
  writeFileSync(blocked, '');
  const unkept = await DishAnchors.build(knowledge, encoder, blocked);
  t.ok(near(unkept.vectorOf(d, 384), anchors.vectorOf(d, 384)), 'made and served all the same');
});

t.test('a lower dimension blends the projected anchor, projected when the table is made and never by a request', async (t) => {
  projected.length = 0;
  const fresh = await DishAnchors.build(knowledge, encoder, null);
  t.equal(projected.length, 2 * knowledge.book.dishes.length, 'every dish at 128 and 256, once each');
  t.same([...new Set(projected)].sort(), [128, 256]);
  const text = read('Murgh Makhani');
  projected.length = 0;
  const [v] = await menuVectors(encoder, weights, fresh, [text], 128);
  const [v256] = await menuVectors(encoder, weights, fresh, [text], 256);
  t.same(projected, [], 'a request projects nothing');
  const own = trigramVector('chicken makhani'), dish = anchorByHand('Butter Chicken');
  t.ok(near(v!, unit(own.slice(0, 128).map((x, i) => x + dish.slice(0, 128)[i]!))), 'normalise(own + weight · projected anchor)');
  t.ok(near(v256!, unit(own.slice(0, 256).map((x, i) => x + dish.slice(0, 256)[i]!))));
  // The kept table holds the projections too: a start that reads it projects nothing either.
  projected.length = 0;
  const again = await DishAnchors.build(knowledge, encoder, cacheDir);
  t.same(projected, [], 'read back with its projections');
  const d = dishNamed('Butter Chicken');
  t.same(Array.from(again.vectorOf(d, 128)), Array.from(fresh.vectorOf(d, 128)));
  t.throws(() => fresh.vectorOf({ ...text.dish!.dish, id: -1 }, 384), /not in the book/, 'a dish of another book is refused');
  t.throws(() => fresh.vectorOf({ ...text.dish!.dish, id: -1 }, 128), /not in the book/);
});

t.test('the table is named by the encoder\'s files: a rebuilt model never reads a stale table', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'anchors-digest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const built = (digest: string) => ({ ...encoder, model: { id: 'trigrams', digest } }) as unknown as MenuEncoder;
  const first = await DishAnchors.build(knowledge, built('a'), dir);
  seen.length = 0;
  const same = await DishAnchors.build(knowledge, built('a'), dir);
  t.same(seen, [], 'the same build reads its table');
  t.equal(same.id, first.id);
  const rebuilt = await DishAnchors.build(knowledge, built('b'), dir);
  t.ok(seen.length > 1000, 'another build of the same model id makes its own');
  t.not(rebuilt.id, first.id);
  t.equal(readdirSync(dir).length, 1, 'and the earlier build\'s table is removed');
});

t.test('the fitted file is checked on load', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'menu-vector-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (body: object): string => {
    const p = join(dir, `${Math.random()}.json`);
    writeFileSync(p, JSON.stringify(body));
    return p;
  };
  const good = { format: MENU_VECTOR_FORMAT, encoder: 'e', anchor_weight: 1, loose_anchor_weight: 0.25, combo_anchor_weight: 0.5 };
  t.same(readMenuVectorSpec(write(good)), { encoder: 'e', anchorWeight: 1, looseAnchorWeight: 0.25, comboAnchorWeight: 0.5 });
  t.throws(() => readMenuVectorSpec(write({ ...good, anchor_weight: -1 })), /anchor_weight/);
  t.throws(() => readMenuVectorSpec(write({ ...good, combo_anchor_weight: undefined })), /combo_anchor_weight/);
  t.throws(() => readMenuVectorSpec(write({ ...good, format: 'menu-intelligence/menu-vector@1' })), /format/);
});
