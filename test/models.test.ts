import t from 'tap';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';
import { CLASSIFIER_DIR } from '../src/core/classify.js';
import { MENU_VECTOR_PATH, readMenuVectorSpec } from '../src/core/menu-vector.js';
import { COSINE_CALIBRATION_PATH, MATCH_GATES_FORMAT, MATCH_GATES_PATH, readCosineCalibration, readMatchGates } from '../src/core/match.js';
import { SEARCH_RANKER_PATH, readSearchRanker } from '../src/core/search-relevance.js';
import {
  COURSE_SOURCES,
  CUISINE_SOURCES,
  CUISINE_SOURCES_FORMAT,
  CUISINE_SOURCES_PATH,
  PROFILE_SOURCES_FORMAT,
  PROFILE_SOURCES_PATH,
  readCuisineSourceConfidence,
  readProfileConfidence,
} from '../src/core/profile-confidence.js';

// The tuned models are committed artifacts: each delta (models/deltas/<id>/delta.safetensors) beside its recipe and
// metrics, and the classifier heads (models/heads/) fitted to the served encoder's delta. The set-up only verifies,
// merges, exports and quantises: these hold the checkout to that.

interface ModelSpec { role: string; roles?: string[]; base?: string; delta: string | null; teacher?: string }
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'models', 'manifest.json'), 'utf8')) as {
  sources: Record<string, { files: Record<string, string> }>;
  models: Record<string, ModelSpec>;
  serve: { biencoder: string; reranker: string | null };
};
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const MAX_DELTA_BYTES = 8 * 1024 * 1024;
interface DeltaConfig {
  format: string; base_model_sha256: string; kind: string; rank: number; alpha: number;
  training: { seed?: number; steps?: number }; knowledge_sha256?: string; training_code_sha256?: string; delta_sha256?: string;
}
const { deltaProblems } = (await import(join(REPO_ROOT, 'scripts', 'lib', 'deltas.mjs'))) as { deltaProblems(root: string): string[] };

t.test('every tuned model is committed: a small delta, its recipe with the sha256 of the weights, its metrics', async (t) => {
  const tuned = Object.entries(manifest.models).filter(([, spec]) => spec.delta !== null);
  t.ok(tuned.length >= 2, 'the served bi-encoder and cross-encoder are both tuned');
  for (const [id, spec] of tuned) {
    const dir = join(REPO_ROOT, spec.delta as string);
    const recipe = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as DeltaConfig;
    t.equal(recipe.format, 'menu-lora-delta/1', `${id}: a delta the build knows how to merge`);
    const baseWeights = Object.entries(manifest.sources[spec.base ?? '']?.files ?? {}).find(([file]) => file.endsWith('model.safetensors'));
    t.equal(recipe.base_model_sha256, baseWeights?.[1], `${id}: trained on the pinned base weights the build merges it into`);
    const crossKind = spec.roles?.includes('search_reranker') ? 'search_cross_encoder' : 'cross_encoder';
    t.equal(recipe.kind, spec.role === 'reranker' ? crossKind : spec.teacher ? 'student' : 'biencoder', `${id}: the recipe's kind fits its role`);
    t.type(recipe.training.seed, 'number', `${id}: the recipe records its seed`);
    t.match(recipe.knowledge_sha256, /^[0-9a-f]{64}$/, `${id}: the recipe records the knowledge base it read`);
    t.match(recipe.training_code_sha256, /^[0-9a-f]{64}$/, `${id}: the recipe records the training code`);
    const weights = join(dir, 'delta.safetensors');
    t.ok(existsSync(weights), `${id}: ${spec.delta}/delta.safetensors is committed`);
    if (!existsSync(weights)) continue;
    t.ok(statSync(weights).size <= MAX_DELTA_BYTES, `${id}: the delta is at most 8 MiB (${statSync(weights).size} bytes)`);
    t.equal(sha256(weights), recipe.delta_sha256, `${id}: the weights are the ones the recipe records`);
    const metrics = JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8')) as Record<string, unknown>;
    t.ok(Object.keys(metrics).length > 0, `${id}: the run's metrics are committed`);
  }
  t.same(deltaProblems(REPO_ROOT), [], 'the set-up finds every committed delta sound');
});

