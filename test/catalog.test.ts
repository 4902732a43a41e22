/**
 * The catalog engine without models: the trigram stand-in encoder (helpers/fake-embedder.ts) behind the real cleaning,
 * knowledge base, judge (knowledge-base precision stage), HNSW index and writers. CSV and JSONL input, bad rows,
 * interruption and resume of the embedding store, and agreement with dedupPrepared (the /dedup code) on every pair.
 */
import { HeadFiles } from '../src/core/heads.js';
import t from 'tap';
import { mkdtempSync, readFileSync, existsSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { runCatalog, CatalogInterrupted, type CatalogCommand, type CatalogDeps } from '../src/core/catalog/engine.js';
import { EmbeddingStore } from '../src/core/catalog/embedding-store.js';
import { dedupPrepared, allPairsCandidates, indexCandidates } from '../src/core/dedup.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { readCosineCalibration, readMatchGates } from '../src/core/match.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { CountingEmbedder, trigramVector } from './helpers/fake-embedder.js';
import { csvLine } from '../src/core/catalog/output.js';

const knowledge = loadKnowledge();
/** No cross-encoder: the knowledge base and the committed cosine calibration and gates decide. */
const precision = { model: null, calibration: readCosineCalibration(), gates: readMatchGates() };

function deps(embedder = new CountingEmbedder()): CatalogDeps {
  return { embedder, knowledge, precision, heads: new HeadFiles().for(null) };
}

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'mi-catalog-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const ITEMS: [string, string][] = [
  ['Chicken Biryani Half', 'Spice Hut'],
  ['Chicken Biryani (Full) ₹320', 'Spice Hut'],
  ['Paneer Tikka (6 Pcs)', 'Spice Hut'],
  ['Paneer Tika', 'Tandoor Co'],
  ['Paneer Tikka [Bestseller]', 'Tandoor Co'],
  ['Garlic Naan', 'Tandoor Co'],
  ['Butter Naan', 'Tandoor Co'],
  ['Veg Fried Rice', 'Wok Box'],
  ['Egg Fried Rice', 'Wok Box'],
  ['Veg Fried Rice, Large', 'Wok Box'],
  ['Chilli Chicken Dry', 'Wok Box'],
  ['Chilli Chicken Gravy', 'Wok Box'],
  ['Masala Dosa', 'Udupi'],
  ['Masala Dosa', 'Udupi Outlet 2'],
  ['Gulab Jamun (2 Pcs)', 'Udupi'],
  ['Gulab Jamun', 'Spice Hut'],
  ['Dolo 650 Tablet', 'Pharmacy Plus'],
];

function writeCsv(path: string, rows: readonly (readonly string[])[], header = ['item_name', 'restaurant', 'price']): void {
  writeFileSync(path, csvLine(header) + rows.map((r) => csvLine(r)).join(''));
}

function readCsv(path: string): Record<string, string>[] {
  return parse(readFileSync(path, 'utf8'), { columns: true }) as Record<string, string>[];
}

function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface ClusterLine {
  cluster_id: number;
  canonical: string;
  size: number;
  members: { row: number; text: string; restaurant?: string }[];
}

async function run(command: CatalogCommand, path: string, out: string, extra: Partial<Parameters<typeof runCatalog>[0]> = {}, d = deps()) {
  return runCatalog({ command, input: { path, textColumn: 'item_name' }, outPrefix: out, ...extra }, d);
}

