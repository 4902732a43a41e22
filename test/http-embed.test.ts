import t from 'tap';
import { OPERATOR_KEY, call, spawnServer, startTestServer, waitHealthy } from './helpers/server.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_DIR } from '../src/core/inference/model-files.js';

const auth = { 'x-api-key': OPERATOR_KEY };

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

t.test('/embed and /embed/batch through HTTP', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const base = srv.url;

  t.test('health: basic view without a key, diagnostic view for the operator', async (t) => {
    const pub = await call(base, 'GET', '/health');
    t.equal(pub.status, 200);
    t.same(pub.body, { status: 'healthy', model: srv.services.modelId });
    const served = (JSON.parse(readFileSync(join(BUILD_DIR, 'manifest.lock.json'), 'utf8')) as { serve: { biencoder: string } }).serve.biencoder;
    t.equal(pub.body.model, served, 'the served model id from the build manifest');
    t.ok(pub.headers.get('x-request-id'), 'request id header');
    const diag = await call(base, 'GET', '/health', undefined, auth);
    t.equal(diag.body.backend, 'onnx');
    t.same(diag.body.supported_dimensions, [128, 256, 384]);
    t.type(diag.body.embedding_cache_size, 'number');
    t.ok(diag.body.load_time_seconds > 0);
    t.match(diag.body.biencoder, /ready/);
    // What is really served: each model as the build lock describes it, and whether this process loaded it.
    const lock = JSON.parse(readFileSync(join(BUILD_DIR, 'manifest.lock.json'), 'utf8')) as {
      serve: Record<string, string | null>;
      models: Record<string, { precision: string; precision_report?: unknown }>;
    };
    const byRole = new Map((diag.body.models as { role: string; id: string; precision: string; loaded: boolean }[]).map((m) => [m.role, m]));
    for (const [role, id] of Object.entries(lock.serve)) {
      if (!id) continue;
      const served = byRole.get(role);
      t.equal(served?.id, id, `${role}: the id the build serves`);
      t.equal(served?.precision, lock.models[id]!.precision, `${role}: precision as built (${lock.models[id]!.precision})`);
      t.equal(served?.loaded, true, `${role}: loaded`);
      t.same((served as { precision_report?: unknown } | undefined)?.precision_report, lock.models[id]!.precision_report ?? null, `${role}: which kernels run in which precision, as the build found them`);
    }
    t.equal(byRole.get('biencoder')?.precision, 'int8', 'the bi-encoder graph is int8');
    const report = (byRole.get('biencoder') as { precision_report?: { kernels: Record<string, Record<string, number>>; linear_macs_int8_share: number } } | undefined)?.precision_report;
    t.ok(report && Object.keys(report.kernels.int8 ?? {}).some((k) => /MatMul/.test(k)), 'int8 MatMul kernels are listed');
    t.ok(report && report.linear_macs_int8_share > 0.5, `most linear-layer multiply-adds run in int8 (${report?.linear_macs_int8_share})`);
    const reranker = byRole.get('reranker');
    if (reranker) t.match(diag.body.reranker, new RegExp(`cross-encoder ${reranker.precision}`), 'the reranker status names the precision it was built in');
    const bad = await call(base, 'GET', '/health', undefined, { 'x-api-key': 'nope' });
    t.same(Object.keys(bad.body).sort(), ['model', 'status'], 'a bad key gets the basic view, not an error');
  });

  t.test('embeddings: shape, order, unit norm, every dimension', async (t) => {
    const items = ['Chicken Dum Biryani', 'Gulab Jamun', 'Cold Coffee'];
    for (const dimension of [128, 256, 384]) {
      const r = await call(base, 'POST', '/embed', { items, dimension }, auth);
      t.equal(r.status, 200);
      t.equal(r.body.dimension, dimension);
      t.equal(r.body.count, 3);
      t.equal(r.body.embeddings.length, 3);
      for (const v of r.body.embeddings) {
        t.equal(v.length, dimension);
        t.ok(Math.abs(dot(v, v) - 1) < 1e-4, `unit norm at ${dimension}`);
      }
    }
    const def = await call(base, 'POST', '/embed', { items: ['Masala Dosa'] }, auth);
    t.equal(def.body.dimension, 128, 'default dimension is 128');
    // Order: embedding i belongs to item i (compare with single-item calls).
    const batch = await call(base, 'POST', '/embed', { items, dimension: 384 }, auth);
    for (let i = 0; i < items.length; i++) {
      const one = await call(base, 'POST', '/embed', { items: [items[i]], dimension: 384 }, auth);
      t.ok(dot(one.body.embeddings[0], batch.body.embeddings[i]) > 0.999, `item ${i} keeps its place`);
    }
  });

  t.test('text is cleaned before embedding: noise does not move the vector', async (t) => {
    const r = await call(base, 'POST', '/embed', {
      items: ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'Chicken Dum Biryani', 'Gulab Jamun (2 Pcs)'],
      dimension: 384,
    }, auth);
    t.ok(dot(r.body.embeddings[0], r.body.embeddings[1]) > 0.9999, 'noisy and clean names embed identically');
    t.ok(dot(r.body.embeddings[0], r.body.embeddings[2]) < 0.6, 'a different dish stays apart');
  });

  t.test('similar dishes are closer than unrelated ones', async (t) => {
    const r = await call(base, 'POST', '/embed', { items: ['Paneer Tikka', 'Paneer Tikka Masala', 'Chocolate Milkshake'], dimension: 384 }, auth);
    const [a, b, c] = r.body.embeddings;
    t.ok(dot(a, b) > dot(a, c), 'paneer tikka is nearer paneer tikka masala than a milkshake');
  });

  t.test('the embedding cache serves repeats', async (t) => {
    const before = (await call(base, 'GET', '/health', undefined, auth)).body.embedding_cache_size;
    await call(base, 'POST', '/embed', { items: ['Unique Cache Probe Dish 1', 'Unique Cache Probe Dish 2'] }, auth);
    const after = (await call(base, 'GET', '/health', undefined, auth)).body.embedding_cache_size;
    t.equal(after, before + 2);
    const stats1 = srv.services.requireEncoder().cacheStats;
    await call(base, 'POST', '/embed', { items: ['Unique Cache Probe Dish 1'] }, auth);
    const stats2 = srv.services.requireEncoder().cacheStats;
    t.equal(stats2.hits, stats1.hits + 1, 'a repeat is a cache hit');
    t.equal(stats2.misses, stats1.misses, 'and no new miss');
  });

  t.test('response formats: JSON numbers, base64 float32 (encoding_format) and binary float32 (Accept)', async (t) => {
    const items = ['Chicken Dum Biryani', 'Gulab Jamun', 'Cold Coffee', 'Chicken Dum Biryani'];
    for (const path of ['/embed', '/embed/batch']) {
      const float = await call(base, 'POST', path, { items, dimension: 256 }, auth);
      const b64 = await call(base, 'POST', path, { items, dimension: 256, encoding_format: 'base64' }, auth);
      t.equal(b64.status, 200);
      t.equal(b64.headers.get('content-type'), 'application/json');
      t.same([b64.body.dimension, b64.body.count], [256, 4]);
      const decoded = (b64.body.embeddings as string[]).map((e) => {
        const bytes = Buffer.from(e, 'base64');
        t.equal(bytes.length, 256 * 4, `${path}: a base64 vector is 256 little-endian float32`);
        return Array.from({ length: 256 }, (_, i) => bytes.readFloatLE(i * 4));
      });
      const worst = Math.max(...decoded.flatMap((v, i) => v.map((x, k) => Math.abs(x - float.body.embeddings[i][k]))));
      t.ok(worst <= 5e-10, `${path}: JSON numbers are the float32 values to 9 decimals (worst ${worst})`);
      t.same(decoded[3], decoded[0], 'a repeated item has the same vector');

      const res = await fetch(base + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/octet-stream' }, body: JSON.stringify({ items, dimension: 256 }) });
      t.equal(res.status, 200);
      t.equal(res.headers.get('content-type'), 'application/octet-stream');
      t.equal(res.headers.get('x-embedding-count'), '4');
      t.equal(res.headers.get('x-embedding-dimension'), '256');
      const body = Buffer.from(await res.arrayBuffer());
      t.equal(body.length, 4 * 256 * 4, 'count × dimension float32, nothing else');
      const binary = Array.from({ length: 4 }, (_, r) => Array.from({ length: 256 }, (_, i) => body.readFloatLE((r * 256 + i) * 4)));
      t.same(binary, decoded, `${path}: the binary body holds the very floats base64 encodes`);
    }
    const negotiate = async (accept: string): Promise<string | null> =>
      (await fetch(base + '/embed', { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept }, body: JSON.stringify({ items: ['Masala Dosa'] }) })).headers.get('content-type');
    t.equal(await negotiate('application/json, application/octet-stream'), 'application/json', 'JSON listed first wins a tie');
    t.equal(await negotiate('application/octet-stream, application/json'), 'application/octet-stream', 'binary listed first wins a tie');
    t.equal(await negotiate('application/octet-stream;q=0.5, application/json'), 'application/json', 'the higher quality wins');
    t.equal(await negotiate('*/*'), 'application/json');
    const refused = await fetch(base + '/embed', { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/octet-stream' }, body: JSON.stringify({ items: [] }) });
    t.equal(refused.status, 422);
    t.equal(refused.headers.get('content-type'), 'application/json', 'errors are JSON whatever the Accept header');
    t.equal(((await refused.json()) as { code: string }).code, 'validation_error');
  });

  t.test('errors: status, code and detail', async (t) => {
    const cases: [string, string, string, unknown, Record<string, string>, number, string][] = [
      ['no key', 'POST', '/embed', { items: ['x'] }, {}, 401, 'unauthorized'],
      ['wrong key', 'POST', '/embed', { items: ['x'] }, { 'x-api-key': 'wrong' }, 401, 'unauthorized'],
      ['malformed JSON', 'POST', '/embed', '{"items": [', auth, 400, 'malformed_json'],
      ['empty body', 'POST', '/embed', '', auth, 400, 'malformed_json'],
      ['array body', 'POST', '/embed', '[1,2]', auth, 400, 'malformed_json'],
      ['missing items', 'POST', '/embed', {}, auth, 422, 'validation_error'],
      ['items not strings', 'POST', '/embed', { items: [1, 2] }, auth, 422, 'validation_error'],
      ['dimension as string', 'POST', '/embed', { items: ['x'], dimension: '128' }, auth, 422, 'validation_error'],
      ['dimension 100', 'POST', '/embed', { items: ['x'], dimension: 100 }, auth, 400, 'invalid_parameter'],
      ['dimension 128.5', 'POST', '/embed', { items: ['x'], dimension: 128.5 }, auth, 400, 'invalid_parameter'],
      ['encoding_format binary', 'POST', '/embed', { items: ['x'], encoding_format: 'binary' }, auth, 422, 'validation_error'],
      ['zero items', 'POST', '/embed', { items: [] }, auth, 422, 'validation_error'],
      ['513 items', 'POST', '/embed', { items: Array(513).fill('x') }, auth, 422, 'validation_error'],
      ['5001 batch items', 'POST', '/embed/batch', { items: Array(5001).fill('x') }, auth, 422, 'validation_error'],
      ['501 chars', 'POST', '/embed', { items: ['a'.repeat(501)] }, auth, 422, 'validation_error'],
      ['unknown path', 'GET', '/nope', undefined, auth, 404, 'not_found'],
      ['wrong method', 'GET', '/embed', undefined, auth, 405, 'method_not_allowed'],
    ];
    for (const [name, method, path, body, headers, status, code] of cases) {
      const r = await call(base, method, path, body, headers);
      t.equal(r.status, status, `${name}: status`);
      t.equal(r.body.code, code, `${name}: code`);
      t.type(r.body.detail, 'string', `${name}: detail`);
      t.ok(r.headers.get('x-request-id'), `${name}: request id`);
    }
    const ok500 = await call(base, 'POST', '/embed', { items: ['é'.repeat(500)] }, auth);
    t.equal(ok500.status, 200, '500 characters (not bytes) is allowed');
    const echoed = await call(base, 'GET', '/health', undefined, { 'x-request-id': 'abc-123' });
    t.equal(echoed.headers.get('x-request-id'), 'abc-123', 'a well-formed incoming request id is echoed');
  });

  t.test('413 for a body over the limit', async (t) => {
    const small = await startTestServer({ MENU_MAX_BODY_BYTES: '2048' });
    t.teardown(() => small.close());
    const r = await call(small.url, 'POST', '/embed', { items: Array(100).fill('Chicken Biryani with extra raita') }, auth);
    t.equal(r.status, 413);
    t.equal(r.body.code, 'payload_too_large');
  });

  t.test('/embed/batch: 5000 items, and a small request is not starved behind it', async (t) => {
    const items = Array.from({ length: 5000 }, (_, i) => `Batch Dish Number ${i} Special Curry`);
    const bigStart = performance.now();
    const big = call(base, 'POST', '/embed/batch', { items, dimension: 128 }, auth);
    await new Promise((r) => setTimeout(r, 50));
    const smallStart = performance.now();
    const small = await call(base, 'POST', '/embed', { items: ['Small Request Probe Dosa'] }, auth);
    const smallDone = performance.now();
    const bigRes = await big;
    const bigDone = performance.now();
    t.equal(small.status, 200);
    t.equal(bigRes.status, 200);
    t.equal(bigRes.body.count, 5000);
    t.equal(bigRes.body.embeddings[4999].length, 128);
    t.ok(smallDone < bigDone, `the small request (${(smallDone - smallStart).toFixed(0)} ms) finished before the 5000-item batch (${(bigDone - bigStart).toFixed(0)} ms)`);
  });
});

