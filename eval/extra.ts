import type { Services } from '../src/core/services.js';
import { evalMatch, evalMinedDietPairs, evalSearch } from './search_match.js';
import { evalKnowledge } from './knowledge.js';
import { evalDedup } from './dedup.js';
import { evalReport } from './report.js';
import { evalClassify } from './classify.js';
import { evalNonfood } from './nonfood.js';
import { evalSuggest } from './suggest.js';

export interface EvalKit {
  services: Services;
  metric(name: string, value: number | string, detail?: string): void;
  section(name: string, fn: () => Promise<void>): Promise<void>;
  dot(a: Float32Array, b: Float32Array): number;
  auc(scores: readonly number[], labels: readonly boolean[]): number;
}

/** Metrics of the knowledge base and the endpoints built on it. */
export async function evalExtra(kit: EvalKit, only?: ReadonlySet<string>): Promise<void> {
  const parts: [string, (k: EvalKit) => Promise<void>][] = [
    ['knowledge', evalKnowledge], ['match', async (k) => { await evalMatch(k); await evalMinedDietPairs(k); }], ['search', evalSearch], ['dedup', evalDedup],
    ['report', evalReport], ['classify', evalClassify], ['nonfood', evalNonfood], ['suggest', evalSuggest],
  ];
  for (const [name, run] of parts) if (!only || only.has(name)) await run(kit);
}