t.test('CSV input: dedup writes one line per row and one per cluster, restaurants carried through', async (t) => {
  const dir = tempDir(t);
  const input = join(dir, 'catalog.csv');
  writeCsv(input, ITEMS.map(([name, r], i) => [name, r, String(100 + i)]));
  const result = await run('dedup', input, join(dir, 'out'));
  t.equal(result.rows, ITEMS.length);
  t.equal(result.rowErrors, 0);
  t.same(result.files.map((f) => f.slice(dir.length + 1)).sort(), ['out.csv', 'out.errors.csv', 'out.jsonl']);
  const rows = readCsv(join(dir, 'out.csv'));
  t.equal(rows.length, ITEMS.length, 'one line per input row');
  t.same(rows.map((r) => r.text), ITEMS.map(([n]) => n), 'texts in input order');
  t.same(rows.map((r) => r.restaurant), ITEMS.map(([, r]) => r), 'restaurant column carried through');
  const clusters = readJsonl(join(dir, 'out.jsonl')) as unknown as ClusterLine[];
  t.equal(clusters.length, result.clusters);
  const byText = (name: string) => rows.find((r) => r.text === name)!;
  t.equal(byText('Chicken Biryani Half').cluster_id, byText('Chicken Biryani (Full) ₹320').cluster_id, 'size variants are one cluster');
  t.not(byText('Chicken Biryani Half').cluster_id, '', 'and it is a cluster');
  t.equal(byText('Masala Dosa').cluster_size, '2', 'exact repeats across outlets are one cluster');
  t.not(byText('Garlic Naan').cluster_id, byText('Butter Naan').cluster_id || 'x', 'Garlic / Butter Naan stay apart');
  t.not(byText('Veg Fried Rice').cluster_id, byText('Egg Fried Rice').cluster_id || 'x', 'a diet conflict stays apart');
  for (const c of clusters) {
    t.ok(c.members.length >= 2 && c.members.length === c.size, 'a cluster has its size in members');
    const lengths = c.members.map((m) => [...m.text].length);
    t.equal([...c.canonical].length, Math.min(...lengths), 'canonical is the shortest member');
    for (const m of c.members) t.equal(rows[m.row - 1]!.cluster_id, String(c.cluster_id), 'members agree with the per-row file');
    t.ok(c.members.every((m) => typeof m.restaurant === 'string'), 'members carry their restaurant');
  }
  t.same(readCsv(join(dir, 'out.errors.csv')), [], 'no bad rows');
  await t.rejects(run('dedup', join(dir, 'out.csv'), join(dir, 'out')), /would overwrite the input/, 'an output never overwrites the input');
});

t.test('JSONL input (and stdin) gives the same clusters as CSV', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 'c.csv'), ITEMS.map(([name, r]) => [name, r, '1']));
  const jsonl = ITEMS.map(([name, r]) => JSON.stringify({ item_name: name, restaurant: r, tags: ['x'] })).join('\n') + '\n';
  writeFileSync(join(dir, 'c.jsonl'), jsonl);
  await run('dedup', join(dir, 'c.csv'), join(dir, 'a'));
  await run('dedup', join(dir, 'c.jsonl'), join(dir, 'b'));
  const fromStdin = await runCatalog(
    { command: 'dedup', input: { path: '-', textColumn: 'item_name', stdin: Readable.from([Buffer.from(jsonl)]) }, outPrefix: join(dir, 's') },
    deps(),
  );
  t.equal(fromStdin.rows, ITEMS.length, 'stdin sniffed as JSONL');
  const a = readFileSync(join(dir, 'a.jsonl'), 'utf8');
  t.equal(readFileSync(join(dir, 'b.jsonl'), 'utf8'), a, 'JSONL file = CSV');
  t.equal(readFileSync(join(dir, 's.jsonl'), 'utf8'), a, 'stdin = CSV');
});

