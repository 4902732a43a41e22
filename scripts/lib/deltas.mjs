// The committed deltas of models/manifest.json checked against the sha256 their recipes record: what the set-up does
// before it builds anything (and never more: training is `npm run train`'s, not the set-up's).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const sha256File = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Problems with the committed deltas under `root`, one sentence each naming the file; empty when all are sound. */
export function deltaProblems(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));
  const problems = [];
  for (const [id, spec] of Object.entries(manifest.models)) {
    if (!spec.delta) continue;
    const weights = join(spec.delta, 'delta.safetensors');
    const config = join(spec.delta, 'config.json');
    if (!existsSync(join(root, config))) {
      problems.push(`${id}: ${config} is missing: the recipe and sha256 of the delta are committed beside it`);
      continue;
    }
    if (!existsSync(join(root, weights))) {
      problems.push(`${id}: ${weights} is missing. It is committed with the repository, so this checkout is incomplete; \`npm run train -- ${id} --record\` makes a new one`);
      continue;
    }
    const expected = JSON.parse(readFileSync(join(root, config), 'utf8')).delta_sha256;
    const got = sha256File(join(root, weights));
    if (got !== expected) {
      problems.push(`${id}: ${weights} has sha256 ${got}, but ${config} records ${expected ?? 'none'}: restore the file (git checkout -- ${spec.delta}) or record a new run (\`npm run train -- ${id} --record\`)`);
    }
  }
  return problems;
}
