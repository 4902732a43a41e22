/**
 * `menu-intel catalog` with the real models: a catalog run and POST /dedup agree on every cluster of the test menus
 * (eval/dev/dedup_dev_menus.jsonl: 20 menus, 1,551 items, each menu alone and all of them as one catalog); the CLI
 * end to end: Ctrl-C (SIGINT) mid-run stops cleanly and says what it kept, the rerun reuses those embeddings, --quiet
 * prints nothing, and a terminal gets progress bars with rate and ETA.
 */
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';
import { runCatalog, type CatalogDeps } from '../src/core/catalog/engine.js';
import { csvLine } from '../src/core/catalog/output.js';
import { REPO_ROOT } from '../src/core/paths.js';
import { catalogDeps } from '../src/cli/catalog.js';

interface Menu {
  menu: string;
  items: string[];
}
interface Cluster {
  canonical: string;
  members: string[];
}

const menus = readFileSync(join(REPO_ROOT, 'eval', 'dev', 'dedup_dev_menus.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Menu);

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'mi-catalog-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a catalog run and POST /dedup give identical clusters on the test menus', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  // The catalog CLI's own dependencies, over the test server's loaded services.
  const deps: CatalogDeps = catalogDeps(srv.services);
  const dir = tempDir(t);
  const viaHttp = async (items: string[]): Promise<Cluster[]> => {
    const r = await call<{ clusters: Cluster[] }>(srv.url, 'POST', '/dedup', { items }, { 'x-api-key': OPERATOR_KEY });
    t.equal(r.status, 200);
    return r.body.clusters.map((c) => ({ canonical: c.canonical, members: c.members }));
  };
  const viaCatalog = async (items: string[], name: string): Promise<Cluster[]> => {
    const file = join(dir, `${name}.csv`);
    writeFileSync(file, csvLine(['item_name']) + items.map((x) => csvLine([x])).join(''));
    // The index, not all-pairs, so the test compares the two candidate sources as well as the rest of the path. A
    // fresh store, so the vectors come from the encoder's cache that /dedup just filled: int8 inference quantises each
    // batch with its own scale, and the test compares clustering, not batch composition.
    await runCatalog({ command: 'dedup', input: { path: file, textColumn: 'item_name' }, outPrefix: join(dir, `${name}-out`), candidates: 'index', cacheDir: join(dir, `${name}-cache`) }, deps);
    return readFileSync(join(dir, `${name}-out.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { canonical: string; members: { text: string }[] })
      .map((c) => ({ canonical: c.canonical, members: c.members.map((m) => m.text) }));
  };
  let clusters = 0;
  for (const m of menus) {
    const expected = await viaHttp(m.items);
    clusters += expected.length;
    t.same(await viaCatalog(m.items, m.menu), expected, `${m.menu}: identical clusters`);
  }
  t.ok(clusters > 100, `the menus hold real clusters (${clusters})`);
  const all = menus.flatMap((m) => m.items);
  t.ok(all.length <= 2000 && all.length > 1500);
  const expected = await viaHttp(all);
  t.same(await viaCatalog(all, 'all-menus'), expected, `all ${all.length} items as one catalog: identical clusters`);
});

/** n rows of n distinct dish names (cleaning keeps them apart: no numbers, sizes or prices in them). */
function writeCatalog(path: string, n: number): void {
  const styles = ['Hyderabadi', 'Andhra', 'Kerala', 'Punjabi', 'Chettinad', 'Malabar', 'Lucknowi', 'Kolhapuri', 'Goan', 'Bengali', 'Awadhi', 'Mughlai', 'Udupi', 'Rajasthani', 'Kashmiri', 'Sindhi', 'Parsi', 'Konkani', 'Bihari', 'Assamese'];
  const mains = ['Paneer', 'Chicken', 'Mutton', 'Prawn', 'Fish', 'Egg', 'Mushroom', 'Aloo', 'Gobi', 'Soya', 'Corn', 'Tofu', 'Lamb', 'Crab', 'Bhindi', 'Chana', 'Rajma', 'Baingan', 'Methi', 'Palak'];
  const dishes = ['Curry', 'Biryani', 'Fry', 'Masala', 'Roast', 'Kebab', 'Pulao', 'Tikka', 'Korma', 'Stew', 'Pepper Fry', 'Ghee Roast', 'Do Pyaza', 'Kadai', 'Bhuna', 'Handi', 'Chettinad Gravy', 'Sukka'];
  const lines = [csvLine(['name', 'restaurant'])];
  for (let i = 0; i < n; i++) {
    const name = `${styles[i % styles.length]} ${mains[Math.floor(i / styles.length) % mains.length]} ${dishes[Math.floor(i / (styles.length * mains.length)) % dishes.length]}`;
    lines.push(csvLine([name, `R${i % 13}`]));
  }
  writeFileSync(path, lines.join(''));
}

const cli = join(REPO_ROOT, 'bin', 'menu-intel.js');

t.test('CLI: Ctrl-C mid-run stops cleanly, says what it kept, and the rerun reuses it', async (t) => {
  const dir = tempDir(t);
  const input = join(dir, 'catalog.csv');
  writeCatalog(input, 2500);
  const out = join(dir, 'out');
  const child = spawn(process.execPath, [cli, 'catalog', 'embed', input, '--text-column', 'name', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // Wait until the first embedding batches are on disk, then press Ctrl-C.
  const stored = (): number => {
    const cache = join(dir, 'out.cache');
    if (!existsSync(cache)) return 0;
    const f32 = spawnSync('sh', ['-c', `cat ${cache}/*.f32 2>/dev/null | wc -c`]).stdout.toString().trim();
    return Number(f32) / (384 * 4);
  };
  const deadline = Date.now() + 120_000;
  while (stored() < 512 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  t.ok(stored() >= 512, 'some batches were stored before the interrupt');
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  t.equal(code, 130, 'exit code 130 after Ctrl-C');
  t.match(stderr, /Ctrl-C: stopping after the current batch/);
  t.match(stderr, /interrupted during embed: no output file written; [\d,]+ embeddings are stored in .*out\.cache/);
  const kept = Number(/; ([\d,]+) embeddings are stored/.exec(stderr)![1]!.replace(/,/g, ''));
  t.ok(kept >= 512 && kept < 2400, `a part was kept (${kept})`);
  t.notOk(existsSync(`${out}.csv`) || existsSync(`${out}.npy`) || existsSync(`${out}.csv.partial`), 'no output and no partial file');
  t.match(stdout, /clean: [\d.]+s, 2,500 rows/, 'stdout not a terminal: one line per finished stage');

  const rerun = spawnSync(process.execPath, [cli, 'catalog', 'embed', input, '--text-column', 'name', '--out', out], { encoding: 'utf8' });
  t.equal(rerun.status, 0, rerun.stderr);
  const m = /embeddings: ([\d,]+) computed, ([\d,]+) reused/.exec(rerun.stdout);
  t.ok(m, rerun.stdout);
  const [computed, reused] = [Number(m![1]!.replace(/,/g, '')), Number(m![2]!.replace(/,/g, ''))];
  const distinct = Number(/([\d,]+) distinct texts/.exec(rerun.stdout)![1]!.replace(/,/g, ''));
  t.ok(distinct > 2400, `the catalog's names stay distinct after cleaning (${distinct})`);
  t.equal(reused, kept, 'every stored embedding is reused');
  t.equal(computed + reused, distinct, 'and only the rest is computed');
  t.equal(statSync(`${out}.npy`).size, 128 + distinct * 384 * 4, 'the outputs are written: one vector per distinct text');

  const quiet = spawnSync(process.execPath, [cli, 'catalog', 'dedup', input, '--text-column', 'name', '--out', join(dir, 'q'), '--cache-dir', join(dir, 'out.cache'), '--quiet'], { encoding: 'utf8' });
  t.equal(quiet.status, 0, quiet.stderr);
  t.equal(quiet.stdout, '', '--quiet prints nothing');
  t.ok(existsSync(join(dir, 'q.jsonl')));

  const bad = spawnSync(process.execPath, [cli, 'catalog', 'dedup', input, '--text-column', 'nope', '--out', join(dir, 'bad')], { encoding: 'utf8' });
  t.equal(bad.status, 2);
  t.match(bad.stderr, /no column "nope" in the CSV header \(columns: name, restaurant\)/);
  const usage = spawnSync(process.execPath, [cli, 'catalog', 'dedup', input, '--out', join(dir, 'bad')], { encoding: 'utf8' });
  t.equal(usage.status, 2);
  t.match(usage.stderr, /--text-column is required/);
});

t.test('CLI: on a terminal, a progress bar per stage with rate and ETA', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async (t) => {
  const dir = tempDir(t);
  const input = join(dir, 'catalog.csv');
  writeCatalog(input, 1500);
  const command = [process.execPath, cli, 'catalog', 'dedup', input, '--text-column', 'name', '--out', join(dir, 'tty')].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('/usr/bin/script', ['-q', '-e', '-c', command, '/dev/null'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '160' } });
  t.equal(r.status, 0, r.stderr);
  const screen = r.stdout;
  for (const stage of ['clean', 'embed', 'index', 'cluster', 'write']) t.match(screen, new RegExp(`${stage}\\s+\\[[█░]+\\]`), `a bar for ${stage}`);
  t.match(screen, /embed\s+\[[█░]+\] \d+% \| [\d,]+\/1,[45]\d\d texts \| [\d,]+\/s \| ETA/, 'the embed bar shows count, rate and ETA');
  t.match(screen, /wrote .*tty\.csv/);
});