t.test('bad rows are listed in PREFIX.errors.csv and the run goes on', async (t) => {
  const dir = tempDir(t);
  const csv = [
    'item_name,restaurant,price',
    'Paneer Tikka,A,100',
    ',A,100', // empty text
    'Veg Biryani,A', // too few fields
    `${'x'.repeat(501)},A,1`, // too long
    '"Dal Makhani, Full",A,200',
    'Dal Makhani,B,180,extra', // too many fields
    'Jeera Rice,B,90',
  ].join('\n');
  writeFileSync(join(dir, 'bad.csv'), csv + '\n');
  const r = await run('classify', join(dir, 'bad.csv'), join(dir, 'bad-out'));
  t.equal(r.rows, 3, 'the three good rows are processed');
  t.equal(r.rowErrors, 4);
  const errors = readCsv(join(dir, 'bad-out.errors.csv'));
  t.same(errors.map((e) => e.row), ['2', '3', '4', '6'], 'each bad row by its data row number');
  t.same(errors.map((e) => e.line), ['3', '4', '5', '7'], 'and its line in the file');
  t.match(errors[0]!.error, /"item_name" is empty/);
  t.match(errors[1]!.error, /unreadable CSV row/);
  t.match(errors[2]!.error, /501 characters; the limit is 500/);
  t.match(errors[3]!.error, /unreadable CSV row/);
  const out = readCsv(join(dir, 'bad-out.csv'));
  t.same(out.map((o) => o.text), ['Paneer Tikka', 'Dal Makhani, Full', 'Jeera Rice']);
  t.same(out.map((o) => o.row), ['1', '5', '7'], 'good rows keep their row numbers');

  const jsonl = ['{"item_name":"Paneer Tikka"}', '{not json', '[1,2]', '{"name":"no item_name"}', '{"item_name": 42}', '', '{"item_name":"Jeera Rice"}'].join('\n');
  writeFileSync(join(dir, 'bad.jsonl'), jsonl);
  const j = await run('classify', join(dir, 'bad.jsonl'), join(dir, 'badj'));
  t.equal(j.rows, 2);
  const jerr = readCsv(join(dir, 'badj.errors.csv'));
  t.same(jerr.map((e) => e.line), ['2', '3', '4', '5'], 'blank lines are not rows, but lines count');
  t.match(jerr[0]!.error, /not valid JSON/);
  t.match(jerr[1]!.error, /not a JSON object/);
  t.match(jerr[2]!.error, /no "item_name" value/);
  t.match(jerr[3]!.error, /must be a string, got number/);
  t.match(jerr[0]!.excerpt, /\{not json/, 'the excerpt shows the offending input');
});

t.test('a CSV without the text column stops with a clear message', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 'x.csv'), [['a', 'b', 'c']], ['name', 'restaurant', 'price']);
  await t.rejects(run('dedup', join(dir, 'x.csv'), join(dir, 'x-out')), /no column "item_name" in the CSV header \(columns: name, restaurant, price\)/);
  t.notOk(existsSync(join(dir, 'x-out.errors.csv')) || existsSync(join(dir, 'x-out.errors.csv.partial')), 'nothing left behind');
});

t.test('classify: cuisine, course, diet per row; non-food per original', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 'c.csv'), ITEMS.map(([name, r]) => [name, r, '1']));
  await run('classify', join(dir, 'c.csv'), join(dir, 'c-out'));
  const rows = readCsv(join(dir, 'c-out.csv'));
  const byText = (name: string) => rows.find((r) => r.text === name)!;
  t.equal(byText('Chicken Biryani Half').cleaned, 'Chicken Biryani');
  t.equal(byText('Chicken Biryani Half').diet, 'non_veg');
  t.equal(byText('Paneer Tikka (6 Pcs)').diet, 'veg');
  t.equal(byText('Gulab Jamun').course, 'dessert');
  t.equal(byText('Dolo 650 Tablet').non_food, 'pharmacy', 'a medicine is non-food');
  t.equal(byText('Masala Dosa').non_food, '', 'food is not');
  t.ok(rows.every((r) => r.cuisine !== ''), 'every row has a cuisine or uncertain');
  const jl = readJsonl(join(dir, 'c-out.jsonl'));
  t.equal(jl.length, rows.length);
  t.equal(jl.find((r) => r.text === 'Masala Dosa')!.non_food, null);
});

