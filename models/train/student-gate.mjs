#!/usr/bin/env node
// The quality gate a distilled student must pass to be served by default, on the development sets:
//   node models/train/student-gate.mjs <student id> [<teacher id>]
// runs `node dist/eval/run.js --dev --only embeddings,match,search` once per model (MENU_MODEL), then compares every
// pooled development metric: the raw-vector embedding metrics (same-dish AUC, search nDCG@10 of the raw vector,
// recall@10 of the 384-d neighbours at 256/128) within 0.01 of the teacher's, /search nDCG@10 and /match accuracy within
// 0.005. A metric where the student does better passes. Prints one line per metric and exits 0 when all pass.
// This is the development-side screen; the serving decision is the same comparison on the final scoring.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [student, teacherArg] = process.argv.slice(2);
if (!student) {
  console.error('usage: node models/train/student-gate.mjs <student id> [<teacher id>]');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));
const teacher = teacherArg ?? manifest.models[student]?.teacher;
if (!teacher) {
  console.error(`${student} names no teacher in models/manifest.json; pass one`);
  process.exit(2);
}

// dim_recall_at_10_<dim> is printed on the development side only, without the _dev suffix.
const EMBEDDING = /^((same_dish_auc_raw_vector|search_ndcg_at_10_raw_vector)_dev|dim_recall_at_10_\d+)$/;
const TASK = /^(search_ndcg_at_10|match_accuracy)_dev$/;

function evaluate(model) {
  console.error(`[gate] eval --dev with MENU_MODEL=${model}`);
  const r = spawnSync(process.execPath, [join(root, 'dist', 'eval', 'run.js'), '--dev', '--only', 'embeddings,match,search'], {
    cwd: root,
    env: { ...process.env, MENU_MODEL: model },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) {
    console.error(r.stdout.slice(-2000), r.stderr.slice(-2000));
    process.exit(1);
  }
  const metrics = new Map();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\S+) (-?\d+(?:\.\d+)?)\b/.exec(line);
    if (m) metrics.set(m[1], Number(m[2]));
  }
  return metrics;
}

const t = evaluate(teacher);
const s = evaluate(student);
let failed = 0;
let compared = 0;
for (const [name, tv] of t) {
  const tolerance = EMBEDDING.test(name) ? 0.01 : TASK.test(name) ? 0.005 : null;
  if (tolerance === null) continue;
  compared++;
  const sv = s.get(name);
  if (sv === undefined) {
    failed++;
    console.log(`FAIL ${name} teacher ${tv.toFixed(4)} student printed no value`);
    continue;
  }
  const ok = sv >= tv - tolerance;
  if (!ok) failed++;
  console.log(`${ok ? 'pass' : 'FAIL'} ${name} teacher ${tv.toFixed(4)} student ${sv.toFixed(4)} (${(sv - tv >= 0 ? '+' : '') + (sv - tv).toFixed(4)}, allowed -${tolerance})`);
}
if (compared === 0) {
  console.log('FAIL no gate metric was printed by the eval');
  process.exit(1);
}
console.log(`${student} vs ${teacher}: ${compared - failed}/${compared} gate metrics pass`);
process.exit(failed === 0 ? 0 : 1);
