/**
 * Cuisine classification on labelled real menu items (`text	cuisine`, one of the 19 labels). Accuracy counts
 * "uncertain" as wrong; answered accuracy and coverage split the two; the confusion pairs name the commonest mistakes among answered items. Also reported per source (knowledge-base dish, fuzzy dish, head,
 * lexicon cue) so a regression can be traced.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASSIFIER_DIR, classifierProblem, classifierStatus, predictCuisines } from '../src/core/classify.js';
import { suggestCategory } from '../src/core/suggest.js';
import type { EvalKit } from './extra.js';
import type { EvalSets } from './sets.js';

export async function evalClassify(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  await kit.section(`classify_accuracy${label}`, async () => {
    const rows = sets.cuisine;
    if (rows.length === 0) throw new Error('no labelled cuisines');
    const s = kit.services;
    const status = classifierStatus(s.heads);
    if (sets.side === 'dev') kit.metric('classify_status', status ?? 'null', status ? '' : classifierProblem(s.heads) ?? '');
    const { texts, vectors } = await s.embedTexts(rows.map((r) => r.text), 384);
    const started = performance.now();
    const predictions = predictCuisines(s.knowledge, s.heads, texts, vectors);
    const ms = performance.now() - started;

    let answered = 0;
    let correct = 0;
    const confusions = new Map<string, number>();
    const bySource = new Map<string, { n: number; answered: number; correct: number }>();
    predictions.forEach((p, i) => {
      const truth = rows[i]!.cuisine;
      const src = bySource.get(p.source) ?? { n: 0, answered: 0, correct: 0 };
      src.n++;
      if (p.cuisine !== 'uncertain') {
        answered++;
        src.answered++;
        if (p.cuisine === truth) {
          correct++;
          src.correct++;
        } else {
          const key = `${truth} → ${p.cuisine}`;
          confusions.set(key, (confusions.get(key) ?? 0) + 1);
        }
      }
      bySource.set(p.source, src);
    });
    const n = rows.length;
    kit.metric(`classify_accuracy_overall${label}`, correct / n, `${correct}/${n} labelled items; uncertain counts as wrong`);
    kit.metric(`classify_accuracy_answered${label}`, correct / Math.max(answered, 1), `${correct}/${answered}; target ≥ 0.85`);
    kit.metric(`classify_coverage${label}`, answered / n, `${answered}/${n} answered; target ≥ 0.90`);
    kit.metric(
      `classify_by_source${label}`,
      [...bySource.entries()].map(([k, v]) => `${k} ${v.n} items, ${v.answered} answered, ${(v.correct / Math.max(v.answered, 1)).toFixed(3)} right`).join('; '),
    );
    const top = [...confusions.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 8);
    kit.metric(`classify_top_confusions${label}`, top.map(([k, v]) => `${k} ×${v}`).join('; ') || 'none');
    kit.metric(`classify_head_ms_per_100${label}`, (ms / n) * 100, 'classification after embedding, per 100 items');

    const metricsPath = join(CLASSIFIER_DIR, 'metrics.json');
    if (sets.side === 'dev' && existsSync(metricsPath)) {
      const m = JSON.parse(readFileSync(metricsPath, 'utf8')) as { cuisine?: Record<string, unknown> };
      const c = m.cuisine ?? {};
      kit.metric('classify_head_heldout_accuracy', Number(c.heldout_accuracy), `unseen knowledge-base dishes, head alone; answered ${c.heldout_answered_accuracy} at coverage ${c.heldout_coverage}, threshold ${c.threshold}`);
    }
  });

  // The course of real menu items as /suggest reads it (its categories, and so the cart's missing ones), and as the
  // profile alone reads it (what /search's course features start from).
  if (sets.course.length > 0) {
    await kit.section(`course_accuracy${label}`, async () => {
      const s = kit.services;
      const rows = sets.course;
      const { texts, vectors } = await s.embedTexts(rows.map((r) => r.text), 384);
      const cuisines = predictCuisines(s.knowledge, s.heads, texts, vectors);
      let category = 0, profile = 0;
      const confusions = new Map<string, number>();
      texts.forEach((t, i) => {
        const truth = rows[i]!.course;
        const read = suggestCategory(s.knowledge, t.profile, t.removed, cuisines[i]!.cuisine, vectors[i]!, s.heads);
        if (read === truth) category++;
        else confusions.set(`${truth} → ${read}`, (confusions.get(`${truth} → ${read}`) ?? 0) + 1);
        if (t.profile.course === truth) profile++;
        if (read !== truth && process.argv.includes('--errors') && sets.side === 'dev') console.log(`#   course ${truth} read ${read}  ${rows[i]!.text}`);
      });
      const top = [...confusions].sort((a, b) => b[1] - a[1]).slice(0, 5);
      kit.metric(`course_accuracy${label}`, category / rows.length, `${category}/${rows.length} labelled real items, the category /suggest reads; the profile alone ${(profile / rows.length).toFixed(4)}; commonest: ${top.map(([k, v]) => `${k} ×${v}`).join('; ')}`);
    });
  }
}