t.test('report: catalog-level /report fields and one line per restaurant', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 'r.csv'), ITEMS.map(([name, r]) => [name, r, '1']));
  await run('report', join(dir, 'r.csv'), join(dir, 'r-out'));
  const report = JSON.parse(readFileSync(join(dir, 'r-out.json'), 'utf8'));
  t.equal(report.total_items, ITEMS.length);
  t.ok(report.noise_analysis.items_with_noise >= 5, 'prices, sizes and labels are noise');
  t.ok(report.dedup_summary.total_duplicate_items >= 3);
  t.equal(report.non_food_count, 1);
  t.same(report.non_food_items, [{ item: 'Dolo 650 Tablet', category: 'pharmacy' }]);
  t.type(report.quality_score, 'number');
  const per = readCsv(join(dir, 'r-out.csv'));
  t.same(new Set(per.map((p) => p.restaurant)), new Set(ITEMS.map(([, r]) => r)), 'one row per restaurant');
  t.equal(per.reduce((s, p) => s + Number(p.total_items), 0), ITEMS.length, 'restaurant rows add up to the catalog');
  const spice = per.find((p) => p.restaurant === 'Spice Hut')!;
  t.equal(spice.duplicate_items, '1', 'the two biryani sizes are one duplicate within Spice Hut');
  const pharmacy = per.find((p) => p.restaurant === 'Pharmacy Plus')!;
  t.equal(pharmacy.non_food_items, '1');
});

t.test('embed: a .npy matrix of the distinct cleaned texts and the row → vector map', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 'e.csv'), ITEMS.map(([name, r]) => [name, r, '1']));
  const r = await run('embed', join(dir, 'e.csv'), join(dir, 'e-out'));
  const npy = readFileSync(join(dir, 'e-out.npy'));
  t.equal(npy.subarray(1, 6).toString('latin1'), 'NUMPY');
  const headerLength = npy.readUInt16LE(8);
  t.match(npy.subarray(10, 10 + headerLength).toString('latin1'), `'shape': (${r.distinctTexts}, 384)`);
  const body = new Float32Array(npy.buffer.slice(npy.byteOffset + 10 + headerLength, npy.byteOffset + npy.length));
  t.equal(body.length, r.distinctTexts * 384);
  const rows = readCsv(join(dir, 'e-out.csv'));
  const dosa = rows.find((x) => x.text === 'Masala Dosa')!;
  const v = body.subarray(Number(dosa.vector_index) * 384, (Number(dosa.vector_index) + 1) * 384);
  t.same(Array.from(v), Array.from(trigramVector(dosa.cleaned!)), 'the row points at its cleaned text vector');
});

t.test('interruption mid-embed and resume: the rerun embeds only what the store lacks', async (t) => {
  const dir = tempDir(t);
  const names = Array.from({ length: 300 }, (_, i) => [`Dish Number ${i} Special`, `R${i % 7}`, '1']);
  writeCsv(join(dir, 'big.csv'), names);
  const controller = new AbortController();
  const first = new CountingEmbedder('fake-trigram-v1', 0, (calls) => {
    if (calls === 3) controller.abort(); // Ctrl-C while the third batch is being embedded
  });
  const error = await run('dedup', join(dir, 'big.csv'), join(dir, 'out'), { embedBatch: 40, signal: controller.signal }, deps(first)).catch((e: unknown) => e);
  t.type(error, CatalogInterrupted);
  t.equal((error as CatalogInterrupted).stage, 'embed');
  t.equal((error as CatalogInterrupted).embeddingsStored, 120, 'the three batches done are stored');
  t.same(readdirSync(dir).filter((f) => f.startsWith('out.') && f !== 'out.cache'), [], 'no output and no .partial file left');

  const store = EmbeddingStore.open(join(dir, 'out.cache'), 'fake-trigram-v1', 384);
  const cached = new Set(Array.from({ length: 300 }, (_, i) => `Dish Number ${i} Special`).filter((x) => store.slotOf(x) !== undefined));
  store.close();
  t.equal(cached.size, 120);

  const second = new CountingEmbedder();
  const result = await run('dedup', join(dir, 'big.csv'), join(dir, 'out'), { embedBatch: 40 }, deps(second));
  t.equal(result.reusedEmbeddings, 120);
  t.equal(result.embedded, 180);
  t.equal(second.embeddedTexts.length, 180, 'the encoder saw only the missing texts');
  t.notOk(second.embeddedTexts.some((x) => cached.has(x)), 'and none of the cached ones');
  t.ok(existsSync(join(dir, 'out.csv')) && existsSync(join(dir, 'out.jsonl')));

  const third = new CountingEmbedder();
  const again = await run('classify', join(dir, 'big.csv'), join(dir, 'out'), {}, deps(third));
  t.equal(third.calls.length, 0, 'a third run embeds nothing');
  t.equal(again.reusedEmbeddings, 300);

  const otherModel = new CountingEmbedder('another-model');
  await run('embed', join(dir, 'big.csv'), join(dir, 'out'), {}, deps(otherModel));
  t.equal(otherModel.embeddedTexts.length, 300, 'vectors of another model are never reused');
});

