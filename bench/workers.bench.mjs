// Inference off the event loop: the same server in three configurations, measured round by round in turn on the same
// texts: inference on the main thread (MENU_INFERENCE_WORKERS=0, ORT with 2 intra-op threads: the old behaviour),
// one worker with 2 intra-op threads, two workers with one thread each. Per arm: cold /embed 100 and /embed/batch 1000
// p50 (throughput), the server's CPU per item, and the latency of a small cached request sent while a cold 1000-item
// batch is being embedded (does inference stall the event loop?). Usage: `npm run bench:workers` (about 6 minutes).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FreshTexts, readRealMenuNames, seededRandom, shuffle, syntheticMenuNames } from './lib/menu-names.mjs';
import { startServer, stopServer, waitHealthy } from './lib/server.mjs';
import { fmt, fmtRatio, median, percentile } from './lib/stats.mjs';
import { processCpuMs } from './lib/cpu.mjs';
import { BENCH_DIR, REPO_ROOT, DATA_DIR, SEED, QUICK } from './lib/env.mjs';
import { createReporter, runBench, writeResults } from './lib/report.mjs';

const ROUNDS = QUICK ? { r100: 3, r1000: 1, probe: 1 } : { r100: 12, r1000: 4, probe: 3 };
const ARMS = [
  { name: 'main thread, 2 ORT threads', env: { MENU_INFERENCE_WORKERS: '0', MENU_THREADS: '2' } },
  { name: '1 worker × 2 threads', env: { MENU_INFERENCE_WORKERS: '1', MENU_THREADS: '2' } },
  { name: '2 workers × 1 thread', env: { MENU_INFERENCE_WORKERS: '2', MENU_THREADS: '1' } },
];
const PROBE_ITEMS = 10;
const PROBE_GAP_MS = 10;

const { lines, report, progress, finish } = createReporter();

async function main() {
  const started = new Date();
  const random = seededRandom(SEED);
  const knowledgePath = join(REPO_ROOT, 'dist/src/core/knowledge/index.js');
  if (!existsSync(knowledgePath)) throw new Error(`${knowledgePath} is missing: build the server first`);
  const cleaner = (await import(pathToFileURL(knowledgePath).href)).loadKnowledge().cleaner;
  const clean = (t) => cleaner.clean(t);
  const real = readRealMenuNames(DATA_DIR);
  const fresh = new FreshTexts(real?.names ?? syntheticMenuNames(), (t) => clean(t).text, random);
  const synthetic = shuffle(syntheticMenuNames(), random);
  fresh.markSeen(synthetic);
  report(`# machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}${QUICK ? '  [--quick]' : ''}`);

  const operatorKey = randomBytes(16).toString('hex');
  const headers = { 'x-api-key': operatorKey };
  const servers = [];
  try {
    for (const arm of ARMS) {
      progress(`starting ${arm.name}`);
      const dataDir = mkdtempSync(join(tmpdir(), 'menu-bench-'));
      const server = await startServer({ repoRoot: REPO_ROOT, env: { ...arm.env, MENU_OPERATOR_KEY: operatorKey, MENU_DATA_DIR: dataDir } });
      await waitHealthy(server);
      servers.push({ arm, server, dataDir, probe: server.client(), cold100: [], cold1000: [], cpu100: 0, cpu1000: 0, probeIdle: [], probeBusy: [], loadMs: [] });
    }
    const embed = async (s, client, path, items) => {
      const res = await client.call('POST', path, { body: { items }, headers });
      if (res.status !== 200) throw new Error(`${s.arm.name} ${path} answered ${res.status}: ${res.body.toString().slice(0, 200)}`);
      return res.ms;
    };
    progress('warming up');
    for (const s of servers) for (let i = 0; i < 3; i++) await embed(s, s.server, '/embed/batch', synthetic.slice(i * 300, i * 300 + 300));
    const probeTexts = synthetic.slice(900, 900 + PROBE_ITEMS);
    for (const s of servers) await embed(s, s.server, '/embed', probeTexts);

    // Each round sends the same fresh texts to every arm (each server has its own cache), in a rotating order.
    const order = (r) => servers.map((_, i) => servers[(i + r) % servers.length]);
    progress(`cold /embed 100: ${ROUNDS.r100} rounds`);
    for (let r = 0; r < ROUNDS.r100; r++) {
      const { texts } = fresh.take(100);
      for (const s of order(r)) {
        const cpu0 = processCpuMs(s.server.child.pid);
        s.cold100.push(await embed(s, s.server, '/embed', texts));
        s.cpu100 += processCpuMs(s.server.child.pid) - cpu0;
      }
    }
    progress(`cold /embed/batch 1000: ${ROUNDS.r1000} rounds`);
    for (let r = 0; r < ROUNDS.r1000; r++) {
      const { texts } = fresh.take(1000);
      for (const s of order(r)) {
        const cpu0 = processCpuMs(s.server.child.pid);
        s.cold1000.push(await embed(s, s.server, '/embed/batch', texts));
        s.cpu1000 += processCpuMs(s.server.child.pid) - cpu0;
      }
    }
    progress(`a cached ${PROBE_ITEMS}-item /embed every ${PROBE_GAP_MS} ms, idle and during a cold 1000-item batch: ${ROUNDS.probe} rounds`);
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    for (let r = 0; r < ROUNDS.probe; r++) {
      const { texts } = fresh.take(1000);
      for (const s of order(r)) {
        for (let i = 0; i < 20; i++) {
          s.probeIdle.push(await embed(s, s.probe, '/embed', probeTexts));
          await sleep(PROBE_GAP_MS);
        }
        let loading = true;
        const load = embed(s, s.server, '/embed/batch', texts).then((ms) => {
          s.loadMs.push(ms);
          loading = false;
        });
        while (loading) {
          s.probeBusy.push(await embed(s, s.probe, '/embed', probeTexts));
          await sleep(PROBE_GAP_MS);
        }
        await load;
      }
    }

    const base = servers[0];
    for (const s of servers) {
      const p100 = median(s.cold100);
      const p1000 = median(s.cold1000);
      report(`${s.arm.name}: /embed 100 cold p50 ${fmt(p100)} ms (${fmtRatio(median(base.cold100) / p100)}× the main-thread arm's throughput), server cpu ${fmt(s.cpu100 / s.cold100.length)} ms/request; /embed/batch 1000 p50 ${fmt(p1000)} ms (${fmtRatio(median(base.cold1000) / p1000)}×), cpu ${fmt(s.cpu1000 / s.cold1000.length)} ms/request`);
      report(`${s.arm.name}: cached /embed ${PROBE_ITEMS} p50 ${fmt(median(s.probeIdle))} ms idle; during a cold 1000-item batch p50 ${fmt(median(s.probeBusy))} ms, p99 ${fmt(percentile(s.probeBusy, 99))} ms, max ${fmt(Math.max(...s.probeBusy))} ms (${s.probeBusy.length} probes; the batch took ${fmt(median(s.loadMs))} ms p50)`);
    }
    finish();
  } finally {
    for (const s of servers) await stopServer(s.server, s.dataDir);
  }
  const results = {
    started: started.toISOString(),
    quick: QUICK,
    arms: servers.map((s) => ({ name: s.arm.name, env: s.arm.env, cold100: s.cold100, cold1000: s.cold1000, cpu100: s.cpu100, cpu1000: s.cpu1000, probeIdle: s.probeIdle, probeBusy: s.probeBusy, loadMs: s.loadMs })),
    lines,
  };
  progress(`samples written to ${writeResults(BENCH_DIR, 'workers', started, results)}`);
}

runBench(main);
