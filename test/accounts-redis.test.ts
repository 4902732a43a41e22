/**
 * Redis outages: metered calls fail closed (store_unavailable) while Redis is down, outcomes known
 * during the outage are applied once it is back, and nothing is charged twice.
 */
import t from 'tap';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createAccessControl, type AccessControl } from '../src/core/accounts/access.js';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { ManualClock, utcMonth } from '../src/core/accounts/clock.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { redisSkipReason, startRedis } from './helpers/redis.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);
const UNUSED_DATA_DIR = join(tmpdir(), 'mi-unused');

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms (last error: ${String(lastError)})`);
}

t.test('redis killed mid-run: fail closed, recover by itself, nothing double-charged', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const clock = new ManualClock(START);
  const store = await openAccountStore({ dataDir: UNUSED_DATA_DIR, redisUrl: redis.url });
  const admin = new AccountAdmin(store, clock);
  const ac: AccessControl = await createAccessControl({ dataDir: UNUSED_DATA_DIR, redisUrl: redis.url, clock });
  t.teardown(async () => {
    await ac.close();
    await store.close();
  });

  const quota = await admin.create({ customer: 'Outage Diner', plan: 'starter', metering: 'quota' });
  const credits = await admin.create({ customer: 'Outage Credits', plan: 'starter', metering: 'credits', milliCredits: 10_000 });
  const pq = await ac.authenticate(quota.key);
  const pc = await ac.authenticate(credits.key);

  const settledDuringOutage = await ac.admit(pq, 'search', 10);
  const releasedDuringOutage = await ac.admit(pq, 'search', 10);
  const creditReleasedDuringOutage = await ac.admit(pc, 'match', 4);
  t.equal((await ac.balance(pq)).credits_remaining, 9998, 'two calls reserved before the outage');
  t.equal((await ac.balance(pc)).credits_remaining, 6, 'four credits reserved before the outage');

  await redis.kill();

  await t.rejects(ac.admit(pq, 'search', 10), { code: 'store_unavailable', status: 503 }, 'metered request fails closed');
  await t.rejects(ac.authenticate(quota.key), { code: 'store_unavailable' }, 'a key cannot be checked: 503, not 401');
  await t.rejects(ac.balance(pq), { code: 'store_unavailable' });
  await t.rejects(ac.authenticate('mi_live_typo'), { code: 'unauthorized' }, 'malformed keys still get 401 without the store');

  await settledDuringOutage.settle();
  await releasedDuringOutage.release();
  await creditReleasedDuringOutage.release();
  // 3 outcomes, plus a release for the refused admit if its command was already on the wire when the
  // connection dropped (that release finds no reservation and refunds nothing).
  t.ok(ac.pendingOutcomes >= 3 && ac.pendingOutcomes <= 4, `outcomes kept for when the store is back (${ac.pendingOutcomes})`);

  await redis.start();
  await eventually('the pending outcomes reaching the store', async () => (ac.pendingOutcomes === 0 ? true : undefined));
  const balance = await eventually('the balance answering again', () => ac.balance(pq));
  t.equal(balance.credits_remaining, 9999, 'one settled call charged once, the released one refunded once');
  t.equal((await ac.balance(pc)).credits_remaining, 10, 'the released credits came back exactly once');

  // Outcomes repeated after recovery change nothing.
  await settledDuringOutage.settle();
  await releasedDuringOutage.release();
  await creditReleasedDuringOutage.release();
  t.equal((await ac.balance(pq)).credits_remaining, 9999);
  t.equal((await ac.balance(pc)).credits_remaining, 10);

  const p = await ac.authenticate(quota.key);
  await (await ac.admit(p, 'search', 10)).settle();
  t.equal(await store.callsUsed(quota.record.id, utcMonth(START)), 2, 'metering works again after recovery');
  t.equal(await store.inFlight(quota.record.id, clock.now()), 0, 'no in-flight slot leaked through the outage');
});

t.test('redis down at start: the access layer starts, fails closed, and serves once redis is up', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const clock = new ManualClock(START);
  const seedStore = await openAccountStore({ dataDir: UNUSED_DATA_DIR, redisUrl: redis.url });
  const { key } = await new AccountAdmin(seedStore, clock).create({ customer: 'Late Redis', plan: 'pro', metering: 'quota' });
  await seedStore.close();
  await redis.kill();

  const started = Date.now();
  const ac = await createAccessControl({ dataDir: UNUSED_DATA_DIR, redisUrl: redis.url, clock, storeTimeoutMs: 500 });
  t.teardown(() => ac.close());
  t.ok(Date.now() - started < 3000, 'start-up is not blocked by the outage');
  await t.rejects(ac.authenticate(key), { code: 'store_unavailable' });

  await redis.start();
  const p = await eventually('authentication after redis came up', () => ac.authenticate(key));
  await (await ac.admit(p, 'suggest', 3)).settle();
  t.equal((await ac.balance(p)).credits_remaining, 100_000 - 1);
});

t.test('redis killed while admissions are on the wire: only the admitted requests stay charged', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const clock = new ManualClock(START);
  const store = await openAccountStore({ dataDir: UNUSED_DATA_DIR, redisUrl: redis.url });
  const { key, record } = await new AccountAdmin(store, clock).create({ customer: 'Wire Cut', plan: 'scale', metering: 'quota' });
  const ac = await createAccessControl({ dataDir: UNUSED_DATA_DIR, redisUrl: redis.url, clock });
  t.teardown(async () => {
    await ac.close();
    await store.close();
  });
  const p = await ac.authenticate(key);

  // Kill Redis as soon as the first admissions come back, while the rest are still on the wire.
  let answered = 0;
  let firstAnswers: () => void = () => {};
  const someAnswered = new Promise<void>((resolve) => (firstAnswers = resolve));
  const attempts = Array.from({ length: 40 }, () => ac.admit(p, 'embed', 5).then(
    (admission) => ({ admission, code: 'ok' as string }),
    (error: { code?: string }) => ({ admission: undefined, code: String(error.code) }),
  ).finally(() => {
    if (++answered === 1) firstAnswers();
  }));
  await someAnswered;
  await redis.kill();
  const outcomes = await Promise.all(attempts);
  const admitted = outcomes.filter((o) => o.admission);
  const unavailable = outcomes.filter((o) => o.code === 'store_unavailable').length;
  t.equal(admitted.length + unavailable, 40, `every attempt was admitted (${admitted.length}) or failed closed (${unavailable})`);

  await redis.start();
  for (const o of admitted) await o.admission!.settle();
  await eventually('outcomes applied', async () => (ac.pendingOutcomes === 0 ? true : undefined));
  const used = await eventually('usage readable', () => store.callsUsed(record.id, utcMonth(START)));
  t.equal(used, admitted.length, 'exactly the admitted requests are charged: charges whose reply was lost were refunded');
  t.equal(await store.inFlight(record.id, clock.now()), 0, 'and their in-flight slots freed');
});
