/**
 * Non-food detection on labelled items (test/fixtures/nonfood_eval.tsv: `text	label`, label food | grocery |
 * pharmacy | merchandise): real menu items against grocery, medicine and product listings. The detection metrics
 * treat any non-food label as the positive class; the category metrics ask for the right one of the three. The
 * fixture is an eval set: nothing is tuned on it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';
import { judgeNonFood, nonFoodStatus } from '../src/core/nonfood.js';
import { readFixture } from './data.js';
import type { EvalKit } from './extra.js';

export const NONFOOD_FIXTURE = 'test/fixtures/nonfood_eval.tsv';

export async function evalNonfood(kit: EvalKit): Promise<void> {
  await kit.section('nonfood_f1', async () => {
    if (!existsSync(join(REPO_ROOT, NONFOOD_FIXTURE))) throw new Error(`${NONFOOD_FIXTURE} missing`);
    const rows = readFixture(NONFOOD_FIXTURE).filter((r) => r.text && r.label);
    const s = kit.services;
    kit.metric('nonfood_status', nonFoodStatus(s.modelId) ?? 'null (rules and knowledge base only)');
    const { cleaned, vectors } = await s.embedTexts(rows.map((r) => r.text!), 384);
    const verdicts = judgeNonFood(s.modelId, rows.map((r, i) => ({ original: r.text!, cleaned: cleaned[i]!.text })), vectors as Float32Array[]);

    let tp = 0, fp = 0, fn = 0, rightCategory = 0;
    const perClass = new Map<string, { tp: number; fp: number; fn: number }>();
    const bump = (label: string, field: 'tp' | 'fp' | 'fn'): void => {
      const c = perClass.get(label) ?? { tp: 0, fp: 0, fn: 0 };
      c[field]++;
      perClass.set(label, c);
    };
    const bySource = new Map<string, number>();
    verdicts.forEach((v, i) => {
      const truth = rows[i]!.label!;
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
    kit.metric('nonfood_precision', precision, `tp ${tp} fp ${fp}; ${counts}`);
    kit.metric('nonfood_recall', recall, `fn ${fn}`);
    kit.metric('nonfood_f1', (2 * tp) / Math.max(2 * tp + fp + fn, 1), 'any non-food label vs food; target ≥ 0.95');
    kit.metric('nonfood_category_accuracy', rightCategory / Math.max(tp, 1), 'right category among detected non-food items');
    kit.metric(
      'nonfood_per_class_f1',
      ['food', 'grocery', 'pharmacy', 'merchandise']
        .map((l) => {
          const c = perClass.get(l) ?? { tp: 0, fp: 0, fn: 0 };
          return `${l} ${((2 * c.tp) / Math.max(2 * c.tp + c.fp + c.fn, 1)).toFixed(3)}`;
        })
        .join(', '),
    );
    kit.metric('nonfood_by_source', [...bySource.entries()].map(([k, n]) => `${k} ${n}`).join(', '));
  });
}
