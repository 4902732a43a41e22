import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { InferenceBatcher, type BatcherOptions, type PaddedBatch } from './batcher.js';
import { createSession, type EncoderOptions } from './encoder.js';
import { MenuTokenizer } from './tokenizer.js';
import type { BuiltModel } from './model-files.js';
import type { PairScorer } from '../match.js';

/**
 * A cross-encoder ("[CLS] a [SEP] b [SEP]" → one logit) with Platt calibration from the build
 * (probability = sigmoid(a·logit + b), fitted on held-out pairs). Pairs are micro-batched like the encoder's texts,
 * with the same admission limit, so the precision stage cannot grow an unbounded queue either.
 */
export class CrossEncoderScorer implements PairScorer {
  readonly id: string;
  private readonly batcher: InferenceBatcher;
  private readonly memo = new Map<string, number>();

  private constructor(
    readonly model: BuiltModel,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: MenuTokenizer,
    private readonly calibration: { a: number; b: number },
    opts: BatcherOptions,
  ) {
    this.id = model.id;
    this.batcher = new InferenceBatcher((b) => this.run(b), opts);
  }

  static async load(model: BuiltModel, opts: EncoderOptions): Promise<CrossEncoderScorer> {
    if (!model.calibration) throw new Error(`reranker ${model.id} has no calibration in the build manifest`);
    const session = await createSession(join(model.dir, model.file ?? 'reranker-int8.onnx'), opts);
    // Pairs are two names: twice the single-text budget.
    const tokenizer = new MenuTokenizer(model.dir, Math.min(512, opts.maxSequenceTokens * 2));
    return new CrossEncoderScorer(model, session, tokenizer, model.calibration, opts);
  }

  async score(pairs: readonly (readonly [string, string])[]): Promise<number[]> {
    const out = new Array<number>(pairs.length);
    const todo: number[] = [];
    pairs.forEach(([a, b], i) => {
      const hit = this.memo.get(`${a}\u0000${b}`);
      if (hit !== undefined) out[i] = hit;
      else todo.push(i);
    });
    if (todo.length > 0) {
      const seqs = todo.map((i) => {
        const { ids, typeIds } = this.tokenizer.encodePair(pairs[i]![0], pairs[i]![1]);
        return { ids, typeIds };
      });
      const logits = await this.batcher.submit(seqs);
      todo.forEach((i, k) => {
        const p = 1 / (1 + Math.exp(-(this.calibration.a * logits[k]![0]! + this.calibration.b)));
        out[i] = p;
        if (this.memo.size > 100_000) this.memo.clear();
        this.memo.set(`${pairs[i]![0]}\u0000${pairs[i]![1]}`, p);
      });
    }
    return out;
  }

  private async run(b: PaddedBatch): Promise<Float32Array[]> {
    const dims = [b.rows, b.seqLen];
    const result = await this.session.run({
      input_ids: new ort.Tensor('int64', b.inputIds, dims),
      attention_mask: new ort.Tensor('int64', b.attentionMask, dims),
      token_type_ids: new ort.Tensor('int64', b.tokenTypeIds, dims),
    });
    const logits = result.logits!.data as Float32Array;
    return Array.from({ length: b.rows }, (_, r) => Float32Array.of(logits[r]!));
  }

  async close(): Promise<void> {
    await this.batcher.drain();
    await this.session.release();
  }
}

/**
 * Search relevance from the search-relevance cross-encoder (`serve.search_reranker`): for each item, the calibrated
 * probability that it answers the query, as eval/LABELLING.md grades an answer (the asked-for dish in any name,
 * spelling or language; for a need or a category, an item that plainly is one). Both sides are cleaned texts (the
 * TextCleaner's output, what /search embeds): the model was trained on them. One probability per item, in order; a
 * feature for the search ranker, not a ranking by itself.
 */
export async function scoreSearchRelevance(scorer: PairScorer, cleanedQuery: string, cleanedItems: readonly string[]): Promise<number[]> {
  if (cleanedItems.length === 0) return [];
  return scorer.score(cleanedItems.map((item) => [cleanedQuery, item] as const));
}
