/**
 * /match and /dedup judge "same item?" with one precision stage. Every labelled development match pair
 * (eval/dev/match_dev_pairs_*.tsv) goes to /match and, as a two-item menu, to /dedup over HTTP (real models): /dedup
 * must cluster the pair exactly when /match calls it the same dish and none of the steps /dedup takes for items of one
 * menu (dedupRefusal: house_label, below_threshold, defining_word) keeps it apart. So /dedup never clusters a pair
 * /match calls different, and every pair the two answer differently is one a named menu step refuses
 * (docs/dedup.md says why those steps are /dedup's alone, with the measured cost of each choice).
 */
import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';
import { DEFAULT_COSINE_THRESHOLD } from '../src/core/match.js';
import { nodeKey, pairRefusal } from '../src/core/dedup.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { FULL_DIMENSION } from '../src/core/inference/encoder.js';
import { REPO_ROOT } from '../src/core/paths.js';
import { readMatchRows } from '../eval/sets.js';

const auth = { 'x-api-key': OPERATOR_KEY };
const devDir = join(REPO_ROOT, 'eval', 'dev');
const rows = readdirSync(devDir)
  .filter((f) => /^match_dev_pairs_\d+\.tsv$/.test(f))
  .sort()
  .flatMap((f) => readMatchRows(join(devDir, f)));

t.test('a two-item /dedup clusters a fixture pair exactly when /match says same and no menu step refuses it', async (t) => {
  t.ok(rows.length >= 2000, `${rows.length} labelled pairs`);
  const server = await startTestServer();
  t.teardown(() => server.close());
  const { services } = server;

  const matched: boolean[] = [];
  for (let i = 0; i < rows.length; i += 100) {
    const chunk = rows.slice(i, i + 100);
    const res = await call(server.url, 'POST', '/match', { pairs: chunk.map((r) => ({ text_a: r.text_a, text_b: r.text_b })) }, auth);
    t.equal(res.status, 200);
    for (const r of res.body.results as { match: boolean }[]) matched.push(r.match);
  }
  t.equal(matched.length, rows.length);

  const clustered: boolean[] = new Array(rows.length);
  const batch = 8;
  for (let i = 0; i < rows.length; i += batch) {
    await Promise.all(rows.slice(i, i + batch).map(async (r, j) => {
      const res = await call(server.url, 'POST', '/dedup', { items: [r.text_a, r.text_b] }, auth);
      if (res.status !== 200) throw new Error(`/dedup ${res.status}: ${r.text_a} / ${r.text_b}`);
      clustered[i + j] = res.body.clusters.length === 1;
    }));
  }

  const wrong: string[] = [];
  const refusedBy = new Map<string, number>();
  for (const [i, r] of rows.entries()) {
    const texts = [r.text_a, r.text_b].map((x) => parseMenuText(services.knowledge, x));
    const [va, vb] = await services.vectorsOf(texts, FULL_DIMENSION);
    const refusal = pairRefusal(services.knowledge, texts[0]!, texts[1]!, va!, vb!, DEFAULT_COSINE_THRESHOLD);
    const { cosine } = refusal;
    const step = nodeKey(texts[0]!) === nodeKey(texts[1]!) ? null : refusal.step;
    if (matched[i] && step !== null) refusedBy.set(step, (refusedBy.get(step) ?? 0) + 1);
    const expected = matched[i]! && step === null;
    // /dedup's cosine comes from the native all-pairs kernel, this one from a JS loop: at the threshold itself the two
    // may round to opposite sides.
    const atThreshold = Math.abs(cosine - DEFAULT_COSINE_THRESHOLD) < 1e-4;
    if (clustered[i] !== expected && !atThreshold) wrong.push(`${r.text_a} / ${r.text_b}: /match ${matched[i]}, menu step ${step}, /dedup ${clustered[i]}`);
  }
  t.same(wrong, [], 'the only disagreements are pairs a named menu step keeps apart');
  t.notOk(rows.some((_, i) => clustered[i] && !matched[i]), '/dedup clusters no pair /match calls different');
  // The steps do refuse pairs here, so the equality above is not met by /dedup simply copying /match.
  t.ok([...refusedBy.values()].reduce((a, b) => a + b, 0) > 0, `pairs /match calls the same dish that a menu step keeps apart: ${JSON.stringify(Object.fromEntries(refusedBy))}`);
});
