/**
 * A stand-in for the encoder in catalog tests that need no model: character-trigram counts hashed into 384
 * dimensions, L2-normalised. Texts that share most trigrams get a high cosine ("Paneer Tikka" / "Paneer Tika"), so
 * clustering has real work to do; every call is recorded so a test can assert what was (not) embedded.
 */
import type { TextEmbedder } from '../../src/core/catalog/engine.js';

export const FAKE_DIM = 384;

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

export function trigramVector(text: string): Float32Array {
  const v = new Float32Array(FAKE_DIM);
  const s = `  ${text.toLowerCase()}  `;
  for (let i = 0; i + 3 <= s.length; i++) v[hash(s.slice(i, i + 3)) % FAKE_DIM]! += 1;
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) v[0] = 1;
  else for (let i = 0; i < FAKE_DIM; i++) v[i]! /= Math.sqrt(norm);
  return v;
}

export class CountingEmbedder implements TextEmbedder {
  readonly dim = FAKE_DIM;
  readonly calls: string[][] = [];
  constructor(readonly id = 'fake-trigram-v1', private readonly delayMs = 0, private readonly onCall?: (n: number) => void) {}

  get embeddedTexts(): string[] {
    return this.calls.flat();
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    this.onCall?.(this.calls.length);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return texts.map(trigramVector);
  }
}
