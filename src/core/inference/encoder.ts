import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LRUCache } from 'lru-cache';
import { InferenceBatcher, type BatcherOptions, type PaddedBatch } from './batcher.js';
import { MenuTokenizer } from './tokenizer.js';
import type { BuiltModel } from './model-files.js';

export const SUPPORTED_DIMENSIONS = [128, 256, 384] as const;
export type Dimension = (typeof SUPPORTED_DIMENSIONS)[number];

export interface EncoderOptions extends BatcherOptions {
  readonly intraOpThreads: number;
  readonly executionProvider: 'cpu' | 'cuda';
  readonly cacheBytes: number;
  readonly maxSequenceTokens: number;
}

export async function createSession(path: string, opts: Pick<EncoderOptions, 'intraOpThreads' | 'executionProvider'>): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(path, {
    intraOpNumThreads: opts.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // CUDA is for GPU hosts (onnxruntime-node's CUDA build); untested on our CPU machines.
    executionProviders: opts.executionProvider === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
    // Spinning intra-op threads burn the other core between runs; on shared 2-core hosts that cost more than it saved
    // (measured under load: 100 names 1012 ms with spinning vs 752 ms without).
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
}

/** L2-normalises in place; a zero vector stays zero. */
/** Dot product of two vectors of one length: the cosine of unit vectors (every embedding here is one). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
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
    private readonly session: ort.InferenceSession,
    readonly tokenizer: MenuTokenizer,
    private readonly projMean: Float32Array,
    private readonly projComponents: Float32Array, // [hidden, 256] row-major
    private readonly projCols: number,
    opts: EncoderOptions,
  ) {
    this.batcher = new InferenceBatcher((b) => this.runBatch(b), opts);
    this.cache = opts.cacheBytes > 0
      ? new LRUCache<string, Float32Array>({ maxSize: opts.cacheBytes, sizeCalculation: (v, k) => v.byteLength + k.length * 2 + 64 })
      : null;
  }

  static async load(model: BuiltModel, opts: EncoderOptions): Promise<MenuEncoder> {
    const session = await createSession(join(model.dir, model.file ?? 'encoder-int8.onnx'), opts);
    const tokenizer = new MenuTokenizer(model.dir, opts.maxSequenceTokens);
    if (model.dimensionMode === 'prefix') {
      // Matryoshka-trained: the first d dimensions are the d-dimensional embedding.
      return new MenuEncoder(model, session, tokenizer, new Float32Array(0), new Float32Array(0), 0, opts);
    }
    const mean = readF32(join(model.dir, 'projection.mean.f32'));
    const comps = readF32(join(model.dir, 'projection.components.f32'));
    if (mean.length !== model.hiddenSize || comps.length % model.hiddenSize !== 0) {
      throw new Error(`projection files in ${model.dir} do not match hidden size ${model.hiddenSize}`);
    }
    return new MenuEncoder(model, session, tokenizer, mean, comps, comps.length / model.hiddenSize, opts);
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
      const pooled = await this.batcher.submit(unique.map((t) => this.tokenizer.encode(t)));
      unique.forEach((text, u) => {
        const vec = this.project(pooled[u]!, dimension);
        this.cache?.set(`${this.model.id}|${dimension}|${text}`, vec);
        for (const i of todo.get(text)!) out[i] = vec;
      });
    }
    return out;
  }

  /** 384 → d by (x − mean)·W[:, :d] (or the first d dimensions of a Matryoshka model), re-normalised. */
  project(full: Float32Array, dimension: Dimension): Float32Array {
    if (dimension === this.model.hiddenSize) return full;
    if (this.model.dimensionMode === 'prefix') return l2normalize(full.slice(0, dimension));
    if (dimension > this.projCols) throw new Error(`no projection to ${dimension}`);
    const h = this.model.hiddenSize;
    const out = new Float32Array(dimension);
    for (let i = 0; i < h; i++) {
      const xi = full[i]! - this.projMean[i]!;
      const row = i * this.projCols;
      for (let j = 0; j < dimension; j++) out[j]! += xi * this.projComponents[row + j]!;
    }
    return l2normalize(out);
  }

  private async runBatch(b: PaddedBatch): Promise<Float32Array[]> {
    const dims = [b.rows, b.seqLen];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', b.inputIds, dims),
      attention_mask: new ort.Tensor('int64', b.attentionMask, dims),
      token_type_ids: new ort.Tensor('int64', b.tokenTypeIds, dims),
    };
    const result = await this.session.run(feeds);
    const hidden = result.last_hidden_state!.data as Float32Array;
    const h = this.model.hiddenSize;
    const vectors: Float32Array[] = [];
    for (let r = 0; r < b.rows; r++) {
      const v = new Float32Array(h);
      let count = 0;
      for (let t = 0; t < b.seqLen; t++) {
        if (b.attentionMask[r * b.seqLen + t] === 0n) continue;
        count++;
        const base = (r * b.seqLen + t) * h;
        for (let k = 0; k < h; k++) v[k]! += hidden[base + k]!;
      }
      if (count > 0) for (let k = 0; k < h; k++) v[k]! /= count;
      vectors.push(l2normalize(v));
    }
    return vectors;
  }

  async close(): Promise<void> {
    await this.batcher.drain();
    await this.session.release();
  }
}

function readF32(path: string): Float32Array {
  const buf = readFileSync(path);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
