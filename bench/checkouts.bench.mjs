// This checkout's server beside another checkout's (a branch against the one it merges into), on the same machine and
// the same texts: cold /embed 100 and cold /embed/batch 1000, request by request in turn (the order flips every round,
// so a change in the box's load lands on both arms alike), p50 of each and the ratio, each server's CPU time per request
// (all its threads; steadier than wall time on a shared box), plus how close the two servers' vectors are (cosine at
// 128 dimensions; another exported graph or int8 choice moves them a little).
//   node checkouts.bench.mjs --baseline /path/to/other/checkout [--quick]
// Both checkouts must be built (node scripts/setup.mjs && npx tspc -p tsconfig.json in each); each server runs with its
// own defaults unless BENCH_WORKERS / BENCH_THREADS say otherwise (as for embed.bench.mjs).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FreshTexts, readRealMenuNames, seededRandom, shuffle, syntheticMenuNames } from './lib/menu-names.mjs';
import { startServer, waitHealthy } from './lib/server.mjs';
import { fmt, fmtRatio, median, percentile } from './lib/stats.mjs';
import { DATA_DIR, QUICK, REPO_ROOT, SEED, SERVER_THREAD_ENV } from './lib/env.mjs';

const i = process.argv.indexOf('--baseline');
const BASELINE = i >= 0 ? resolve(process.argv[i + 1] ?? '') : null;
if (!BASELINE) {
  console.error('usage: node checkouts.bench.mjs --baseline <another built checkout> [--quick]');
  process.exit(2);
}
for (const root of [REPO_ROOT, BASELINE]) {
  for (const need of ['dist/src/main.js', 'models/build/manifest.lock.json']) {
    if (!existsSync(join(root, need))) throw new Error(`${join(root, need)} is missing: build that checkout first`);
  }
}
const ROUNDS = QUICK ? { embed100: 4, batch1000: 2 } : { embed100: 15, batch1000: 5 };
const DIMENSION = 128;

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const { loadKnowledge } = await import(pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'core', 'knowledge', 'index.js')).href);
const cleaner = loadKnowledge().cleaner;
const clean = (t) => cleaner.clean(t);
const random = seededRandom(SEED);
const real = readRealMenuNames(DATA_DIR);
const fresh = new FreshTexts(real?.names ?? syntheticMenuNames(), (t) => clean(t).text, random);
const synthetic = shuffle(syntheticMenuNames(), random);
fresh.markSeen(synthetic.slice(0, 1300));

console.log(`# machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, load average at start ${load()}`);
console.log(`# A: ${REPO_ROOT}\n# B: ${BASELINE}\n# texts: ${real ? `${real.names.length} real menu names` : 'generated names'}${QUICK ? '  [--quick: run counts cut]' : ''}`);

const key = randomBytes(16).toString('hex');
const dataDirs = [];
async function start(root) {
  const dataDir = mkdtempSync(join(tmpdir(), 'menu-bench-'));
  dataDirs.push(dataDir);
  const server = await startServer({ repoRoot: root, env: { ...SERVER_THREAD_ENV, MENU_OPERATOR_KEY: key, MENU_DATA_DIR: dataDir } });
  await waitHealthy(server);
  return server;
}
const servers = { A: await start(REPO_ROOT), B: await start(BASELINE) };

/**
 * CPU time of the server process, all its threads, in ms (Linux /proc, clock ticks of 10 ms); null elsewhere. Wall time
 * on a shared box moves with other jobs' load; the CPU a request costs hardly does, so the two servers' CPU per request
 * is the steadier comparison of the work each does.
 */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

async function embed(name, path, texts) {
  const cpu0 = processCpuMs(servers[name].child.pid);
  const res = await servers[name].call('POST', path, { body: { items: texts, dimension: DIMENSION }, headers: { 'x-api-key': key } });
  if (res.status !== 200) throw new Error(`${name} ${path} answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
  const json = JSON.parse(res.body.toString());
  if (json.count !== texts.length || json.embeddings[0].length !== DIMENSION) throw new Error(`${name} ${path}: ${json.count} × ${json.embeddings[0]?.length}`);
  const cpu1 = processCpuMs(servers[name].child.pid);
  return { ms: res.ms, cpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, vectors: json.embeddings };
}

const cosine = (a, b) => a.reduce((s, x, k) => s + x * b[k], 0);
const samples = { embed100: { A: [], B: [] }, batch1000: { A: [], B: [] } };
const cpu = { embed100: { A: 0, B: 0, known: true }, batch1000: { A: 0, B: 0, known: true } };
const cosines = [];
try {
  for (const name of ['A', 'B']) {
    for (let k = 0; k < 3; k++) await embed(name, '/embed', synthetic.slice(k * 100, k * 100 + 100));
    await embed(name, '/embed/batch', synthetic.slice(300, 1300));
  }
  for (const [arm, path, size] of [['embed100', '/embed', 100], ['batch1000', '/embed/batch', 1000]]) {
    for (let r = 0; r < ROUNDS[arm]; r++) {
      const { texts } = fresh.take(size); // never sent to either server: a cache miss on both
      const out = {};
      for (const name of r % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
        out[name] = await embed(name, path, texts);
        samples[arm][name].push(out[name].ms);
        if (out[name].cpuMs === null) cpu[arm].known = false;
        else cpu[arm][name] += out[name].cpuMs;
      }
      for (let k = 0; k < texts.length; k++) cosines.push(cosine(out.A.vectors[k], out.B.vectors[k]));
    }
  }
} finally {
  for (const s of Object.values(servers)) await s.stop();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
}

for (const [arm, label] of [['embed100', 'cold /embed 100'], ['batch1000', 'cold /embed/batch 1000']]) {
  const a = samples[arm].A;
  const b = samples[arm].B;
  console.log(`${label}: A p50 ${fmt(median(a))} ms (p90 ${fmt(percentile(a, 90))}), B p50 ${fmt(median(b))} ms (p90 ${fmt(percentile(b, 90))}); B/A ${fmtRatio(median(b) / median(a))}; ${a.length} rounds each`);
  const c = cpu[arm];
  if (c.known) console.log(`${label}: server CPU per request (all threads) A ${fmt(c.A / a.length)} ms, B ${fmt(c.B / b.length)} ms; A/B ${fmtRatio(c.A / c.B)}`);
}
cosines.sort((x, y) => x - y);
console.log(`vectors A vs B at ${DIMENSION}: cosine min ${cosines[0].toFixed(4)}, median ${median(cosines).toFixed(4)} over ${cosines.length} texts`);
console.log(`# load average at end ${load()}`);
