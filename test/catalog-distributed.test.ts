/**
 * A distributed catalog run on BullMQ with a real redis-server and three worker processes (the trigram stand-in
 * encoder, helpers/catalog-worker-fake.ts): its clusters equal a single-process run of the same catalog, and a worker
 * killed with SIGKILL in the middle of a chunk loses nothing: the chunk is run again by another worker.
 */
import { HeadFiles } from '../src/core/heads.js';
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCatalog, type CatalogDeps } from '../src/core/catalog/engine.js';
import { runDistributedCatalog } from '../src/core/catalog/distributed.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { readCosineCalibration, readMatchGates } from '../src/core/match.js';
import { csvLine } from '../src/core/catalog/output.js';
import { REPO_ROOT } from '../src/core/paths.js';
import { CountingEmbedder } from './helpers/fake-embedder.js';
import { redisSkipReason, startRedis } from './helpers/redis.js';

const knowledge = loadKnowledge();
/** No cross-encoder: the knowledge base and the committed cosine calibration and gates decide. */
const precision = { model: null, calibration: readCosineCalibration(), gates: readMatchGates() };
const deps = (): CatalogDeps => ({ embedder: new CountingEmbedder(), knowledge, precision, heads: new HeadFiles().for(null) });

/** ~900 rows: dishes × qualifiers × noise, over several restaurants, so chunks, shards and cross-shard pairs all occur. */
function catalogRows(): string[][] {
  const bases = ['Chicken Biryani', 'Paneer Tikka', 'Veg Fried Rice', 'Masala Dosa', 'Butter Naan', 'Chilli Paneer', 'Mutton Rogan Josh', 'Cold Coffee', 'Gulab Jamun', 'Veg Hakka Noodles', 'Dal Makhani', 'Egg Curry', 'Aloo Paratha', 'Fish Fry', 'Mango Lassi'];
  const mods = ['', ' Special', ' Combo', ' Jain', ' Family Pack', ' with Raita', ' Dry', ' Classic', ' Spicy', ' Tandoori'];
  const noise = ['', ' (Half)', ' [Bestseller]', ' - 250 ml', ' ₹199'];
  const rows: string[][] = [];
  let k = 0;
  for (const b of bases) for (const m of mods) for (const n of noise) if ((k++ * 7) % 5 !== 1) rows.push([`${b}${m}${n}`, `Restaurant ${k % 9}`, `Outlet ${k % 4}`]);
  // Interleave so every chunk holds every dish.
  return rows.map((r, i) => ({ r, key: (i * 7919) % rows.length })).sort((x, y) => x.key - y.key).map((x) => x.r);
}

interface Worker {
  readonly child: ChildProcess;
  lines: string[];
}

function startWorker(redisUrl: string, cacheDir: string, delayMs: number): Worker {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'test', 'helpers', 'catalog-worker-fake.js'), redisUrl, cacheDir], {
    env: { ...process.env, FAKE_EMBED_DELAY_MS: String(delayMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w: Worker = { child, lines: [] };
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop()!;
    w.lines.push(...parts);
  });
  child.stderr!.on('data', (d: Buffer) => w.lines.push(`stderr: ${d.toString().trim()}`));
  return w;
}

async function waitFor(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('3 workers over BullMQ: the clusters of one process, and a killed worker loses nothing', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const dir = mkdtempSync(join(tmpdir(), 'mi-catalog-dist-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const input = join(dir, 'catalog.csv');
  writeFileSync(input, csvLine(['item_name', 'restaurant', 'outlet']) + catalogRows().map((r) => csvLine(r)).join(''));

  const single = await runCatalog({ command: 'dedup', input: { path: input, textColumn: 'item_name' }, outPrefix: join(dir, 'single'), cosineThreshold: 0.75, candidates: 'index' }, deps());
  t.ok(single.clusters! > 20, `the catalog has real clusters (${single.clusters})`);

  const workers = [0, 1, 2].map((i) => startWorker(redis.url, join(dir, `worker-${i}-cache`), 400));
  t.teardown(() => workers.forEach((w) => w.child.exitCode === null && w.child.kill('SIGKILL')));
  await waitFor(() => workers.every((w) => w.lines.some((l) => l.includes('ready on'))), 30_000, 'three workers');

  // The first worker to take a chunk job is killed while it embeds it.
  let killed: { worker: Worker; job: string } | null = null;
  const watcher = setInterval(() => {
    if (killed) return;
    for (const w of workers) {
      const line = w.lines.find((l) => / [^ ]+-chunk-\d+ started$/.test(l));
      if (line) {
        w.child.kill('SIGKILL');
        killed = { worker: w, job: line.split(' ').at(-2)! };
        return;
      }
    }
  }, 5);
  t.teardown(() => clearInterval(watcher));

  const coordinatorLog: string[] = [];
  const result = await runDistributedCatalog(
    {
      command: 'dedup',
      input: { path: input, textColumn: 'item_name' },
      outPrefix: join(dir, 'dist'),
      cosineThreshold: 0.75,
      redisUrl: redis.url,
      chunkRows: 60,
      shardNames: 90,
      log: (l) => coordinatorLog.push(l),
    },
    deps(),
  );
  clearInterval(watcher);
  t.ok(killed, 'a worker was killed mid-chunk');
  const { worker: dead, job } = killed!;
  t.equal(dead.child.signalCode, 'SIGKILL');
  t.notOk(dead.lines.some((l) => l.endsWith(`${job} done`)), 'the killed worker never finished its chunk');
  const finishers = workers.filter((w) => w !== dead && w.lines.some((l) => l.endsWith(`${job} done`)));
  t.equal(finishers.length, 1, 'another worker ran the chunk again and finished it');
  const survivors = workers.filter((w) => w !== dead);
  t.ok(survivors.every((w) => w.lines.some((l) => / [^ ]+-chunk-\d+ done$/.test(l))), 'both survivors took chunk jobs');
  t.ok(survivors.some((w) => w.lines.some((l) => / [^ ]+-query-\d+-\d+ done$/.test(l))), 'query jobs ran on the workers');

  t.equal(result.rows, single.rows);
  t.equal(result.names, single.names);
  t.equal(result.clusters, single.clusters);
  t.equal(readFileSync(join(dir, 'dist.jsonl'), 'utf8'), readFileSync(join(dir, 'single.jsonl'), 'utf8'), 'clusters identical to the single-process run');
  t.equal(readFileSync(join(dir, 'dist.csv'), 'utf8'), readFileSync(join(dir, 'single.csv'), 'utf8'), 'and so is every row');
  t.match(coordinatorLog.join('\n'), /chunk jobs by 2 workers|chunk jobs by 3 workers/);

  for (const w of survivors) w.child.kill('SIGTERM');
  await Promise.all(survivors.map((w) => new Promise((resolve) => (w.child.exitCode !== null ? resolve(null) : w.child.once('exit', resolve)))));
  t.ok(survivors.every((w) => w.child.exitCode === 0), 'workers stop cleanly on SIGTERM');
});