t.test('admission limit: a full inference queue answers 429 overloaded, not an unbounded queue', async (t) => {
  const srv = await startTestServer({ MENU_QUEUE_MAX_ITEMS: '600', MENU_CACHE_BYTES: '0' });
  t.teardown(() => srv.close());
  const mk = (k: number) => Array.from({ length: 500 }, (_, i) => `Overload Probe ${i} Item ${k}`);
  const results = await Promise.all([1, 2, 3].map((k) => call(srv.url, 'POST', '/embed', { items: mk(k) }, auth)));
  const statuses = results.map((r) => r.status).sort();
  t.ok(statuses.includes(200), 'the first request is served');
  const refused = results.filter((r) => r.status === 429);
  t.ok(refused.length >= 1, 'at least one is refused');
  for (const r of refused) {
    t.equal(r.body.code, 'overloaded');
    t.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After is set');
  }
});

t.test('under a full queue, new texts are refused before they are read; texts read lately pass to the queue', async (t) => {
  const srv = await startTestServer({ MENU_QUEUE_MAX_ITEMS: '600', MENU_CACHE_BYTES: '0' });
  t.teardown(() => srv.close());
  await srv.services.ready;
  const first = Array.from({ length: 500 }, (_, i) => `Unread Probe ${i} Kulcha`);
  const second = Array.from({ length: 500 }, (_, i) => `Unread Probe ${i} Paratha`);
  const running = call(srv.url, 'POST', '/embed', { items: first }, auth);
  // Wait until the first request's texts are queued: they were read before they were queued.
  const batcher = srv.services.encoder!.batcher;
  while (batcher.queuedItems === 0) await new Promise((r) => setTimeout(r, 1));
  const knowledge = srv.services.knowledge;
  t.ok(first.every((text) => knowledge.memoHolds('menu-text', text)), 'the admitted texts were read');
  t.throws(() => srv.services.refuseUnreadIfOverloaded(second), { code: 'overloaded' }, 'unread texts beyond the queue cap are refused up front');
  t.ok(batcher.queuedItems > 100, 'while the queue is still full');
  t.doesNotThrow(() => srv.services.refuseUnreadIfOverloaded(first), 'texts read lately are left to the queue’s own check');
  const refused = await call(srv.url, 'POST', '/embed', { items: second }, auth);
  t.equal(refused.status, 429);
  t.equal(refused.body.code, 'overloaded');
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After is set');
  t.notOk(second.some((text) => knowledge.memoHolds('menu-text', text)), 'none of the refused texts was cleaned');
  t.equal((await running).status, 200, 'the admitted request is served');
});

