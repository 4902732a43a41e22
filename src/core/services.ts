import type { Config } from '../config.js';
import { readSearchRanker, type SearchRanker } from './search-relevance.js';
import { readUpsellModel, type UpsellModel } from './upsell.js';
import type { TextCleaner } from './text/clean.js';
import { loadQueryVocabulary, QuerySpeller } from './query-spelling.js';
import { vocabularyWords } from './inference/tokenizer.js';
import { MenuEncoder, type Dimension } from './inference/encoder.js';
import { resolveBuiltModel, servedModelIds, type BuiltModel, type PrecisionReport } from './inference/model-files.js';
import { CrossEncoderScorer } from './inference/reranker.js';
import { classifierStatus as cuisineClassifierStatus } from './classify.js';
import { HeadFiles, type EncoderHeads } from './heads.js';
import { vectorBackend } from '../native/index.js';
import { readCosineCalibration, readMatchGates, type CosineCalibration, type MatchGates, type PairPrecision, type PairScorer } from './match.js';
import { buildConceptCentroids, type ConceptCentroids } from './search.js';
import { loadKnowledge, type Knowledge } from './knowledge/index.js';
import { parseMenuText, wasRead, type MenuText } from './menu-text.js';
import { anchorsNothing, DishAnchors, menuVectors, readMenuVectorSpec, type MenuVectorSpec } from './menu-vector.js';
import { ServiceMetrics } from './metrics.js';
import { msToSeconds, unixSeconds } from './number-format.js';

export type ServiceState = 'loading' | 'ready' | 'failed';

/** One served model in the operator's /health view. */
export interface ServedModel {
  role: 'biencoder' | 'reranker' | 'search_reranker';
  id: string;
  /** Precision of the served graph as the build wrote it; null when the build has no such model. */
  precision: 'int8' | 'fp32' | null;
  /** Parts the int8 graph keeps in fp32 (empty for a pure fp32 graph: `precision` says it). */
  fp32_parts: string[];
  /** Which kernels run in which precision (int8 / fp32 / data movement) and the int8 share of the linear layers'
   * multiply-adds, as the build found them in ONNX Runtime's optimised graph; null for builds that predate it. */
  precision_report: PrecisionReport | null;
  loaded: boolean;
}

export interface EmbeddedTexts {
  /** Each text read once (cleaned, cues, knowledge-base resolution and profile on first use). */
  readonly texts: readonly MenuText[];
  readonly vectors: readonly Float32Array[];
}

/**
 * Everything the routes use, with no HTTP in it. Models load in the background so the server can answer
 * /health with 503 `loading` while they do.
 */
export class Services {
  state: ServiceState = 'loading';
  loadError: string | null = null;
  loadTimeSeconds = 0;
  /** When the models finished loading (Unix seconds). */
  readySince = 0;
  encoder: MenuEncoder | null = null;
  /** Cross-encoders by role; null when the build has none (the knowledge-base precision stage answers). */
  matchReranker: CrossEncoderScorer | null = null;
  searchReranker: CrossEncoderScorer | null = null;
  conceptCentroids: ConceptCentroids | null = null;
  /** Every dish name's anchor embedding (menu-vector.ts), made at start so no request encodes one. */
  dishAnchors: DishAnchors | null = null;
  /** /search's fitted precision stage (models/rankers/search-relevance.json). */
  readonly searchRanker: SearchRanker = readSearchRanker();
  readonly upsellModel: UpsellModel = readUpsellModel();
  /** The same-dish probability of a cosine where no cross-encoder answers (models/calibration/). */
  readonly cosineCalibration: CosineCalibration = readCosineCalibration();
  /** The veto and confirmation cut-offs on the precision score (models/calibration/). */
  readonly matchGates: MatchGates = readMatchGates();
  /** The food knowledge every stage reads, loaded once (or handed in: tests and the eval share one). */
  readonly knowledge: Knowledge;
  private readonly headFiles = new HeadFiles();
  readonly cleaner: TextCleaner;
  /** Reads a search query's unknown words as the nearest known ones, before cleaning. Built with the encoder, whose
   * whole-word vocabulary is the English it knows; null until then. */
  querySpeller: QuerySpeller | null = null;
  readonly ready: Promise<void>;
  /** Prometheus metrics of this service (inference runs, cache, load time) and of the HTTP layer in front of it. */
  readonly metrics = new ServiceMetrics();

  constructor(readonly config: Config, knowledge: Knowledge = loadKnowledge(undefined, { memoEntries: config.textMemoEntries })) {
    this.metrics.watch({
      queues: () => [
        ...(this.encoder ? [{ role: 'encoder', items: this.encoder.batcher.queuedItems }] : []),
        ...(this.matchReranker ? [{ role: 'match_reranker', items: this.matchReranker.batcher.queuedItems }] : []),
        ...(this.searchReranker && this.searchReranker !== this.matchReranker ? [{ role: 'search_reranker', items: this.searchReranker.batcher.queuedItems }] : []),
      ],
      cache: () => this.encoder?.cacheStats ?? null,
      loadTimeSeconds: () => (this.state === 'ready' ? this.loadTimeSeconds : null),
    });
    this.knowledge = knowledge;
    knowledge.prepare(); // validated and fully indexed before the first request
    this.cleaner = knowledge.cleaner;
    void parseMenuText(knowledge, 'warm up').profile; // walks the cue lexicons and lookup tables now, not on the first request
    this.ready = this.load();
  }

