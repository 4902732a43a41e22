/**
 * The held-out firewall (eval/LABELLING.md): the held-out set is read by the final scoring alone, never changes after
 * its freeze, and none of its queries or texts is copied into src/ or knowledge/. Failures name files and counts, never
 * a held-out case.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';
import {
  fileSha256, heldOutReferencesOutsideReaders, heldOutTextsInSources, HELDOUT_REFERENCE, knowledgeHits,
} from './firewall.js';
import { HELDOUT_DIR, heldOutGuardedTexts, isTuningRun, loadHeldOutSets, readHeldOutManifest } from './heldout.js';
import { loadDevSets } from './sets.js';

const sets = loadHeldOutSets([]);

t.test('a tuning run cannot read the held-out set', async (t) => {
  for (const argv of [['node', 'run.js', '--dev'], ['node', 'run.js', '--dev', '--errors'], ['node', 'run.js', '--errors']]) {
    t.ok(isTuningRun(argv), `${argv.slice(2).join(' ')} is a tuning run`);
    t.throws(() => loadHeldOutSets(argv), { message: /not read in a tuning run/ }, `${argv.slice(2).join(' ')}: the reader refuses`);
  }
  t.notOk(isTuningRun(['node', 'run.js', '--only', 'search']), 'a final scoring of some parts is not a tuning run');
});

t.test('no code outside the final scoring names the held-out folder', async (t) => {
  t.same(heldOutReferencesOutsideReaders(), [], 'src/, test/, scripts/, models/, bench/ and the rest of eval/ never open it');
  // The pattern itself must catch the ways code opens a folder, or the check above proves nothing.
  for (const line of ["join(REPO_ROOT, 'eval', 'heldout')", 'readFileSync("eval/heldout/match_pairs.tsv")', "import { loadHeldOutSets } from '../eval/heldout.js'", 'open("eval\\\\heldout\\\\x")']) {
    t.ok(HELDOUT_REFERENCE.test(line), `caught: ${line}`);
  }
  for (const line of ['heldout_accuracy', 'f"heldout-{kind}.json"', 'held-out knowledge-base dishes', 'r["heldout"]', "side: 'heldout'"]) {
    t.notOk(HELDOUT_REFERENCE.test(line), `not a reference: ${line}`);
  }
});

t.test('the leak checks find a text that is there', async (t) => {
  // Texts that are in this repository for sure: if these are not found, a pass below proves nothing.
  const inServer = heldOutTextsInSources(['Request Body  is not valid JSON']);
  t.ok(inServer.some((f) => f.file === 'src/http/server.ts'), 'a phrase of src/http/server.ts is found there, case and spacing aside');
  t.same(heldOutTextsInSources(['is not valid']).length > 0, true, 'word-bounded phrases inside longer text are found');
  t.same(heldOutTextsInSources(['body is not vali']), [], 'a phrase cut inside a word is not a match');
  t.equal(knowledgeHits(['paneer butter masala', 'Shahi Paneer', 'no such dish at all']).size, 2, 'whole knowledge-base names are found, case aside');
});

t.test('the held-out set is as frozen, and large enough', { skip: sets ? false : 'this checkout has no held-out set' }, async (t) => {
  const manifest = readHeldOutManifest();
  for (const [file, digest] of Object.entries(manifest.files)) {
    t.equal(fileSha256(join(HELDOUT_DIR, file)), digest, `${file} unchanged since the freeze`);
  }
  const s = sets!;
  const queries = s.search.flatMap((x) => x.queries);
  const menus = new Set(s.search.flatMap((x) => Object.keys(x.menus)));
  t.ok(menus.size >= 12, `at least 12 real menus (${menus.size})`);
  t.ok(queries.length >= 200, `at least 200 graded queries (${queries.length})`);
  const kinds = new Set(queries.map((q) => q.kind));
  for (const kind of ['exact', 'misspelled', 'synonym', 'abstract', 'hinglish', 'devanagari', 'other_language', 'category', 'no_match']) {
    t.ok(kinds.has(kind), `queries of kind ${kind}`);
  }
  t.ok(s.match.reduce((n, m) => n + m.rows.length, 0) >= 400, 'at least 400 labelled match pairs');
  t.ok(s.dedup.length >= 12, `at least 12 dedup menus (${s.dedup.length})`);
  for (const q of queries) {
    const menu = s.search.find((x) => x.menus[q.menu])?.menus[q.menu];
    if (!menu) {
      t.fail('a held-out query names a menu the set does not have');
      continue;
    }
    const missing = Object.keys(q.relevant).filter((text) => !menu.includes(text)).length;
    if (missing > 0) t.fail(`a held-out query grades ${missing} texts its menu does not list`);
  }
});

t.test('no held-out query or text is copied into src/ or knowledge/', { skip: sets ? false : 'this checkout has no held-out set' }, async (t) => {
  const texts = heldOutGuardedTexts(sets!);
  t.ok(texts.length > 600, `guarding every query and match text (${texts.length})`);
  const manifest = readHeldOutManifest();
  const namedBefore = new Set(manifest.src_texts_at_freeze);
  const newInSources = heldOutTextsInSources(texts)
    .map((f) => ({ file: f.file, count: f.hashes.filter((h) => !namedBefore.has(h)).length }))
    .filter((f) => f.count > 0);
  t.same(newInSources, [], 'src/ names no held-out query or match text of two words or more that it did not name at the freeze');
  const allowed = new Set(manifest.knowledge_entries_at_freeze);
  const entered = [...knowledgeHits(texts)].filter((h) => !allowed.has(h)).length;
  t.equal(entered, 0, 'no held-out query or match text became a knowledge/ entry after the freeze');
});

t.test('development data and the held-out set share no restaurant', async (t) => {
  const split = JSON.parse(readFileSync(join(REPO_ROOT, 'eval', 'split.json'), 'utf8')) as { heldout_restaurants: string[]; dev_restaurants: string[] };
  t.ok(split.heldout_restaurants.length >= 12, 'at least 12 held-out restaurants');
  t.same(split.heldout_restaurants.filter((r) => split.dev_restaurants.includes(r)), [], 'no restaurant is on both sides');
  if (!sets) return;
  const heldMenus = new Set(sets.search.flatMap((x) => Object.keys(x.menus)).concat(sets.dedup.map((m) => m.menu)));
  const devMenus = loadDevSets().search.flatMap((x) => Object.keys(x.menus));
  t.same(devMenus.filter((m) => heldMenus.has(m)), [], 'no development search menu is a held-out menu');
  const heldMenuItems = sets.search.flatMap((x) => Object.values(x.menus)).map((items) => new Set(items));
  for (const dev of loadDevSets().search) {
    for (const [name, items] of Object.entries(dev.menus)) {
      // Common dish names recur across restaurants (a third of a biryani house's names may be another's); a copied
      // menu would share most of its items with one held-out menu.
      const worst = Math.max(...heldMenuItems.map((h) => items.filter((i) => h.has(i)).length / Math.min(h.size, items.length)));
      t.ok(worst < 0.5, `development menu ${name} is not a copy of a held-out menu (at most ${(worst * 100).toFixed(0)}% of names in common with one)`);
    }
  }
});
