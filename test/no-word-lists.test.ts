/**
 * Knowledge is data: no word list lives in src/core. The words the rules read are knowledge/lexicon's files (loaded
 * into the Knowledge object); the code keeps grammar (punctuation, digits, units) and the labels of its own schema.
 *
 * The check parses every src/core file with the TypeScript compiler and flags a literal holding more than a handful
 * (three) of entries:
 *   - an array literal (a Set's or Map's included) with four or more string entries;
 *   - an object literal with four or more quoted keys, or four or more properties that are all strings;
 *   - a regular expression (a literal, or a string or template literal, which is how `new RegExp` sources are written)
 *     with a group of four or more alternatives that are words.
 * A flagged literal passes only inside an allowlisted declaration, and no allowlisted declaration may hold more word
 * entries than it holds today: the allowlist can shrink, never grow by stealth.
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../src/core/paths.js';

const CORE = join(REPO_ROOT, 'src', 'core');
const HANDFUL = 3;

/**
 * Declarations (file relative to src/core, then the declaration's name) whose literals are not word lists, with the
 * most entries their flagged literals hold together, and why they are not lexical.
 */
const ALLOWED: Readonly<Record<string, { readonly entries: number; readonly why: string }>> = {
  // The labels of the knowledge base's own schema: enums the loaders validate every row against (README: Dish rows).
  'knowledge/dishes.ts:CUISINE_LABELS': { entries: 19, why: 'the cuisine enum of dish rows' },
  'knowledge/dishes.ts:CUISINE_FAMILY_NAMES': { entries: 4, why: 'the family enum of lexicon/cuisines.tsv' },
  'knowledge/dishes.ts:CUISINES_HEADER': { entries: 4, why: 'the columns of lexicon/cuisines.tsv' },
  'knowledge/dishes.ts:COURSES': { entries: 5, why: 'the course enum' },
  'knowledge/dishes.ts:CUISINE_RELATIONS': { entries: 6, why: 'the relation enum between two cuisines of lexicon/cuisines.tsv (same, same family, ...)' },
  'knowledge/dishes.ts:PROTEINS': { entries: 18, why: 'the protein enum' },
  'knowledge/dishes.ts:TAGS': { entries: 30, why: 'the tag enum (fasting added for vrat food)' },
  'knowledge/dishes.ts:DISH_HEADER': { entries: 7, why: 'the columns of a dish file' },
  'knowledge/dishes.ts:HARD_NEGATIVES_HEADER': { entries: 4, why: 'the columns of hard_negatives.tsv' },
  'knowledge/cues.ts:DIET_CLASSES': { entries: 9, why: 'the diet classes of diet.tsv' },
  'knowledge/cues.ts:PROTEIN_KINDS': { entries: 4, why: 'the kind enum of lexicon/proteins.tsv' },
  'knowledge/spelling.ts:CONVENTIONS': { entries: 8, why: 'the convention names of lexicon/spelling.tsv (each read into a field)' },
  'knowledge/portions.ts:CONVENTIONS': { entries: 6, why: 'the convention names of lexicon/portions.tsv (each read into a field)' },
  'knowledge/lookup.ts:GUARD_DIET_CLASSES': { entries: 6, why: 'a subset of the diet classes' },
  'variants.ts:SWAP_KINDS': { entries: 4, why: 'kinds of the kind column of hard_negatives.tsv' },
  'suggest.ts:SUGGEST_CATEGORIES': { entries: 5, why: 'the course enum in the order the API lists categories' },
  // The files of the knowledge folder and their declared columns and kinds.
  'knowledge/index.ts:NONFOOD_FILES': { entries: 4, why: 'file names of knowledge/nonfood' },
  'knowledge/index.ts:listFiles': { entries: 5, why: 'file names of the one-entry-per-line lexicons it counts' },
  'knowledge/words.ts:WORD_LIST_FILES': { entries: 75, why: 'the declared columns and kinds of the word-list files (43: cleaning_words.tsv leading_promo and leading_promo_name, the leading "New" label and the words that make it a name; 45: its vessel_size and vessel, "Mini" before what a dish is served in; 46: its part_start_size, "+ Med Fries"; 47: its portion_note, "[Full Chicken in one piece]"; 53: its leading_portion and size_name and filler_words.tsv\'s vessel_portion, words clean.ts and lookup.ts held as literals: a leading "Half", "Medium Rare", a "Bucket" of biryani; 59: query_words.tsv\'s meal_time, meal_count and either, words search.ts compared with; 60: cleaning_words.tsv\'s counted_unit, the units a spelled count counts; 64: variant_words.tsv\'s packed_in, what an item is packed in; 65: query_words.tsv\'s context, after which a query says when it is eaten; 66: its negator_after, a Hindi negator after what it turns round; 67: serving_words.tsv\'s head, the words for people after a head count, which servings.ts held as literals; 73: cleaning_words.tsv\'s unit and volume_unit, the abbreviated units of weight, length and volume that clean.ts, suggest.ts and servings.ts held as literals, a volume unit being a phrase too: "fl oz"; 75: serving_words.tsv\'s serve_word and order_of, the words a head count follows and the order words a count of goes with, which servings.ts and clean.ts each held as a list of their own)' },
  // Names of a fitted model's inputs and outputs, stored with the model so that a change forces a refit.
  'nonfood.ts:NONFOOD_HEAD_LABELS': { entries: 4, why: 'output labels of the non-food head' },
  'nonfood.ts:LEXICAL_CUE_NAMES': { entries: 13, why: 'input feature names of the non-food head' },
  'search-relevance.ts:MENU_CONTEXT_FIELDS': { entries: 6, why: 'field names of the fitted menu rule of search' },
  'search-relevance.ts:FALLBACK_FIELDS': { entries: 5, why: 'field names of the fitted fallback rule of search' },
  'profile-confidence.ts:COURSE_SOURCES': { entries: 6, why: 'the kinds of course reading whose confidence profile-sources.json holds' },
  'profile-confidence.ts:CUISINE_SOURCES': { entries: 6, why: 'the kinds of cuisine reading whose confidence profile-sources.json holds' },
  // Script tables: letters, not words.
  'knowledge/transliterate.ts:CONSONANTS': { entries: 45, why: 'Devanagari consonant letters and their Latin spelling (45: the three Devanagari keeps for Tamil and Malayalam)' },
  'knowledge/transliterate.ts:NUKTA_FORMS': { entries: 11, why: 'Devanagari nukta letters (11: the decomposed forms of those three)' },
  'knowledge/transliterate.ts:INDEPENDENT_VOWELS': { entries: 15, why: 'Devanagari vowel letters (15: the Dravidian short e and o)' },
  'knowledge/transliterate.ts:MATRAS': { entries: 14, why: 'Devanagari vowel signs (14: the Dravidian short e and o)' },
  'knowledge/transliterate.ts:TAMIL_VOICED': { entries: 5, why: 'the Tamil stop letters and their voiced Devanagari counterparts' },
  'knowledge/transliterate.ts:NASALS': { entries: 6, why: 'the Devanagari nasal consonant letters' },
  'knowledge/transliterate.ts:transliterateWord': { entries: 4, why: 'the Latin consonants an anusvara is spelled m before' },
  // The knowledge folder's files, as the query speller reads their columns.
  'query-spelling.ts:CANDIDATE_COLUMNS': { entries: 11, why: 'lexicon file names and the columns that hold words' },
  // Query grammar: how a query asks for what goes with a dish ("go with my …", "sides for …").
  'search.ts:PAIRING_PHRASE': { entries: 4, why: 'the verbs and determiners of a pairing question' },
  // Units grammar: units of volume, weight, count and size, currencies, nutrition facts and head counts.
  'text/clean.ts:sizePatternRes': { entries: 25, why: 'serving units, head counts, nutrition facts and calorie units' },
  'servings.ts:GRAMS': { entries: 4, why: 'units of weight' },
  'nonfood.ts:lexical': { entries: 47, why: 'strength, weight, volume, count and apparel-size units around the lexicon\'s cue words' },
  'nonfood.ts:lexicalForm': { entries: 13, why: 'units a number is glued to' },
  // The catalog's file formats (docs/catalog.md): the header names an input's columns are found by, the columns of
  // each file a run writes, and the suffixes of those files.
  'catalog/input.ts:RESTAURANT_COLUMNS': { entries: 5, why: 'header names of an input\'s restaurant column' },
  'catalog/input.ts:OUTLET_COLUMNS': { entries: 5, why: 'header names of an input\'s outlet column' },
  'catalog/output.ts:ERROR_COLUMNS': { entries: 4, why: 'the columns of PREFIX.errors.csv' },
  'catalog/engine.ts:writeDedup': { entries: 8, why: 'the columns of a dedup run\'s PREFIX.csv' },
  'catalog/engine.ts:writeClassification': { entries: 10, why: 'the columns of a classify run\'s PREFIX.csv' },
  'catalog/engine.ts:writeReport': { entries: 9, why: 'the columns of a report run\'s PREFIX.csv' },
  'catalog/engine.ts:writeEmbeddings': { entries: 6, why: 'the columns of an embed run\'s PREFIX.csv' },
  'catalog/engine.ts:outputNames': { entries: 5, why: 'the suffixes of the files a run writes' },
};

