/**
 * Freezes the held-out set once its labels are written: `node dist/eval/freeze-heldout.js`. Writes
 * eval/heldout/MANIFEST.json with the sha256 of every file (the firewall test fails if one changes afterwards), the
 * labellers' own manifests (MANIFEST.*.json: counts, who, when), and which held-out texts were already whole entries of
 * knowledge/ or named in src/ at this moment (as hashes): a common dish name that the knowledge base or a comment had
 * before the set existed is not a leak, a text that enters either afterwards is. Prints counts only, never a case.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileSha256, heldOutTextsInSources, knowledgeHits, knowledgeSha256 } from './firewall.js';
import { HELDOUT_DIR, heldOutGuardedTexts, loadHeldOutSets } from './heldout.js';

const files = readdirSync(HELDOUT_DIR).filter((f) => !f.startsWith('MANIFEST')).sort();
const labellers = readdirSync(HELDOUT_DIR)
  .filter((f) => /^MANIFEST\..+\.json$/.test(f))
  .sort()
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(HELDOUT_DIR, f), 'utf8')) as Record<string, unknown>) }));
// A placeholder manifest first, so the reader sees a frozen set while the hits are computed.
writeFileSync(join(HELDOUT_DIR, 'MANIFEST.json'), '{}\n');
const sets = loadHeldOutSets([]);
if (!sets) throw new Error('no held-out set');
const texts = heldOutGuardedTexts(sets);
const hits = [...knowledgeHits(texts)].sort();
const inSources = [...new Set(heldOutTextsInSources(texts).flatMap((f) => f.hashes))].sort();
const counts = {
  search_menus: sets.search.reduce((n, s) => n + Object.keys(s.menus).length, 0),
  search_queries: sets.search.reduce((n, s) => n + s.queries.length, 0),
  match_pairs: sets.match.reduce((n, s) => n + s.rows.length, 0),
  dedup_menus: sets.dedup.length,
  noise_rows: sets.noise.length,
  suggest_carts: sets.suggest.length,
  cuisine_rows: sets.cuisine.length,
};
const manifest = {
  frozen_at: new Date().toISOString(),
  files: Object.fromEntries(files.map((f) => [f, fileSha256(join(HELDOUT_DIR, f))])),
  knowledge_entries_at_freeze: hits,
  src_texts_at_freeze: inSources,
  knowledge_sha256_at_freeze: knowledgeSha256(),
  counts,
  labellers,
};
writeFileSync(join(HELDOUT_DIR, 'MANIFEST.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`froze ${files.length} files: ${JSON.stringify(counts)}; ${texts.length} guarded texts, ${hits.length} already knowledge-base entries, ${inSources.length} already named in src/`);
