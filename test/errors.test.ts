import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, ApiError } from '../src/core/errors.js';
import { REPO_ROOT } from '../src/core/paths.js';

t.test('every error code maps to a 4xx/5xx status and builds a JSON body', async (t) => {
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    t.ok(spec.status >= 400 && spec.status < 600, `${code} status`);
    const err = new ApiError(code as keyof typeof ERROR_CODES, 'x');
    t.same(err.toBody(), { detail: 'x', code });
    t.equal(err.status, spec.status);
  }
});

t.test('every error code is documented in docs/errors.md with its status, and nothing else is', async (t) => {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = new Map([...page.matchAll(/^\| `(\w+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
  for (const [code, spec] of Object.entries(ERROR_CODES)) t.equal(rows.get(code), spec.status, `${code} documented as ${spec.status}`);
  t.same([...rows.keys()].filter((c) => !(c in ERROR_CODES)), [], 'the table lists no code the server does not have');
  t.match(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), /\(docs\/errors\.md\)/, 'the README links the error page');
});
