#!/usr/bin/env node
// Whether every fitted file under models/ is what its committed fit script gives today (npm run check:fits): each
// script is run with --out into a temporary folder seeded with the committed file, reading the committed code, knowledge and dev data (and the other
// committed fits), and its output is compared with the committed file, value by value. A file that differs was
// fitted on code or data that has changed since: refit it with its script and commit it with the numbers it moves.
// Takes about twenty minutes on two cores (the search ranker is most of it). Exits 1 when any file differs.
// The fits read vectors from the int8 encoder, whose kernels ONNX Runtime picks by CPU (AMX, AVX-512 VNNI, AVX-VNNI or
// AVX2) and which round differently: the same commit gives a calibration slope of 10.379 on one kind and 10.397 on the
// other, and a near tie between two candidates can fall either way. Compare on the CPU kind the files were fitted on:
// the line this prints first names the kind here, each fit that reads vectors records its own kind (int8_kernels), and
// a file fitted on another kind is reported as such.
//   npx tspc -p tsconfig.json && node scripts/check-fits.mjs [--only name,name]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { int8Kernels } from './lib/int8-kernels.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Each fit script and the file it writes by default. */
const FITS = [
  ['match-calibration', 'models/calibration/same-dish-cosine.json'],
  ['menu-vector', 'models/calibration/menu-vector.json'],
  ['match-gates', 'models/calibration/match-gates.json'],
  ['profile-confidence', 'models/calibration/profile-sources.json'],
  ['cuisine-confidence', 'models/calibration/cuisine-sources.json'],
  ['suggest-upsell', 'models/rankers/suggest-upsell.json'],
  ['search-ranker', 'models/rankers/search-relevance.json'],
];

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : null;
const unknown = only ? [...only].filter((n) => !FITS.some(([name]) => name === n)) : [];
if (unknown.length > 0) {
  console.error(`check-fits: no fit named ${unknown.join(', ')} (known: ${FITS.map(([n]) => n).join(', ')})`);
  process.exit(2);
}

/** Every leaf of a JSON value by its path ("metrics.development_fit.ndcg_at_10", "weights[3]"). */
function leaves(value, path = '', out = new Map()) {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  else out.set(path, value);
  return out;
}

const here = int8Kernels();
console.log(`int8 kernels on this CPU: ${here} (fits differ in their last digits between CPU kinds)`);

const dir = mkdtempSync(join(tmpdir(), 'check-fits-'));
let differing = 0;
/** Of those, files fitted on another kernel family than this CPU's. */
let acrossKinds = 0;
try {
  for (const [name, committed] of FITS) {
    if (only && !only.has(name)) continue;
    const out = join(dir, `${name}.json`);
    // A fit that starts from the model at its output path (the search ranker: its rules and strength move only when
    // clearly better than the committed ones) must start from the committed file here too, as it does in a refit.
    copyFileSync(join(root, committed), out);
    const started = Date.now();
    const run = spawnSync(process.execPath, [join(root, 'scripts', `fit-${name}.mjs`), '--out', out], { cwd: root, encoding: 'utf8' });
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (run.status !== 0) {
      console.log(`${name}: the fit failed (exit ${run.status}, ${seconds} s)\n${(run.stderr || run.stdout).trim().split('\n').slice(-5).join('\n')}`);
      differing++;
      continue;
    }
    const committedFile = JSON.parse(readFileSync(join(root, committed), 'utf8'));
    const a = leaves(committedFile);
    const b = leaves(JSON.parse(readFileSync(out, 'utf8')));
    // The kernel family is where the fit ran, not a fitted value.
    const changed = [...new Set([...a.keys(), ...b.keys()])].filter((k) => k !== 'int8_kernels' && a.get(k) !== b.get(k));
    if (changed.length === 0) {
      console.log(`${name}: same as ${committed} (${seconds} s)`);
      continue;
    }
    differing++;
    const gaps = changed.map((k) => (typeof a.get(k) === 'number' && typeof b.get(k) === 'number' ? Math.abs(a.get(k) - b.get(k)) : Infinity));
    const widest = Math.max(...gaps);
    const fittedOn = committedFile.int8_kernels;
    const kind = fittedOn === undefined ? ' (its file does not record the CPU kind it was fitted on)'
      : fittedOn !== here ? ` (fitted on ${fittedOn} kernels, here ${here}: rounding, compare on ${fittedOn})` : '';
    if (fittedOn !== undefined && fittedOn !== here) acrossKinds++;
    console.log(`${name}: ${changed.length} values differ from ${committed}${Number.isFinite(widest) ? ` (widest gap ${widest.toPrecision(3)})` : ''}${kind} (${seconds} s)`);
    for (const k of changed.slice(0, 6)) console.log(`  ${k}: ${JSON.stringify(a.get(k))} -> ${JSON.stringify(b.get(k))}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(differing === 0 ? 'every fitted file is what its script gives'
  : differing === acrossKinds ? `${differing} fitted file(s) differ, each fitted on another CPU kind: check them on that kind before refitting`
  : `${differing} fitted file(s) differ from what their script gives: refit and commit them`);
process.exit(differing === 0 ? 0 : 1);
