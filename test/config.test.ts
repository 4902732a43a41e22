import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_DOC, loadConfig } from '../src/config.js';
import { REPO_ROOT } from '../src/core/paths.js';

t.test('defaults, parsing and freezing', async (t) => {
  const c = loadConfig({});
  t.equal(c.host, '127.0.0.1');
  t.equal(c.port, 8080);
  t.equal(c.operatorKey, undefined);
  t.equal(c.executionProvider, 'cpu');
  t.ok(Object.isFrozen(c));
  const d = loadConfig({ PORT: '9090', HOST: '0.0.0.0', MENU_NATIVE: 'off', MENU_CACHE_BYTES: '0' });
  t.equal(d.port, 9090);
  t.equal(d.host, '0.0.0.0');
  t.equal(d.nativeVectors, false);
  t.equal(d.embeddingCacheBytes, 0);
});

t.test('invalid values fail at start-up with the variable named', async (t) => {
  t.throws(() => loadConfig({ PORT: 'abc' }), /PORT=abc/);
  t.throws(() => loadConfig({ PORT: '70000' }), /PORT/);
  t.throws(() => loadConfig({ MENU_EXECUTION_PROVIDER: 'tpu' }), /MENU_EXECUTION_PROVIDER/);
  t.throws(() => loadConfig({ MENU_NATIVE: 'maybe' }), /MENU_NATIVE/);
});

t.test('every environment variable has a README line', async (t) => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  for (const name of Object.keys(ENV_DOC)) t.match(readme, new RegExp('`' + name + '`'), `${name} documented`);
});
