import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWLEDGE_DIR } from '../paths.js';
import { readList, readRowPerKey, readTsv } from './tsv.js';

export const CUISINE_LABELS = [
  'North Indian', 'South Indian', 'Chinese', 'Italian', 'Thai', 'Japanese', 'Mexican', 'Middle Eastern', 'Korean',
  'American', 'Mughlai', 'Continental', 'Vietnamese', 'Mediterranean', 'Bakery', 'Beverages', 'SE Asian', 'European',
  'Desserts',
] as const;
export type Cuisine = (typeof CUISINE_LABELS)[number];

export const CUISINE_FAMILY_NAMES = ['indian', 'east_asian', 'western', 'anything'] as const;
/** Which kitchens' dishes go together in one meal; `anything` (drinks, desserts, bakes) goes with any. */
export type CuisineFamily = (typeof CUISINE_FAMILY_NAMES)[number];

/** What each cuisine label is as a kitchen (lexicon/cuisines.tsv). */
export interface CuisineTable {
  readonly family: ReadonlyMap<Cuisine, CuisineFamily>;
  /** Cuisines whose curries, kebabs and gravies are eaten with bread (rice and noodle mains are not). */
  readonly eatenWithBread: ReadonlySet<Cuisine>;
}

export const CUISINES_HEADER = ['cuisine', 'family', 'bread', 'note'] as const;

/** Reads lexicon/cuisines.tsv: every cuisine label once, with its family and whether its mains are eaten with bread. */
export function loadCuisineTable(dir: string = KNOWLEDGE_DIR): CuisineTable {
  const family = new Map<Cuisine, CuisineFamily>();
  const eatenWithBread = new Set<Cuisine>();
  for (const [cuisine, row] of readRowPerKey(join(dir, 'lexicon', 'cuisines.tsv'), CUISINES_HEADER, CUISINE_LABELS, 'cuisine')) {
    const where = `${row.file}:${row.line}`;
    const [, fam = '', bread = ''] = row.cells;
    family.set(cuisine, parseEnum(fam, CUISINE_FAMILY_NAMES, 'family', where));
    if (parseEnum(bread, ['yes', 'no'] as const, 'bread', where) === 'yes') eatenWithBread.add(cuisine);
  }
  return { family, eatenWithBread };
}

/**
 * How an item of cuisine `item` meets a meal of cuisine `meal`, strongest first: the same cuisine, the same family
 * (lexicon/cuisines.tsv), a drink, dessert or bake (a family that goes with anything), a meal of unknown cuisine, an
 * item of unknown cuisine, another family. Shared by /suggest (cart affinity, weighed by its fitted upsell model) and
 * /search ("something to go with biryani").
 */
export const CUISINE_RELATIONS = ['same', 'same_family', 'goes_with_anything', 'meal_unknown', 'item_unknown', 'other_family'] as const;
export type CuisineRelation = (typeof CUISINE_RELATIONS)[number];

export function cuisineRelation(cuisines: CuisineTable, item: Cuisine | 'uncertain', meal: Cuisine | 'uncertain'): CuisineRelation {
  if (item === 'uncertain') return 'item_unknown';
  const family = cuisines.family.get(item);
  if (family === 'anything') return 'goes_with_anything';
  if (meal === 'uncertain') return 'meal_unknown';
  if (item === meal) return 'same';
  return family === cuisines.family.get(meal) ? 'same_family' : 'other_family';
}

/** The stronger of two relations (CUISINE_RELATIONS order). */
export function closerRelation(a: CuisineRelation, b: CuisineRelation): CuisineRelation {
  return CUISINE_RELATIONS.indexOf(a) <= CUISINE_RELATIONS.indexOf(b) ? a : b;
}

export const COURSES = ['main', 'side', 'bread', 'dessert', 'beverage'] as const;
export type Course = (typeof COURSES)[number];

/** The course groups a menu's sections fall into: a drink, a dessert, or food (mains, starters, sides, breads). */
export type CourseGroup = 'beverage' | 'dessert' | 'food';

export function courseGroup(c: Course): CourseGroup {
  return c === 'beverage' ? 'beverage' : c === 'dessert' ? 'dessert' : 'food';
}

export const DIETS = ['veg', 'egg', 'non_veg'] as const;
export type Diet = (typeof DIETS)[number];

export const PROTEINS = [
  'paneer', 'chicken', 'mutton', 'lamb', 'fish', 'prawn', 'crab', 'lobster', 'squid', 'seafood', 'egg', 'soya',
  'mushroom', 'tofu', 'pork', 'beef', 'duck', 'turkey',
] as const;
export type Protein = (typeof PROTEINS)[number];

export const TAGS = [
  'sweet', 'spicy', 'healthy', 'light', 'fried', 'breakfast', 'kids', 'hot_drink', 'cold_drink', 'filling', 'snack',
  'street_food', 'grilled', 'creamy', 'tangy', 'vegan', 'high_protein', 'caffeinated', 'soup', 'salad', 'rice',
  'noodles', 'baked', 'fruity', 'nutty', 'chocolate', 'cheesy', 'mocktail', 'fizzy', 'fasting',
] as const;
export type Tag = (typeof TAGS)[number];

