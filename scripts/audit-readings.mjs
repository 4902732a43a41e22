#!/usr/bin/env node
// Lists how the service reads the real menu names of the development side of ../shared/data, for a person to review:
// what the knowledge base gets wrong shows up here before any labelled set has the case. Nothing is scored; every list
// is a review queue. The held-out restaurants of eval/split.json, and every name one of them lists, are left out.
//   node scripts/audit-readings.mjs <corrections|dishes|unresolved|diet> [--all]   (after the TypeScript build)
//   corrections  each word the spelling corrector changes that misspellings.tsv does not list, with a count and an example
//   dishes       each fuzzy dish reading (text ⇒ dish, score), most frequent first
//   unresolved   the texts that read as no dish and no combo
//   diet         the items whose diet reading contradicts the restaurant's own veg / non-veg mark (sources with marks)
//   residue      cleaned names that still hold a digit, a bracket, a currency sign or a slash: where portion, count or
//                price notes the cleaner does not know yet survive (some are dish names, e.g. Chicken 65)
// Lists are cut at 200 lines unless --all.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCsv } from '../bench/lib/csv.mjs';
import { loadKnowledge } from '../dist/src/core/knowledge/index.js';
import { parseMenuText } from '../dist/src/core/menu-text.js';
import { vegOrNot } from '../dist/src/core/items.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const data = join(root, '..', 'shared', 'data');
const mode = process.argv[2];
const all = process.argv.includes('--all');
if (!['corrections', 'dishes', 'unresolved', 'diet', 'residue'].includes(mode ?? '')) {
  console.error('usage: node scripts/audit-readings.mjs <corrections|dishes|unresolved|diet|residue> [--all]');
  process.exit(2);
}

/** The sources read, the column that holds the item name and how a row's veg mark reads (null: no mark). */
const SOURCES = [
  { file: 'swiggy_menu_dumps/swiggy_menu_items.csv', name: 'item_name', mark: (r) => ({ VEG: 'veg', NONVEG: 'non_veg', EGG: 'non_veg' })[r.vegClassifier] ?? null },
  { file: 'swiggy_blr_menus/swiggy_all_menus_bangalore.csv', name: 'Dish Name', mark: () => null },
  { file: 'swiggy_menus_more/swiggy_menus_more.csv', name: 'item_name', mark: (r) => markOf(r.diet) },
  { file: 'zomato_roorkee_menus/zomato_roorkee_menu_items.csv', name: 'item_name', mark: (r) => markOf(r.veg_nonveg) },
];
function markOf(value) {
  const v = (value ?? '').toLowerCase().replace(/[^a-z]/g, '');
  return v === 'veg' ? 'veg' : v === 'nonveg' || v === 'egg' ? 'non_veg' : null;
}

const split = JSON.parse(readFileSync(join(root, 'eval', 'split.json'), 'utf8'));
const heldOut = new Set(split.heldout_restaurants.map((r) => r.trim().toLowerCase()));
const rows = [];
for (const src of SOURCES) {
  const path = join(data, src.file);
  if (!existsSync(path)) continue;
  for (const r of readCsv(path)) {
    const name = (r[src.name] ?? '').trim();
    if (name) rows.push({ name, held: heldOut.has((r.restaurant ?? r['Restaurant Name'] ?? '').trim().toLowerCase()), mark: src.mark(r) });
  }
}
if (rows.length === 0) {
  console.error(`no menu data under ${data}`);
  process.exit(2);
}
const heldNames = new Set(rows.filter((r) => r.held).map((r) => r.name));
const dev = rows.filter((r) => !r.held && !heldNames.has(r.name));
const names = [...new Set(dev.map((r) => r.name))];
const k = loadKnowledge();

const counts = new Map();
const count = (key, example) => {
  const e = counts.get(key) ?? { n: 0, example };
  e.n++;
  counts.set(key, e);
};
if (mode === 'corrections') {
  const listed = k.cleaning.misspellings;
  for (const n of names) {
    for (const c of k.cleaner.clean(n).corrections) {
      const from = c.from.toLowerCase();
      if (!listed.has(from) && !/[\u0900-\u0D7F]/u.test(from)) count(`${from} → ${c.to.toLowerCase()}`, n);
    }
  }
} else if (mode === 'dishes' || mode === 'unresolved') {
  for (const n of names) {
    const t = parseMenuText(k, n);
    if (mode === 'dishes' && t.dish?.how === 'fuzzy') count(`${t.text.toLowerCase()} ⇒ ${t.dish.dish.name} (${t.dish.score})`, n);
    if (mode === 'unresolved' && !t.dish && !t.combo?.main) count(t.text, n);
  }
} else if (mode === 'residue') {
  for (const n of names) {
    const c = k.cleaner.clean(n).name;
    if (/[0-9()[\]{}₹$/]/u.test(c)) count(`${n} → ${c}`, n);
  }
} else {
  let marked = 0, agree = 0, open = 0;
  for (const r of dev) {
    if (!r.mark) continue;
    marked++;
    const t = parseMenuText(k, r.name);
    const ours = vegOrNot(t.profile.diet);
    if (ours === 'unknown') open++;
    else if (ours === r.mark) agree++;
    else count(`marked ${r.mark === 'veg' ? 'veg, read non-veg' : 'non-veg, read veg'}: ${t.text}${t.dish ? ` [${t.dish.dish.name}, ${t.dish.how}]` : ''}`, r.name);
  }
  console.log(`# ${marked} marked items: ${agree} read as marked, ${open} read as unknown, ${marked - agree - open} contradict their mark`);
}
const list = [...counts].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0]));
console.log(`# ${mode}: ${list.length} distinct over ${names.length} development-side names`);
for (const [key, e] of all ? list : list.slice(0, 200)) console.log(`${String(e.n).padStart(4)} ${key}${mode === 'corrections' ? `   [${e.example}]` : ''}`);
