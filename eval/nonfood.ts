/**
 * Non-food detection on labelled items (`text	label`, label food | grocery | pharmacy | merchandise): real menu items
 * against grocery, medicine and product listings (development data only). The detection metrics treat any non-food
 * label as the positive class; the category metrics ask for the right one of the three.
 */
import { judgeNonFood, nonFoodStatus } from '../src/core/nonfood.js';
import type { EvalKit } from './extra.js';
import type { EvalSets } from './sets.js';

export async function evalNonfood(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  if (sets.nonfood.length === 0) return;
  await kit.section(`nonfood_f1${label}`, async () => {
    const rows = sets.nonfood;
    const s = kit.services;
    kit.metric(`nonfood_status${label}`, nonFoodStatus(s.heads) ?? 'null (rules and knowledge base only)');
    const { texts, vectors } = await s.embedTexts(rows.map((r) => r.text), 384);
    const verdicts = judgeNonFood(s.knowledge, s.heads, texts, vectors);

    let tp = 0, fp = 0, fn = 0, rightCategory = 0;
    const perClass = new Map<string, { tp: number; fp: number; fn: number }>();
    const bump = (label: string, field: 'tp' | 'fp' | 'fn'): void => {
      const c = perClass.get(label) ?? { tp: 0, fp: 0, fn: 0 };
      c[field]++;
      perClass.set(label, c);
    };
    const bySource = new Map<string, number>();
    verdicts.forEach((v, i) => {
      const truth = rows[i]!.label;
      const predicted = v.category ?? 'food';
      bySource.set(v.source, (bySource.get(v.source) ?? 0) + 1);
      const isNonFood = truth !== 'food';
      if (v.category && isNonFood) tp++;
      else if (v.category) fp++;
      else if (isNonFood) fn++;
      if (v.category && predicted === truth) rightCategory++;
      if (predicted === truth) bump(truth, 'tp');
      else {
        bump(predicted, 'fp');
        bump(truth, 'fn');
      }
    });
    const precision = tp / Math.max(tp + fp, 1);
    const recall = tp / Math.max(tp + fn, 1);
    const counts = ['food', 'grocery', 'pharmacy', 'merchandise'].map((l) => `${l} ${rows.filter((r) => r.label === l).length}`).join(', ');
    kit.metric(`nonfood_precision${label}`, precision, `tp ${tp} fp ${fp}; ${counts}`);
    kit.metric(`nonfood_recall${label}`, recall, `fn ${fn}`);
    kit.metric(`nonfood_f1${label}`, (2 * tp) / Math.max(2 * tp + fp + fn, 1), 'any non-food label vs food; target ≥ 0.95');
    kit.metric(`nonfood_category_accuracy${label}`, rightCategory / Math.max(tp, 1), 'right category among detected non-food items');
    kit.metric(
      `nonfood_per_class_f1${label}`,
      ['food', 'grocery', 'pharmacy', 'merchandise']
        .map((l) => {
          const c = perClass.get(l) ?? { tp: 0, fp: 0, fn: 0 };
          return `${l} ${((2 * c.tp) / Math.max(2 * c.tp + c.fp + c.fn, 1)).toFixed(3)}`;
        })
        .join(', '),
    );
    kit.metric(`nonfood_by_source${label}`, [...bySource.entries()].map(([k, n]) => `${k} ${n}`).join(', '));
  });
}
