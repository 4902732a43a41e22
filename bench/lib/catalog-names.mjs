import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readCsv } from './csv.mjs';
import { seededRandom } from './menu-names.mjs';

/**
 * Real menu rows (item name + restaurant) for the catalog benchmark, read at run time from ../shared/data and never
 * copied into the repo. swiggy_menus_more is not read at all: its held-out restaurants (eval/split.json) must stay out
 * of every selection, and leaving the whole source out is the simplest way to be sure.
 */
const SOURCES = [
  { folder: 'swiggy_menu_dumps', file: 'swiggy_menu_items.csv', name: 'item_name', restaurant: 'restaurant' },
  { folder: 'swiggy_blr_menus', file: 'swiggy_all_menus_bangalore.csv', name: 'Dish Name', restaurant: 'Restaurant Name' },
  { folder: 'zomato_roorkee_menus', file: 'zomato_roorkee_menu_items.csv', name: 'item_name', restaurant: 'restaurant' },
  { folder: 'nutritionix_us_chain_items', file: 'MenuItem.csv', name: 'Original food Item', restaurant: 'Restaurant Name' },
  { folder: 'mcdonalds_us_menu', file: 'mcdonalds_menu_items.csv', name: 'item', restaurant: null },
];

/** Every row of the sources above: { name, restaurant }, or null without the data folder. */
export function readCatalogRows(dataDir) {
  const rows = [];
  const used = [];
  for (const src of SOURCES) {
    const path = join(dataDir, src.folder, src.file);
    if (!existsSync(path)) continue;
    const csv = readCsv(path);
    for (const r of csv) {
      const name = (r[src.name] ?? '').trim();
      if (name) rows.push({ name, restaurant: src.restaurant ? (r[src.restaurant] ?? '').trim() : "McDonald's" });
    }
    used.push(`${src.folder} (${csv.length} rows)`);
  }
  return rows.length > 0 ? { rows, sources: used } : null;
}

const PRICE = [' ₹99', ' ₹149', ' - Rs 199', ' ₹249.00', ' (₹320)'];
const SIZE = [' (Half)', ' (Full)', ' [Serves 2]', ' - 500 ml', ' (6 Pcs)', ' Regular', ' - Large'];
const PROMO = [' [Bestseller]', ' - New', ' (Must Try)', " Chef's Special", ' 🔥'];
const QUALIFIER_BEFORE = ['Special ', 'Jain ', 'Home Style ', 'Classic '];
const QUALIFIER_AFTER = [' with Raita', ' Combo', ' Family Pack', ' Dry'];

/** One slip a person typing a menu makes: two letters swapped, a letter dropped or doubled, in a word of 5+. */
function typo(name, random) {
  const words = name.split(' ');
  const long = words.map((w, i) => [w, i]).filter(([w]) => /^[A-Za-z]{5,}$/.test(w));
  if (long.length === 0) return null;
  const [w, i] = long[Math.floor(random() * long.length)];
  const p = 1 + Math.floor(random() * (w.length - 2));
  const kind = random();
  const slipped = kind < 0.4 ? w.slice(0, p) + w[p + 1] + w[p] + w.slice(p + 2) : kind < 0.7 ? w.slice(0, p) + w.slice(p + 1) : w.slice(0, p) + w[p] + w.slice(p);
  words[i] = slipped;
  return words.join(' ');
}

/**
 * A realistic variant of a real row, as another outlet or another restaurant lists the same item: mostly noise that
 * cleaning removes (price, size, promo label, emoji, letter case), sometimes a misspelling, sometimes a qualifier that
 * makes another item (a combo, a Jain version). The kinds and their shares are those seen on the Swiggy dumps.
 */
export function noiseVariant(row, random) {
  const r = random();
  const pick = (list) => list[Math.floor(random() * list.length)];
  let name = row.name;
  if (r < 0.2) name += pick(PRICE);
  else if (r < 0.4) name += pick(SIZE);
  else if (r < 0.52) name += pick(PROMO);
  else if (r < 0.62) name = random() < 0.5 ? name.toUpperCase() : name.toLowerCase();
  else if (r < 0.85) name = typo(name, random) ?? name + pick(SIZE);
  else name = random() < 0.5 ? pick(QUALIFIER_BEFORE) + name : name + pick(QUALIFIER_AFTER);
  const outlet = 1 + Math.floor(random() * 40);
  return { name, restaurant: `${row.restaurant} (Outlet ${outlet})` };
}

/** `size` rows: every real row once (shuffled), then noise variants of random real rows. */
export function catalogOfSize(real, size, seed = 29) {
  const random = seededRandom(seed);
  const out = real.slice(0, size);
  while (out.length < size) out.push(noiseVariant(real[Math.floor(random() * real.length)], random));
  // Interleave so any prefix (10k, 25k, ...) mixes real rows and variants as the whole does.
  const shuffled = seededRandom(seed + 1);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(shuffled() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
