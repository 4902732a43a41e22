import t from 'tap';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';
import { CLASSIFIER_DIR } from '../src/core/classify.js';

// The tuned models are trained by the set-up from committed recipes (models/deltas/<id>/config.json) into
// models/cache/deltas/<id>/, and the classifier heads are fitted to the embeddings of one particular trained delta:
// these hold the checkout to both.

interface ModelSpec { role: string; base?: string; delta: string | null }
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'models', 'manifest.json'), 'utf8')) as {
  sources: Record<string, { files: Record<string, string> }>;
  models: Record<string, ModelSpec>;
  serve: { biencoder: string; reranker: string | null };
};
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const trainedDelta = (id: string): string => join(REPO_ROOT, 'models', 'cache', 'deltas', id);
const MAX_DELTA_BYTES = 8 * 1024 * 1024;
interface DeltaConfig { format: string; base_model_sha256: string; kind: string; rank: number; alpha: number; training: unknown }
const recipeOf = (c: DeltaConfig): string => JSON.stringify({ kind: c.kind, rank: c.rank, alpha: c.alpha, training: c.training });

t.test('every tuned model has a committed recipe, and the set-up trained a small delta from it', async (t) => {
  const tuned = Object.entries(manifest.models).filter(([, spec]) => spec.delta !== null);
  t.ok(tuned.length >= 2, 'the served bi-encoder and cross-encoder are both tuned');
  for (const [id, spec] of tuned) {
    const recipe = JSON.parse(readFileSync(join(REPO_ROOT, spec.delta as string, 'config.json'), 'utf8')) as DeltaConfig;
    t.equal(recipe.format, 'menu-lora-delta/1', `${id}: a delta the build knows how to merge`);
    const baseFiles = Object.entries(manifest.sources[spec.base ?? '']?.files ?? {});
    const baseWeights = baseFiles.find(([file]) => file.endsWith('model.safetensors'));
    t.equal(recipe.base_model_sha256, baseWeights?.[1], `${id}: trained on the pinned base weights the build merges it into`);
    t.equal(recipe.kind, spec.role === 'reranker' ? 'cross_encoder' : 'biencoder', `${id}: the recipe's kind fits its role`);
    t.notOk(existsSync(join(REPO_ROOT, spec.delta as string, 'delta.safetensors')), `${id}: no weights beside the recipe (they are build output)`);
    const weights = join(trainedDelta(id), 'delta.safetensors');
    t.ok(existsSync(weights), `${id}: the set-up trained models/cache/deltas/${id}/delta.safetensors`);
    if (!existsSync(weights)) continue;
    t.ok(statSync(weights).size <= MAX_DELTA_BYTES, `${id}: the delta is at most 8 MB (${statSync(weights).size} bytes)`);
    const trained = JSON.parse(readFileSync(join(trainedDelta(id), 'config.json'), 'utf8')) as DeltaConfig;
    t.equal(recipeOf(trained), recipeOf(recipe), `${id}: trained with the committed recipe`);
  }
});

t.test('the classifier heads were fitted to the served encoder, delta and all', async (t) => {
  const metrics = JSON.parse(readFileSync(join(CLASSIFIER_DIR, 'metrics.json'), 'utf8')) as {
    encoder: string; encoder_delta_sha256: string | null; weights_sha256: Record<string, string>;
  };
  t.equal(metrics.encoder, manifest.serve.biencoder, 'heads trained on the served encoder id');
  // A retrained delta keeps its id; only the weights' hash tells whether the heads saw its embeddings.
  const served = join(trainedDelta(manifest.serve.biencoder), 'delta.safetensors');
  t.equal(metrics.encoder_delta_sha256, existsSync(served) ? sha256(served) : null, 'heads fitted to the trained delta (the set-up refits them after training)');
  for (const [file, hash] of Object.entries(metrics.weights_sha256)) {
    t.equal(sha256(join(CLASSIFIER_DIR, file)), hash, `${file} is the file that training wrote`);
    // Heads are fitted to a delta trained on this machine, so a copy beside the training code would be stale output.
    t.notOk(existsSync(join(REPO_ROOT, 'models', 'classifier', file)), `${file} is build output, not kept in models/classifier/`);
  }
});
