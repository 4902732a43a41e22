/**
 * Catalog scale (issue 29), side by side in one run:
 *
 *   A  HNSW candidate recall against exact all-pairs at the dedup threshold on 20k real names, usearch and
 *      hnswlib-node over a grid of M / efConstruction / ef, with build and query times; the chosen settings
 *   B  the crossover: exact all-pairs (the Rust addon) vs the index, candidate generation alone, 500 → 20k names
 *   C  knowledge-base resolution: today's lexical lookup per name vs one ANN query per name over an index the size of
 *      the alias table (before the embedding such a query would also need)
 *   D  100k real menu rows (../shared/data, repeated with noise variants) through `menu-intel catalog dedup` on this
 *      2-core box: total time, each stage's share, clustering (index + cluster) time, peak RSS
 *   E  how clustering time grows from 10k to 100k rows (same file's prefixes, embeddings reused from D)
 *   F  agreement with /dedup on the test menus (eval/dev/dedup_dev_menus.jsonl, 1,551 items): identical clusters
 *
 * Run from bench/: `npm run bench:catalog` (about 15 minutes); `-- --quick` cuts the sizes (numbers not comparable).
 * Needs the built models and dist/ (`node scripts/setup.mjs && npx tspc -p tsconfig.json` in the repo root).
 * Exit 0 when the run completed; a missed target prints `WARNING target missed:`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCatalogRows, catalogOfSize, noiseVariant } from './lib/catalog-names.mjs';
import { seededRandom, shuffle } from './lib/menu-names.mjs';
import { median, fmt } from './lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = (p) => join(root, 'dist', p);
const quick = process.argv.includes('--quick');
// --parts A,B,E runs some parts only (E reuses the embedding store D left in the work folder).
const partsArg = process.argv.find((a) => a.startsWith('--parts='));
const parts = new Set((partsArg ? partsArg.slice(8) : 'A,B,C,D,E,F').split(','));
const modes = (process.argv.find((a) => a.startsWith('--modes=')) ?? '--modes=auto,index').slice(8).split(',');
const dataDir = process.env.BENCH_DATA_DIR ?? join(root, '..', 'shared', 'data');
const work = join(tmpdir(), 'menu-intel-catalog-bench');
mkdirSync(work, { recursive: true });

const { loadConfig } = await import(dist('src/config.js'));
const { loadCatalogDeps } = await import(dist('src/cli/catalog.js'));
const { allPairsCandidates, indexCandidates, queryIndexCandidates, nodeKey, dedupPrepared } = await import(dist('src/core/dedup.js'));
const { createAnnIndex, ANN_PARAMS, ANN_ENGINE } = await import(dist('src/core/ann.js'));
const { allPairsAbove } = await import(dist('src/native/index.js'));
const { runCatalog } = await import(dist('src/core/catalog/engine.js'));
const { parseMenuText } = await import(dist('src/core/menu-text.js'));
const { csvLine } = await import(dist('src/core/catalog/output.js'));

const warnings = [];
const target = (ok, what) => {
  if (!ok) warnings.push(what);
  return ok ? 'ok' : 'MISSED';
};
const THRESHOLD = 0.85;
const RECALL_TARGET = 0.995;

const real = readCatalogRows(dataDir);
if (!real) {
  console.error(`no data under ${dataDir} (set BENCH_DATA_DIR)`);
  process.exit(1);
}
const realRows = shuffle(real.rows, seededRandom(7));
console.log(`# catalog bench: ${real.rows.length} real rows from ${real.sources.join(', ')} (swiggy_menus_more left out: held-out restaurants)`);

const loaded = await loadCatalogDeps(loadConfig());
const { embedder, knowledge } = loaded.deps;
console.log(`# encoder ${embedder.id}, ${process.env.MENU_THREADS ?? 'all'} threads; ANN engine in use: ${ANN_ENGINE} ${JSON.stringify(ANN_PARAMS)}`);

// ---------------------------------------------------------------------------------------------- names for A-C
const NAMES = parts.has('A') || parts.has('B') || parts.has('C') ? (quick ? 5000 : 20000) : 0;
const byKey = new Map();
const addName = (name) => {
  const read = parseMenuText(knowledge, name);
  const key = nodeKey(read);
  if (!byKey.has(key)) byKey.set(key, read.text);
};
for (const r of realRows) {
  if (byKey.size >= NAMES) break;
  addName(r.name);
}
const realNames = byKey.size;
const random = seededRandom(11);
while (byKey.size < NAMES) addName(noiseVariant(realRows[Math.floor(random() * realRows.length)], random).name);
const texts = [...byKey.values()];
let t0 = performance.now();
const vectors = [];
for (let s = 0; s < texts.length; s += 512) vectors.push(...(await embedder.embed(texts.slice(s, s + 512))));
const embedSeconds = (performance.now() - t0) / 1000;
const dim = embedder.dim;
const matrix = new Float32Array(texts.length * dim);
vectors.forEach((v, i) => matrix.set(v, i * dim));
console.log(`# ${texts.length} distinct names (${realNames} real, ${texts.length - realNames} noise variants of real rows: the real sources hold fewer distinct names), embedded in ${fmt(embedSeconds)} s (${fmt(texts.length / embedSeconds)} names/s)`);

// ---------------------------------------------------------------------------------------------- A: recall
if (parts.has('A')) {
console.log('\n## A. HNSW candidate recall vs exact all-pairs at cosine >= 0.85');
t0 = performance.now();
const exact = allPairsAbove(matrix, dim, THRESHOLD);
const exactMs = performance.now() - t0;
const exactSet = new Set();
for (let k = 0; k < exact.a.length; k++) exactSet.add(exact.a[k] * texts.length + exact.b[k]);
console.log(`exact all-pairs (Rust addon): ${exact.a.length} pairs in ${fmt(exactMs)} ms`);

const allNodes = { count: texts.length, dim, matrix, text: texts, words: [], exactDish: [] };
async function measure(engine, params) {
  const index = createAnnIndex(dim, { engine, params, capacity: texts.length });
  let t = performance.now();
  index.add(matrix, 0);
  const buildMs = performance.now() - t;
  t = performance.now();
  const found = await queryIndexCandidates(index, allNodes, THRESHOLD, 0, texts.length);
  const queryMs = performance.now() - t;
  let hit = 0;
  for (let k = 0; k < found.a.length; k++) if (exactSet.has(found.a[k] * texts.length + found.b[k])) hit++;
  return { engine, ...params, buildMs, queryMs, recall: exactSet.size === 0 ? 1 : hit / exactSet.size };
}

// expansion_search is fixed when a usearch index is made, so each (M, efC, ef) is its own build; the range search
// starts at k = 32 and searches at least that wide whatever ef says.
const grid = {
  usearch: [
    { connectivity: 8, expansionAdd: 32, expansionSearch: 32, quantization: 'f16' },
    { connectivity: 8, expansionAdd: 64, expansionSearch: 32, quantization: 'f16' },
    { connectivity: 16, expansionAdd: 64, expansionSearch: 32, quantization: 'f16' },
    { connectivity: 16, expansionAdd: 64, expansionSearch: 64, quantization: 'f16' },
    { connectivity: 16, expansionAdd: 64, expansionSearch: 64, quantization: 'f32' },
    { connectivity: 16, expansionAdd: 128, expansionSearch: 96, quantization: 'f32' },
  ],
  hnswlib: [
    { connectivity: 8, expansionAdd: 32, expansionSearch: 32 },
    { connectivity: 16, expansionAdd: 64, expansionSearch: 64 },
    { connectivity: 16, expansionAdd: 128, expansionSearch: 96 },
  ],
};
const results = [];
for (const engine of ['usearch', 'hnswlib']) {
  for (const params of grid[engine]) {
    const r = await measure(engine, params);
    results.push(r);
    console.log(`${engine.padEnd(8)} M=${String(r.connectivity).padEnd(2)} efC=${String(r.expansionAdd).padEnd(3)} ef=${String(r.expansionSearch).padEnd(3)} ${(r.quantization ?? 'f32').padEnd(3)} recall ${r.recall.toFixed(4)}  build ${fmt(r.buildMs / 1000)} s  query ${fmt(r.queryMs / 1000)} s  total ${fmt((r.buildMs + r.queryMs) / 1000)} s`);
  }
}
const best = {};
for (const engine of ['usearch', 'hnswlib']) {
  const ok = results.filter((r) => r.engine === engine && r.recall >= RECALL_TARGET).sort((x, y) => x.buildMs + x.queryMs - (y.buildMs + y.queryMs));
  best[engine] = ok[0] ?? null;
}
for (const [engine, r] of Object.entries(best)) {
  console.log(r ? `fastest ${engine} with recall >= ${RECALL_TARGET}: M=${r.connectivity} efC=${r.expansionAdd} ef=${r.expansionSearch} ${r.quantization ?? 'f32'}, recall ${r.recall.toFixed(4)}, ${fmt((r.buildMs + r.queryMs) / 1000)} s` : `${engine}: no setting reached recall ${RECALL_TARGET}`);
}
if (best.usearch && best.hnswlib) {
  console.log(`usearch vs hnswlib (build + query at their chosen settings): ${((best.hnswlib.buildMs + best.hnswlib.queryMs) / (best.usearch.buildMs + best.usearch.queryMs)).toFixed(2)}x faster`);
}
const served = await measure(ANN_ENGINE, ANN_PARAMS);
console.log(`served setting (src/core/ann.ts) ${ANN_ENGINE} M=${ANN_PARAMS.connectivity} efC=${ANN_PARAMS.expansionAdd} ef=${ANN_PARAMS.expansionSearch} ${ANN_PARAMS.quantization ?? 'f32'}: recall ${served.recall.toFixed(4)} [target >= ${RECALL_TARGET}: ${target(served.recall >= RECALL_TARGET, `recall ${served.recall.toFixed(4)} < ${RECALL_TARGET}`)}], build ${fmt(served.buildMs / 1000)} s, query ${fmt(served.queryMs / 1000)} s, exact all-pairs ${fmt(exactMs / 1000)} s`);

}
// ---------------------------------------------------------------------------------------------- B: crossover
if (parts.has('B')) {
console.log('\n## B. Candidate generation: exact all-pairs vs the index (build + range query), median of runs');
const sizes = quick ? [500, 1000, 2000, 5000] : [500, 1000, 2000, 4000, 8000, 12000, 20000];
let crossover = null;
const points = [];
for (const n of sizes) {
  const nodes = { count: n, dim, matrix: matrix.subarray(0, n * dim), text: texts.slice(0, n), words: [], exactDish: [] };
  const runs = n <= 4000 ? 5 : 3;
  const timeOf = async (source) => {
    const samples = [];
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      await source(nodes, THRESHOLD);
      samples.push(performance.now() - t);
    }
    return median(samples);
  };
  const all = await timeOf(allPairsCandidates);
  const idx = await timeOf(indexCandidates());
  points.push({ n, all, idx });
  if (crossover === null && idx < all) crossover = n;
  console.log(`${String(n).padStart(6)} names: all-pairs ${fmt(all)} ms, index ${fmt(idx)} ms, index/all-pairs ${(idx / all).toFixed(2)}`);
}
if (crossover !== null) {
  console.log(`the index is faster from ${crossover} names on; /dedup and /report (<= 2000 items) ${crossover > 2000 ? 'stay on all-pairs' : 'switch to the index'}`);
} else {
  // Fit all-pairs as a·n² and the index as b·n·log n on the larger sizes, and solve for where they cross.
  const big = points.filter((p) => p.n >= 4000);
  const a = median(big.map((p) => p.all / (p.n * p.n)));
  const b = median(big.map((p) => p.idx / (p.n * Math.log2(p.n))));
  let n = big.at(-1).n;
  while (a * n * n < b * n * Math.log2(n) && n < 1e8) n = Math.round(n * 1.05);
  console.log(`all-pairs is faster at every size measured (up to ${points.at(-1).n} names); fitted a·n² vs b·n·log n cross near ${Math.round(n / 1000)}k names (ANN_CROSSOVER_NODES ${'='} its round value); /dedup and /report (<= 2000 items) stay on all-pairs`);
}

}
// ---------------------------------------------------------------------------------------------- C: KB resolution
if (parts.has('C')) {
console.log('\n## C. Knowledge-base resolution of many names at once');
const lookup = knowledge.lookup;
const fresh = texts.slice(0, quick ? 2000 : 10000); // the lookup keeps no per-text cache
t0 = performance.now();
for (const x of fresh) lookup.resolveDish(x);
const lexicalUs = ((performance.now() - t0) * 1000) / fresh.length;
const aliasCount = knowledge.book.dishes.reduce((s, d) => s + d.keys.length, 0);
const aliasIndex = createAnnIndex(dim, { capacity: aliasCount });
aliasIndex.add(matrix.subarray(0, Math.min(aliasCount, texts.length) * dim), 0);
t0 = performance.now();
aliasIndex.search(matrix.subarray(0, fresh.length * dim), 5);
const annUs = ((performance.now() - t0) * 1000) / fresh.length;
const embedUs = (embedSeconds * 1e6) / texts.length;
console.log(`lexical resolveDish: ${fmt(lexicalUs)} us/name; an alias-embedding index (${aliasCount} vectors): ${fmt(annUs)} us/name for the search alone + ${fmt(embedUs)} us/name to embed the query -> ${((annUs + embedUs) / lexicalUs).toFixed(1)}x slower: kept lexical`);

}
// ---------------------------------------------------------------------------------------------- D, E: CLI runs
const ROWS = quick ? 20000 : 100000;
const catalogPath = join(work, `catalog-${ROWS}.csv`);
const rows = catalogOfSize(realRows, ROWS);
writeFileSync(catalogPath, csvLine(['name', 'restaurant']) + rows.map((r) => csvLine([r.name, r.restaurant])).join(''));
const cacheDir = join(work, 'cache');
if (parts.has('D')) rmSync(cacheDir, { recursive: true, force: true });

function runCli(file, out, extra = []) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [join(root, 'bin', 'menu-intel.js'), 'catalog', 'dedup', file, '--text-column', 'name', '--out', out, '--cache-dir', cacheDir, ...extra], {
      env: { ...process.env, MENU_THREADS: process.env.MENU_THREADS ?? '2' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`catalog dedup exited ${code}:\n${text}`));
      const stages = Object.fromEntries([...text.matchAll(/(clean|embed|index|cluster|write) ([\d.]+)s/g)].map((m) => [m[1], Number(m[2])]));
      const rss = Number(/peak RSS ([\d,]+) MiB/.exec(text)?.[1].replace(/,/g, '') ?? NaN);
      resolve({ wall: (performance.now() - t) / 1000, stages, rss, text });
    });
  });
}

if (parts.has('D')) {
console.log(`\n## D. ${ROWS} rows end to end: menu-intel catalog dedup (cold embedding store), MENU_THREADS=${process.env.MENU_THREADS ?? '2'}`);
const big = await runCli(catalogPath, join(work, `out-${ROWS}`));
console.log(big.text.trim().split('\n').filter((l) => /^(catalog|clusters|embeddings|stages)/.test(l)).join('\n'));
const staged = Object.values(big.stages).reduce((s, x) => s + x, 0);
console.log(`total wall ${fmt(big.wall)} s (model load ${fmt(big.wall - staged)} s); shares: ${Object.entries(big.stages).map(([s, x]) => `${s} ${((100 * x) / big.wall).toFixed(1)}%`).join(', ')}`);
const clustering = (big.stages.index ?? 0) + (big.stages.cluster ?? 0);
console.log(`clustering (index + cluster, no embedding): ${fmt(clustering)} s [target <= 60 s: ${target(clustering <= 60, `clustering ${fmt(clustering)} s > 60 s`)}]`);
console.log(`peak RSS ${big.rss} MiB [target <= 2048 MiB: ${target(big.rss <= 2048, `peak RSS ${big.rss} MiB > 2 GiB`)}]`);

}
if (parts.has('E')) {
console.log('\n## E. Clustering time by catalog size (prefixes of the same file; embeddings reused from D), auto and index-only');
const growthOf = {};
for (const mode of modes) {
  const growth = [];
  for (const n of quick ? [5000, 10000, 20000] : [10000, 25000, 50000, 100000]) {
    const file = join(work, `catalog-prefix-${n}.csv`);
    if (!existsSync(file)) writeFileSync(file, csvLine(['name', 'restaurant']) + rows.slice(0, n).map((r) => csvLine([r.name, r.restaurant])).join(''));
    const r = await runCli(file, join(work, `out-prefix-${n}-${mode}`), ['--candidates', mode]);
    const c = (r.stages.index ?? 0) + (r.stages.cluster ?? 0);
    const names = Number(/([\d,]+) names/.exec(r.text)?.[1].replace(/,/g, '') ?? NaN);
    const pairs = Number(/([\d,]+) candidate pairs judged/.exec(r.text)?.[1].replace(/,/g, '') ?? NaN);
    growth.push({ n, c, names, pairs });
    console.log(`${mode.padEnd(5)} ${String(n).padStart(7)} rows: ${names} names, ${pairs} candidate pairs, index ${fmt(r.stages.index)} s + cluster ${fmt(r.stages.cluster)} s = ${fmt(c)} s, peak RSS ${r.rss} MiB`);
  }
  const first = growth[0];
  const last = growth.at(-1);
  const slope = Math.log(last.c / first.c) / Math.log(last.n / first.n);
  growthOf[mode] = slope;
  console.log(`${mode}: ${first.n} -> ${last.n} rows (${(last.n / first.n).toFixed(0)}x, names ${(last.names / first.names).toFixed(1)}x): clustering ${(last.c / first.c).toFixed(1)}x, exponent ${slope.toFixed(2)} in rows (quadratic: 2.0, ${((last.n / first.n) ** 2).toFixed(0)}x) [target not quadratic: ${target(slope < 1.8, `${mode} clustering grows with exponent ${slope.toFixed(2)}`)}]`);
}

}
// ---------------------------------------------------------------------------------------------- F: agreement
if (parts.has('F')) {
console.log('\n## F. Agreement with /dedup on the test menus (eval/dev/dedup_dev_menus.jsonl)');
const menus = readFileSync(join(root, 'eval', 'dev', 'dedup_dev_menus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const clustersOf = (items, outcome) => outcome.clusters.map((c) => ({ canonical: items[c.canonical], members: c.members.map((m) => items[m]) }));
async function agree(items, name) {
  // Both paths get the same vectors (int8 inference quantises each batch with its own scale, so two embedding calls
  // can differ in the last digits): the comparison is of the clustering code paths.
  const read = items.map((x) => parseMenuText(knowledge, x));
  const cleanedTexts = read.map((x) => x.text);
  const vecs = await embedder.embed(cleanedTexts);
  const byText = new Map(cleanedTexts.map((x, i) => [x, vecs[i]]));
  const same = { ...loaded.deps, embedder: { id: `${embedder.id}-agreement`, dim, embed: async (xs) => xs.map((x) => byText.get(x)) } };
  const viaDedup = clustersOf(items, await dedupPrepared(knowledge, read, vecs, { cosineThreshold: THRESHOLD, precision: loaded.deps.precision }));
  const file = join(work, `agree-${name}.csv`);
  writeFileSync(file, csvLine(['name']) + items.map((x) => csvLine([x])).join(''));
  const out = join(work, `agree-${name}-out`);
  rmSync(join(work, 'agree-cache'), { recursive: true, force: true });
  await runCatalog({ command: 'dedup', input: { path: file, textColumn: 'name' }, outPrefix: out, candidates: 'index', cacheDir: join(work, 'agree-cache') }, same);
  const viaCatalog = readFileSync(`${out}.jsonl`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).map((c) => ({ canonical: c.canonical, members: c.members.map((m) => m.text) }));
  return { same: JSON.stringify(viaDedup) === JSON.stringify(viaCatalog), clusters: viaDedup.length };
}
let identical = 0;
for (const m of menus) if ((await agree(m.items, m.menu)).same) identical++;
const all = menus.flatMap((m) => m.items);
const whole = await agree(all, 'all-menus');
console.log(`per menu: ${identical}/${menus.length} identical; all ${all.length} items as one catalog: ${whole.clusters} clusters, ${whole.same ? 'identical' : 'DIFFERENT'} [target identical: ${target(identical === menus.length && whole.same, 'catalog clusters differ from /dedup')}]`);

}
await loaded.close();
for (const w of warnings) console.log(`WARNING target missed: ${w}`);
console.log(`\ndone (${warnings.length} targets missed); catalogs and outputs left in ${work}`);
