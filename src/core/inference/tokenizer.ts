import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { DEFAULT_MEMO_ENTRIES, Memo } from '../memo.js';

export interface TokenizedText {
  /** Token ids including [CLS] … [SEP], truncated to the model's limit. */
  readonly ids: readonly number[];
}

/**
 * WordPiece tokenisation for the BERT encoders. @huggingface/tokenizers 0.2.0 has no batch or padding API, so this
 * returns unpadded ids and the inference runner pads each run to its own longest sequence.
 */
export class MenuTokenizer {
  private readonly tokenizer: Tokenizer;
  private readonly clsId: number;
  private readonly sepId: number;
  /** Word → its WordPiece ids (without [CLS]/[SEP]). */
  private readonly wordIds: Memo<string, readonly number[]>;

  /** `memoEntries`: distinct space-separated words encodeBatch remembers the ids of (src/core/memo.ts). Menu
   * vocabularies are a few thousand words; the bound is for words that never come back (order numbers, codes). */
  constructor(modelDir: string, private readonly maxTokens: number, memoEntries: number = DEFAULT_MEMO_ENTRIES) {
    this.wordIds = new Memo(memoEntries);
    const json = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')) as object;
    const config = JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')) as object;
    this.tokenizer = new Tokenizer(json, config);
    const probe = this.tokenizer.encode('a').ids;
    this.clsId = probe[0]!;
    this.sepId = probe[probe.length - 1]!;
  }

  encode(text: string): TokenizedText {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.maxTokens) return { ids };
    return { ids: [...ids.slice(0, this.maxTokens - 1), this.sepId] };
  }

  /**
   * The ids of many texts, equal to encode() on each (test/tokenizer.test.ts checks it), from a memo of their
   * space-separated words: BERT's normaliser (clean-up, CJK spacing, accent stripping, lower case) works character by
   * character and its pre-tokeniser splits at every space, so a text's ids are its words' ids end to end. Menu names
   * reuse a few thousand words, so a batch mostly costs memo lookups.
   */
  encodeBatch(texts: readonly string[]): number[][] {
    return texts.map((text) => {
      const ids = [this.clsId];
      for (const word of text.split(' ')) {
        if (word === '') continue;
        const piece = this.wordIds.get(word, () => this.tokenizer.encode(word).ids.slice(1, -1));
        for (const id of piece) ids.push(id);
        if (ids.length >= this.maxTokens) break;
      }
      if (ids.length >= this.maxTokens) ids.length = this.maxTokens - 1;
      ids.push(this.sepId);
      return ids;
    });
  }


  /** A [CLS] a [SEP] b [SEP] pair for cross-encoders, with token type ids; b is truncated first. */
  encodePair(a: string, b: string): { ids: number[]; typeIds: number[] } {
    const ea = this.tokenizer.encode(a).ids.slice(1, -1);
    const eb = this.tokenizer.encode(b).ids.slice(1, -1);
    const budget = this.maxTokens - 3;
    while (ea.length + eb.length > budget) {
      if (eb.length >= ea.length) eb.pop();
      else ea.pop();
    }
    const ids = [this.clsId, ...ea, this.sepId, ...eb, this.sepId];
    const typeIds = ids.map((_, i) => (i <= ea.length + 1 ? 0 : 1));
    return { ids, typeIds };
  }
}

/**
 * The whole words of a WordPiece vocabulary: lower-case alphabetic entries of three letters or more (not "##"
 * continuations). About 20,000 English words ("friends", "share", "deserts"): the query speller never reads one of
 * them as a typo.
 */
export function vocabularyWords(modelDir: string): string[] {
  const json = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')) as { model?: { vocab?: Record<string, number> } };
  return Object.keys(json.model?.vocab ?? {}).filter((w) => /^[a-z]{3,}$/.test(w));
}