export interface Dish {
  readonly id: number;
  readonly name: string;
  readonly cuisine: Cuisine;
  readonly course: Course;
  readonly diet: Diet;
  readonly protein: Protein | null;
  readonly tags: readonly Tag[];
  readonly aliases: readonly string[];
  /** nameKey of the name and of every alias, distinct, name first: what exact lookups compare against. */
  readonly keys: readonly string[];
  /** file:line, for error messages and reviews. */
  readonly source: string;
}

export const DISH_HEADER = ['name', 'cuisine', 'course', 'diet', 'protein', 'tags', 'aliases'] as const;
/** Columns of hard_negatives.tsv. */
export const HARD_NEGATIVES_HEADER = ['text_a', 'text_b', 'kind', 'note'] as const;

/** Lower-case, accent-folded, punctuation-free key used for exact name lookups. */
export function nameKey(text: string): string {
  const ascii = asciiNameKey(text);
  if (ascii !== null) return ascii;
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();
}

/**
 * nameKey for plain ASCII text in one pass (the loader keys ~18k names at start-up, nearly all ASCII);
 * null when the text has other characters and needs Unicode normalisation.
 */
function asciiNameKey(text: string): string | null {
  let out = '';
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c > 0x7e) return null;
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      if (pendingSpace && out.length > 0) out += ' ';
      pendingSpace = false;
      out += String.fromCharCode(c);
    } else if (c === 0x26) {
      if (out.length > 0) out += ' ';
      out += 'and';
      pendingSpace = true;
    } else {
      pendingSpace = true;
    }
  }
  return out;
}

export interface DishBook {
  readonly dishes: readonly Dish[];
  /** nameKey(name or alias) → dish ids (more than one only for names listed as ambiguous). */
  readonly byKey: ReadonlyMap<string, readonly number[]>;
  readonly ambiguous: ReadonlySet<string>;
  /** What each cuisine label is as a kitchen (lexicon/cuisines.tsv). */
  readonly cuisines: CuisineTable;
}

function parseEnum<T extends string>(value: string, allowed: readonly T[], what: string, where: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${where}: ${what} "${value}" is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/**
 * Loads and validates knowledge/dishes/*.tsv. Throws with file:line on the first problem: unknown labels,
 * duplicate canonical names, or a name/alias shared by two dishes that is not declared ambiguous.
 */
export function loadDishBook(dir: string = KNOWLEDGE_DIR): DishBook {
  const dishesDir = join(dir, 'dishes');
  const ambiguous = new Set(readList(join(dir, 'lexicon', 'ambiguous.txt')).map(nameKey));
  const dishes: Dish[] = [];
  const files = readdirSync(dishesDir).filter((f) => f.endsWith('.tsv')).sort();
  for (const file of files) {
    for (const row of readTsv(join(dishesDir, file), DISH_HEADER)) {
      const where = `knowledge/dishes/${file}:${row.line}`;
      if (row.cells.length !== DISH_HEADER.length) {
        throw new Error(`${where}: expected ${DISH_HEADER.length} tab-separated columns, got ${row.cells.length}`);
      }
      const [name, cuisine, course, diet, protein, tags, aliases] = row.cells as [string, string, string, string, string, string, string];
      if (!name || !nameKey(name)) throw new Error(`${where}: empty name`);
      const aliasList = aliases === '-' || aliases === '' ? [] : aliases.split('|').map((a) => a.trim()).filter(Boolean);
      dishes.push({
        id: dishes.length,
        name,
        cuisine: parseEnum(cuisine, CUISINE_LABELS, 'cuisine', where),
        course: parseEnum(course, COURSES, 'course', where),
        diet: parseEnum(diet, DIETS, 'diet', where),
        protein: protein === '-' || protein === '' ? null : parseEnum(protein, PROTEINS, 'protein', where),
        tags: tags === '-' || tags === '' ? [] : tags.split(',').map((t) => parseEnum(t.trim(), TAGS, 'tag', where)),
        aliases: aliasList,
        keys: [...new Set([nameKey(name), ...aliasList.map(nameKey)])].filter(Boolean),
        source: where,
      });
    }
  }

  const canonical = new Map<string, Dish>();
  for (const d of dishes) {
    const key = d.keys[0] ?? '';
    const prev = canonical.get(key);
    if (prev) throw new Error(`${d.source}: duplicate dish name "${d.name}" (also ${prev.source})`);
    canonical.set(key, d);
  }

  const byKey = new Map<string, number[]>();
  for (const d of dishes) {
    for (const key of d.keys) {
      const ids = byKey.get(key);
      if (!ids) byKey.set(key, [d.id]);
      else ids.push(d.id);
    }
  }
  for (const [key, ids] of byKey) {
    if (ids.length > 1 && !ambiguous.has(key)) {
      const names = ids.map((i) => `"${dishes[i]!.name}" (${dishes[i]!.source})`).join(' and ');
      throw new Error(`knowledge: "${key}" names ${names}; list it in knowledge/lexicon/ambiguous.txt if it really is ambiguous`);
    }
  }
  return { dishes, byKey, ambiguous, cuisines: loadCuisineTable(dir) };
}
