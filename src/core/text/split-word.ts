/**
 * `word` as two known words typed without the space between them ("pavbhaji" → pav, bhaji), when it splits into two
 * words `known` accepts, each at least `minPart` letters long, in exactly one way; else null. Name lookups and the
 * cleaner's corrector both read glued words so, each against its own vocabulary.
 */
export function splitInTwo(word: string, known: (w: string) => boolean, minPart: number): [string, string] | null {
  let found: [string, string] | null = null;
  for (let i = minPart; i <= word.length - minPart; i++) {
    const a = word.slice(0, i);
    const b = word.slice(i);
    if (!known(a) || !known(b)) continue;
    if (found) return null;
    found = [a, b];
  }
  return found;
}
