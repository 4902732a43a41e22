import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readCsv } from './csv.mjs';

/**
 * Real menu-item names for the benchmarks, read at run time from ../shared/data (never copied into the repo).
 * Two sources, the columns that hold the item name as the restaurant typed it.
 */
const SOURCES = [
  { folder: 'swiggy_menu_dumps', file: 'swiggy_menu_items.csv', column: 'item_name' },
  { folder: 'swiggy_blr_menus', file: 'swiggy_all_menus_bangalore.csv', column: 'Dish Name' },
];

/** Deterministic PRNG (mulberry32) so a re-run sends the same texts in the same order. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle(items, random) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Every item-name row of the shared menus (duplicates kept: real uploads repeat names across outlets), or null
 * when the data folder is absent (a clone without shared/).
 */
export function readRealMenuNames(dataDir) {
  const names = [];
  const used = [];
  for (const src of SOURCES) {
    const path = join(dataDir, src.folder, src.file);
    if (!existsSync(path)) continue;
    const rows = readCsv(path);
    for (const row of rows) {
      const name = (row[src.column] ?? '').trim();
      if (name) names.push(name);
    }
    used.push(`${src.folder} (${rows.length} rows)`);
  }
  return names.length > 0 ? { names, sources: used } : null;
}

// Synthetic menu vocabulary for the fallback and for warm-up traffic: general menu knowledge, written here.
const PROTEINS = ['Chicken', 'Paneer', 'Mutton', 'Veg', 'Egg', 'Prawn', 'Fish', 'Mushroom', 'Aloo', 'Gobi', 'Soya', 'Corn', 'Tofu', 'Lamb'];
const DISHES = [
  'Biryani', 'Tikka', 'Tikka Masala', 'Butter Masala', 'Curry', 'Korma', 'Fried Rice', 'Hakka Noodles', 'Manchurian',
  'Kebab', 'Kathi Roll', 'Burger', 'Pizza', 'Sandwich', 'Wrap', 'Momos', 'Soup', 'Salad', 'Pulao', 'Kadai',
  'Do Pyaza', 'Chettinad', 'Lollipop', 'Fry', 'Sizzler', 'Pasta', 'Quesadilla', 'Shawarma', 'Ghee Roast', 'Pepper Fry',
];
const STYLES = ['', 'Tandoori', 'Schezwan', 'Hyderabadi', 'Andhra', 'Crispy', 'Chilli', 'Malai', 'Achari', 'Peri Peri', 'Smoky', 'Kolhapuri'];

/** Plausible menu names that no real menu had to supply: protein × dish × style. */
export function syntheticMenuNames() {
  const out = [];
  for (const style of STYLES) for (const protein of PROTEINS) for (const dish of DISHES) out.push([style, protein, dish].filter(Boolean).join(' '));
  return out;
}

/**
 * Qualifiers that real menus put around a dish name and that text cleaning keeps (they change the dish, unlike
 * sizes, prices and promo labels). Used to mint new, still realistic names once the real ones are used up.
 */
const PREFIXES = ['Spicy', 'Jain', 'Tandoori', 'Homestyle', 'Classic', 'Crispy', 'Smoked', 'Kerala Style', 'Punjabi', 'Masala', 'Butter', 'Grilled', 'Garlic', 'Cheese', 'Loaded', 'Mini'];
const SUFFIXES = ['with Raita', 'with Mint Chutney', 'with Extra Cheese', 'with Salad', 'with Gravy', 'Dry', 'Roll', 'Platter', 'Bowl', 'Combo Meal'];

export function* qualifiedVariants(names) {
  for (const q of PREFIXES) for (const name of names) yield `${q} ${name}`;
  for (const q of SUFFIXES) for (const name of names) yield `${name} ${q}`;
}

/**
 * Hands out texts the server has never seen, so /embed runs are cache misses. Uniqueness is decided on the cleaned
 * text, because that is the server's cache key ("Chicken Biryani" and "Chicken Biryani [Serves 2] ₹299" are the same
 * entry). Real names come first (shuffled); after them, qualified variants of the real names.
 */
export class FreshTexts {
  constructor(realNames, cleanText, random) {
    this.cleanText = cleanText;
    this.seen = new Set();
    this.real = this.uniqueByCleaned(shuffle(realNames, random));
    this.realIndex = 0;
    this.variants = qualifiedVariants(shuffle(this.real, random));
  }

  uniqueByCleaned(names) {
    const out = [];
    const local = new Set();
    for (const n of names) {
      const key = this.cleanText(n);
      if (local.has(key)) continue;
      local.add(key);
      out.push(n);
    }
    return out;
  }

  get realCount() {
    return this.real.length;
  }

  /** Marks texts as sent (warm-up traffic from another source), so they are never handed out as fresh. */
  markSeen(texts) {
    for (const t of texts) this.seen.add(this.cleanText(t));
  }

  /** n never-sent texts; `variants` counts how many are qualified variants rather than real names. */
  take(n) {
    const texts = [];
    let variants = 0;
    while (texts.length < n && this.realIndex < this.real.length) {
      const t = this.real[this.realIndex++];
      const key = this.cleanText(t);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      texts.push(t);
    }
    while (texts.length < n) {
      const next = this.variants.next();
      if (next.done) throw new Error(`ran out of fresh menu texts after ${this.seen.size}`);
      const key = this.cleanText(next.value);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      texts.push(next.value);
      variants++;
    }
    return { texts, variants };
  }
}
