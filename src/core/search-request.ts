import type { Dimension } from './inference/encoder.js';
import { parseMenuText, type MenuText } from './menu-text.js';
import { conceptualQueryVector, understandQuery, type QueryUnderstanding } from './search.js';
import type { ConceptBlend } from './search-relevance.js';
import type { Services } from './services.js';
import { cosineTopK } from '../native/index.js';

/** A search request read: the query and the menu parsed once, what the query asks, and every item's cosine to it. */
export interface SearchReading {
  readonly query: MenuText;
  readonly understanding: QueryUnderstanding;
  readonly corpus: readonly MenuText[];
  /** The query's vector as encoded, before the concept blend, and the items' (what blendedCosines reads). */
  readonly queryVector: Float32Array;
  readonly corpusVectors: readonly Float32Array[];
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
  const k = s.knowledge;
  s.refuseUnreadIfOverloaded(embeddings ? [queryText] : [queryText, ...corpusTexts]);
  const spelled = s.requireQuerySpeller().correct(queryText, corpusTexts).text;
  const query = parseMenuText(k, spelled);
  const corpus = corpusTexts.map((t) => parseMenuText(k, t));
  const corpusVectors = embeddings ?? (await s.vectorsOf(corpus, dimension));
  const [queryVector] = await s.vectorsOf([query], dimension);
  const understanding = understandQuery(query);
  const cosines = blendedCosines(s, understanding, queryVector!, corpusVectors, dimension, s.searchRanker.blend);
  return { query, understanding, corpus, queryVector: queryVector!, corpusVectors, cosines };
}

/**
 * The query's cosine to each item, in corpus order, after its vector is blended with its concepts by `blend`: what
 * readSearch serves with the ranker's blend, and what the ranker's fit scores each blend it tries by.
 */
export function blendedCosines(s: Services, understanding: QueryUnderstanding, queryVector: Float32Array, corpusVectors: readonly Float32Array[], dimension: Dimension, blend: ConceptBlend): number[] {
  const qv = conceptualQueryVector(queryVector, understanding, s.conceptCentroids, s.requireEncoder(), dimension, blend);
  const matrix = new Float32Array(corpusVectors.length * dimension);
  corpusVectors.forEach((v, i) => matrix.set(v, i * dimension));
  const top = cosineTopK(qv, matrix, dimension, corpusVectors.length);
  const cosines = new Array<number>(corpusVectors.length);
  for (let i = 0; i < top.indices.length; i++) cosines[top.indices[i]!] = top.scores[i]!;
  return cosines;
}
