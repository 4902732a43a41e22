import t from 'tap';
import { embeddingsJson, float32Base64, float32Body } from '../src/core/vector-encoding.js';

function unit(seed: number, d: number): Float32Array {
  let a = seed >>> 0;
  const v = new Float32Array(d).map(() => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 2 ** 32 - 0.5;
  });
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

t.test('embeddingsJson writes valid JSON whose numbers are the float32 values to 9 decimals', async (t) => {
  const vectors = Array.from({ length: 50 }, (_, i) => unit(i + 1, 128));
  const parsed = JSON.parse(embeddingsJson(vectors, 128, 'float').toString('utf8')) as { embeddings: number[][]; dimension: number; count: number };
  t.same([parsed.dimension, parsed.count, parsed.embeddings.length], [128, 50, 50]);
  let worst = 0;
  parsed.embeddings.forEach((v, i) => v.forEach((x, k) => (worst = Math.max(worst, Math.abs(x - vectors[i]![k]!)))));
  t.ok(worst <= 5e-10, `worst component error ${worst}`);
});

t.test('edge values: zero, ±1, tiny, halfway, trailing zeros, and values the fast path does not take', async (t) => {
  const cases = Float32Array.from([0, -0, 1, -1, 0.5, -0.25, 1e-12, -1e-12, 4e-10, -6e-10, 0.1, 9.25, -9.4]);
  const text = embeddingsJson([cases], cases.length, 'float').toString('utf8');
  t.match(text, /^\{"embeddings":\[\[0,0,1,-1,0\.5,-0\.25,0,0,0,-0\.000000001,0\.100000001,9\.25,-9\.399999619\]\],"dimension":13,"count":1\}$/);
  const big = Float32Array.from([0.5, 12.5, -100]);
  t.same(JSON.parse(embeddingsJson([big], 3, 'float').toString()), { embeddings: [[0.5, 12.5, -100]], dimension: 3, count: 1 }, 'a large component falls back to JSON.stringify');
  const empty = JSON.parse(embeddingsJson([], 128, 'float').toString());
  t.same(empty, { embeddings: [], dimension: 128, count: 0 });
});

t.test('base64 and binary carry the exact float32 bits, little-endian', async (t) => {
  const vectors = [unit(7, 16), unit(8, 16)];
  const parsed = JSON.parse(embeddingsJson(vectors, 16, 'base64').toString()) as { embeddings: string[] };
  parsed.embeddings.forEach((e, i) => {
    const bytes = Buffer.from(e, 'base64');
    t.same(Array.from({ length: 16 }, (_, k) => bytes.readFloatLE(k * 4)), Array.from(vectors[i]!), `vector ${i}`);
    t.equal(e, float32Base64(vectors[i]!));
  });
  // A view into a larger buffer encodes only its own bytes.
  const backing = new Float32Array(48);
  backing.set(vectors[1]!, 16);
  t.equal(float32Base64(backing.subarray(16, 32)), float32Base64(vectors[1]!));
  const body = float32Body(vectors, 16);
  t.equal(body.length, 2 * 16 * 4);
  t.same(Array.from({ length: 32 }, (_, k) => body.readFloatLE(k * 4)), [...vectors[0]!, ...vectors[1]!]);
  t.throws(() => float32Body([unit(1, 8)], 16), /8 components, expected 16/);
});