t.test('a torn store (killed mid-append) is cut back to whole records on open', async (t) => {
  const dir = tempDir(t);
  const store = EmbeddingStore.open(dir, 'm', 4);
  store.append(['a', 'b'], [Float32Array.of(1, 0, 0, 0), Float32Array.of(0, 1, 0, 0)]);
  store.close();
  // A vector written without its text line, and half a text line.
  writeFileSync(join(dir, 'm.f32'), Buffer.concat([readFileSync(join(dir, 'm.f32')), Buffer.from(Float32Array.of(0, 0, 1, 0).buffer)]));
  writeFileSync(join(dir, 'm.texts'), readFileSync(join(dir, 'm.texts'), 'utf8') + '"c');
  const reopened = EmbeddingStore.open(dir, 'm', 4);
  t.equal(reopened.size, 2);
  t.equal(reopened.slotOf('c'), undefined);
  reopened.append(['c'], [Float32Array.of(0, 0, 0, 1)]);
  const out = new Float32Array(12);
  reopened.read([0, 1, 2], out);
  t.same(Array.from(out), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
  reopened.close();
});

t.test('index candidates = all-pairs candidates, and catalog clusters = dedupPrepared clusters', async (t) => {
  // Menu-like names with many near neighbours (trigram cosines). The threshold is one no trigram cosine sits on: at a
  // rational cosine such as 7/10 the native kernel's float32 sum and the judge's double sum round either way.
  const bases = ['Chicken Biryani', 'Paneer Tikka', 'Veg Fried Rice', 'Masala Dosa', 'Butter Naan', 'Chilli Paneer', 'Mutton Rogan Josh', 'Cold Coffee', 'Gulab Jamun', 'Veg Hakka Noodles'];
  const mods = ['', ' Special', ' Combo', ' Jain', ' Large', ' Family Pack', ' with Raita', ' Dry', ' Half', ' Classic', ' Spicy', ' Tandoori'];
  const items: string[] = [];
  for (const b of bases) for (const m of mods) for (const p of ['', 'Hyderabadi ', 'Andhra ', 'Home Style ']) items.push(`${p}${b}${m}`);
  const texts = items.map((x) => parseMenuText(knowledge, x));
  const vectors = texts.map((x) => trigramVector(x.text));
  const exact = await dedupPrepared(knowledge, texts, vectors, { cosineThreshold: 0.73, precision, candidates: allPairsCandidates });
  const indexed = await dedupPrepared(knowledge, texts, vectors, { cosineThreshold: 0.73, precision, candidates: indexCandidates() });
  t.ok(exact.stats.candidates > 200, `a real candidate load (${exact.stats.candidates} pairs)`);
  t.equal(indexed.stats.candidates, exact.stats.candidates, 'the index finds every pair all-pairs finds');
  t.same(indexed.clusters.map((c) => c.members), exact.clusters.map((c) => c.members), 'identical clusters');

  const dir = tempDir(t);
  writeCsv(join(dir, 'm.csv'), items.map((x) => [x, 'R', '1']));
  const r = await run('dedup', join(dir, 'm.csv'), join(dir, 'm-out'), { cosineThreshold: 0.73, candidates: 'index' });
  const clusters = readJsonl(join(dir, 'm-out.jsonl')) as unknown as ClusterLine[];
  t.equal(r.clusters, exact.clusters.length);
  t.same(
    clusters.map((c) => ({ canonical: c.canonical, members: c.members.map((m) => m.text) })),
    exact.clusters.map((c) => ({ canonical: items[c.canonical], members: c.members.map((m) => items[m]) })),
    'the catalog run and /dedup agree on every cluster',
  );
});
