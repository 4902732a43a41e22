import { scoreSearchRelevance } from '../src/core/inference/reranker.js';
import { searchRoute } from '../src/routes/search.js';
import type { EvalKit } from './extra.js';
import { ctxOf } from './search_match.js';
import type { EvalSets, SearchQuery } from './sets.js';

function dcg(grades: readonly number[]): number {
  return grades.reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
}

function ndcg(ranked: readonly string[], q: SearchQuery): number {
  const ideal = Object.values(q.relevant).sort((a, b) => b - a).slice(0, 10);
  return dcg(ranked.slice(0, 10).map((t) => q.relevant[t] ?? 0)) / dcg(ideal);
}

/**
 * The search-relevance cross-encoder alone (`serve.search_reranker`), on the graded queries: nDCG@10 of each whole
 * menu ranked by its probability, and of /search's own results (top_k 1000, gates and fallbacks as served) put in the
 * order of its probability, beside /search as served on the same queries. A development run prints each set too (the
 * sets models/train/teacher/holdback.json keeps out of training say how it carries to unseen menus).
 */
export async function evalSearchReranker(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  const scorer = kit.services.searchScorer();
  const sections = [{ name: '', search: sets.search }, ...(kit.perSet && sets.search.length > 1 ? sets.search.map((s) => ({ name: `_${s.name}`, search: [s] })) : [])];
  for (const part of sections) {
    await kit.section(`search_reranker_ndcg_at_10_whole_menu${label}${part.name}`, async () => {
      if (!scorer) throw new Error('no search reranker is served (manifest serve.search_reranker)');
      const ctx = ctxOf(kit);
      const clean = (t: string): string => kit.services.cleaner.clean(t).text;
      let whole = 0, reordered = 0, served = 0, n = 0;
      for (const set of part.search) {
        for (const q of set.queries) {
          const corpus = set.menus[q.menu];
          if (!corpus || Object.keys(q.relevant).length === 0) continue;
          const p = await scoreSearchRelevance(scorer, clean(q.query), corpus.map(clean));
          const byProbability = corpus.map((text, i) => ({ text, p: p[i]!, i })).sort((a, b) => b.p - a.p || a.i - b.i);
          whole += ndcg(byProbability.map((r) => r.text), q);
          const res = await searchRoute.handle(searchRoute.parse({ query: q.query, corpus, top_k: 1000 }), ctx);
          const results = res.results.map((r) => r.text);
          served += ndcg(results, q);
          const rank = new Map(byProbability.map((r, k) => [r.text, k]));
          reordered += ndcg([...results].sort((a, b) => rank.get(a)! - rank.get(b)!), q);
          n++;
        }
      }
      kit.metric(`search_reranker_ndcg_at_10_whole_menu${label}${part.name}`, whole / n, `${n} answerable queries, each whole menu ranked by the search cross-encoder's probability alone`);
      kit.metric(`search_reranker_ndcg_at_10_search_results${label}${part.name}`, reordered / n, `/search's results (top_k 1000) in the order of the probability; /search as served ${(served / n).toFixed(4)}`);
    });
  }
}
