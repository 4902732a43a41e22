// Where the time of one /embed request goes, stage by stage, in-process (no HTTP): text cleaning, tokenisation,
// ONNX Runtime, the rest of the encoder (padding, pooling, projection) and JSON serialisation of the response. The ORT
// stage is run on the served int8 graph and on the stock int8 graph with the server's own batcher, so the two model
// files are compared on identical padded batches; a batch-size sweep shows what MENU_BATCH_MAX_ITEMS would buy.
// Usage: `npm run bench:stages` after building the server; `--quick` for a smoke test.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpus, loadavg } from 'node:os';
import { readRealMenuNames, seededRandom, shuffle, syntheticMenuNames } from './lib/menu-names.mjs';
import { fmt, fmtRatio, median } from './lib/stats.mjs';
import { REPO_ROOT, DATA_DIR, THREADS, SEED, QUICK } from './lib/env.mjs';

const RUNS = QUICK ? { r100: 3, r1000: 1 } : { r100: 15, r1000: 4 };
const DIMENSION = 128;
const dist = (rel) => import(pathToFileURL(join(REPO_ROOT, 'dist', rel)).href);

// The server's defaults (src/config.ts), so the batches here are the batches the server runs.
const config = (await dist('src/config.js')).loadConfig({});
const DEFAULTS = { maxBatchTokens: config.batchMaxTokens, maxBatchItems: config.batchMaxItems, maxQueueItems: 1 << 24, maxSequenceTokens: config.maxSequenceTokens };

/** [wall ms, value, CPU ms]: on a shared box the CPU time of a synchronous JS stage is its idle-machine wall time. */
function timeSync(fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return [wall, value, (cpu.user + cpu.system) / 1000];
}

/** The padded int64 feeds of a run (what the server's runner builds in its reused buffers). */
function feedsOf(ort, b) {
  const n = b.rows * b.seqLen;
  const ids = new BigInt64Array(n);
  const mask = new BigInt64Array(n);
  let k = 0;
  for (let r = 0; r < b.rows; r++) {
    for (let t = 0; t < b.lengths[r]; t++, k++) {
      ids[r * b.seqLen + t] = BigInt(b.tokens[k]);
      mask[r * b.seqLen + t] = 1n;
    }
  }
  const dims = [b.rows, b.seqLen];
  return {
    input_ids: new ort.Tensor('int64', ids, dims),
    attention_mask: new ort.Tensor('int64', mask, dims),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(n), dims),
  };
}

/** A batcher whose run is one timed ORT call; it returns zero vectors, since only the run time is wanted here. */
function timedOrtBatcher(Batcher, ort, session, opts) {
  const timing = { ms: 0, cpuMs: 0, runs: 0, padded: 0, real: 0 };
  const batcher = new Batcher(async (b) => {
    const feeds = feedsOf(ort, b);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await session.run(feeds);
    timing.ms += performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    timing.cpuMs += (cpu.user + cpu.system) / 1000;
    timing.runs++;
    timing.padded += b.rows * b.seqLen;
    for (const len of b.lengths) timing.real += len;
    return Array.from({ length: b.rows }, () => new Float32Array(1));
  }, opts);
  return { batcher, timing };
}

