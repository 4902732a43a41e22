/**
 * Accounts and metering through HTTP, against real `menu-intel serve` processes (SQLite data dir, or one real Redis
 * shared by two processes). Keys are issued with the real CLI.
 */
import t, { type Test } from 'tap';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../src/core/paths.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { utcMonth } from '../src/core/accounts/clock.js';
import { hashKey } from '../src/core/accounts/keys.js';
import { OPERATOR_KEY, call, spawnServer, waitHealthy } from './helpers/server.js';
import { redisSkipReason, startRedis } from './helpers/redis.js';

const execFileAsync = promisify(execFile);

async function cli(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [join(REPO_ROOT, 'bin', 'menu-intel.js'), 'keys', ...args], {
    env: { ...process.env, ...env },
    timeout: 30000,
  });
  return stdout;
}

async function createKey(env: Record<string, string>, ...args: string[]): Promise<string> {
  const out = (await cli(env, 'create', ...args)).trim().split('\n');
  return out[out.length - 1]!.trim();
}

interface Replica {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

async function replica(t: Test, env: Record<string, string>): Promise<Replica> {
  const r = await spawnServer({ MENU_OPERATOR_KEY: OPERATOR_KEY, MENU_THREADS: '1', ...env });
  t.teardown(() => {
    if (r.proc.exitCode === null) r.proc.kill('SIGKILL');
  });
  await waitHealthy(r.url);
  return r;
}

/** One client: retries 429s after Retry-After until it gets a final answer; returns that status. */
async function persistentCall(url: string, key: string, body: unknown): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const r = await call(url, 'POST', '/embed', body, { 'x-api-key': key });
    if (r.status !== 429) return r.status;
    await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 1) * 1000));
  }
  return 429;
}

async function exactlyFifty(t: Test, replicas: Replica[], key: string): Promise<void> {
  const statuses = await Promise.all(
    Array.from({ length: 200 }, (_, i) => persistentCall(replicas[i % replicas.length]!.url, key, { items: ['Paneer Tikka'] })),
  );
  const served = statuses.filter((s) => s === 200).length;
  const refused = statuses.filter((s) => s === 402).length;
  t.comment(`served ${served}, 402 ${refused}, other ${statuses.length - served - refused}`);
  t.equal(served, 50, 'exactly 50 served, never 51');
  t.equal(refused, 150, 'the other 150 got 402');
  t.notOk(statuses.some((s) => s >= 500), 'no 5xx');
  const bal = await call(replicas[0]!.url, 'GET', '/balance', undefined, { 'x-api-key': key });
  t.equal(bal.status, 200);
  t.equal(bal.body.credits_remaining, 0, 'balance reads 0');
}

t.test('SQLite: 200 concurrent requests against 50 calls left', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-http-acc-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { MENU_DATA_DIR: dataDir };
  const key = await createKey(env, '--customer', 'Fifty Left', '--plan', 'starter');
  t.match(key, /^mi_live_/, 'the key is printed as the last line');
  {
    const store = await openAccountStore({ dataDir });
    const rec = await store.findByKeyHash(hashKey(key));
    await store.adjustCallsUsed(rec!.id, utcMonth(Date.now()), 10_000 - 50);
    await store.close();
  }
  const r = await replica(t, env);
  await exactlyFifty(t, [r], key);

  t.test('usage survives a restart', async (t) => {
    r.proc.kill('SIGTERM');
    await new Promise((res) => r.proc.once('exit', res));
    const again = await replica(t, env);
    const res = await call(again.url, 'POST', '/embed', { items: ['Dal Makhani'] }, { 'x-api-key': key });
    t.equal(res.status, 402, 'still over quota after the restart');
    t.equal(res.body.code, 'quota_exceeded');
    const bal = await call(again.url, 'GET', '/balance', undefined, { 'x-api-key': key });
    t.same(bal.body, { customer: 'Fifty Left', credits_remaining: 0, unlimited: false });
    again.proc.kill('SIGTERM');
    await new Promise((res) => again.proc.once('exit', res));
  });

  t.test('neither the database files nor the logs contain the plaintext key', async (t) => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(dataDir);
    t.ok(files.length >= 1, 'the store wrote files');
    for (const f of files) t.notOk(readFileSync(f).includes(Buffer.from(key)), `${f} has no plaintext key`);
    t.notOk(r.output().includes(key), 'the server log has no plaintext key');
    const listed = await cli(env, 'list');
    t.notOk(listed.includes(key), 'keys list shows no plaintext key');
    t.match(listed, /Fifty Left/);
  });
});

