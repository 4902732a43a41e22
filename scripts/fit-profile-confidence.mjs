#!/usr/bin/env node
// Measures how often each kind of profile reading gets the course and the cuisine right on the development labels
// (eval/dev/course_dev_labels.tsv, eval/dev/cuisine_dev_labels.tsv) and writes models/calibration/profile-sources.json:
// the confidence a profile gives its course and its cuisine (src/core/profile-confidence.ts), which /search's menu and
// fallback rules cut at (scripts/fit-search-ranker.mjs chooses the cut-offs on these levels: refit it after this).
// A reading's kind is where its answer comes from: a knowledge-base dish named exactly or read fuzzily, or the text's
// own words (a combo's main, course words that agree or not, no course word at all; a strong or a weak cuisine cue,
// agreeing or not). Each confidence is the share of that kind's readings that match the label, smoothed by one right
// and one wrong answer ((right + 1) / (answered + 2)) so that a kind with few readings is not reported as certain.
// Never reads the held-out set. Refit when the knowledge base, the cue lexicons or the labels change.
//   npx tspc -p tsconfig.json && node scripts/fit-profile-confidence.mjs [--out PATH]
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKnowledge } from '../dist/src/core/knowledge/index.js';
import { parseMenuText } from '../dist/src/core/menu-text.js';
import { COURSE_SOURCES, CUISINE_SOURCES, PROFILE_SOURCES_FORMAT, PROFILE_SOURCES_PATH, courseSourceOf, cuisineSourceOf } from '../dist/src/core/profile-confidence.js';
import { loadDevSets } from '../dist/eval/sets.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LABELS = { course: join(ROOT, 'eval', 'dev', 'course_dev_labels.tsv'), cuisine: join(ROOT, 'eval', 'dev', 'cuisine_dev_labels.tsv') };
const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : PROFILE_SOURCES_PATH;

// No encoder: a reading is the text's dish match and cues, so the calibration it replaces is never read.
const knowledge = loadKnowledge();
const sets = loadDevSets();
if (sets.course.length === 0 || sets.cuisine.length === 0) throw new Error('no development course or cuisine labels');

/** [answered, right] per kind. The reading is taken from the dish match and the cues, as readProfile takes it, so
 * that a fit never depends on the confidences it replaces. */
function tally(rows, names, read) {
  const counts = Object.fromEntries(names.map((n) => [n, [0, 0]]));
  for (const row of rows) {
    const text = parseMenuText(knowledge, row.text);
    const got = read(text, row);
    if (!got) continue;
    counts[got.source][0]++;
    if (got.right) counts[got.source][1]++;
  }
  return counts;
}
const dishHow = (text) => text.dish?.how ?? null;
const course = tally(sets.course, COURSE_SOURCES, (text, row) => ({
  source: courseSourceOf(dishHow(text), text.cues.course),
  right: (text.dish ? text.dish.dish.course : text.cues.course.value) === row.course,
}));
const cuisine = tally(sets.cuisine, CUISINE_SOURCES, (text, row) => {
  const source = cuisineSourceOf(dishHow(text), text.cues.cuisine);
  return source && { source, right: (text.dish ? text.dish.dish.cuisine : text.cues.cuisine.value) === row.cuisine };
});
const smoothed = ([answered, right]) => Math.round(((right + 1) / (answered + 2)) * 1e4) / 1e4;
const shares = (counts) => Object.fromEntries(Object.entries(counts).map(([k, c]) => [k, smoothed(c)]));
const sha = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');
const file = {
  format: PROFILE_SOURCES_FORMAT,
  course: shares(course),
  cuisine: shares(cuisine),
  fitted_by: 'scripts/fit-profile-confidence.mjs',
  data: {
    course: { labels: 'eval/dev/course_dev_labels.tsv', items: sets.course.length, sha256: sha(LABELS.course) },
    cuisine: { labels: 'eval/dev/cuisine_dev_labels.tsv', items: sets.cuisine.length, sha256: sha(LABELS.cuisine) },
  },
  counts: Object.fromEntries(
    Object.entries({ course, cuisine }).map(([g, counts]) => [g, Object.fromEntries(Object.entries(counts).map(([k, [answered, right]]) => [k, { answered, right }]))]),
  ),
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
console.log(`[fit-profile-confidence] course ${JSON.stringify(file.course)}\n[fit-profile-confidence] cuisine ${JSON.stringify(file.cuisine)}\n[fit-profile-confidence] counts ${JSON.stringify(file.counts)} -> ${OUT}`);
process.exit(0);
