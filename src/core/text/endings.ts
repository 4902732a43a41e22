/** `word` without `ending`, which it ends with: the stem a suffix rule leaves ("patties" less "ies"). */
export function withoutEnding(word: string, ending: string): string {
  return word.endsWith(ending) ? word.slice(0, word.length - ending.length) : word;
}
