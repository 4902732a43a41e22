import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BatchObserver } from './inference/batcher.js';

/** What the metrics read from the running service at scrape time. */
export interface MetricSources {
  /** Texts (or pairs) waiting for inference, per model role. */
  queues(): { role: string; items: number }[];
  /** The embedding cache's totals since start, or null before the encoder loaded. */
  cache(): { hits: number; misses: number; bytes: number; entries: number } | null;
  /** Seconds the models took to load, or null while they load. */
  loadTimeSeconds(): number | null;
}

/** Latency buckets in seconds: /embed of a few texts answers in milliseconds, /report of 2000 items in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Rows per run: batches are capped by MENU_BATCH_MAX_ITEMS (256 by default). */
const BATCH_ROW_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
/** Padded tokens per run: capped by MENU_BATCH_MAX_TOKENS (8192 by default). */
const BATCH_TOKEN_BUCKETS = [16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536];

/**
 * The process's Prometheus metrics, one registry per service instance (several servers can share a test process).
 * Counters the HTTP layer moves per request; histograms the inference batchers feed per run; gauges and the cache
 * counters are read from the service when scraped, so nothing is counted twice.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route' | 'method'>;
  private readonly rejections: Counter<'status' | 'reason'>;
  private readonly batchRows: Histogram<'role'>;
  private readonly batchTokens: Histogram<'role'>;
  private readonly batchRealTokens: Histogram<'role'>;
  private sources: MetricSources | null = null;
  /** V8 heap in use just after the last full collection (null before the first one). */
  private liveHeapBytes: number | null = null;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'menu_' });
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'menu_http_requests_total',
      help: 'HTTP requests answered, by route (the path template), method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'menu_http_request_duration_seconds',
      help: 'Time from the request arriving to its answer being written, by route.',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rejections = new Counter({
      name: 'menu_http_rejections_total',
      help: 'Requests refused for limits or money: 429 (rate_limited, too_many_in_flight, overloaded) and 402 (quota_exceeded, insufficient_credits), by reason.',
      labelNames: ['status', 'reason'],
      registers,
    });
    this.batchRows = new Histogram({
      name: 'menu_inference_batch_size',
      help: 'Texts (or pairs) per inference run, by model role.',
      labelNames: ['role'],
      buckets: BATCH_ROW_BUCKETS,
      registers,
    });
    this.batchTokens = new Histogram({
      name: 'menu_inference_batch_tokens',
      help: 'Padded tokens (rows x longest sequence) per inference run, by model role.',
      labelNames: ['role'],
      buckets: BATCH_TOKEN_BUCKETS,
      registers,
    });
    this.batchRealTokens = new Histogram({
      name: 'menu_inference_batch_real_tokens',
      help: 'Tokens without padding per inference run, by model role.',
      labelNames: ['role'],
      buckets: BATCH_TOKEN_BUCKETS,
      registers,
    });
    const self = this;
    new Gauge({
      name: 'menu_inference_queue_items',
      help: 'Texts (or pairs) waiting for inference, by model role.',
      labelNames: ['role'],
      registers,
      collect() {
        this.reset();
        for (const q of self.sources?.queues() ?? []) this.set({ role: q.role }, q.items);
      },
    });
    // Totals kept by the encoder since start: set at scrape time, so they only ever grow.
    const cacheCounter = (name: string, help: string, pick: (c: NonNullable<ReturnType<MetricSources['cache']>>) => number): void => {
      new Counter({
        name,
        help,
        registers,
        collect() {
          const c = self.sources?.cache();
          this.reset();
          if (c) this.inc(pick(c));
        },
      });
    };
    cacheCounter('menu_embedding_cache_hits_total', 'Texts answered from the embedding cache.', (c) => c.hits);
    cacheCounter('menu_embedding_cache_misses_total', 'Texts the embedding cache did not hold (encoded, then cached).', (c) => c.misses);
    new Gauge({
      name: 'menu_embedding_cache_bytes',
      help: 'Bytes held by the embedding cache (its budget is MENU_CACHE_BYTES).',
      registers,
      collect() {
        this.set(self.sources?.cache()?.bytes ?? 0);
      },
    });
    new Gauge({
      name: 'menu_embedding_cache_entries',
      help: 'Embeddings held by the cache.',
      registers,
      collect() {
        this.set(self.sources?.cache()?.entries ?? 0);
      },
    });
    // Between full collections V8 lets the heap fill with garbage, so heap used (and with it RSS) swings by a hundred
    // MiB or more under steady load; what objects really hold is the heap right after a full (mark-compact)
    // collection. A leak raises this level; garbage does not.
    new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => ((e as { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) {
        this.liveHeapBytes = getHeapStatistics().used_heap_size;
      }
    }).observe({ entryTypes: ['gc'] });
    new Gauge({
      name: 'menu_nodejs_heap_live_bytes',
      help: 'V8 heap in use just after the last full garbage collection: what live objects hold (heap used swings far above it between collections). Until the first full collection, heap used.',
      registers,
      collect() {
        this.set(self.liveHeapBytes ?? getHeapStatistics().used_heap_size);
      },
    });
    new Gauge({
      name: 'menu_model_load_seconds',
      help: 'How long loading the models took at start-up (0 while they load).',
      registers,
      collect() {
        this.set(self.sources?.loadTimeSeconds() ?? 0);
      },
    });
  }

  /** Where the scrape-time values come from (the service, once it exists). */
  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  /** A batcher observer for one model role ("encoder", "match_reranker", ...). */
  batchObserver(role: string): BatchObserver {
    return ({ rows, paddedTokens, realTokens }) => {
      this.batchRows.observe({ role }, rows);
      this.batchTokens.observe({ role }, paddedTokens);
      this.batchRealTokens.observe({ role }, realTokens);
    };
  }

  /** One answered request; `route` is the path template, never the raw URL (bounded label values). */
  recordRequest(route: string, method: string, status: number, seconds: number, errorCode?: string): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route, method }, seconds);
    if ((status === 429 || status === 402) && errorCode) this.rejections.inc({ status: String(status), reason: errorCode });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
