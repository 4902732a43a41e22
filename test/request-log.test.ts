import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { OPERATOR_KEY, call, spawnServer, waitHealthy } from './helpers/server.js';

interface RequestLine {
  level: number;
  time: string;
  msg: string;
  request_id: string;
  method: string;
  route: string;
  status: number;
  latency_ms: number;
  items: number | null;
  key_prefix: string | null;
  code?: string;
}

t.test('MENU_LOG_REQUESTS=1: one JSON line per request from a real server process, never a key', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-log-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openAccountStore({ dataDir });
  const { key, record } = await new AccountAdmin(store).create({ customer: 'Log Co', plan: 'starter', metering: 'quota' });
  await store.close();
  const server = await spawnServer({ MENU_LOG_REQUESTS: '1', MENU_DATA_DIR: dataDir, MENU_OPERATOR_KEY: OPERATOR_KEY });
  t.teardown(() => void server.proc.kill('SIGTERM'));
  await waitHealthy(server.url);
  const logStart = server.output().length;

  const sent: { id: string; method: string; route: string; status: number; items: number | null; prefix: string | null }[] = [];
  const send = async (id: string, method: string, path: string, route: string, body: unknown, headers: Record<string, string>, items: number | null, prefix: string | null): Promise<void> => {
    const r = await call(server.url, method, path, body, { 'x-request-id': id, ...headers });
    sent.push({ id, method, route, status: r.status, items, prefix });
  };
  const unknownButWellFormed = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21); // fails its checksum
  await send('log-embed', 'POST', '/embed', '/embed', { items: ['Masala Dosa', 'Idli Sambar', 'Filter Coffee'] }, { 'x-api-key': key }, 3, record.keyPrefix);
  await send('log-search', 'POST', '/search', '/search', { query: 'dosa', corpus: ['Masala Dosa', 'Cold Coffee'] }, { 'x-api-key': key }, 2, record.keyPrefix);
  await send('log-422', 'POST', '/embed', '/embed', { items: [] }, { 'x-api-key': key }, null, record.keyPrefix);
  await send('log-401', 'POST', '/embed', '/embed', { items: ['Idli'] }, { 'x-api-key': unknownButWellFormed }, null, null);
  await send('log-openai', 'POST', '/v1/embeddings', '/v1/embeddings', { model: 'none', input: ['Idli', 'Vada'] }, { authorization: `Bearer ${key}` }, 2, record.keyPrefix);
  await send('log-operator', 'GET', '/health', '/health', undefined, { 'x-api-key': OPERATOR_KEY }, null, 'operator');
  await send('log-asset', 'GET', '/docs/assets/docs.js', '/docs/assets/{file}', undefined, {}, null, null);
  await send('log-404', 'GET', '/nowhere', 'unmatched', undefined, { 'x-api-key': key }, null, record.keyPrefix);
  // Lines are written when the answer is; give the pipe a moment.
  await new Promise((r) => setTimeout(r, 300));

  const output = server.output();
  const lines = output.slice(logStart).split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as RequestLine);
  for (const s of sent) {
    const mine = lines.filter((l) => l.request_id === s.id);
    t.equal(mine.length, 1, `${s.id}: exactly one line`);
    const line = mine[0]!;
    t.match(line, { method: s.method, route: s.route, status: s.status, items: s.items, key_prefix: s.prefix, msg: 'request', level: 30 }, `${s.id}: its fields`);
    t.type(line.latency_ms, 'number');
    t.ok(line.latency_ms >= 0 && !Number.isNaN(Date.parse(line.time)), `${s.id}: latency and time`);
    if (s.status >= 400) t.type(line.code, 'string', `${s.id}: error lines carry the code`);
  }
  t.equal(record.keyPrefix.length, 16, 'the prefix is the 16-character display prefix');
  t.notOk(output.includes(key), 'the full customer key never appears in the output');
  t.notOk(output.includes(key.slice(0, 30)), 'nor a long piece of it');
  t.notOk(output.includes(unknownButWellFormed), 'nor a presented key that failed');
  t.notOk(output.includes(OPERATOR_KEY), 'nor the operator key');
});
