/**
 * `npm run eval`: scores every model-backed feature and prints one line per metric: `<metric> <value> (<details>)`.
 *
 *   npm run eval                      development sets (`<metric>_dev`) and the held-out set (`<metric>`), side by side
 *   npm run eval -- --dev [--errors]  development sets only, each set on its own line too; --errors lists their mistakes
 *   npm run eval -- --only a,b        some parts: embeddings, knowledge, match, search, search_reranker, dedup, report,
 *                                     classify, nonfood, suggest, models
 *
 * Development sets live in eval/dev/ (tune on them freely). The held-out set in eval/heldout/ is read through
 * eval/heldout.ts by the final scoring alone: a `--dev` or `--errors` run never opens it (eval/LABELLING.md).
 */

import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { Services } from '../src/core/services.js';
import { dot } from '../src/core/inference/encoder.js';
import { REPO_ROOT } from '../src/core/paths.js';
import { auc, realMenuItems, sample, sharedAvailable } from './data.js';
import { EVAL_PARTS, type EvalKit } from './extra.js';
import { knowledgeDrift } from './drift.js';
import { isTuningRun, loadHeldOutSets } from './heldout.js';
import { bySet, devSameDishPairs, loadDevSets, type EvalSets } from './sets.js';

const printed = new Map<string, string>();

export function metric(name: string, value: number | string, detail = ''): void {
  const v = typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(4) : 'n/a') : value;
  printed.set(name, v);
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

function onlyParts(): ReadonlySet<string> | undefined {
  const i = process.argv.indexOf('--only');
  return i >= 0 && process.argv[i + 1] ? new Set(process.argv[i + 1]!.split(',')) : undefined;
}

/** Cleaning and the raw vectors: what /embed customers get, before any rule. */
async function evalEmbeddings(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  const { services } = kit;
  await section(`noise_clean_exact_match${label}`, async () => {
    if (sets.noise.length === 0) throw new Error('no labelled cleaning rows');
    let exact = 0;
    let tp = 0, fp = 0, fn = 0;
    // Casing and spacing need not match (LABELLING.md), spacing around a "+" join included: "Dal Tadka+Jeera Rice" is
    // "Dal Tadka + Jeera Rice" as printed, which is how the cleaner spells every join.
    const norm = (t: string): string => t.toLowerCase().replace(/\s*\+\s*/g, ' + ').replace(/\s+/g, ' ').trim();
    for (const r of sets.noise) {
      const c = services.cleaner.clean(r.original);
      if (norm(c.name) === norm(r.expected)) exact++;
      else if (sets.side === 'dev' && process.argv.includes('--errors')) console.log(`  dev cleaning: "${r.original}" -> "${c.name}" (expected "${r.expected}")`);
      const predicted = c.removed.length > 0 || norm(c.name) !== norm(r.original);
      if (predicted && r.has_noise) tp++;
      else if (predicted) fp++;
      else if (r.has_noise) fn++;
    }
    metric(`noise_clean_exact_match${label}`, exact / sets.noise.length, `${exact}/${sets.noise.length} labelled real menu names, case and spacing aside`);
    for (const [set, rows] of bySet(sets.noise)) {
      const right = rows.filter((r) => norm(services.cleaner.clean(r.original).name) === norm(r.expected)).length;
      metric(`noise_clean_exact_match${label}_${set.replace('noise_dev_labelled_', '')}`, right / rows.length, `${right}/${rows.length}`);
    }
    metric(`noise_detect_f1${label}`, (2 * tp) / (2 * tp + fp + fn), `tp ${tp} fp ${fp} fn ${fn}`);
  });

  await section(`same_dish_auc_raw_vector${label}`, async () => {
    const rows = [...sets.match.flatMap((m) => m.rows), ...(sets.side === 'dev' ? devSameDishPairs() : [])];
    if (rows.length === 0) throw new Error('no labelled pairs');
    const a = await services.embedTexts(rows.map((r) => r.text_a), 384);
    const b = await services.embedTexts(rows.map((r) => r.text_b), 384);
    const scores = rows.map((_, i) => dot(a.vectors[i]!, b.vectors[i]!));
    metric(`same_dish_auc_raw_vector${label}`, auc(scores, rows.map((r) => r.same)), `${rows.length} labelled pairs, cosine of /embed vectors (384-d), no rules`);
  });

  if (sets.side !== 'dev') return;
  await section('dim_recall_at_10', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const enc = services.requireEncoder();
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

  // How far a vector depends on the texts it was encoded with (docs/embed.md, Repeatability): the int8 encoder
  // quantises each run's activations with one scale. Each name encoded alone against the same name encoded in one
  // request of all of them (runs as the batcher makes them), with no cache to hide the difference.
  await section('embed_batch_repeatability', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    // The encoder alone: no cache, no cross-encoders (this measures the vectors, nothing downstream of them).
    const fresh = new Services(loadConfig({ ...process.env, PORT: '0', MENU_CACHE_BYTES: '0', MENU_RERANKERS: 'off' }));
    try {
      await fresh.ready;
      const enc = fresh.requireEncoder();
      const names = sample([...new Set(realMenuItems().map((x) => fresh.cleaner.clean(x.name).text))], 1000, 13);
      const together = await enc.encode(names, 384);
      const cosines: number[] = [];
      for (let i = 0; i < names.length; i++) cosines.push(dot((await enc.encode([names[i]!], 384))[0]!, together[i]!));
      cosines.sort((x, y) => x - y);
      const identical = cosines.filter((c) => c >= 1 - 1e-6).length;
      metric('embed_batch_repeatability', cosines[0]!, `least cosine of a name encoded alone to itself encoded among ${names.length} real menu names (runs of up to ${fresh.config.batchMaxItems}); 1st percentile ${cosines[Math.floor(cosines.length / 100)]!.toFixed(4)}, median ${cosines[cosines.length >> 1]!.toFixed(4)}, identical ${identical}`);
    } finally {
      await fresh.close();
    }
  });
}

