/**
 * Overload: the machine's capacity for /embed (16 names a request) is measured first, then 5× that rate is offered
 * for 30 s through 400 connections with the operator key (no per-key limits, so only the server's own admission
 * acts). Pass: /health stays responsive throughout (every probe 200, p99 under a second), the excess is answered
 * 429 (`overloaded` with Retry-After: the probes that were refused say so) instead of being queued without bound (admitted requests' p99 stays within a
 * few seconds), no 5xx, and a plain /embed is back to its normal latency within 5 s after the load stops.
 */
import t from 'tap';
import type autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/core/paths.js';
import { median, percentile, send, sleep, startServerProcess, stopServerProcess } from '../helpers/abuse.js';
import { OPERATOR_KEY } from '../helpers/server.js';

const OVERLOAD_SECONDS = Number(process.env.MENU_OVERLOAD_SECONDS ?? 30);
const FACTOR = 5;
const CONNECTIONS = 400;

const FLOOD_CHILD = fileURLToPath(new URL('../helpers/flood-child.js', import.meta.url));

/** autocannon in a child process: its CPU must not delay the probes this process times. */
function flood(opts: { url: string; key: string; connections: number; overallRate?: number; duration: number }): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [FLOOD_CHILD, JSON.stringify(opts)], { maxBuffer: 64 * 1024 * 1024, timeout: (opts.duration + 60) * 1000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`flood failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as autocannon.Result);
    });
  });
}

let n = 0;
const body = (): string => JSON.stringify({ items: Array.from({ length: 16 }, (_, i) => `Overload Dish ${i} No ${++n}`) });

async function embedLatency(url: string): Promise<{ ms: number; status: number | string }> {
  const t0 = performance.now();
  const r = await send(url, 'POST', '/embed', { id: `probe-${++n}`, key: OPERATOR_KEY, body: JSON.parse(body()) });
  return { ms: performance.now() - t0, status: r.status };
}

t.test(`overload: ${FACTOR}× capacity for ${OVERLOAD_SECONDS} s`, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-overload-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServerProcess(t, { dataDir }, { MENU_LOG_REQUESTS: '0', MENU_THREADS: '2' });
  const url = server.url;

  // Normal latency, then capacity: as many requests as 8 connections get answered back to back.
  for (let i = 0; i < 5; i++) await embedLatency(url);
  const normal = median(await Promise.all(Array.from({ length: 15 }, async (_, i) => (await sleep(i * 60), embedLatency(url)))).then((r) => r.map((x) => x.ms)));
  const capacityRun = await flood({ url, key: OPERATOR_KEY, connections: 8, duration: 8 });
  const capacity = capacityRun.requests.average;
  t.comment(`normal /embed latency ${normal.toFixed(1)} ms; capacity ${capacity.toFixed(1)} req/s (16 names each)`);
  t.ok(capacity > 0, 'capacity measured');

  // 5× capacity, with /health and a /embed probe sampled meanwhile.
  const health: { ms: number; status: number | string }[] = [];
  const probes: { status: number | string; code?: string; retryAfter?: string | null }[] = [];
  let probing = true;
  const healthLoop = (async () => {
    while (probing) {
      const t0 = performance.now();
      const r = await send(url, 'GET', '/health', { id: `health-${++n}`, timeoutMs: 10_000 });
      health.push({ ms: performance.now() - t0, status: r.status });
      await sleep(200);
    }
  })();
  const probeLoop = (async () => {
    while (probing) {
      const r = await send(url, 'POST', '/embed', { id: `over-${++n}`, key: OPERATOR_KEY, body: JSON.parse(body()), timeoutMs: 30_000 });
      probes.push({ status: r.status, ...(r.code ? { code: r.code } : {}), retryAfter: r.headers?.get('retry-after') });
      await sleep(50);
    }
  })();
  const flooded = await flood({ url, key: OPERATOR_KEY, connections: CONNECTIONS, overallRate: Math.ceil(capacity * FACTOR), duration: OVERLOAD_SECONDS });
  probing = false;
  await Promise.all([healthLoop, probeLoop]);
  const stoppedAt = performance.now();

  // Recovery: /embed probes until three in a row are within 2× normal latency (+20 ms for a noisy machine).
  const recovery: { at: number; ms: number }[] = [];
  let streak = 0;
  let recoveredAfter = Infinity;
  while (performance.now() - stoppedAt < 20_000) {
    const p = await embedLatency(url);
    recovery.push({ at: performance.now() - stoppedAt, ms: p.ms });
    streak = p.status === 200 && p.ms <= 2 * normal + 20 ? streak + 1 : 0;
    if (streak === 3) {
      recoveredAfter = recovery[recovery.length - 3]!.at;
      break;
    }
    await sleep(100);
  }

  const byStatus: Record<string, number> = {};
  for (const [status, s] of Object.entries(flooded.statusCodeStats ?? {})) byStatus[status] = Number((s as { count: number | string }).count);
  const healthMs = health.map((h) => h.ms);
  const overloaded = probes.filter((p) => p.status === 429 && p.code === 'overloaded');
  t.comment(`offered ${Math.ceil(capacity * FACTOR)} req/s through ${CONNECTIONS} connections: ${JSON.stringify(byStatus)}, ${flooded.errors} errors, ${flooded.timeouts} timeouts; latency p50 ${flooded.latency.p50} ms, p99 ${flooded.latency.p99} ms`);
  t.comment(`/health: ${health.length} probes, p50 ${median(healthMs).toFixed(1)} ms, p99 ${percentile(healthMs, 99).toFixed(1)} ms, max ${Math.max(...healthMs).toFixed(1)} ms`);
  t.comment(`/embed probes: ${probes.length}, ${overloaded.length} × 429 overloaded; recovered to normal latency ${recoveredAfter.toFixed(0)} ms after the load stopped`);
  t.comment(`after the load: ${recovery.slice(0, 40).map((r) => `${(r.at / 1000).toFixed(1)}s:${r.ms.toFixed(0)}ms`).join(' ')}`);
  writeFileSync(
    join(REPO_ROOT, 'dist', 'overload-summary.json'),
    JSON.stringify({ normalMs: normal, capacity, offered: Math.ceil(capacity * FACTOR), byStatus, latency: flooded.latency, health: { p50: median(healthMs), p99: percentile(healthMs, 99), max: Math.max(...healthMs) }, recoveredAfterMs: recoveredAfter }, null, 1),
  );

  t.ok(health.length > OVERLOAD_SECONDS, 'health was probed throughout');
  t.ok(health.every((h) => h.status === 200), 'every /health probe answered 200');
  t.ok(percentile(healthMs, 99) < 1000, `/health p99 under 1 s (${percentile(healthMs, 99).toFixed(0)} ms)`);
  // The operator key has no rate or in-flight limits, so every 429 of the flood is the server's own admission.
  t.ok((byStatus['429'] ?? 0) > 0, 'the excess was refused with 429');
  const probe429 = probes.filter((p) => p.status === 429);
  t.ok(probe429.every((p) => p.code === 'overloaded' && Number(p.retryAfter) >= 1), `every refused probe (${probe429.length}) was 429 overloaded with Retry-After`);
  t.notOk(Object.keys(byStatus).some((s) => Number(s) >= 500), 'no 5xx');
  t.ok(flooded.latency.p99 < 10_000, `no unbounded queue: p99 ${flooded.latency.p99} ms`);
  t.ok(recoveredAfter <= 5000, `normal latency within 5 s after the load (${recoveredAfter.toFixed(0)} ms)`);
  await stopServerProcess(server);
});
