import type { Dimension } from './inference/encoder.js';
import { parseMenuText, type MenuText } from './menu-text.js';
import { conceptualQueryVector, understandQuery, type QueryUnderstanding } from './search.js';
import type { Services } from './services.js';
import { cosineTopK } from '../native/index.js';

/** A search request read: the query and the menu parsed once, what the query asks, and every item's cosine to it. */
export interface SearchReading {
  readonly query: MenuText;
  readonly understanding: QueryUnderstanding;
  readonly corpus: readonly MenuText[];
  /** The (concept-blended) query's cosine to each item, in corpus order. */
  readonly cosines: readonly number[];
}

/**
 * Reads a query over a menu as /search does before it ranks: the query's typos read against the knowledge base and
 * this menu's own words ("sjakes" → shakes), every text parsed once, the corpus embedded (or its precomputed vectors
 * used), the query embedded in English ("pollo" → chicken) and blended with its concept centroids. The route and the
 * ranker's fit script (scripts/fit-search-ranker.mjs) both read requests through here, so the ranker is fitted on the
 * features it is served.
 */
export async function readSearch(s: Services, queryText: string, corpusTexts: readonly string[], embeddings: readonly Float32Array[] | null, dimension: Dimension): Promise<SearchReading> {
  const enc = s.requireEncoder();
  const k = s.knowledge;
  s.refuseUnreadIfOverloaded(embeddings ? [queryText] : [queryText, ...corpusTexts]);
  const spelled = s.requireQuerySpeller().correct(queryText, corpusTexts).text;
  const query = parseMenuText(k, spelled);
  const corpus = corpusTexts.map((t) => parseMenuText(k, t));
  const corpusVectors = embeddings ?? (await s.vectorsOf(corpus, dimension));
  const [queryVector] = await s.vectorsOf([query], dimension);
  const understanding = understandQuery(query);
  const qv = conceptualQueryVector(queryVector!, understanding, s.conceptCentroids, enc, dimension, s.searchRanker.blend);
  const matrix = new Float32Array(corpusVectors.length * dimension);
  corpusVectors.forEach((v, i) => matrix.set(v, i * dimension));
  const top = cosineTopK(qv, matrix, dimension, corpusVectors.length);
  const cosines = new Array<number>(corpusVectors.length);
  for (let i = 0; i < top.indices.length; i++) cosines[top.indices[i]!] = top.scores[i]!;
  return { query, understanding, corpus, cosines };
}
