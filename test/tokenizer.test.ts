import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MenuTokenizer } from '../src/core/inference/tokenizer.js';
import { resolveBuiltModel } from '../src/core/inference/model-files.js';
import { KNOWLEDGE_DIR } from '../src/core/paths.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';

const knowledge = loadKnowledge();
const clean = (text: string) => knowledge.cleaner.clean(text);

const model = (() => {
  try {
    return resolveBuiltModel(undefined);
  } catch {
    return null;
  }
})();

/** Every dish name and alias of the knowledge base: the menu words the memo sees most. */
function knowledgeTexts(): string[] {
  const out: string[] = [];
  const dir = join(KNOWLEDGE_DIR, 'dishes');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.tsv'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n').slice(1)) {
      if (!line || line.startsWith('#')) continue;
      const cells = line.split('\t');
      out.push(cells[0]!, ...(cells[6] ?? '').split('|').filter((a) => a && a !== '-'));
    }
  }
  return out;
}

const AWKWARD = [
  '', ' ', '  double  space ', 'Crème Brûlée', 'ÇÀFÉ  Latte', '中文 炒饭 Fried Rice', 'पनीर टिक्का', 'tab\tinside', 'new\nline',
  'x'.repeat(300), 'word '.repeat(100), 'Naïve—dash…', '🍕 pizza', 'Ｆｕｌｌｗｉｄｔｈ', 'no\u00a0break', 'zero\u200bwidth',
  'e\u0301 combining', 'Mac & Cheese (Large)', "Chef's Special!!", 'ALL CAPS NAME', '7up', 'à la carte',
];

t.test('encodeBatch gives exactly the ids encode gives, text by text', { skip: model ? false : 'models are not built' }, async (t) => {
  const texts = [...knowledgeTexts(), ...AWKWARD];
  const withCleaned = [...texts, ...texts.map((x) => clean(x).text)];
  for (const maxTokens of [64, 8]) {
    const reference = new MenuTokenizer(model!.dir, maxTokens);
    const batched = new MenuTokenizer(model!.dir, maxTokens);
    // Twice: the second pass is served from the word memo.
    for (const pass of ['first', 'memo']) {
      const got = batched.encodeBatch(withCleaned);
      const mismatches = withCleaned.filter((x, i) => JSON.stringify(reference.encode(x).ids) !== JSON.stringify(got[i]));
      t.same(mismatches.slice(0, 5), [], `${withCleaned.length} texts at ${maxTokens} tokens, ${pass} pass: no text tokenises differently`);
    }
    const long = batched.encodeBatch(['word '.repeat(100)])[0]!;
    t.equal(long.length, maxTokens, `truncated to ${maxTokens} with [SEP] last`);
    t.equal(long[long.length - 1], reference.encode('a').ids.at(-1));
  }
});
