/**
 * How numbers in a response are rounded: one place, so every endpoint writes a score, a cosine or a percentage the
 * same way. Vector components have their own format (vector-encoding.ts).
 */

/** A probability or score in a response (classify confidence, reranker score, pairwise score, suggestion score). */
export function roundScore(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** A cosine in a response: six places keep ties between near-identical items visible to the caller. */
export function roundCosine(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** A percentage or a time in milliseconds. */
export function roundHundredths(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A share as a percentage (0–100) in hundredths; 0 for an empty whole. */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? roundHundredths((100 * part) / whole) : 0;
}

/** Milliseconds (performance.now() differences) as seconds. */
export function msToSeconds(ms: number): number {
  return ms / 1000;
}

/** Now as whole seconds since the Unix epoch. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