/** The metrics printed for both sides, development beside held-out. */
function sideBySide(): void {
  const rows = [...printed.keys()]
    .filter((k) => k.endsWith('_dev') && printed.has(k.slice(0, -4)))
    .map((k) => [k.slice(0, -4), printed.get(k)!, printed.get(k.slice(0, -4))!] as const);
  if (rows.length === 0) return;
  console.log('# metric | dev | held-out');
  for (const [name, dev, held] of rows) console.log(`# ${name} | ${dev} | ${held}`);
}

async function main(): Promise<void> {
  const only = onlyParts();
  const tuning = isTuningRun();
  const services = new Services(loadConfig({ ...process.env, MENU_CACHE_BYTES: String(256 * 1024 * 1024) }));
  await services.ready;
  const enc = services.requireEncoder();
  console.log(`# eval of ${enc.model.id} on ${new Date().toISOString().slice(0, 10)}; shared data ${sharedAvailable() ? 'present' : 'missing'}`);
  const drift = knowledgeDrift();
  if (drift) console.log(`warning: ${drift}`);

  const kit: EvalKit = { services, metric, section, dot, auc, perSet: tuning };
  const sides: { sets: EvalSets; label: string }[] = [{ sets: loadDevSets(), label: '_dev' }];
  if (!tuning) {
    const held = loadHeldOutSets();
    if (held) sides.push({ sets: held, label: '' });
    else console.log('# no held-out set in this checkout: development metrics only');
  }
  for (const { sets, label } of sides) {
    console.log(sets.side === 'dev' ? '# development sets (eval/dev/, tuned on)' : '# held-out set (read by the final scoring alone)');
    if (!only || only.has('embeddings')) await evalEmbeddings(kit, sets, label);
    for (const [name, part] of EVAL_PARTS) if (!only || only.has(name)) await part(kit, sets, label);
  }
  sideBySide();
  await services.close();

  // Base vs tuned models on the training's validation data (knowledge-base dishes kept out of training).
  if (!only || only.has('models')) await section('models_base_vs_tuned', async () => {
    const python = join(REPO_ROOT, 'models', '.venv', 'bin', 'python');
    // Results go to a temp file: npm run eval must not rewrite the tracked models/train/eval/results.json.
    const out = join(tmpdir(), `menu-intel-model-eval-${process.pid}.json`);
    const r = spawnSync(python, [join(REPO_ROOT, 'models', 'train', 'evaluate.py'), '--json', out], { encoding: 'utf8', timeout: 1_200_000 });
    if (r.status !== 0) throw new Error((r.stderr || r.stdout || 'evaluate.py failed').trim().split('\n').pop()!);
    console.log('# models: base vs tuned on the validation dishes of models/train (models/train/evaluate.py)');
    for (const line of r.stdout.split('\n')) if (line.trim() && !line.startsWith('[eval]')) console.log(`# ${line}`);
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