t.test('health answers 503 loading until models are ready', async (t) => {
  const srv = await startTestServer({}, undefined, false);
  t.teardown(() => srv.close());
  const early = await call(srv.url, 'GET', '/health');
  if (early.status === 503) {
    t.same(early.body, { status: 'loading' }, '503 body says loading');
    t.equal(early.headers.get('retry-after'), '2');
  } else {
    t.equal(early.status, 200, 'models were already ready');
  }
  const embedEarly = await call(srv.url, 'POST', '/embed', { items: ['x'] }, auth);
  t.ok(embedEarly.status === 200 || (embedEarly.status === 503 && embedEarly.body.code === 'model_loading'), 'embed waits for models with 503 model_loading');
  await srv.services.ready;
  const later = await call(srv.url, 'GET', '/health');
  t.equal(later.status, 200);
});

t.test('SIGTERM drains: an in-flight request completes, then the process exits 0', async (t) => {
  const { proc, url } = await spawnServer({ MENU_OPERATOR_KEY: OPERATOR_KEY, MENU_SHUTDOWN_GRACE_MS: '120000' });
  t.teardown(() => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  await waitHealthy(url);
  const items = Array.from({ length: 2000 }, (_, i) => `Shutdown Probe ${i} Thali`);
  const inflight = call(url, 'POST', '/embed/batch', { items }, auth);
  await new Promise((r) => setTimeout(r, 100));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  proc.kill('SIGTERM');
  const res = await inflight;
  t.equal(res.status, 200, 'the in-flight request finished');
  t.equal(res.body.count, 2000);
  t.equal(await exited, 0, 'exit code 0');
});
