import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parsePrometheusText, valueOf, type Family } from './helpers/prometheus-text.js';
import { createAccessControl } from '../src/core/accounts/access.js';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';

type Families = Map<string, Family>;

const sample = valueOf;

function histogram(families: Families, name: string, labels: Record<string, string>): { count: number; sum: number; buckets: Record<string, number> } {
  const matches = (l: Record<string, string>): boolean => Object.entries(labels).every(([k, v]) => l[k] === v);
  const series = families.get(name)?.samples;
  return {
    count: series?.get(`${name}_count`)?.find((s) => matches(s.labels))?.value ?? 0,
    sum: series?.get(`${name}_sum`)?.find((s) => matches(s.labels))?.value ?? 0,
    buckets: Object.fromEntries((series?.get(`${name}_bucket`) ?? []).filter((s) => matches(s.labels)).map((s) => [s.labels.le!, s.value])),
  };
}

t.test('the Prometheus text reader refuses malformed input', async (t) => {
  t.throws(() => parsePrometheusText('menu_x 1\n'), /undeclared family/);
  t.throws(() => parsePrometheusText('# TYPE menu_x counter\nmenu_x{a="1} 1\n'), /unterminated|bad labels/);
  t.throws(() => parsePrometheusText('# TYPE menu_h histogram\nmenu_h_bucket{le="1"} 2\nmenu_h_bucket{le="+Inf"} 1\nmenu_h_sum 3\nmenu_h_count 1\n'), /not cumulative/);
  const ok = parsePrometheusText('# HELP menu_x A "quoted" help\n# TYPE menu_x counter\nmenu_x{path="a\\"b"} 3\n');
  t.equal(valueOf(ok, 'menu_x', { path: 'a"b' }), 3, 'escaped quotes in label values');
});

