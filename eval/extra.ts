import type { Services } from '../src/core/services.js';
import { evalMatch, evalMinedDietPairs, evalSearch } from './search_match.js';
import { evalKnowledge } from './knowledge.js';
import { evalDedup } from './dedup.js';
import { evalReport } from './report.js';
import { evalClassify } from './classify.js';
import { evalNonfood } from './nonfood.js';
import { evalSuggest } from './suggest.js';
import { evalSearchReranker } from './search_reranker.js';
import type { EvalSets } from './sets.js';

export interface EvalKit {
  services: Services;
  metric(name: string, value: number | string, detail?: string): void;
  section(name: string, fn: () => Promise<void>): Promise<void>;
  dot(a: Float32Array, b: Float32Array): number;
  auc(scores: readonly number[], labels: readonly boolean[]): number;
  /** Each development set on its own line too (a `--dev` run), beside the pooled line. */
  perSet: boolean;
}

/** One part of the eval over one side's sets; `label` is the metric-name suffix of the side ('_dev' or ''). */
export type EvalPart = (kit: EvalKit, sets: EvalSets, label: string) => Promise<void>;

const devOnly = (part: (kit: EvalKit) => Promise<void>): EvalPart => async (kit, sets) => {
  if (sets.side === 'dev') await part(kit);
};

/** The parts of `npm run eval` after the embedding metrics, by the name `--only` selects them with. */
export const EVAL_PARTS: readonly (readonly [string, EvalPart])[] = [
  ['knowledge', devOnly(evalKnowledge)],
  ['match', async (k, s, l) => { await evalMatch(k, s, l); if (s.side === 'dev') await evalMinedDietPairs(k); }],
  ['search', evalSearch],
  ['search_reranker', evalSearchReranker],
  ['dedup', evalDedup],
  ['report', devOnly(evalReport)],
  ['classify', evalClassify],
  ['nonfood', evalNonfood],
  ['suggest', evalSuggest],
];
