/**
 * `npm run eval`: scores every model-backed feature and prints one line per metric:
 *   <metric> <value> (<details>)
 * Data: labelled fixtures of ours (test/fixtures, models/train/eval) and real menus from ../shared/data read at run time.
 * Nothing here is used for tuning: fixtures that are eval sets say so in their headers.
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { Services } from '../src/core/services.js';
import { dot } from '../src/core/inference/encoder.js';
import { REPO_ROOT } from '../src/core/paths.js';
import { auc, readFixture, realMenuItems, sample, sharedAvailable } from './data.js';
import { evalExtra } from './extra.js';

export function metric(name: string, value: number | string, detail = ''): void {
  const v = typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(4) : 'n/a') : value;
  console.log(`${name} ${v}${detail ? ` (${detail})` : ''}`);
}


function topK(vectors: Float32Array[], q: number, k: number): number[] {
  const scores = vectors.map((v, i) => [i === q ? -Infinity : dot(vectors[q]!, v), i] as const);
  scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return scores.slice(0, k).map((s) => s[1]);
}

async function section(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    metric(name, 'n/a', err instanceof Error ? err.message.split('\n')[0]! : String(err));
  }
}

/** `--only match,search` runs just those parts (a quicker loop while tuning on the dev third); the full run is what
 * gets reported. */
function onlyParts(): ReadonlySet<string> | undefined {
  const i = process.argv.indexOf('--only');
  return i >= 0 && process.argv[i + 1] ? new Set(process.argv[i + 1]!.split(',')) : undefined;
}

async function main(): Promise<void> {
  const only = onlyParts();
  const services = new Services(loadConfig({ ...process.env, MENU_CACHE_BYTES: String(256 * 1024 * 1024) }));
  await services.ready;
  const enc = services.requireEncoder();
  console.log(`# eval of ${enc.model.id} on ${new Date().toISOString().slice(0, 10)}; shared data ${sharedAvailable() ? 'present' : 'missing'}`);

  if (!only || only.has('embeddings')) await section('noise_clean_exact_match', async () => {
    const rows = readFixture('test/fixtures/noise_labelled.tsv');
    let exact = 0;
    let noiseTp = 0, noiseFp = 0, noiseFn = 0;
    for (const r of rows) {
      const c = services.cleaner.clean(r.original!);
      if (c.text.toLowerCase() === r.expected!.toLowerCase()) exact++;
      const predicted = c.removed.length > 0;
      const actual = r.has_noise === '1';
      if (predicted && actual) noiseTp++;
      else if (predicted) noiseFp++;
      else if (actual) noiseFn++;
    }
    metric('noise_clean_exact_match', exact / rows.length, `${exact}/${rows.length} labelled real menu names, case-insensitive`);
    metric('noise_detect_f1', (2 * noiseTp) / (2 * noiseTp + noiseFp + noiseFn), `tp ${noiseTp} fp ${noiseFp} fn ${noiseFn}`);
  });

  if (!only || only.has('embeddings')) await section('same_dish_auc_cosine', async () => {
    const rows = readFixture('test/fixtures/same_dish_pairs.tsv');
    const a = await services.embedTexts(rows.map((r) => r.text_a!), 384);
    const b = await services.embedTexts(rows.map((r) => r.text_b!), 384);
    const scores = rows.map((_, i) => dot(a.vectors[i]!, b.vectors[i]!));
    const labels = rows.map((r) => r.same === '1');
    metric('same_dish_auc_cosine', auc(scores, labels), `${rows.length} labelled pairs, ${enc.model.id}, cleaned text, 384-d`);
  });

  if (!only || only.has('embeddings')) await section('dim_recall_at_10', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const names = [...new Set(realMenuItems().map((x) => services.cleaner.clean(x.name).text))];
    const corpus = sample(names, 2000, 7);
    const full = await enc.encode(corpus, 384);
    const queries = sample([...corpus.keys()], 200, 11);
    for (const dim of [256, 128] as const) {
      const low = await enc.encode(corpus, dim);
      let hit = 0;
      for (const q of queries) {
        const ref = new Set(topK(full, q, 10));
        for (const i of topK(low, q, 10)) if (ref.has(i)) hit++;
      }
      metric(`dim_recall_at_10_${dim}`, hit / (queries.length * 10), `384-d neighbours kept at ${dim}, 200 queries over 2000 real menu names; PCA learned from knowledge/ names`);
    }
  });

  if (process.argv.includes('--dev')) console.log('# --dev: the dev third of the match and search fixtures (for tuning; not reported)');
  else console.log('# match and search: the held-out two thirds of their fixtures (the dev third is used for tuning)');
  await evalExtra({ services, metric, section, dot, auc }, only);

  await services.close();

  // Base vs tuned models on the held-out dishes and queries of models/train (Python, the exporter's venv; no torch).
  if (!only || only.has('models')) await section('models_base_vs_tuned', async () => {
    const python = join(REPO_ROOT, 'models', '.venv', 'bin', 'python');
    // Results go to a temp file: npm run eval must not rewrite the tracked models/train/eval/results.json (its
    // latency fields change every run); train.sh records that file when the models change.
    const out = join(tmpdir(), `menu-intel-model-eval-${process.pid}.json`);
    const r = spawnSync(python, [join(REPO_ROOT, 'models', 'train', 'evaluate.py'), '--json', out], { encoding: 'utf8', timeout: 1_200_000 });
    if (r.status !== 0) throw new Error((r.stderr || r.stdout || 'evaluate.py failed').trim().split('\n').pop()!);
    console.log('# models: base vs tuned on held-out data (models/train/evaluate.py)');
    for (const line of r.stdout.split('\n')) if (line.trim() && !line.startsWith('[eval]')) console.log(`# ${line}`);
  });
}

void existsSync(join(REPO_ROOT, 'eval'));
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
