/**
 * Whether the served models were trained on the knowledge base that is checked out. A delta records the sha256 of the
 * knowledge it was trained on (models/train/menu_data.py knowledge_hash: the dish files, the hard negatives and the
 * lexicons); an edit since then is not in the weights. `npm run eval` prints one warning line when they differ.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWLEDGE_DIR, MODELS_DIR } from '../src/core/paths.js';

/** The same hash as models/train/menu_data.py knowledge_hash(). */
export function trainingKnowledgeHash(knowledge = KNOWLEDGE_DIR): string {
  const h = createHash('sha256');
  const sortedIn = (dir: string, filter: (name: string) => boolean): string[] =>
    existsSync(join(knowledge, dir)) ? readdirSync(join(knowledge, dir)).filter(filter).sort().map((n) => `${dir}/${n}`) : [];
  const files = [...sortedIn('dishes', (n) => n.endsWith('.tsv')), 'hard_negatives.tsv', ...sortedIn('lexicon', () => true)];
  for (const rel of files) {
    const path = join(knowledge, rel);
    if (!existsSync(path) || !statSync(path).isFile()) continue;
    h.update(rel);
    h.update(readFileSync(path));
  }
  return h.digest('hex');
}

/** A sentence for each served delta trained on another knowledge base than the checked-out one; null when none. */
export function knowledgeDrift(): string | null {
  const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8')) as {
    models: Record<string, { delta: string | null }>;
    serve: Record<string, string | null>;
  };
  const now = trainingKnowledgeHash();
  const drifted: string[] = [];
  for (const id of new Set(Object.values(manifest.serve).filter((x): x is string => !!x))) {
    const delta = manifest.models[id]?.delta;
    if (!delta) continue;
    const recorded = (JSON.parse(readFileSync(join(MODELS_DIR, '..', delta, 'config.json'), 'utf8')) as { knowledge_sha256?: string }).knowledge_sha256;
    if (recorded !== now) drifted.push(`${id} (trained on ${recorded?.slice(0, 12) ?? 'unknown'})`);
  }
  return drifted.length === 0
    ? null
    : `the knowledge base (${now.slice(0, 12)}) has changed since ${drifted.join(', ')} were trained; their weights do not hold the edits (retrain: npm run train -- <id>)`;
}
