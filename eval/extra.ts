import type { Services } from '../src/core/services.js';
import { evalMatch, evalSearch } from './search_match.js';
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
export async function evalExtra(kit: EvalKit): Promise<void> {
  await evalKnowledge(kit);
  await evalMatch(kit);
  await evalSearch(kit);
  await evalDedup(kit);
  await evalReport(kit);
  await evalClassify(kit);
  await evalNonfood(kit);
  await evalSuggest(kit);
}