interface Finding {
  readonly owner: string;
  readonly line: number;
  readonly what: string;
  readonly entries: number;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The name of the nearest enclosing declaration: `file:name`. */
function ownerOf(node: ts.Node, file: string): string {
  for (let p: ts.Node | undefined = node.parent; p; p = p.parent) {
    if ((ts.isVariableDeclaration(p) || ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p)
      || ts.isClassDeclaration(p)) && p.name) {
      return `${file}:${p.name.getText()}`;
    }
  }
  return `${file}:(top level)`;
}

/** An alternative of a regular expression that is a word: letters, with a phrase's spaces (written `\s`, `\s*`…),
 * apostrophes and hyphens, word boundaries and optional letters (`shirts?`) allowed. */
function isWord(alternative: string): boolean {
  const plain = alternative.trim().replace(/\\b/g, '').replace(/\\s[?*+]?/g, ' ').replace(/\?/g, '');
  return /^\p{L}[\p{L}' -]*$/u.test(plain);
}

/** The largest number of word alternatives in any one group (or the top level) of a regular-expression source. */
function wordAlternatives(source: string): number {
  let best = splitTopLevel(source).filter(isWord).length;
  if (best === 1) best = 0;
  // Innermost groups first: a group's body with its nested groups' bodies blanked out.
  const stack: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '(') stack.push(i);
    else if (c === ')' && stack.length > 0) {
      const start = stack.pop()!;
      const body = source.slice(start + 1, i).replace(/^\?(?::|<?[=!])/, '');
      const alternatives = splitTopLevel(body);
      if (alternatives.length > 1) best = Math.max(best, alternatives.filter(isWord).length);
    }
  }
  return best;
}

