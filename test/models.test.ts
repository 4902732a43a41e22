import t from 'tap';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';

// The tuned models are committed as small deltas (the set-up merges them, never trains), and the classifier heads are
// fitted to the embeddings of one particular encoder: these hold the repository to both.

interface ModelSpec { role: string; base?: string; delta: string | null }
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'models', 'manifest.json'), 'utf8')) as {
  sources: Record<string, { files: Record<string, string> }>;
  models: Record<string, ModelSpec>;
  serve: { biencoder: string; reranker: string | null };
};
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const MAX_DELTA_BYTES = 8 * 1024 * 1024;

t.test('every tuned model has its delta committed, small, beside the config it was trained with', async (t) => {
  const tuned = Object.entries(manifest.models).filter(([, spec]) => spec.delta !== null);
  t.ok(tuned.length >= 2, 'the served bi-encoder and cross-encoder are both tuned');
  for (const [id, spec] of tuned) {
    const folder = join(REPO_ROOT, spec.delta as string);
    const weights = join(folder, 'delta.safetensors');
    t.ok(existsSync(weights), `${id}: ${spec.delta}/delta.safetensors is committed`);
    if (!existsSync(weights)) continue;
    t.ok(statSync(weights).size <= MAX_DELTA_BYTES, `${id}: the delta is at most 8 MB (${statSync(weights).size} bytes)`);
    const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as { format: string; base_model_sha256: string; kind: string };
    t.equal(config.format, 'menu-lora-delta/1', `${id}: a delta the build knows how to merge`);
    const baseFiles = Object.entries(manifest.sources[spec.base ?? '']?.files ?? {});
    const baseWeights = baseFiles.find(([file]) => file.endsWith('model.safetensors'));
    t.equal(config.base_model_sha256, baseWeights?.[1], `${id}: trained on the pinned base weights the build merges it into`);
    t.equal(config.kind, spec.role === 'reranker' ? 'cross_encoder' : 'biencoder', `${id}: the delta's kind fits its role`);
  }
});

t.test('the classifier heads were fitted to the served encoder, delta and all', async (t) => {
  const served = manifest.models[manifest.serve.biencoder];
  if (served === undefined) return t.fail(`the manifest serves ${manifest.serve.biencoder}, which it does not list`);
  const metrics = JSON.parse(readFileSync(join(REPO_ROOT, 'models', 'classifier', 'metrics.json'), 'utf8')) as {
    encoder: string; encoder_delta_sha256: string | null; weights_sha256: Record<string, string>;
  };
  t.equal(metrics.encoder, manifest.serve.biencoder, 'heads trained on the served encoder id');
  // A retrained delta keeps its id; only the weights' hash tells whether the heads saw its embeddings.
  const delta = served.delta === null ? null : sha256(join(REPO_ROOT, served.delta, 'delta.safetensors'));
  t.equal(metrics.encoder_delta_sha256, delta, 'heads trained on the committed delta (rerun models/classifier/train after retraining)');
  for (const [file, hash] of Object.entries(metrics.weights_sha256)) {
    t.equal(sha256(join(REPO_ROOT, 'models', 'classifier', file)), hash, `${file} is the file that training wrote`);
  }
});