t.test('GET /metrics: Prometheus text for the operator key, and the counters move with the requests made', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-metrics-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openAccountStore({ dataDir });
  const admin = new AccountAdmin(store);
  const customer = await admin.create({ customer: 'Metrics Starter', plan: 'starter', metering: 'quota' });
  const poor = await admin.create({ customer: 'Metrics Poor', plan: 'starter', metering: 'credits', milliCredits: 100 });
  await store.close();
  const gate = await createAccessControl({ dataDir, operatorKey: OPERATOR_KEY });
  const srv = await startTestServer({}, gate);
  t.teardown(() => srv.close());
  const operator = { 'x-api-key': OPERATOR_KEY };

  const scrape = async (): Promise<Families> => {
    const r = await fetch(`${srv.url}/metrics`, { headers: operator });
    t.equal(r.status, 200, 'scrape 200');
    t.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/, 'Prometheus text content type');
    return parsePrometheusText(await r.text());
  };

  t.test('only the operator key: none 401, a customer key 403, both with the error body', async (t) => {
    const none = await call(srv.url, 'GET', '/metrics');
    t.equal(none.status, 401);
    t.equal(none.body.code, 'unauthorized');
    const cust = await call(srv.url, 'GET', '/metrics', undefined, { 'x-api-key': customer.key });
    t.equal(cust.status, 403);
    t.same(cust.body, { detail: '/metrics is for the operator key only', code: 'operator_only' });
  });

  t.test('counters, histograms and gauges move by what this test did', async (t) => {
    const before = await scrape();
    const embedOk = (before: Families): number => sample(before, 'menu_http_requests_total', { route: '/embed', method: 'POST', status: '200' });
    // 3 successful /embed calls with 4 never-seen texts each, then the same texts again (cache hits).
    const fresh = (k: number): string[] => [0, 1, 2, 3].map((i) => `Metrics Probe Thali ${k}-${i}`);
    for (let k = 0; k < 3; k++) t.equal((await call(srv.url, 'POST', '/embed', { items: fresh(k) }, operator)).status, 200);
    t.equal((await call(srv.url, 'POST', '/embed', { items: fresh(0) }, operator)).status, 200);
    t.equal((await call(srv.url, 'POST', '/embed', { items: [] }, operator)).status, 422);
    t.equal((await call(srv.url, 'GET', '/no-such-path')).status, 404);
    // 402: 0.1 credits left, 3 items cost 0.15.
    t.equal((await call(srv.url, 'POST', '/embed', { items: ['Idli', 'Vada', 'Upma'] }, { 'x-api-key': poor.key })).status, 402);
    // 429: 12 requests at once on a Starter key (5 in flight at most).
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => call(srv.url, 'POST', '/embed', { items: [`Burst Dosa ${i}`] }, { 'x-api-key': customer.key })));
    const refused = burst.filter((r) => r.status === 429);
    t.ok(refused.length > 0, `${refused.length} of 12 refused with 429`);
    const byReason: Record<string, number> = {};
    for (const r of refused) byReason[r.body.code] = (byReason[r.body.code] ?? 0) + 1;
    const accepted = burst.filter((r) => r.status === 200).length;

    const after = await scrape();
    t.equal(embedOk(after) - embedOk(before), 4 + accepted, 'requests_total{route=/embed,status=200} grew by the 200s sent');
    t.equal(sample(after, 'menu_http_requests_total', { route: '/embed', status: '422' }) - sample(before, 'menu_http_requests_total', { route: '/embed', status: '422' }), 1, 'the 422 counted');
    t.equal(sample(after, 'menu_http_requests_total', { route: 'unmatched', status: '404' }) - sample(before, 'menu_http_requests_total', { route: 'unmatched', status: '404' }), 1, 'unknown paths under one label');
    t.equal(sample(after, 'menu_http_rejections_total', { status: '402', reason: 'insufficient_credits' }) - sample(before, 'menu_http_rejections_total', { status: '402', reason: 'insufficient_credits' }), 1, '402 by reason');
    for (const [reason, n] of Object.entries(byReason)) {
      t.equal(sample(after, 'menu_http_rejections_total', { status: '429', reason }) - sample(before, 'menu_http_rejections_total', { status: '429', reason }), n, `429 ${reason}: ${n}`);
    }
    const latencyBefore = histogram(before, 'menu_http_request_duration_seconds', { route: '/embed', method: 'POST' });
    const latencyAfter = histogram(after, 'menu_http_request_duration_seconds', { route: '/embed', method: 'POST' });
    t.equal(latencyAfter.count - latencyBefore.count, 4 + 1 + 1 + 12, 'one latency observation per /embed request');
    t.ok(latencyAfter.sum > latencyBefore.sum, 'latency sum grew');
    t.equal(latencyAfter.buckets['+Inf'], latencyAfter.count, '+Inf bucket holds every observation');

    const runsBefore = histogram(before, 'menu_inference_batch_size', { role: 'encoder' });
    const runsAfter = histogram(after, 'menu_inference_batch_size', { role: 'encoder' });
    t.ok(runsAfter.count > runsBefore.count, 'inference runs observed');
    t.ok(runsAfter.sum - runsBefore.sum >= 12 + accepted, 'at least every fresh text went through a run');
    const tokensAfter = histogram(after, 'menu_inference_batch_tokens', { role: 'encoder' });
    const realAfter = histogram(after, 'menu_inference_batch_real_tokens', { role: 'encoder' });
    t.ok(tokensAfter.sum >= realAfter.sum && realAfter.sum - histogram(before, 'menu_inference_batch_real_tokens', { role: 'encoder' }).sum >= 3 * (12 + accepted), 'tokens per batch: padded ≥ real ≥ 3 per text');

    t.equal(sample(after, 'menu_embedding_cache_hits_total') - sample(before, 'menu_embedding_cache_hits_total'), 4, 'the repeated 4 texts were cache hits');
    t.ok(sample(after, 'menu_embedding_cache_misses_total') - sample(before, 'menu_embedding_cache_misses_total') >= 12, 'the fresh texts were misses');
    t.ok(sample(after, 'menu_embedding_cache_bytes') > sample(before, 'menu_embedding_cache_bytes'), 'cache bytes grew');
    t.equal(sample(after, 'menu_embedding_cache_entries'), srv.services.requireEncoder().cacheStats.entries, 'cache entries as the encoder counts them');
    t.equal(sample(after, 'menu_model_load_seconds'), srv.services.loadTimeSeconds, 'model load time');
    t.ok(sample(after, 'menu_model_load_seconds') > 0);
    t.equal(sample(after, 'menu_inference_queue_items', { role: 'encoder' }), 0, 'queue empty once the requests are answered');
    const families = [...after.keys()];
    for (const name of ['menu_http_requests_total', 'menu_http_request_duration_seconds', 'menu_inference_queue_items', 'menu_inference_batch_size', 'menu_inference_batch_tokens', 'menu_embedding_cache_hits_total', 'menu_embedding_cache_misses_total', 'menu_embedding_cache_bytes', 'menu_http_rejections_total', 'menu_model_load_seconds']) {
      t.ok(families.includes(name), `${name} exposed`);
    }
    t.equal(after.get('menu_http_request_duration_seconds')?.type, 'histogram');
    t.equal(after.get('menu_http_requests_total')?.type, 'counter');
    t.equal(after.get('menu_inference_queue_items')?.type, 'gauge');
  });

  t.test('the live heap is the heap in use after the last full collection, under the heap committed', async (t) => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // Garbage the collection must not count: 20 MiB of strings nothing keeps.
    let junk: string[] | null = Array.from({ length: 200_000 }, (_, i) => `garbage ${i} `.repeat(8));
    const before = getHeapStatistics().used_heap_size;
    junk = null;
    gc();
    const afterGc = getHeapStatistics().used_heap_size;
    await new Promise((r) => setTimeout(r, 50)); // the GC observer reports on a later tick
    const m = await scrape();
    const live = sample(m, 'menu_nodejs_heap_live_bytes');
    t.ok(before - afterGc > 15 * 2 ** 20, `the collection freed the garbage (${((before - afterGc) / 2 ** 20).toFixed(0)} MiB)`);
    t.ok(live > 0 && live <= sample(m, 'menu_nodejs_heap_size_total_bytes'), 'live ≤ committed');
    t.ok(Math.abs(live - afterGc) < 8 * 2 ** 20, `live ${(live / 2 ** 20).toFixed(1)} MiB ≈ used right after the collection ${(afterGc / 2 ** 20).toFixed(1)} MiB, not before it ${(before / 2 ** 20).toFixed(1)} MiB`);
    t.equal(junk, null);
  });

  t.test('queue depth is read while work waits', async (t) => {
    const enc = srv.services.requireEncoder();
    const pending = enc.encode(Array.from({ length: 300 }, (_, i) => `Queue Depth Paratha ${i}`), 128);
    const r = await fetch(`${srv.url}/metrics`, { headers: operator });
    const depth = sample(parsePrometheusText(await r.text()), 'menu_inference_queue_items', { role: 'encoder' });
    await pending;
    t.ok(depth > 0 && depth <= 300, `queue depth seen mid-run: ${depth}`);
  });
});
