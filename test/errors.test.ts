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

t.test('every error code is documented in the README error table', async (t) => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  for (const code of Object.keys(ERROR_CODES)) t.match(readme, new RegExp('`' + code + '`'), `${code} documented`);
});
