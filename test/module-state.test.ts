/**
 * What src/core reads from files it holds in objects passed explicitly (Knowledge, a Services' HeadFiles), never in
 * module-level variables: two services, or a test with other files, must not share what one of them loaded.
 *
 * The static check parses every src/core file and flags, at module level, a `let` or `var`, and a `const` made by
 * `new` of anything but a literal table (a Set or Map of literal entries or declared read-only, a RegExp, a typed
 * array): a class of the project's own (a head slot, a cache) or an empty Map or Set filled later is state. The allowlist says why an entry
 * is not loaded data. Then the two holders are checked to be separate: each reads its own files.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../src/core/paths.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';
import { CUISINE_SOURCES_PATH, PROFILE_SOURCES_PATH } from '../src/core/profile-confidence.js';
import { CLASSIFIER_DIR, classifierProblem, readLinearHead } from '../src/core/classify.js';
import { HeadFiles } from '../src/core/heads.js';

const CORE = join(REPO_ROOT, 'src', 'core');

const ALLOWED: Readonly<Record<string, string>> = {
  'text/edit-distance.ts:rows': 'scratch rows reused by every distance call (no data: they only grow to the longest word)',
};

/** Classes whose module-level instances are constant tables when built from literals. */
const LITERAL_TABLES = new Set(['Set', 'Map', 'RegExp', 'Int32Array', 'Float32Array', 'Uint8Array']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function moduleState(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const d of statement.declarationList.declarations) {
      const name = d.name.getText(file);
      if (!isConst) {
        found.push(name);
        continue;
      }
      const init = d.initializer;
      if (!init || !ts.isNewExpression(init)) continue;
      const made = init.expression.getText(file);
      const args = init.arguments ?? [];
      // An empty table declared read-only stays empty.
      const readOnly = d.type?.getText(file).startsWith('Readonly') ?? false;
      if (!LITERAL_TABLES.has(made) || (args.length === 0 && !readOnly)) found.push(name);
    }
  }
  return found;
}

t.test('src/core keeps nothing it loads in module-level variables', async (t) => {
  const flagged = sources(CORE).flatMap((path) => moduleState(path).map((name) => `${relative(CORE, path)}:${name}`));
  t.same(flagged.filter((id) => !(id in ALLOWED)), [], 'every module-level variable or instance is allowlisted with a reason');
  t.same(Object.keys(ALLOWED).filter((id) => !flagged.includes(id)), [], 'no allowlist entry outlives its declaration');
});

t.test('the check finds what it looks for', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'module-state-'));
  const path = join(dir, 'probe.ts');
  writeFileSync(path, [
    'let loaded = null;',
    'const slot = new HeadSlot("x.json");',
    'const cache = new Map();',
    'const NONE: ReadonlySet<string> = new Set();',
    "const VOWELS = new Set('aeiou');",
    'const LIMIT = 3;',
    'export function f() { let local = 1; return local; }',
  ].join('\n'));
  t.same(moduleState(path), ['loaded', 'slot', 'cache'], 'a let, a project instance and an empty Map; not a literal or read-only empty Set, a number or a local');
});

t.test("a Knowledge reads its own reading confidences", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'calibration-'));
  const profile = JSON.parse(readFileSync(PROFILE_SOURCES_PATH, 'utf8'));
  profile.course.words_agreed = 0.5;
  writeFileSync(join(dir, 'profile-sources.json'), JSON.stringify(profile));
  writeFileSync(join(dir, 'cuisine-sources.json'), readFileSync(CUISINE_SOURCES_PATH));
  const committed = loadKnowledge();
  const other = loadKnowledge(undefined, { calibrationDir: dir });
  // A name whose course rests on agreeing course words alone ("Soup" names the course; no dish is named).
  const text = 'Zorvex Soup';
  const a = parseMenuText(committed, text).profile, b = parseMenuText(other, text).profile;
  t.equal(a.course, b.course, 'the same reading');
  t.equal(b.courseConfidence, 0.5, 'the other knowledge reports its own calibration');
  t.equal(a.courseConfidence, committed.readingConfidence.profile.course.words_agreed, 'the committed one keeps the committed value');
  t.not(a.courseConfidence, 0.5);
});

t.test('two HeadFiles hold their own heads', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'heads-'));
  const encoder = readLinearHead(join(CLASSIFIER_DIR, 'cuisine-head.json')).encoder;
  const served = new HeadFiles().for(encoder);
  const missing = new HeadFiles(empty).for(encoder);
  t.ok(served.cuisine(), 'the committed folder has a cuisine head for its encoder');
  t.equal(missing.cuisine(), null, 'a folder without one has none');
  t.match(classifierProblem(missing), /cuisine-head\.json is missing/);
  t.equal(classifierProblem(served), null, 'and the first holder is unaffected');
  t.equal(new HeadFiles().for('another-encoder').cuisine(), null, 'a head is refused for vectors of another encoder');
});
