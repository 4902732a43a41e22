import t from 'tap';
import { Memo } from '../src/core/memo.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import { parseMenuText } from '../src/core/menu-text.js';

t.test('a memo keeps at most its entries, the least recently used going first', async (t) => {
  const memo = new Memo<string, number>(3);
  let made = 0;
  const get = (k: string) => memo.get(k, () => (made++, k.length));
  for (const k of ['a', 'bb', 'ccc']) get(k);
  t.equal(memo.size, 3);
  get('a'); // a is now the most recent; bb the least
  get('dddd');
  t.equal(memo.size, 3, 'still three entries after a fourth key');
  t.equal(memo.peek('bb'), undefined, 'the least recently used key went');
  t.same(memo.peek('a'), { value: 1 }, 'the key read again stayed');
  const before = made;
  t.equal(get('a'), 1);
  t.equal(made, before, 'a kept key is not made again');
  get('bb');
  t.equal(made, before + 1, 'an evicted key is made again');
});

t.test('null results are remembered like any other', async (t) => {
  const memo = new Memo<string, string | null>(10);
  let made = 0;
  t.equal(memo.get('x', () => (made++, null)), null);
  t.equal(memo.get('x', () => (made++, 'other')), null);
  t.equal(made, 1);
});

t.test('a knowledge with tiny memos reads every text as one with the default memos', async (t) => {
  const small = loadKnowledge(undefined, { memoEntries: 8 });
  const large = loadKnowledge();
  // Distinct texts (as a soak or a catalog brings: a number per text), some misspelt, so the cleaner's fuzzy reading,
  // the dish lookup's memo and the word fold are all evicted many times over.
  const bases = ['Chiken Biryani', 'Paneer Butter Masala', 'Veg Momos', 'Masala Dosaa', 'Cold Cofee', 'Gulab Jamuns', 'Chicken 65'];
  const texts = Array.from({ length: 400 }, (_, i) => `${bases[i % bases.length]} Special ${i}`);
  for (const pass of [1, 2]) {
    let differ = 0;
    for (const text of texts) {
      const a = parseMenuText(small, text);
      const b = parseMenuText(large, text);
      const read = (m: typeof a) => JSON.stringify([m.text, m.singulars, m.dish?.dish.id ?? null, m.dish?.how ?? null, m.combo?.names ?? null, m.profile]);
      if (read(a) !== read(b)) differ++;
    }
    t.equal(differ, 0, `pass ${pass}: same cleaning and dish for all ${texts.length} texts`);
  }
});
