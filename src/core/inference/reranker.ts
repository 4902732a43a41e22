import { join } from 'node:path';
import { DEFAULT_MEMO_ENTRIES, Memo } from '../memo.js';
import { InferenceBatcher, type BatcherOptions } from './batcher.js';
import type { EncoderOptions } from './encoder.js';
import { InferencePool } from './inference-pool.js';
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
  readonly batcher: InferenceBatcher;
  private readonly memo: Memo<string, number>;

  private constructor(
    readonly model: BuiltModel,
    private readonly pool: InferencePool,
    private readonly tokenizer: MenuTokenizer,
    private readonly calibration: { a: number; b: number },
    opts: BatcherOptions & { readonly memoEntries?: number },
  ) {
    this.id = model.id;
    this.memo = new Memo(opts.memoEntries ?? DEFAULT_MEMO_ENTRIES);
    this.batcher = new InferenceBatcher(async (b) => {
      const { data } = await pool.run(b);
      return Array.from({ length: b.rows }, (_, r) => data.subarray(r, r + 1));
    }, { ...opts, concurrency: pool.concurrency });
  }

  static async load(model: BuiltModel, opts: EncoderOptions): Promise<CrossEncoderScorer> {
    if (!model.calibration) throw new Error(`reranker ${model.id} has no calibration in the build manifest`);
    const pool = await InferencePool.start({
      workers: opts.inferenceWorkers,
      session: { path: join(model.dir, model.file ?? 'reranker-int8.onnx'), intraOpThreads: opts.intraOpThreads, executionProvider: opts.executionProvider },
      what: { kind: 'cross-encoder' },
    });
    // Pairs are two names: twice the single-text budget.
    const tokenizer = new MenuTokenizer(model.dir, Math.min(512, opts.maxSequenceTokens * 2), opts.memoEntries);
    return new CrossEncoderScorer(model, pool, tokenizer, model.calibration, opts);
  }

  async score(pairs: readonly (readonly [string, string])[]): Promise<number[]> {
    const out = new Array<number>(pairs.length);
    const todo: number[] = [];
    pairs.forEach(([a, b], i) => {
      const hit = this.memo.peek(`${a}\u0000${b}`);
      if (hit !== undefined) out[i] = hit.value;
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
        this.memo.set(`${pairs[i]![0]}\u0000${pairs[i]![1]}`, p);
      });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.batcher.drain();
    await this.pool.close();
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
