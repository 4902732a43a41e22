import typia, { tags } from 'typia';
import { ApiError } from '../core/errors.js';
import { SUPPORTED_DIMENSIONS, l2normalize, type Dimension } from '../core/inference/encoder.js';
import { rankSearch } from '../core/search.js';
import { readSearch } from '../core/search-request.js';
import { checkText, typed, type MaxChars, type MenuText, type Route } from './route.js';

export interface SearchRequest {
  /** What the customer typed: a dish name, a need ("something sweet", "thanda"), any language or script. */
  query: string & tags.MinLength<1> & MaxChars<500>;
  /** The menu to search, one item text each. */
  corpus: MenuText[] & tags.MinItems<1> & tags.MaxItems<512>;
  /** Most results to return (1-1000, default 10; outside is 400 invalid_parameter). Fewer may come back: weak tail results are dropped. */
  top_k?: (number & tags.JsonSchemaPlugin<{ minimum: 1; maximum: 1000 }> & tags.Default<10>) | null;
  /** Precomputed vectors of the corpus from /embed (one per corpus item, all 128, 256 or 384 long): corpus encoding is skipped. The price is the same. */
  corpus_embeddings?: number[][] | null;
}

export interface SearchResult {
  /** The corpus item, as submitted. */
  text: string;
  /** Cosine similarity between the query and the item, 0-1. */
  score: number;
  /** Relevance probability from the precision stage, 0-1; null when unavailable. */
  reranker_score: number | null;
  /** True when produced by the category-aware fallback because nothing passed the relevance gates. */
  is_fallback: boolean;
}

export interface SearchResponse {
  /** Sorted by relevance; at most top_k, possibly fewer. */
  results: SearchResult[];
  /** The query after spelling correction, noise removal and transliteration. */
  query_preprocessed: string;
}

interface ParsedSearch {
  query: string;
  corpus: string[];
  topK: number;
  embeddings: Float32Array[] | null;
  dimension: Dimension;
}

/** corpus_embeddings: one vector per corpus item, all of one supported dimension, finite; re-normalised here. */
function parseCorpusEmbeddings(raw: number[][], corpusLength: number): { vectors: Float32Array[]; dimension: Dimension } {
  if (raw.length !== corpusLength) {
    throw new ApiError('validation_error', `corpus_embeddings has ${raw.length} vectors but corpus has ${corpusLength} items; they must match`, {}, 'corpus_embeddings');
  }
  const dim = raw[0]!.length;
  if (!(SUPPORTED_DIMENSIONS as readonly number[]).includes(dim)) {
    throw new ApiError('validation_error', `corpus_embeddings vectors must have ${SUPPORTED_DIMENSIONS.join(', ')} values (from /embed), got ${dim}`, {}, 'corpus_embeddings');
  }
  const vectors = raw.map((v, i) => {
    if (v.length !== dim) throw new ApiError('validation_error', `corpus_embeddings[${i}] has ${v.length} values; all vectors must have ${dim}`, {}, `corpus_embeddings[${i}]`);
    const f = Float32Array.from(v);
    if (f.some((x) => !Number.isFinite(x))) throw new ApiError('validation_error', `corpus_embeddings[${i}] contains a non-finite value`, {}, `corpus_embeddings[${i}]`);
    return l2normalize(f);
  });
  return { vectors, dimension: dim as Dimension };
}

export const searchRoute: Route<ParsedSearch, SearchResponse> = {
  endpoint: 'search',
  method: 'post',
  path: '/search',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<SearchRequest>(body));
    checkText('query', req.query, 1);
    const topK = req.top_k ?? 10;
    if (!Number.isInteger(topK) || topK < 1 || topK > 1000) throw new ApiError('invalid_parameter', `top_k must be an integer from 1 to 1000, got ${topK}`, {}, 'top_k');
    const emb = req.corpus_embeddings ? parseCorpusEmbeddings(req.corpus_embeddings, req.corpus.length) : null;
    return { query: req.query, corpus: req.corpus, topK, embeddings: emb?.vectors ?? null, dimension: emb?.dimension ?? 384 };
  },
  async handle(req, ctx) {
    const s = ctx.services;
    const read = await readSearch(s, req.query, req.corpus, req.embeddings, req.dimension);
    const outcome = rankSearch(s.knowledge, s.searchRanker, read.understanding, read.corpus, read.cosines, req.topK);
    return {
      results: outcome.results.map((r) => ({ text: req.corpus[r.index]!, score: r.score, reranker_score: r.reranker_score, is_fallback: r.is_fallback })),
      query_preprocessed: read.query.text,
    };
  },
};