t.test('credits, plan views, check order and revocation (SQLite)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-http-cred-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { MENU_DATA_DIR: dataDir };
  const creditKey = await createKey(env, '--customer', 'Credit Co', '--plan', 'pro', '--credits', '10');
  const planKey = await createKey(env, '--customer', 'Plan Co', '--plan', 'starter');
  const r = await replica(t, env);
  const h = (k: string) => ({ 'x-api-key': k });
  const twenty = Array.from({ length: 20 }, (_, i) => `Credit Probe Dish ${i} Curry`); // 20 × 0.05 = 1 credit

  let ok = 0;
  for (let i = 0; i < 10; i++) if ((await call(r.url, 'POST', '/embed', { items: twenty }, h(creditKey))).status === 200) ok++;
  t.equal(ok, 10, '10 one-credit calls succeed');
  const eleventh = await call(r.url, 'POST', '/embed', { items: twenty }, h(creditKey));
  t.equal(eleventh.status, 402, 'the 11th gets 402');
  t.equal(eleventh.body.code, 'insufficient_credits');
  t.same((await call(r.url, 'GET', '/balance', undefined, h(creditKey))).body, { customer: 'Credit Co', credits_remaining: 0, unlimited: false });

  await cli(env, 'add-credits', creditKey.slice(0, 16), '3');
  const five = Array.from({ length: 100 }, (_, i) => `Five Credit Probe ${i} Biryani`); // 100 × 0.05 = 5 credits
  const tooBig = await call(r.url, 'POST', '/embed', { items: five }, h(creditKey));
  t.equal(tooBig.status, 402, 'a 5-credit request with 3 left is refused before any work');
  t.equal((await call(r.url, 'GET', '/balance', undefined, h(creditKey))).body.credits_remaining, 3, 'balance unchanged');

  // Plan account: /balance shows calls left this month; successful responses carry quota headers.
  const first = await call(r.url, 'POST', '/embed', { items: ['Masala Dosa'] }, h(planKey));
  t.equal(first.status, 200);
  t.ok(first.headers.get('ratelimit'), 'RateLimit header on success');
  t.ok(first.headers.get('ratelimit-policy'), 'RateLimit-Policy header on success');
  t.equal((await call(r.url, 'GET', '/balance', undefined, h(planKey))).body.credits_remaining, 9999, 'one call used of 10,000');
  await call(r.url, 'POST', '/embed', { items: Array(513).fill('x') }, h(planKey));
  t.equal((await call(r.url, 'GET', '/balance', undefined, h(planKey))).body.credits_remaining, 9999, 'a rejected (422) request is not counted');

  // /health: a customer key gets the basic view, the operator the diagnostic one.
  t.same(Object.keys((await call(r.url, 'GET', '/health', undefined, h(planKey))).body).sort(), ['model', 'status']);
  t.equal((await call(r.url, 'GET', '/health', undefined, { 'x-api-key': OPERATOR_KEY })).body.backend, 'onnx');

  // Order of checks: 401 before anything; validation (422) before rate limits and money (402).
  const badKeyBadBody = await call(r.url, 'POST', '/embed', '{oops', h('mi_live_notarealkey'));
  t.equal(badKeyBadBody.status, 401, '401 wins over a malformed body');
  const brokeBadBody = await call(r.url, 'POST', '/embed', { items: [] }, h(creditKey));
  t.equal(brokeBadBody.status, 422, '422 wins over 402');

  // Rate limit: a burst above Starter's 20/s gets 429 with Retry-After and the IETF headers, no 5xx.
  const burst = await Promise.all(Array.from({ length: 60 }, () => call(r.url, 'POST', '/embed', { items: ['Idli'] }, h(planKey))));
  const limited = burst.filter((b) => b.status === 429);
  t.ok(limited.length > 0, `a 60-request burst is limited (${limited.length} × 429)`);
  t.notOk(burst.some((b) => b.status >= 500), 'no 5xx');
  for (const l of limited.slice(0, 3)) {
    t.ok(Number(l.headers.get('retry-after')) >= 1, 'Retry-After');
    t.ok(l.headers.get('ratelimit-policy'), 'RateLimit-Policy on 429');
    t.match(l.body.code, /^(rate_limited|too_many_in_flight)$/);
  }
  await new Promise((res) => setTimeout(res, 1100));
  t.equal((await call(r.url, 'POST', '/embed', { items: ['Idli'] }, h(planKey))).status, 200, 'the limit resets a second later');

  // Revocation takes effect on the running server.
  await cli(env, 'revoke', planKey.slice(0, 16));
  const revoked = await call(r.url, 'POST', '/embed', { items: ['Idli'] }, h(planKey));
  t.equal(revoked.status, 401, 'a revoked key is refused');
});

t.test('Redis: two server processes share one budget; Redis killed → 503, then recovery', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-http-redis-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { MENU_DATA_DIR: dataDir, MENU_REDIS_URL: redis.url };
  const key = await createKey(env, '--customer', 'Two Replicas', '--plan', 'starter');
  {
    const store = await openAccountStore({ dataDir, redisUrl: redis.url });
    const rec = await store.findByKeyHash(hashKey(key));
    await store.adjustCallsUsed(rec!.id, utcMonth(Date.now()), 10_000 - 50);
    await store.close();
  }
  const a = await replica(t, env);
  const b = await replica(t, env);
  await exactlyFifty(t, [a, b], key);

  const fresh = await createKey(env, '--customer', 'Outage Co', '--plan', 'pro');
  const ok1 = await call(a.url, 'POST', '/embed', { items: ['Veg Biryani'] }, { 'x-api-key': fresh });
  t.equal(ok1.status, 200);
  await redis.kill();
  const down = await call(a.url, 'POST', '/embed', { items: ['Veg Biryani'] }, { 'x-api-key': fresh });
  t.equal(down.status, 503, 'fail closed while Redis is down');
  t.equal(down.body.code, 'store_unavailable', 'with a clear code');
  t.match(down.body.detail, /store|redis|unavailable|reach/i, 'and a detail that says what is wrong');
  await redis.start();
  let recovered = 0;
  for (let i = 0; i < 50 && recovered === 0; i++) {
    const r = await call(a.url, 'POST', '/embed', { items: ['Veg Biryani'] }, { 'x-api-key': fresh });
    if (r.status === 200) recovered++;
    else await new Promise((res) => setTimeout(res, 200));
  }
  t.equal(recovered, 1, 'serves again once Redis is back');
  const bal = await call(b.url, 'GET', '/balance', undefined, { 'x-api-key': fresh });
  t.equal(bal.body.credits_remaining, 100_000 - 2, 'exactly the two served calls are counted: nothing double-charged');
});
