/**
 * How many people a menu text (or a search query) is for, read from the words cleaning strips as size noise: "Serves
 * 4-5", "Combo for 8-10", "Pack of 4", "Bucket for Two", "Personal", "100ml". Search uses it for queries that ask for
 * a serving size ("pizza deal for 4 people", "party pack for a big group", "single serving cup for one"); match and
 * dedup never do, since a size never makes another dish.
 *
 * The answer is a head count, or null when the text does not say. A range reads as its lower end. Words such as party,
 * family and group are 4: "a big group" is not a number, but it is not one or two either.
 */

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12,
  ek: 1, do: 2, teen: 3, char: 4, chaar: 4, panch: 5, paanch: 5,
};
const COUNT = `(\\d{1,2}|${Object.keys(NUMBER_WORDS).join('|')})`;
const countOf = (s: string): number => NUMBER_WORDS[s] ?? Number(s);

/** Patterns with a count, most specific first; the count is group 1. */
const COUNTED: readonly RegExp[] = [
  new RegExp(`\\b(?:serves?|serving|feeds?)\\s*:?\\s*${COUNT}\\b`, 'i'),
  new RegExp(`\\bfor\\s+(?:a\\s+)?(?:party|group|family)\\s+of\\s+${COUNT}\\b`, 'i'),
  new RegExp(`\\bfor\\s+${COUNT}(?:\\s*(?:-|–|to)\\s*\\d{1,2})?\\s*(?:people|persons?|pax|of us|adults|guests)?(?![\\w.])(?!\\s*(?:rs|₹|ml|l|g|kg|gm|pcs?|pieces?|inch))`, 'i'),
  new RegExp(`\\b${COUNT}\\s*(?:people|persons|pax|guests|adults)\\b`, 'i'),
  new RegExp(`\\b(?:pack|box|set|bucket|combo|meal)\\s+of\\s+${COUNT}\\b`, 'i'),
];

/** Words that say the size without a number. */
const GROUP = /\b(?:party|family|group|feast|jumbo pack|(?:big|large|bada|badi|bara) pack|sharing|share|bucket|friends|gang|crowd|everyone|ghar ke liye|for home)\b/i;
const PAIR = /\b(?:couple|duo|buddy|twosome)\b/i;
// A cup under 200 ml is one serving (a 100ml ice cream); a 500ml tub or a 1.25L bottle says nothing about people.
const SINGLE = /\b(?:personal|single|solo|individual|for one|just me|1\s*person|mini|(?:[5-9]\d|1\d\d)\s*ml)\b/i;

/** Query words that only say the serving ("party", "people", "single"): not dish words once the serving is read. */
export const SERVING_WORDS: ReadonlySet<string> = new Set([
  ...Object.keys(NUMBER_WORDS), 'serving', 'serves', 'serve', 'people', 'persons', 'person', 'pax', 'guests', 'party',
  'group', 'big', 'large', 'family', 'pack', 'deal', 'deals', 'offer', 'offers', 'sharing', 'share', 'solo', 'personal',
  'individual', 'single', 'just', 'me', 'us', 'of', 'couple', 'duo', 'friends', 'gang', 'crowd', 'everyone', 'bada', 'badi',
  'bara', 'ghar', 'home',
]);

export function servingOf(text: string): number | null {
  for (const re of COUNTED) {
    const m = re.exec(text);
    if (m) {
      const n = countOf(m[1]!.toLowerCase());
      if (n >= 1 && n <= 30) return n;
    }
  }
  if (GROUP.test(text)) return 4;
  if (PAIR.test(text)) return 2;
  if (SINGLE.test(text)) return 1;
  return null;
}

/** A query's serving and an item's agree: both for one, both for two, or both for a group (three or more). */
export function servingsAgree(query: number, item: number): boolean {
  const band = (n: number): number => (n <= 1 ? 1 : n === 2 ? 2 : 3);
  return band(query) === band(item);
}
