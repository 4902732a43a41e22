#!/usr/bin/env node
// The tuned int8 encoder against the base int8 encoder (same architecture, same export and quantisation), in-process
// through the service's own MenuEncoder: the domain tuning must not cost latency (target: within 5% of the base).
// Arms, run round by round in turn so that the machine's load hits all alike:
//   base   — the base all-MiniLM-L6-v2 export (models/build/<base id>)
//   tuned  — the served bi-encoder (the manifest's `serve.biencoder`)
//   base'  — the base again: base' ÷ base is what a ratio of two identical arms looks like on this box today
// Two workloads per round, the same texts for every arm, the embedding cache off: batch 1 (one text per call, the
// median over the round's texts) and batch 100 (one call). Prints medians over the rounds and the ratios.
// Needs `node scripts/setup.mjs && npx tspc -p tsconfig.json` first.
//   node bench/encoder-ab.bench.mjs [--rounds N] [--quick]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { readRealMenuNames, seededRandom, shuffle, syntheticMenuNames } from './lib/menu-names.mjs';
import { fmt, fmtRatio, median } from './lib/stats.mjs';
import { DATA_DIR, REPO_ROOT, SEED, THREADS, BENCH_DIR, SERVER_THREAD_ENV } from './lib/env.mjs';
import { createReporter, runBench, writeResults } from './lib/report.mjs';

const { values: options } = parseArgs({
  options: { rounds: { type: 'string', default: '15' }, quick: { type: 'boolean', default: false } },
});
const ROUNDS = options.quick ? 3 : Number(options.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 3) throw new RangeError(`--rounds must be an integer >= 3, got ${options.rounds}`);
const SINGLES_PER_ROUND = 30;
const BATCH = 100;
const TARGET_RATIO = 1.05;
// The base model's build id (models/build_models.py builds it for comparison; MENU_MODEL selects it in the service).
const BASE_ID = 'menu-minilm-l6-v0';

const { report, progress, check, finish } = createReporter();

async function importDist(rel) {
  const path = join(REPO_ROOT, 'dist', rel);
  if (!existsSync(path)) throw new Error(`${path} is missing: build first (node scripts/setup.mjs && npx tspc -p tsconfig.json)`);
  return import(pathToFileURL(path).href);
}

async function main() {
  const started = new Date();
  const { MenuEncoder } = await importDist('src/core/inference/encoder.js');
  const { resolveBuiltModel, servedModelIds } = await importDist('src/core/inference/model-files.js');
  const { loadConfig } = await importDist('src/config.js');
  const config = loadConfig({ ...process.env, ...SERVER_THREAD_ENV });
  const tunedId = servedModelIds().biencoder;
  if (tunedId === BASE_ID) throw new Error(`the served bi-encoder is the base ${BASE_ID}: nothing to compare`);
  const opts = {
    intraOpThreads: config.intraOpThreads,
    inferenceWorkers: config.inferenceWorkers,
    executionProvider: 'cpu',
    cacheBytes: 0, // every call runs the graph
    maxSequenceTokens: config.maxSequenceTokens,
    maxBatchTokens: config.batchMaxTokens,
    maxBatchItems: config.batchMaxItems,
    maxQueueItems: config.queueMaxItems,
  };
  const arms = [
    { name: 'base', encoder: await MenuEncoder.load(resolveBuiltModel(BASE_ID), opts) },
    { name: 'tuned', encoder: await MenuEncoder.load(resolveBuiltModel(tunedId), opts) },
    { name: "base'", encoder: await MenuEncoder.load(resolveBuiltModel(BASE_ID), opts) },
  ];
  const real = readRealMenuNames(DATA_DIR);
  const pool = shuffle([...new Set(real ? real.names : syntheticMenuNames())], seededRandom(SEED));
  const perRound = SINGLES_PER_ROUND + BATCH;
  if (pool.length < (ROUNDS + 1) * perRound) throw new Error(`need ${(ROUNDS + 1) * perRound} names, have ${pool.length}`);
  progress(`${tunedId} vs ${BASE_ID}; ${ROUNDS} rounds of ${SINGLES_PER_ROUND} single texts and one batch of ${BATCH}; ${THREADS} threads; ${real ? real.sources.join(', ') : 'synthetic names'}`);

  const samples = Object.fromEntries(arms.map((a) => [a.name, { single: [], batch: [] }]));
  // Round 0 warms every arm up and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    const texts = pool.slice(round * perRound, (round + 1) * perRound);
    const singles = texts.slice(0, SINGLES_PER_ROUND);
    const batch = texts.slice(SINGLES_PER_ROUND);
    // Rotate the arm order each round so no arm always runs first after the others.
    const order = arms.map((_, i) => arms[(i + round) % arms.length]);
    for (const arm of order) {
      const times = [];
      for (const t of singles) {
        const t0 = performance.now();
        await arm.encoder.encode([t], 384);
        times.push(performance.now() - t0);
      }
      const t0 = performance.now();
      await arm.encoder.encode(batch, 384);
      const batchMs = performance.now() - t0;
      if (round > 0) {
        samples[arm.name].single.push(median(times));
        samples[arm.name].batch.push(batchMs);
      }
    }
  }
  for (const arm of arms) await arm.encoder.close();

  const med = (name, kind) => median(samples[name][kind]);
  for (const kind of ['single', 'batch']) {
    const label = kind === 'single' ? 'batch1' : `batch${BATCH}`;
    report(`encoder_${label}_p50_ms base ${fmt(med('base', kind))}, tuned ${fmt(med('tuned', kind))}, base' ${fmt(med("base'", kind))} (medians of ${ROUNDS} rounds)`);
    const ratio = med('tuned', kind) / med('base', kind);
    const noise = med("base'", kind) / med('base', kind);
    report(`encoder_${label}_tuned_vs_base ${fmtRatio(ratio)}× (base' ÷ base, the same model twice: ${fmtRatio(noise)}×)`);
    check(
      ratio <= TARGET_RATIO,
      `${label}: the tuned encoder ${fmtRatio(ratio)}× the base's time (≤ ${TARGET_RATIO}×)`,
      `${label}: the tuned encoder ${fmtRatio(ratio)}× the base's time (target ≤ ${TARGET_RATIO}×; same-model noise ${fmtRatio(noise)}×)`,
    );
  }
  finish();
  const out = writeResults(BENCH_DIR, 'encoder-ab', started, { tunedId, baseId: BASE_ID, rounds: ROUNDS, samples });
  progress(`samples written to ${out}`);
}

runBench(main);