  private async load(): Promise<void> {
    const t0 = performance.now();
    try {
      const model = resolveBuiltModel(this.config.model);
      this.encoder = await MenuEncoder.load(model, {
        intraOpThreads: this.config.intraOpThreads,
        inferenceWorkers: this.config.inferenceWorkers,
        executionProvider: this.config.executionProvider,
        cacheBytes: this.config.embeddingCacheBytes,
        maxSequenceTokens: this.config.maxSequenceTokens,
        memoEntries: this.config.textMemoEntries,
        maxBatchTokens: this.config.batchMaxTokens,
        maxBatchItems: this.config.batchMaxItems,
        maxQueueItems: this.config.queueMaxItems,
        observer: this.metrics.batchObserver('encoder'),
        maxQueueWaitMs: this.config.queueMaxWaitMs,
      });
      this.querySpeller = new QuerySpeller(loadQueryVocabulary(this.knowledge, vocabularyWords(model.dir)), this.config.textMemoEntries);
      const served = servedModelIds();
      const encoderOpts = {
        intraOpThreads: this.config.intraOpThreads,
        inferenceWorkers: this.config.inferenceWorkers,
        executionProvider: this.config.executionProvider,
        cacheBytes: 0,
        maxSequenceTokens: this.config.maxSequenceTokens,
        memoEntries: this.config.textMemoEntries,
        maxBatchTokens: this.config.batchMaxTokens,
        maxBatchItems: this.config.batchMaxItems,
        maxQueueItems: this.config.queueMaxItems,
        maxQueueWaitMs: this.config.queueMaxWaitMs,
      };
      if (served.reranker && this.config.rerankers) {
        this.matchReranker = await CrossEncoderScorer.load(resolveBuiltModel(served.reranker, 'reranker'), { ...encoderOpts, observer: this.metrics.batchObserver('match_reranker') });
        this.searchReranker =
          served.search_reranker === served.reranker
            ? this.matchReranker
            : served.search_reranker
              ? await CrossEncoderScorer.load(resolveBuiltModel(served.search_reranker, 'search_reranker'), { ...encoderOpts, observer: this.metrics.batchObserver('search_reranker') })
              : null;
      }
      // The dish anchors and concept centroids double as the warm-up run, so the first customer request pays for none
      // of them.
      this.dishAnchors = await DishAnchors.build(this.knowledge, this.encoder);
      this.conceptCentroids = await buildConceptCentroids(this.knowledge, this.encoder);
      this.loadTimeSeconds = msToSeconds(performance.now() - t0);
      this.readySince = unixSeconds();
      this.state = 'ready';
    } catch (err) {
      this.state = 'failed';
      this.loadError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  get modelId(): string | null {
    return this.encoder?.model.id ?? null;
  }

  /** The classifier heads for the served encoder's vectors (models/heads/, read once by this Services). */
  get heads(): EncoderHeads {
    return this.headFiles.for(this.modelId);
  }

  requireEncoder(): MenuEncoder {
    if (!this.encoder) throw new Error('encoder not loaded');
    return this.encoder;
  }

  requireDishAnchors(): DishAnchors {
    if (!this.dishAnchors) throw new Error('encoder not loaded');
    return this.dishAnchors;
  }

  requireQuerySpeller(): QuerySpeller {
    if (!this.querySpeller) throw new Error('encoder not loaded');
    return this.querySpeller;
  }

  /**
   * Tokens the encoder reads for each text once cleaned, [CLS] and [SEP] included, after truncation to
   * MENU_MAX_TOKENS: what /v1/embeddings reports as usage.
   */
  countTokens(cleanedTexts: readonly string[]): number[] {
    const tokenizer = this.requireEncoder().tokenizer;
    return cleanedTexts.map((t) => tokenizer.encode(t).ids.length);
  }

  /**
   * Throws 429 `overloaded` when the encoder's queue would refuse even a one-text request, so the HTTP layer can shed
   * a request before reading, parsing and cleaning it: under a flood the refusals then cost almost nothing and the
   * event loop stays free for /health and for the requests that were admitted.
   */
  refuseIfOverloaded(): void {
    this.encoder?.batcher.refuseIfSaturated();
  }

  /**
   * Throws 429 `overloaded` when the texts of a request that this process has not read lately would be refused by
   * the encoder's queue. Checked before they are cleaned and tokenised (about 2 ms for 16 new names, on the event
   * loop): otherwise a flood of new texts is refused only at the queue, after that work, and the refusals take the
   * event loop the admitted requests need. Texts read lately count as none (they read from the memo and most embed
   * from the cache); the queue's own check decides at submit for what does need inference.
   */
  refuseUnreadIfOverloaded(texts: readonly string[]): void {
    const batcher = this.encoder?.batcher;
    if (!batcher || batcher.queuedItems === 0) return;
    let unread = 0;
    for (const t of texts) if (!wasRead(this.knowledge, t)) unread++;
    if (unread > 0) batcher.refuseIfOver(unread);
  }

  /** Texts as submitted, read (parseMenuText: cleaned once) for embedding: refused first when the queue would refuse
   * the ones not read lately (refuseUnreadIfOverloaded). */
  readTexts(texts: readonly string[]): MenuText[] {
    this.refuseUnreadIfOverloaded(texts);
    return texts.map((t) => parseMenuText(this.knowledge, t));
  }

  /** Read each text (readTexts), then embed the cleaned texts. Items that clean to the same text share one vector. */
  async embedTexts(texts: readonly string[], dimension: Dimension): Promise<EmbeddedTexts> {
    const read = this.readTexts(texts);
    return { texts: read, vectors: await this.vectorsOf(read, dimension) };
  }

  /** The menu vectors of read texts (menu-vector.ts): what /embed returns and every stage compares. */
  vectorsOf(texts: readonly MenuText[], dimension: Dimension): Promise<Float32Array[]> {
    return menuVectors(this.requireEncoder(), this.menuVector, this.requireDishAnchors(), texts, dimension);
  }

  /** How a text's vector is made for the served encoder (models/calibration/menu-vector.json), read on first use so
   * scripts/fit-menu-vector.mjs can run a service before the file it writes exists. */
  get menuVector(): MenuVectorSpec {
    return (this.menuVectorValue ??= readMenuVectorSpec());
  }
  private menuVectorValue: MenuVectorSpec | undefined;

  /** Names the menu vectors (encoder and how they are anchored): stored vectors of another id are stale. */
  get menuVectorId(): string {
    const id = this.requireEncoder().model.id, w = this.menuVector;
    if (anchorsNothing(w)) return id;
    return `${id}+anchors-${this.requireDishAnchors().id}-${w.anchorWeight}-${w.looseAnchorWeight}-${w.comboAnchorWeight}`;
  }

  /** What scores same-dish pairs after the knowledge base: the cross-encoder when one is built and loaded (and `model`
   * is not false), else the calibrated cosine. */
  pairPrecision(options: { readonly model?: boolean } = {}): PairPrecision {
    return { model: options.model === false ? null : this.matchReranker, calibration: this.cosineCalibration, gates: this.matchGates };
  }

  /** The search-relevance cross-encoder (query, item) → probability, when one is built and loaded (see
   * scoreSearchRelevance); null otherwise. */
  searchScorer(): PairScorer | null {
    return this.searchReranker;
  }

  /** Each model the build serves, as built (id, precision of the served graph) and whether this process loaded it:
   * the operator's view of what answers requests. A cross-encoder that is built but switched off
   * (MENU_RERANKERS=off) is listed as not loaded. */
  servedModels(): ServedModel[] {
    const out: ServedModel[] = [];
    const loaded: Record<string, BuiltModel | undefined> = {
      biencoder: this.encoder?.model,
      reranker: this.matchReranker?.model,
      search_reranker: this.searchReranker?.model,
    };
    const ids = servedModelIds();
    for (const role of ['biencoder', 'reranker', 'search_reranker'] as const) {
      const id = role === 'biencoder' ? (this.config.model ?? ids.biencoder) : ids[role];
      if (!id) continue;
      const model = loaded[role];
      let built: BuiltModel | undefined = model;
      if (!built) {
        try {
          built = resolveBuiltModel(id, role);
        } catch {
          built = undefined;
        }
      }
      out.push({
        role,
        id,
        precision: built?.precision ?? null,
        fp32_parts: [...(built?.fp32Parts ?? [])],
        precision_report: built?.precisionReport ?? null,
        loaded: model !== undefined && model.id === id,
      });
    }
    return out;
  }

  /** Precision-stage status for /health. */
  rerankerStatus(task: 'match' | 'search'): string | null {
    const model = task === 'match' ? this.matchReranker : this.searchReranker;
    // The search-relevance model is a feature for a learned search ranker; today's relevance (search.ts) does not read it.
    if (model && task === 'search' && model !== this.matchReranker) return `loaded (${model.id}, search-relevance cross-encoder ${model.model.precision}; not yet read by /search's relevance)`;
    if (model) return `ready (${model.id}, cross-encoder ${model.model.precision}, with knowledge-base dish identity)`;
    if (task === 'match') return 'ready (knowledge-v1: dish identity + calibrated cosine; no cross-encoder loaded)';
    return 'ready (knowledge-v1: concept, dish and course relevance; no cross-encoder loaded)';
  }

  classifierStatus(): string | null {
    return this.modelId ? cuisineClassifierStatus(this.heads) : null;
  }

  conceptCount(): number {
    return this.conceptCentroids?.byTag.size ?? 0;
  }

  vectorBackend(): string {
    return vectorBackend;
  }

  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.encoder?.close();
    await this.matchReranker?.close();
    if (this.searchReranker !== this.matchReranker) await this.searchReranker?.close();
  }
}
