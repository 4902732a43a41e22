import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { InferenceBatcher, type BatcherOptions } from './batcher.js';
import { InferencePool } from './inference-pool.js';
import { l2normalize, projectInto } from './runner.js';
import { MenuTokenizer } from './tokenizer.js';
import type { BuiltModel } from './model-files.js';

export { l2normalize } from './runner.js';

export const SUPPORTED_DIMENSIONS = [128, 256, 384] as const;
export type Dimension = (typeof SUPPORTED_DIMENSIONS)[number];
/** The encoder's own width: every lower dimension is projected from it. */
export const FULL_DIMENSION = 384 satisfies Dimension;

export interface EncoderOptions extends BatcherOptions {
  readonly intraOpThreads: number;
  /** Inference worker threads, each with its own session (0: the session runs on the main thread). */
  readonly inferenceWorkers: number;
  readonly executionProvider: 'cpu' | 'cuda';
  readonly cacheBytes: number;
  readonly maxSequenceTokens: number;
  /** Entries of the tokenizer's word memo and the cross-encoder's pair memo (src/core/memo.ts). */
  readonly memoEntries?: number;
}

/** Dot product of two vectors of one length: the cosine of unit vectors (every embedding here is one). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The menu-text encoder: tokenise → micro-batched ONNX run → mean pooling over attended tokens → L2 →
 * optional PCA projection to 256/128 (learned from the knowledge base's dish names, re-normalised).
 * Results are cached by (model, dimension, text) in an LRU bounded in bytes.
 */
export class MenuEncoder {
  readonly batcher: InferenceBatcher;
  private readonly cache: LRUCache<string, Float32Array> | null;
  private hits = 0;
  private misses = 0;

  private constructor(
    readonly model: BuiltModel,
    private readonly pool: InferencePool,
    readonly tokenizer: MenuTokenizer,
    private readonly projMean: Float32Array,
    private readonly projComponents: Float32Array, // [hidden, 256] row-major
    private readonly projCols: number,
    opts: EncoderOptions,
  ) {
    this.batcher = new InferenceBatcher(async (b) => {
      const { data, offsets } = await pool.run(b);
      // One array per vector (not views of the run's buffer): a cached vector must not keep a whole run alive.
      return Array.from({ length: b.rows }, (_, r) => data.slice(offsets[r]!, offsets[r + 1]!));
    }, { ...opts, concurrency: pool.concurrency });
    this.cache = opts.cacheBytes > 0
      ? new LRUCache<string, Float32Array>({ maxSize: opts.cacheBytes, sizeCalculation: (v, k) => v.byteLength + k.length * 2 + 64 })
      : null;
  }

  static async load(model: BuiltModel, opts: EncoderOptions): Promise<MenuEncoder> {
    const tokenizer = new MenuTokenizer(model.dir, opts.maxSequenceTokens, opts.memoEntries);
    let mean: Float32Array = new Float32Array(0);
    let comps: Float32Array = new Float32Array(0);
    // Matryoshka-trained ('prefix'): the first d dimensions are the d-dimensional embedding; otherwise a PCA projection.
    if (model.dimensionMode !== 'prefix') {
      mean = readF32(join(model.dir, 'projection.mean.f32'));
      comps = readF32(join(model.dir, 'projection.components.f32'));
      if (mean.length !== model.hiddenSize || comps.length % model.hiddenSize !== 0) {
        throw new Error(`projection files in ${model.dir} do not match hidden size ${model.hiddenSize}`);
      }
    }
    const projCols = comps.length / model.hiddenSize;
    const pool = await InferencePool.start({
      workers: opts.inferenceWorkers,
      session: { path: join(model.dir, model.file ?? 'encoder-int8.onnx'), intraOpThreads: opts.intraOpThreads, executionProvider: opts.executionProvider },
      what: { kind: 'encoder', hiddenSize: model.hiddenSize, dimensionMode: model.dimensionMode, projMean: mean, projComponents: comps, projCols },
    });
    return new MenuEncoder(model, pool, tokenizer, mean, comps, projCols, opts);
  }

  get cacheStats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.cache?.size ?? 0, bytes: this.cache?.calculatedSize ?? 0, hits: this.hits, misses: this.misses };
  }

  /**
   * Embeds already-cleaned texts at the given dimension, in order. Duplicates within the call are encoded once.
   */
  async encode(texts: readonly string[], dimension: Dimension): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    const todo = new Map<string, number[]>();
    for (let i = 0; i < texts.length; i++) {
      const key = `${this.model.id}|${dimension}|${texts[i]}`;
      const hit = this.cache?.get(key);
      if (hit) {
        this.hits++;
        out[i] = hit;
        continue;
      }
      const slots = todo.get(texts[i]!);
      if (slots) slots.push(i);
      else todo.set(texts[i]!, [i]);
    }
    if (todo.size > 0) {
      const unique = [...todo.keys()];
      this.misses += unique.length;
      const vectors = await this.batcher.submit(this.tokenizer.encodeBatch(unique).map((ids) => ({ ids, dimension })));
      unique.forEach((text, u) => {
        const vec = vectors[u]!;
        this.cache?.set(`${this.model.id}|${dimension}|${text}`, vec);
        for (const i of todo.get(text)!) out[i] = vec;
      });
    }
    return out;
  }

  /** 384 → d by (x − mean)·W[:, :d] (or the first d dimensions of a Matryoshka model), re-normalised. Inference
   * workers project their own outputs; this is for vectors made here (search concept centroids). */
  project(full: Float32Array, dimension: Dimension): Float32Array {
    if (dimension === this.model.hiddenSize) return full;
    const h = this.model.hiddenSize;
    return projectInto(full, new Float32Array(dimension), h, this.model.dimensionMode, this.projMean, this.projComponents, this.projCols);
  }

  async close(): Promise<void> {
    await this.batcher.drain();
    await this.pool.close();
  }
}

function readF32(path: string): Float32Array {
  const buf = readFileSync(path);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
