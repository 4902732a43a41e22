import { measureCoverage } from '../src/core/knowledge/coverage.js';
import { cuisineCue, dietOf } from '../src/core/knowledge/cues.js';
import type { Cuisine } from '../src/core/knowledge/dishes.js';
import { readCsv, realMenuItems, sharedAvailable } from './data.js';
import type { EvalKit } from './extra.js';

/** archanas_kitchen_subset's Cuisine values → our labels (unmapped values such as "Indian" or "Fusion" are skipped). */
export const ARCHANA_CUISINE: Readonly<Record<string, Cuisine>> = {
  'North Indian Recipes': 'North Indian', Punjabi: 'North Indian', Rajasthani: 'North Indian', 'Bengali Recipes': 'North Indian',
  'Maharashtrian Recipes': 'North Indian', 'Gujarati Recipes': 'North Indian', 'Goan Recipes': 'North Indian', Kashmiri: 'North Indian',
  Bihari: 'North Indian', Sindhi: 'North Indian', Assamese: 'North Indian', 'Oriya Recipes': 'North Indian', Himachal: 'North Indian',
  'Uttar Pradesh': 'North Indian', Haryana: 'North Indian', Malvani: 'North Indian', Konkan: 'North Indian',
  'North East India Recipes': 'North Indian', 'Parsi Recipes': 'North Indian',
  'South Indian Recipes': 'South Indian', 'Kerala Recipes': 'South Indian', 'Tamil Nadu': 'South Indian', Karnataka: 'South Indian',
  Andhra: 'South Indian', Chettinad: 'South Indian', Mangalorean: 'South Indian', Udupi: 'South Indian', Malabar: 'South Indian',
  Coorg: 'South Indian', 'North Karnataka': 'South Indian', 'Coastal Karnataka': 'South Indian', 'South Karnataka': 'South Indian',
  Kongunadu: 'South Indian',
  Hyderabadi: 'Mughlai', Awadhi: 'Mughlai', Mughlai: 'Mughlai', Lucknowi: 'Mughlai',
  'Italian Recipes': 'Italian', Mexican: 'Mexican', Continental: 'Continental',
  Chinese: 'Chinese', 'Indo Chinese': 'Chinese', Cantonese: 'Chinese', Sichuan: 'Chinese', Shandong: 'Chinese',
  Thai: 'Thai', 'Middle Eastern': 'Middle Eastern', Arab: 'Middle Eastern', Mediterranean: 'Mediterranean', Greek: 'Mediterranean',
  European: 'European', French: 'European', British: 'European', Vietnamese: 'Vietnamese', Japanese: 'Japanese', Korean: 'Korean',
  American: 'American', Asian: 'SE Asian', Indonesian: 'SE Asian',
};

function recipeName(raw: string): string {
  return raw.replace(/\(.*?\)/g, ' ').replace(/\s+-\s+.*$/, '').replace(/\brecipe\b.*$/i, '').trim();
}

/** Knowledge-base metrics: coverage of real menus, diet accuracy of dietOf, cuisine accuracy of the cue lexicon alone. */
export async function evalKnowledge(kit: EvalKit): Promise<void> {
  await kit.section('kb_coverage', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const names = realMenuItems().map((x) => x.name);
    const r = measureCoverage(kit.services.knowledge, names, { top: 8 });
    kit.metric('kb_coverage', r.shareWithCombos, `${r.total} item names of swiggy_menu_dumps + zomato_roorkee_menus; exact ${r.exact}, fuzzy ${r.fuzzy}, combo ${r.combo}; single-dish share ${r.share.toFixed(3)}; distinct ${r.distinct.share.toFixed(3)}`);
    kit.metric('kb_coverage_top_misses', r.misses.map((m) => `${m.name}×${m.count}`).join('; '));
  });

  await kit.section('kb_diet_accuracy', async () => {
    for (const source of ['swiggy_menu_dumps', 'zomato_roorkee_menus']) {
      const items = realMenuItems().filter((x) => x.source === source && x.diet !== null);
      let answered = 0, correct = 0;
      for (const it of items) {
        const d = dietOf(kit.services.knowledge.cues, kit.services.cleaner.clean(it.name).text).value;
        if (d === 'unknown') continue;
        answered++;
        if ((d === 'veg') === (it.diet === 'veg')) correct++;
      }
      kit.metric(`kb_diet_accuracy_${source}`, correct / answered, `on ${answered} answered of ${items.length} labelled items (egg counts as non-veg); ${items.length - answered} left unknown`);
    }
  });

  await kit.section('kb_cuisine_cue_accuracy', async () => {
    const sets: [string, { text: string; label: Cuisine }[]][] = [];
    const ifood = readCsv('indian_food_101/indian_food.csv').flatMap((r) => {
      if (r.course === 'dessert') return [{ text: r.name!, label: 'Desserts' as Cuisine }];
      if (r.region === 'South') return [{ text: r.name!, label: 'South Indian' as Cuisine }];
      if (['North', 'West', 'East', 'Central', 'North East'].includes(r.region ?? '')) return [{ text: r.name!, label: 'North Indian' as Cuisine }];
      return [];
    });
    sets.push(['indian_food_101', ifood]);
    const archana = readCsv('archanas_kitchen_subset/IndianFoodDataset.csv').flatMap((r) => {
      const course = r.Course ?? '';
      const mapped = /dessert/i.test(course) ? ('Desserts' as Cuisine) : ARCHANA_CUISINE[(r.Cuisine ?? '').replace(/\uFEFF/g, '').trim()];
      return mapped ? [{ text: recipeName(r.TranslatedRecipeName ?? r.RecipeName ?? ''), label: mapped }] : [];
    });
    sets.push(['archanas_kitchen', archana]);
    for (const [name, rows] of sets) {
      let answered = 0, correct = 0;
      for (const r of rows) {
        const c = cuisineCue(kit.services.knowledge.cues, kit.services.cleaner.clean(r.text).text).value;
        if (c === null) continue;
        answered++;
        if (c === r.label) correct++;
      }
      kit.metric(`kb_cuisine_cue_accuracy_${name}`, correct / Math.max(1, answered), `lexicon alone, on ${answered} answered of ${rows.length} mapped items (coverage ${(answered / Math.max(1, rows.length)).toFixed(3)}); label mapping in eval/knowledge.ts`);
    }
  });
}