function splitTopLevel(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      cur += c + (body[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === '|' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out;
}

function isString(node: ts.Node): boolean {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

/** Every literal of `file` that holds more than a handful of entries. */
function findings(path: string): Finding[] {
  const file = relative(CORE, path);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Finding[] = [];
  const flag = (node: ts.Node, what: string, entries: number): void => {
    if (entries <= HANDFUL) return;
    out.push({ owner: ownerOf(node, file), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what, entries });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) {
      flag(node, 'array of strings', node.elements.filter(isString).length);
    } else if (ts.isObjectLiteralExpression(node)) {
      // A record mixes strings with other values (ENDPOINTS, PLANS); a word table maps words to words or numbers.
      const props = node.properties.filter(ts.isPropertyAssignment);
      const allStrings = props.length === node.properties.length && props.every((p) => isString(p.initializer));
      flag(node, 'object of strings', Math.max(allStrings ? props.length : 0, props.filter((p) => ts.isStringLiteral(p.name)).length));
    } else if (ts.isRegularExpressionLiteral(node)) {
      flag(node, 'regular expression', wordAlternatives(node.text.slice(1, node.text.lastIndexOf('/'))));
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      flag(node, 'pattern in a string', wordAlternatives(node.text));
    } else if (ts.isTemplateExpression(node)) {
      // Interpolated parts are other values; the literal text around them is what the code spells.
      const text = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('\u0000');
      flag(node, 'pattern in a template', wordAlternatives(text));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const all = sourceFiles(CORE).flatMap(findings);

t.test('src/core holds no word list of more than a handful of entries outside the allowlist', async (t) => {
  const stray = all.filter((f) => !(f.owner in ALLOWED)).map((f) => `${f.owner} (line ${f.line}): ${f.what} with ${f.entries} entries`);
  t.same(stray, [], 'every word list is a knowledge/lexicon file (documented in knowledge/README.md)');
});

t.test('the allowlisted declarations hold no more entries than they did', async (t) => {
  const held = new Map<string, number>();
  for (const f of all) held.set(f.owner, (held.get(f.owner) ?? 0) + f.entries);
  for (const [owner, { entries, why }] of Object.entries(ALLOWED)) {
    const now = held.get(owner) ?? 0;
    t.ok(now > 0 && now <= entries, `${owner} (${why}): ${now} entries, at most ${entries}${now === 0 ? ' (stale: remove it from the allowlist)' : ''}`);
  }
});

t.test('the check finds the word lists it is meant to find', async (t) => {
  // A scratch file with each kind of literal: if these are not flagged, the passes above prove nothing.
  const probe = join(REPO_ROOT, 'dist', 'no-word-lists-probe.ts');
  const { writeFileSync, rmSync, mkdirSync } = await import('node:fs');
  mkdirSync(join(REPO_ROOT, 'dist'), { recursive: true });
  writeFileSync(probe, [
    "const FILLER = new Set(['special', 'classic', 'signature', 'house']);",
    "const NUMBERS = { one: 'ek', two: 'do', three: 'teen', four: 'char' };",
    "const QUOTED = { 'की': 1, 'का': 2, 'के': 3, 'और': 4 };",
    'const COMBO = /\\bcombo\\b|\\b(?:meal|combo|thali|box)\\b/i;',
    "const SOURCE = `\\\\b(?:party|family|group|crowd)\\\\b`;",
    "const PLURALS = /\\b(?:tablets?|capsules?|sachets?|syrups?)\\b/;",
    "const SMALL = ['a', 'b', 'c'];",
    "const UNITS_ONLY = /\\d+\\s?(?:kg|g|ml|l)\\b/;",
  ].join('\n'));
  try {
    const found = findings(probe);
    const owners = found.map((f) => f.owner.replace(/^.*:/, ''));
    t.same(owners.sort(), ['COMBO', 'FILLER', 'NUMBERS', 'PLURALS', 'QUOTED', 'SOURCE', 'UNITS_ONLY'].sort(),
      'arrays, objects, regular expressions and pattern strings are flagged; three entries are a handful');
    t.equal(found.find((f) => f.owner.endsWith('PLURALS'))?.entries, 4, 'an optional plural is still a word');
  } finally {
    rmSync(probe, { force: true });
  }
});
