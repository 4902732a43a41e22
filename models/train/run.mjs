#!/usr/bin/env node
// `npm run train -- <id> [--resume] [--record] [--threads N] [train.py options]`: trains one delta from the repository
// alone, in the training venv (models/train/.venv, torch), never as part of the set-up.
//   <id>       a model of models/manifest.json with a delta: trains its committed recipe (models/deltas/<id>/config.json)
//              into models/cache/deltas/<id>/, checkpointing into models/cache/train/<id>/; a new id needs
//              `--kind biencoder|cross|search_cross|student` and takes train.py's (distill.py's for a student) defaults and options
//   heads      refits the cuisine, course and non-food heads for the served encoder into models/heads/
//   --resume   continues the interrupted run from its checkpoint
//   --record   copies the finished delta (weights, recipe with its sha256, metrics) into models/deltas/<id>/, rebuilds
//              the models and, for the served bi-encoder, refits the heads: what a commit of a new delta holds
// Prints whether the run reproduced the committed delta bit for bit (the thread count and the CPU move the last bits).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (m) => console.log(`[train] ${m}`);
const die = (m) => {
  console.error(`[train] ${m}`);
  process.exit(2);
};
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) die(`${cmd} ${args.join(' ')} exited with ${r.status}`);
};
const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

const argv = process.argv.slice(2);
const id = argv[0];
if (!id || id.startsWith('-')) die('usage: npm run train -- <model id with a delta | heads> [--resume] [--record] [--kind biencoder|cross|search_cross|student] [--threads N] [train.py / distill.py options]');
const flag = (name) => {
  const i = argv.indexOf(name);
  if (i < 0) return false;
  argv.splice(i, 1);
  return true;
};
const option = (name) => {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  argv.splice(i, 2);
  return v;
};
const record = flag('--record');
const resume = flag('--resume');
const kindOption = option('--kind');
const passThrough = argv.slice(1);

const exporterPython = join(root, 'models', '.venv', 'bin', 'python');
if (!existsSync(exporterPython)) run(process.execPath, [join(root, 'scripts', 'setup.mjs'), '--venv-only']);

if (id === 'heads') {
  run('bash', [join(root, 'models', 'classifier', 'train')]);
  log('heads written to models/heads/ (commit them with the encoder delta they were fitted to)');
  process.exit(0);
}

const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));
const spec = manifest.models[id];
const deltaDir = spec?.delta ? join(root, spec.delta) : join(root, 'models', 'deltas', id);
const recipePath = join(deltaDir, 'config.json');
const recipe = existsSync(recipePath) ? JSON.parse(readFileSync(recipePath, 'utf8')) : null;
const KINDS = { biencoder: 'biencoder', cross: 'cross_encoder', search_cross: 'search_cross_encoder', student: 'student' };
const kind = recipe?.kind ?? KINDS[kindOption] ?? null;
if (!kind) die(`${id} has no committed recipe (${recipePath}); pass --kind biencoder|cross|search_cross|student to train a new delta`);

// torch lives only in the training venv; venv.sh creates it (about 3 GB of wheels) and fetches the base weights.
const trainPython = execFileSync('bash', [join(root, 'models', 'train', 'venv.sh')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
const out = join(root, 'models', 'cache', 'deltas', id);
// A student is distilled from its teacher (models/train/distill.py); the other kinds are LoRA fine-tunes (train.py).
const which = Object.keys(KINDS).find((k) => KINDS[k] === kind);
const args = kind === 'student'
  ? [join(root, 'models', 'train', 'distill.py'), '--out-id', id, '--out-dir', out]
  : [join(root, 'models', 'train', 'train.py'), which, '--out-id', id, '--out-dir', out];
if (recipe) args.push('--recipe', recipePath);
if (resume) args.push('--resume');
args.push(...passThrough);
log(`training ${id} (${kind}${recipe ? `, recipe ${recipePath.slice(root.length + 1)}` : ', new recipe'}); checkpoints in models/cache/train/${id}/`);
run(join(root, trainPython), args);

const trained = join(out, 'delta.safetensors');
const got = sha256(trained);
if (recipe?.delta_sha256) {
  if (got === recipe.delta_sha256) log(`reproduced the committed delta bit for bit (sha256 ${got})`);
  else {
    // How far apart the two runs are, tensor by tensor (numpy in the exporter venv; no torch needed).
    const diff = spawnSync(exporterPython, ['-c', `
import sys, numpy as np
from safetensors.numpy import load_file
a, b = load_file(sys.argv[1]), load_file(sys.argv[2])
worst = max(float(np.abs(a[k].astype(np.float32) - b[k].astype(np.float32)).max()) for k in a)
print(f"{len(a)} tensors, max |difference| {worst:.3g}")`, trained, join(deltaDir, 'delta.safetensors')], { encoding: 'utf8' });
    log(`differs from the committed delta in the last bits: ${(diff.stdout || diff.stderr).trim()} (sha256 ${got})`);
  }
}

if (record) {
  mkdirSync(deltaDir, { recursive: true });
  for (const file of ['delta.safetensors', 'config.json', 'metrics.json']) copyFileSync(join(out, file), join(deltaDir, file));
  log(`recorded ${deltaDir.slice(root.length + 1)}/ (delta.safetensors, config.json, metrics.json)`);
  if (!spec) log(`${id} is not in models/manifest.json yet: add it there to build and serve it`);
  else {
    run(exporterPython, [join(root, 'models', 'build_models.py')]);
    if (manifest.serve.biencoder === id) run('bash', [join(root, 'models', 'classifier', 'train')]);
  }
}