t.test('the set-up stops on a missing or altered delta, naming the file', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'menu-deltas-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'models'));
  cpSync(join(REPO_ROOT, 'models', 'manifest.json'), join(root, 'models', 'manifest.json'));
  const [id, spec] = Object.entries(manifest.models).find(([, s]) => s.delta !== null)!;
  for (const s of Object.values(manifest.models)) if (s.delta) cpSync(join(REPO_ROOT, s.delta), join(root, s.delta), { recursive: true });
  t.same(deltaProblems(root), [], 'a faithful copy is sound');
  const weights = join(root, spec.delta!, 'delta.safetensors');
  const bytes = readFileSync(weights);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
  writeFileSync(weights, bytes);
  const altered = deltaProblems(root);
  t.equal(altered.length, 1, 'one problem');
  t.match(altered[0], `${spec.delta}/delta.safetensors has sha256`, 'names the altered file');
  t.match(altered[0], id, 'and the model');
  rmSync(weights);
  t.match(deltaProblems(root)[0], `${spec.delta}/delta.safetensors is missing`, 'a missing file is named too');
});

t.test('the set-up never trains and never installs torch', async (t) => {
  const setup = readFileSync(join(REPO_ROOT, 'scripts', 'setup.mjs'), 'utf8');
  for (const trainingPart of ['train.py', 'venv.sh', 'models/train', "'train'", 'torch']) {
    t.notOk(setup.replace(/\/\/.*$/gm, '').includes(trainingPart), `scripts/setup.mjs runs nothing of ${trainingPart}`);
  }
  const exporterRequirements = readFileSync(join(REPO_ROOT, 'models', 'requirements.txt'), 'utf8');
  t.notMatch(exporterRequirements.replace(/#.*$/gm, ''), /torch|transformers|peft/, 'the exporter venv the set-up installs holds no torch');
});

t.test('the search ranker and the cosine calibration were fitted on the served encoder', async (t) => {
  t.equal(readSearchRanker().encoder, manifest.serve.biencoder, 'search ranker');
  const calibration = readCosineCalibration();
  t.equal(calibration.encoder, manifest.serve.biencoder, 'cosine calibration');
  const raw = JSON.parse(readFileSync(COSINE_CALIBRATION_PATH, 'utf8')) as { fitted_by: string; data: { sha256: string } };
  t.match(raw.fitted_by, /fit-match-calibration/, 'written by the fit script');
  t.match(raw.data.sha256, /^[0-9a-f]{64}$/, 'records the data it was fitted on');
  t.ok(calibration.midpoint > 0 && calibration.midpoint < 1, 'the even-odds cosine lies inside the cosine range');
  const gates = JSON.parse(readFileSync(MATCH_GATES_PATH, 'utf8')) as { encoder: string; reranker: string | null; fitted_by: string; data: { sha256: string } };
  t.same([gates.encoder, gates.reranker], [manifest.serve.biencoder, manifest.serve.reranker ?? null], 'match gates: fitted with the served encoder and cross-encoder');
  t.match(gates.fitted_by, /fit-match-gates/);
  t.match(gates.data.sha256, /^[0-9a-f]{64}$/);
  const { vetoBelow, confirmAt, knowledgeSame, knowledgeDifferent } = readMatchGates();
  t.ok(vetoBelow <= confirmAt, 'a score that confirms also passes the veto');
  const counts = (JSON.parse(readFileSync(MATCH_GATES_PATH, 'utf8')) as { counts: Record<'same' | 'different', { pairs: number; labelled_same: number }> }).counts;
  for (const [name, value] of [['same', knowledgeSame], ['different', knowledgeDifferent]] as const) {
    const { pairs, labelled_same: same } = counts[name];
    t.ok(pairs > 0 && Math.abs(value - (same + 1) / (pairs + 2)) < 1e-4, `knowledge_${name} is the measured share (${same} of ${pairs} labelled the same dish, smoothed): ${value}`);
  }
  // A veto at or under the knowledge base's "different dishes" probability would let a known difference through.
  const dir = mkdtempSync(join(tmpdir(), 'gates-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const fitted = { format: MATCH_GATES_FORMAT, cosine_gate: 0.45, veto_below: 0.1, confirm_at: 0.4, knowledge_same: 0.96, knowledge_different: 0.03 };
  writeFileSync(join(dir, 'g.json'), JSON.stringify({ ...fitted, veto_below: 0.03 }));
  t.throws(() => readMatchGates(join(dir, 'g.json')), /knowledge_different < veto_below/);
  writeFileSync(join(dir, 'g.json'), JSON.stringify({ ...fitted, confirm_at: 0.97 }));
  t.throws(() => readMatchGates(join(dir, 'g.json')), /confirm_at ≤ knowledge_same/, 'a confirmation above the knowledge base\'s own probability would let a known identity fail');
  writeFileSync(join(dir, 'g.json'), JSON.stringify({ format: MATCH_GATES_FORMAT, cosine_gate: 0.45, veto_below: 0.1, confirm_at: 0.4 }));
  t.throws(() => readMatchGates(join(dir, 'g.json')), /knowledge_same/, 'the measured probabilities are required');
  writeFileSync(join(dir, 'g.json'), JSON.stringify(fitted));
  for (const cosineGate of [undefined, 0, 1, '0.4']) {
    writeFileSync(join(dir, 'g.json'), JSON.stringify({ ...fitted, cosine_gate: cosineGate }));
    t.throws(() => readMatchGates(join(dir, 'g.json')), /cosine_gate in \(0, 1\)/, `a cosine gate of ${String(cosineGate)} is refused`);
  }
  writeFileSync(join(dir, 'g.json'), JSON.stringify(fitted));
  t.same(readMatchGates(join(dir, 'g.json')), { cosineGate: 0.45, vetoBelow: 0.1, confirmAt: 0.4, knowledgeSame: 0.96, knowledgeDifferent: 0.03 });
  // The gate is the fit's choice: the one with the most development pairs right, recorded beside the others.
  const record = JSON.parse(readFileSync(MATCH_GATES_PATH, 'utf8')) as { cosine_gate: number; metrics: { right_by_cosine_gate: Record<string, number> } };
  const byGate = Object.entries(record.metrics.right_by_cosine_gate);
  t.ok(byGate.length >= 3, 'a grid of gates was tried');
  t.equal(Math.max(...byGate.map(([, n]) => n)), record.metrics.right_by_cosine_gate[record.cosine_gate.toFixed(2)], `the gate served (${record.cosine_gate}) is one with the most pairs right`);
});

t.test('the menu vector was fitted for the served encoder', async (t) => {
  const spec = readMenuVectorSpec();
  t.equal(spec.encoder, manifest.serve.biencoder);
  const raw = JSON.parse(readFileSync(MENU_VECTOR_PATH, 'utf8')) as { fitted_by: string; data: { sha256: string }; metrics: { development: { pair_auc: number }; without_anchor: { pair_auc: number } } };
  t.match(raw.fitted_by, /fit-menu-vector/);
  t.match(raw.data.sha256, /^[0-9a-f]{64}$/);
  t.ok(raw.metrics.development.pair_auc >= raw.metrics.without_anchor.pair_auc, 'the fit is no worse than no anchor on its own data');
});

t.test('the classifier heads were fitted to the served encoder, delta and all', async (t) => {
  t.equal(CLASSIFIER_DIR, join(REPO_ROOT, 'models', 'heads'), 'heads are committed beside the deltas');
  const metrics = JSON.parse(readFileSync(join(CLASSIFIER_DIR, 'metrics.json'), 'utf8')) as {
    encoder: string; encoder_delta_sha256: string | null; weights_sha256: Record<string, string>;
  };
  t.equal(metrics.encoder, manifest.serve.biencoder, 'heads trained on the served encoder id');
  // A retrained delta keeps its id; only the weights' hash tells whether the heads saw its embeddings.
  const served = manifest.models[manifest.serve.biencoder]!;
  t.equal(metrics.encoder_delta_sha256, served.delta ? sha256(join(REPO_ROOT, served.delta, 'delta.safetensors')) : null, 'heads fitted to the committed delta');
  for (const [file, hash] of Object.entries(metrics.weights_sha256)) {
    t.equal(sha256(join(CLASSIFIER_DIR, file)), hash, `${file} is the file that fitting wrote`);
  }
});

t.test("/classify's confidence for a knowledge-base answer is the measured share right of its source", async (t) => {
  const raw = JSON.parse(readFileSync(CUISINE_SOURCES_PATH, 'utf8')) as {
    fitted_by: string;
    data: { sha256: string; labels: string };
    confidence: Record<'dish' | 'fuzzy_dish' | 'cue', number>;
    counts: Record<'dish' | 'fuzzy_dish' | 'cue', { answered: number; right: number }>;
  };
  t.match(raw.fitted_by, /fit-cuisine-confidence/, 'written by the fit script');
  t.equal(raw.data.sha256, createHash('sha256').update(readFileSync(join(REPO_ROOT, raw.data.labels))).digest('hex'), 'fitted on the committed labels');
  for (const source of ['dish', 'fuzzy_dish', 'cue'] as const) {
    const { answered, right } = raw.counts[source];
    t.ok(answered >= 20, `${source}: measured on ${answered} answers`);
    t.equal(raw.confidence[source], Math.round(((right + 1) / (answered + 2)) * 1e4) / 1e4, `${source}: (right + 1) / (answered + 2)`);
  }
  const read = readCuisineSourceConfidence();
  t.same([read.dish, read.fuzzyDish, read.cue], [raw.confidence.dish, raw.confidence.fuzzy_dish, raw.confidence.cue]);
  const dir = mkdtempSync(join(tmpdir(), 'cuisine-sources-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'c.json'), JSON.stringify({ format: CUISINE_SOURCES_FORMAT, confidence: { dish: 1, fuzzy_dish: 0.9, cue: 0.9 } }));
  t.throws(() => readCuisineSourceConfidence(join(dir, 'c.json')), /confidence\.dish must be a share strictly between 0 and 1/, 'certainty is refused: menus mislabel');
});

t.test("a profile's course and cuisine confidence is the measured share right of its kind of reading", async (t) => {
  type Counts = Record<string, { answered: number; right: number }>;
  const raw = JSON.parse(readFileSync(PROFILE_SOURCES_PATH, 'utf8')) as {
    fitted_by: string;
    data: Record<'course' | 'cuisine', { sha256: string; labels: string }>;
    course: Record<string, number>;
    cuisine: Record<string, number>;
    counts: Record<'course' | 'cuisine', Counts>;
  };
  t.match(raw.fitted_by, /fit-profile-confidence/, 'written by the fit script');
  const read = readProfileConfidence();
  for (const [group, names] of [['course', COURSE_SOURCES], ['cuisine', CUISINE_SOURCES]] as const) {
    const labels = raw.data[group];
    t.equal(labels.sha256, createHash('sha256').update(readFileSync(join(REPO_ROOT, labels.labels))).digest('hex'), `${group}: fitted on the committed labels`);
    for (const name of names) {
      const { answered, right } = raw.counts[group][name]!;
      t.equal(raw[group][name], Math.round(((right + 1) / (answered + 2)) * 1e4) / 1e4, `${group}.${name}: (right + 1) / (answered + 2) of ${answered}`);
      t.equal((read[group] as Record<string, number>)[name], raw[group][name], `${group}.${name} is what the service reads`);
    }
  }
  // What the measurement says of the readings, in the order any consumer of the confidences relies on.
  t.ok(read.course.dish_exact > read.course.default && read.course.words_agreed > read.course.default, 'a course word or a dish beats the default main');
  t.ok(read.cuisine.strong_agreeing > read.cuisine.weak_agreeing, 'a strong cuisine cue beats a weak one');
  const dir = mkdtempSync(join(tmpdir(), 'profile-sources-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const good = { format: PROFILE_SOURCES_FORMAT, course: raw.course, cuisine: raw.cuisine };
  writeFileSync(join(dir, 'sure.json'), JSON.stringify({ ...good, course: { ...raw.course, dish_exact: 1 } }));
  t.throws(() => readProfileConfidence(join(dir, 'sure.json')), /course\.dish_exact must be a share strictly between 0 and 1/, 'certainty is refused');
  const { default: _dropped, ...short } = raw.course;
  writeFileSync(join(dir, 'short.json'), JSON.stringify({ ...good, course: short }));
  t.throws(() => readProfileConfidence(join(dir, 'short.json')), /course\.default must be/, 'every kind is required');
  writeFileSync(join(dir, 'extra.json'), JSON.stringify({ ...good, cuisine: { ...raw.cuisine, guessed: 0.5 } }));
  t.throws(() => readProfileConfidence(join(dir, 'extra.json')), /unknown sources guessed/, 'an unknown kind is refused');
  // /search's menu and fallback rules cut at these levels: the committed ranker was fitted on the committed ones.
  const ranker = JSON.parse(readFileSync(SEARCH_RANKER_PATH, 'utf8')) as { data: { profile_sources_sha256?: string } };
  t.equal(ranker.data.profile_sources_sha256, createHash('sha256').update(readFileSync(PROFILE_SOURCES_PATH)).digest('hex'), 'refit the search ranker after the profile confidences');
});