async function main() {
  const { loadKnowledge } = await dist('src/core/knowledge/index.js');
  const { MenuTokenizer } = await dist('src/core/inference/tokenizer.js');
  const { MenuEncoder } = await dist('src/core/inference/encoder.js');
  const { createSession } = await dist('src/core/inference/runner.js');
  const { InferenceBatcher } = await dist('src/core/inference/batcher.js');
  const { embeddingsJson } = await dist('src/core/vector-encoding.js');
  const { resolveBuiltModel } = await dist('src/core/inference/model-files.js');
  const ort = await import(pathToFileURL(join(REPO_ROOT, 'node_modules/onnxruntime-node/dist/index.js')).href);

  const random = seededRandom(SEED);
  const real = readRealMenuNames(DATA_DIR);
  const names = shuffle([...new Set(real?.names ?? syntheticMenuNames())], random);
  console.log(`# machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, ORT threads ${THREADS}${QUICK ? '  [--quick]' : ''}`);

  const cleaner = loadKnowledge().cleaner;
  const model = resolveBuiltModel(undefined);
  const tokenizer = new MenuTokenizer(model.dir, DEFAULTS.maxSequenceTokens);
  const encoder = await MenuEncoder.load(model, { ...DEFAULTS, intraOpThreads: THREADS, inferenceWorkers: 0, executionProvider: 'cpu', cacheBytes: 0 });
  const sessionOpts = { intraOpThreads: THREADS, executionProvider: 'cpu' };
  const open = (path, opts = sessionOpts) => createSession({ path, ...opts });
  const servedSession = await open(join(model.dir, 'encoder-int8.onnx'));
  const stockSession = await open(join(REPO_ROOT, 'models/build/baseline/stock-int8.onnx'));

  let cursor = 0;
  const nextTexts = (n) => {
    if (cursor + n > names.length) cursor = 0;
    const out = names.slice(cursor, cursor + n);
    cursor += n;
    return out;
  };

  // Warm-up: ORT first runs and V8 JIT for every path measured below.
  for (let i = 0; i < 2; i++) {
    const texts = nextTexts(100).map((t) => cleaner.clean(t).text);
    await encoder.encode(texts, DIMENSION);
    for (const s of [servedSession, stockSession]) {
      const { batcher } = timedOrtBatcher(InferenceBatcher, ort, s, DEFAULTS);
      await batcher.submit(texts.map((t) => tokenizer.encode(t)));
    }
  }

  for (const [size, runs] of [[100, RUNS.r100], [1000, RUNS.r1000]]) {
    const stage = { clean: [], tokenize: [], encode: [], projection: [], ortServed: [], ortStock: [], json: [] };
    const cpu = { clean: [], tokenize: [], projection: [], json: [] };
    const ortCpu = { ortServed: 0, ortStock: 0 };
    let padding = 0;
    for (let r = 0; r < runs; r++) {
      const raw = nextTexts(size);
      const [cleanMs, cleaned, cleanCpu] = timeSync(() => raw.map((t) => cleaner.cleanUncached(t).text));
      const [tokMs, seqs, tokCpu] = timeSync(() => tokenizer.encodeBatch(cleaned).map((ids) => ({ ids })));
      const t0 = performance.now();
      const vectors = await encoder.encode(cleaned, DIMENSION);
      const encodeMs = performance.now() - t0;
      // The 384 → 128 projection alone, on unit vectors like the pooled ones (its cost does not depend on values).
      const unit = Array.from({ length: size }, () => {
        const v = new Float32Array(model.hiddenSize).map(() => random() - 0.5);
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      });
      const [projectionMs, , projectionCpu] = timeSync(() => unit.map((v) => encoder.project(v, DIMENSION)));
      const [jsonMs, , jsonCpu] = timeSync(() => embeddingsJson(vectors, DIMENSION, 'float'));
      for (const [key, session] of [['ortServed', servedSession], ['ortStock', stockSession]]) {
        const { batcher, timing } = timedOrtBatcher(InferenceBatcher, ort, session, DEFAULTS);
        await batcher.submit(seqs);
        stage[key].push(timing.ms);
        ortCpu[key] += timing.cpuMs;
        if (key === 'ortServed') padding += timing.padded / timing.real;
      }
      stage.clean.push(cleanMs);
      stage.tokenize.push(tokMs);
      stage.encode.push(encodeMs);
      stage.projection.push(projectionMs);
      cpu.clean.push(cleanCpu);
      cpu.tokenize.push(tokCpu);
      cpu.projection.push(projectionCpu);
      cpu.json.push(jsonCpu);
      stage.json.push(jsonMs);
    }
    const m = Object.fromEntries(Object.entries(stage).map(([k, v]) => [k, median(v)]));
    // encode = tokenise + batch padding + ORT + pooling + projection, as the server runs it; the other stages alone.
    const c = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)]));
    console.log(`stages${size}_p50_ms clean ${fmt(m.clean)} (cpu ${fmt(c.clean)}), tokenize ${fmt(m.tokenize)} (cpu ${fmt(c.tokenize)}), ort ${fmt(m.ortServed)}, projection ${fmt(m.projection)} (cpu ${fmt(c.projection)}), json ${fmt(m.json)} (cpu ${fmt(c.json)}); encoder.encode ${fmt(m.encode)}, in-process total ${fmt(m.clean + m.encode + m.json)} (${runs} runs)`);
    console.log(`ort${size}_p50_ms served int8 ${fmt(m.ortServed)}, stock int8 ${fmt(m.ortStock)} (stock ÷ served ${fmtRatio(m.ortStock / m.ortServed)}); cpu ms/run served ${fmt(ortCpu.ortServed / runs)}, stock ${fmt(ortCpu.ortStock / runs)} (ratio ${fmtRatio(ortCpu.ortStock / ortCpu.ortServed)}); same batches, padded/real tokens ${fmtRatio(padding / runs)}`);
  }

  // Batch-size sweep: the default cut packs up to 256 length-sorted names into one run, padded to its longest;
  // smaller runs pad less. Each setting sees the same texts.
  for (const [size, reps] of [[100, QUICK ? 2 : 8], [1000, QUICK ? 1 : 3]]) {
    const sweepSeqs = Array.from({ length: reps }, () => nextTexts(size).map((t) => tokenizer.encode(cleaner.clean(t).text)));
    const sweep = [];
    for (const maxBatchItems of [256, 64, 32, 16]) {
      const samples = [];
      let cpuMs = 0;
      let padded = 0;
      let realTokens = 0;
      for (const seqs of sweepSeqs) {
        const { batcher, timing } = timedOrtBatcher(InferenceBatcher, ort, servedSession, { ...DEFAULTS, maxBatchItems });
        await batcher.submit(seqs);
        samples.push(timing.ms);
        cpuMs += timing.cpuMs;
        padded += timing.padded;
        realTokens += timing.real;
      }
      sweep.push(`${maxBatchItems}: ${fmt(median(samples))} ms, cpu ${fmt(cpuMs / samples.length)} ms (padded/real ${fmtRatio(padded / realTokens)})`);
    }
    console.log(`ort${size}_by_max_batch_items_p50 ${sweep.join('; ')} (${reps} runs each)`);
  }
  // Response serialisation, the bulk of a warm request: the server's writer (src/core/vector-encoding.ts), base64,
  // Array.from + JSON.stringify (the previous way), the same with components rounded to 1e-7, and pre-serialised
  // per-vector fragments joined (what a cache of JSON text would do).
  const jsonVectors = await encoder.encode(nextTexts(100).map((t) => cleaner.clean(t).text), DIMENSION);
  const round7 = (x) => Math.round(x * 1e7) / 1e7;
  const fragments = jsonVectors.map((v) => JSON.stringify(Array.from(v)));
  const serialisers = [
    ['server (embeddingsJson, 9 decimals)', () => embeddingsJson(jsonVectors, DIMENSION, 'float')],
    ['base64', () => embeddingsJson(jsonVectors, DIMENSION, 'base64')],
    ['Array.from + JSON.stringify', () => JSON.stringify({ embeddings: jsonVectors.map((v) => Array.from(v)), dimension: DIMENSION, count: jsonVectors.length })],
    ['rounded 1e-7', () => JSON.stringify({ embeddings: jsonVectors.map((v) => Array.from(v, round7)), dimension: DIMENSION, count: jsonVectors.length })],
    ['cached fragments', () => `{"embeddings":[${fragments.join(',')}],"dimension":${DIMENSION},"count":${jsonVectors.length}}`],
  ];
  const jsonReport = serialisers.map(([name, fn]) => {
    for (let i = 0; i < 20; i++) Buffer.from(fn());
    const samples = [];
    let bytes = 0;
    for (let i = 0; i < (QUICK ? 20 : 200); i++) {
      const [, body, cpuMs] = timeSync(() => Buffer.from(fn()));
      samples.push(cpuMs);
      bytes = body.length;
    }
    return `${name} ${fmt(median(samples))} ms (${fmt(bytes / 1024)} KiB)`;
  });
  console.log(`json100_serialise_cpu_p50 ${jsonReport.join('; ')}`);

  // The menu vector's own work (src/core/menu-vector.ts), on this thread: reading each text (clean, cue tokens) and
  // its English food words before the encoder runs, then the dish it names and the anchor blend while the inference
  // workers encode (on a box whose cores the workers fill, that CPU time is taken from them). A fresh knowledge base
  // per run, so no memo answers: every name is new to a server that has not seen it.
  const { parseMenuText } = await dist('src/core/menu-text.js');
  const { anchorOf, blendAnchor, DishAnchors, readMenuVectorSpec } = await dist('src/core/menu-vector.js');
  const anchorWeights = readMenuVectorSpec();
  const anchors = await DishAnchors.build(loadKnowledge(), encoder);
  for (const size of [100, 1000]) {
    const cpuOf = { read: [], english: [], dish: [], blend: [] };
    let anchored = 0, total = 0;
    for (let r = 0; r < (size === 100 ? RUNS.r100 : RUNS.r1000); r++) {
      const k = loadKnowledge();
      k.prepare();
      void parseMenuText(k, 'warm up').dish;
      const raw = nextTexts(size);
      const [, read, readCpu] = timeSync(() => raw.map((t) => parseMenuText(k, t)));
      const [, english, englishCpu] = timeSync(() => read.map((t) => t.english));
      const [, picked, dishCpu] = timeSync(() => read.map((t) => anchorOf(t, anchorWeights)));
      const own = await encoder.encode(english, DIMENSION);
      const [, , blendCpu] = timeSync(() => own.map((v, i) => blendAnchor(v, picked[i], anchors, DIMENSION)));
      cpuOf.read.push(readCpu);
      cpuOf.english.push(englishCpu);
      cpuOf.dish.push(dishCpu);
      cpuOf.blend.push(blendCpu);
      anchored += picked.filter(Boolean).length;
      total += picked.length;
    }
    const c = Object.fromEntries(Object.entries(cpuOf).map(([key, v]) => [key, median(v)]));
    console.log(`menu_vector${size}_cpu_p50_ms read ${fmt(c.read)}, english ${fmt(c.english)}, dish ${fmt(c.dish)}, blend ${fmt(c.blend)}; ${fmt((100 * anchored) / total)}% of names anchored (${cpuOf.read.length} runs)`);
  }

  // Thread settings of the ORT session, interleaved per repetition on the same batches: on a shared box the two
  // intra-op threads of one run wait on each other whenever one is descheduled, and spinning burns that wait.
  const modelPath = join(model.dir, 'encoder-int8.onnx');
  const variants = [
    ['threads 1', { intraOpNumThreads: 1 }],
    ['threads 2', { intraOpNumThreads: 2 }],
    ['threads 2 no spinning', { intraOpNumThreads: 2, extra: { session: { intra_op: { allow_spinning: '0' } } } }],
  ];
  const variantSessions = [];
  for (const [name, opts] of variants) {
    const session = await ort.InferenceSession.create(modelPath, { interOpNumThreads: 1, graphOptimizationLevel: 'all', executionProviders: ['cpu'], ...opts });
    variantSessions.push({ name, session, samples: [], cpuMs: 0 });
  }
  const variantSeqs = Array.from({ length: QUICK ? 2 : 8 }, () => nextTexts(100).map((t) => tokenizer.encode(cleaner.clean(t).text)));
  for (const v of variantSessions) await timedOrtBatcher(InferenceBatcher, ort, v.session, DEFAULTS).batcher.submit(variantSeqs[0]);
  for (const seqs of variantSeqs) {
    for (const v of variantSessions) {
      const { batcher, timing } = timedOrtBatcher(InferenceBatcher, ort, v.session, DEFAULTS);
      await batcher.submit(seqs);
      v.samples.push(timing.ms);
      v.cpuMs += timing.cpuMs;
    }
  }
  console.log(`ort100_by_session_threads_p50 ${variantSessions.map((v) => `${v.name}: ${fmt(median(v.samples))} ms, cpu ${fmt(v.cpuMs / v.samples.length)} ms`).join('; ')} (${variantSeqs.length} runs each, interleaved)`);
  for (const v of variantSessions) await v.session.release();

  await encoder.close();
  await servedSession.release();
  await stockSession.release();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench failed: ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  },
);
