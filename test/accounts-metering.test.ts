/**
 * Metering on both stores, through the same AccessControl the HTTP layer calls: exact quota and credit
 * counts under 200 concurrent requests, the rate limit and in-flight ceiling on a fake clock, release
 * refunds, restarts, and that no plaintext key reaches the store's files.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessControl, createAccessControl, type Principal } from '../src/core/accounts/access.js';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { ManualClock, utcMonth } from '../src/core/accounts/clock.js';
import { openAccountStore, type AccountStore } from '../src/core/accounts/store.js';
import type { EndpointName } from '../src/core/accounts/plans.js';
import { isApiError } from '../src/core/errors.js';
import { redisSkipReason, startRedis } from './helpers/redis.js';

/** The part of a tap test the fixtures need. */
type Tap = { teardown(fn: () => unknown): void };

/** Mid-month, mid-day: no test run crosses a month boundary on the fake clock. */
const START = Date.UTC(2026, 10, 15, 12, 0, 0);

interface Backend {
  name: string;
  skip: string | false;
  /** Store location for one test: SQLite data dir or a fresh Redis. */
  setup(t: Tap): Promise<{ dataDir: string; redisUrl?: string; files(): string[]; restartStore?: () => Promise<void> }>;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else out.push(path);
  }
  return out;
}

const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    skip: false,
    async setup(t) {
      const dataDir = mkdtempSync(join(tmpdir(), 'mi-accounts-'));
      t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
      return { dataDir, files: () => listFiles(dataDir) };
    },
  },
  {
    name: 'redis',
    skip: redisSkipReason,
    async setup(t) {
      const redis = await startRedis(t);
      return {
        dataDir: join(tmpdir(), 'mi-unused'),
        redisUrl: redis.url,
        files: () => listFiles(redis.dir),
        restartStore: async () => {
          await redis.kill();
          await redis.start();
        },
      };
    },
  },
];

interface Fixture {
  clock: ManualClock;
  store: AccountStore;
  admin: AccountAdmin;
  open(): Promise<AccessControl>;
  files(): string[];
  restartStore?: () => Promise<void>;
}

async function fixture(t: Tap, backend: Backend): Promise<Fixture> {
  const location = await backend.setup(t);
  const clock = new ManualClock(START);
  const store = await openAccountStore(location);
  const opened: AccessControl[] = [];
  t.teardown(async () => {
    for (const ac of opened) await ac.close();
    await store.close();
  });
  const fx: Fixture = {
    clock,
    store,
    admin: new AccountAdmin(store, clock),
    files: location.files,
    async open() {
      const ac = await createAccessControl({ dataDir: location.dataDir, redisUrl: location.redisUrl, clock });
      opened.push(ac);
      return ac;
    },
  };
  if (location.restartStore) fx.restartStore = location.restartStore;
  return fx;
}

type Outcome = 'ok' | string;

/**
 * One client doing `admit → settle`, retrying 429s after their Retry-After on the fake clock, until it
 * gets through or is refused for good. Returns 'ok' or the refusal's error code.
 */
async function client(ac: AccessControl, p: Principal, clock: ManualClock, endpoint: EndpointName, units: number,
  counters: { retries: number }): Promise<Outcome> {
  for (;;) {
    try {
      const admission = await ac.admit(p, endpoint, units);
      await admission.settle();
      return 'ok';
    } catch (error) {
      if (!isApiError(error)) throw error;
      if (error.status !== 429) return error.code;
      counters.retries++;
      const retryAfter = Number(error.headers['Retry-After']);
      if (!(retryAfter >= 1)) throw new Error(`429 without a usable Retry-After: ${JSON.stringify(error.headers)}`);
      await clock.sleep(retryAfter * 1000);
    }
  }
}

/**
 * Runs `count` concurrent clients spread over `instances` (replicas) and moves the fake clock whenever
 * every unfinished client is waiting out a Retry-After.
 */
async function crowd(instances: AccessControl[], p: Principal, clock: ManualClock, count: number,
  endpoint: EndpointName, units: number): Promise<{ outcomes: Outcome[]; retries: number }> {
  const counters = { retries: 0 };
  let finished = 0;
  const all = Promise.all(
    Array.from({ length: count }, (_, i) =>
      client(instances[i % instances.length]!, p, clock, endpoint, units, counters).finally(() => finished++)),
  );
  while (finished < count) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (clock.sleeping > 0 && clock.sleeping + finished === count) clock.advance(1000);
  }
  return { outcomes: await all, retries: counters.retries };
}

const tally = (outcomes: Outcome[]) =>
  outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }), {});

for (const backend of BACKENDS) {
  t.test(`${backend.name}: metering`, { skip: backend.skip }, async (t) => {
    t.test('200 concurrent requests on a plan account with 50 calls left: exactly 50 served', async (t) => {
      const fx = await fixture(t, backend);
      const { key, record } = await fx.admin.create({ customer: 'Concurrent Foods', plan: 'starter', metering: 'quota' });
      await fx.store.adjustCallsUsed(record.id, utcMonth(START), 10_000 - 50);
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      const { outcomes, retries } = await crowd([ac], p, fx.clock, 200, 'search', 25);
      t.same(tally(outcomes), { ok: 50, quota_exceeded: 150 }, 'exactly 50 served, the rest 402 quota_exceeded');
      t.ok(retries > 0, `the per-second limit pushed back (${retries} retries after 429)`);
      t.same(await ac.balance(p), { customer: 'Concurrent Foods', credits_remaining: 0, unlimited: false });
      t.equal(await fx.store.callsUsed(record.id, utcMonth(fx.clock.now())), 10_000, 'the month reads exactly the quota');
      t.equal(await fx.store.inFlight(record.id, fx.clock.now()), 0, 'every in-flight slot was freed');
    });

    t.test('200 concurrent requests on a credit account with 50 credits: exactly 50 single-pair matches', async (t) => {
      const fx = await fixture(t, backend);
      const { key } = await fx.admin.create({ customer: 'Credit Cafe', plan: 'pro', metering: 'credits', milliCredits: 50_000 });
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      const { outcomes } = await crowd([ac], p, fx.clock, 200, 'match', 1);
      t.same(tally(outcomes), { ok: 50, insufficient_credits: 150 });
      t.same(await ac.balance(p), { customer: 'Credit Cafe', credits_remaining: 0, unlimited: false });
    });

    t.test('two AccessControl instances on one store enforce one budget', async (t) => {
      const fx = await fixture(t, backend);
      const { key, record } = await fx.admin.create({ customer: 'Two Replicas', plan: 'pro', metering: 'quota' });
      await fx.store.adjustCallsUsed(record.id, utcMonth(START), 100_000 - 50);
      const replicas = [await fx.open(), await fx.open()];
      const p = await replicas[0]!.authenticate(key);
      const { outcomes } = await crowd(replicas, p, fx.clock, 200, 'classify', 3);
      t.same(tally(outcomes), { ok: 50, quota_exceeded: 150 });
      for (const replica of replicas) t.equal((await replica.balance(p)).credits_remaining, 0);
    });

    t.test('credits: 10 credits buy exactly 10 single-pair matches; a 5-pair match on 3 credits is refused whole', async (t) => {
      const fx = await fixture(t, backend);
      const { key, record } = await fx.admin.create({ customer: 'Pair Bistro', plan: 'starter', metering: 'credits', milliCredits: 10_000 });
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      for (let i = 1; i <= 10; i++) {
        const admission = await ac.admit(p, 'match', 1);
        t.equal(admission.headers['X-Credits-Remaining'], String(10 - i), `match ${i} leaves ${10 - i}`);
        await admission.settle();
      }
      await t.rejects(ac.admit(p, 'match', 1), { code: 'insufficient_credits', status: 402 }, 'the 11th is 402');
      t.equal((await ac.balance(p)).credits_remaining, 0);

      await fx.admin.addCredits(record.keyPrefix, 3000);
      await t.rejects(ac.admit(p, 'match', 5), {
        code: 'insufficient_credits',
        message: /costs 5 credits .*3 remain; nothing was charged/,
      });
      t.equal((await ac.balance(p)).credits_remaining, 3, 'the refused request charged nothing');
      t.equal(await fx.store.callsUsed(record.id, utcMonth(fx.clock.now())), 10, 'and counted no call');
    });

    t.test('credits are integer milli-credits: 20 items at 0.05 use up exactly 1 credit', async (t) => {
      const fx = await fixture(t, backend);
      const { key } = await fx.admin.create({ customer: 'Drift Free', plan: 'starter', metering: 'credits', milliCredits: 1000 });
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      for (let i = 0; i < 20; i++) await (await ac.admit(p, 'embed', 1)).settle();
      t.equal((await ac.balance(p)).credits_remaining, 0, 'not 1.3e-17 or -1e-17');
      fx.clock.advance(1000); // out of the per-second window the 20 requests filled
      await t.rejects(ac.admit(p, 'embed', 1), { code: 'insufficient_credits' });
    });

    t.test('rate limit: a burst above the plan rate gets 429 with Retry-After, and resets a second later', async (t) => {
      const fx = await fixture(t, backend);
      const { key, record } = await fx.admin.create({ customer: 'Bursty', plan: 'starter', metering: 'quota' });
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      fx.clock.advance(400); // mid-window: Retry-After still rounds up to a whole second
      for (let i = 0; i < 20; i++) await (await ac.admit(p, 'classify', 1)).settle();
      const refused = await ac.admit(p, 'classify', 1).then(() => undefined, (e: unknown) => e);
      t.ok(isApiError(refused), 'the 21st request in the second is refused');
      if (isApiError(refused)) {
        t.equal(refused.code, 'rate_limited');
        t.equal(refused.status, 429);
        t.equal(refused.headers['Retry-After'], '1');
        t.equal(refused.headers['RateLimit-Policy'], '"per-second";q=20;w=1');
        t.equal(refused.headers.RateLimit, '"per-second";r=0;t=1');
      }
      t.equal(await fx.store.callsUsed(record.id, utcMonth(fx.clock.now())), 20, 'the refused request is not counted');
      fx.clock.advance(600);
      const next = await ac.admit(p, 'classify', 1);
      t.match(next.headers.RateLimit, /^"per-second";r=19;t=1, "monthly";r=9979;t=\d+$/, 'a new window, quota headers');
      t.equal(next.headers['RateLimit-Policy'], '"per-second";q=20;w=1, "monthly";q=10000;w=2592000');
      await next.settle();
    });

    t.test('in-flight ceiling: the plan ceiling is held, freed by settle, and by lease expiry after a crash', async (t) => {
      const fx = await fixture(t, backend);
      const { key, record } = await fx.admin.create({ customer: 'Slow Reports', plan: 'pro', metering: 'quota' });
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      const held = [];
      for (let i = 0; i < 15; i++) held.push(await ac.admit(p, 'report', 500));
      await t.rejects(ac.admit(p, 'report', 500), {
        code: 'too_many_in_flight',
        status: 429,
        headers: { 'Retry-After': '1', 'RateLimit-Policy': '"in-flight";q=15;qu="concurrent-requests"' },
      });
      await held.pop()!.settle();
      const again = await ac.admit(p, 'report', 500);
      await t.rejects(ac.admit(p, 'report', 500), { code: 'too_many_in_flight' });
      // The process holding these "dies": nobody settles them. Leases expire after 60 s.
      fx.clock.advance(61_000);
      t.equal(await fx.store.inFlight(record.id, fx.clock.now()), 0, 'expired leases no longer count');
      await (await ac.admit(p, 'report', 500)).settle();
      t.equal(await fx.store.callsUsed(record.id, utcMonth(fx.clock.now())), 17, 'unsettled requests stay charged (a crash costs those requests)');
      void again;
    });

    t.test('release refunds exactly once; settle and release are exactly-once per admission', async (t) => {
      const fx = await fixture(t, backend);
      const quota = await fx.admin.create({ customer: 'Refund Quota', plan: 'starter', metering: 'quota' });
      const credits = await fx.admin.create({ customer: 'Refund Credits', plan: 'scale', metering: 'credits', milliCredits: 100_000 });
      const ac = await fx.open();
      const pq = await ac.authenticate(quota.key);
      const pc = await ac.authenticate(credits.key);

      const a = await ac.admit(pq, 'search', 100);
      t.equal((await ac.balance(pq)).credits_remaining, 9999, 'reserved while in flight');
      await a.release();
      await a.release();
      await a.settle();
      t.equal((await ac.balance(pq)).credits_remaining, 10_000, 'refunded once, settle after release is a no-op');

      const b = await ac.admit(pc, 'dedup', 40);
      t.equal((await ac.balance(pc)).credits_remaining, 60);
      await b.settle();
      await b.release();
      t.equal((await ac.balance(pc)).credits_remaining, 60, 'release after settle refunds nothing');

      const c = await ac.admit(pc, 'suggest', 30);
      await c.release();
      t.equal((await ac.balance(pc)).credits_remaining, 60, '3 credits for 30 cart+menu items, refunded');
      t.equal(await fx.store.inFlight(credits.record.id, fx.clock.now()), 0);
    });

    t.test('restart: usage recorded before a close (and a store restart) still counts', async (t) => {
      const fx = await fixture(t, backend);
      const quota = await fx.admin.create({ customer: 'Persistent', plan: 'starter', metering: 'quota' });
      const credits = await fx.admin.create({ customer: 'Persistent Credits', plan: 'starter', metering: 'credits', milliCredits: 5000 });
      let ac = await fx.open();
      const pq = await ac.authenticate(quota.key);
      const pc = await ac.authenticate(credits.key);
      for (let i = 0; i < 3; i++) await (await ac.admit(pq, 'embed', 10)).settle();
      await (await ac.admit(pc, 'match', 2)).settle();
      await ac.admit(pq, 'embed', 10); // in flight when the process goes away
      await ac.close();
      if (fx.restartStore) await fx.restartStore();

      ac = await fx.open();
      t.equal((await ac.balance(await ac.authenticate(quota.key))).credits_remaining, 10_000 - 4);
      t.equal((await ac.balance(await ac.authenticate(credits.key))).credits_remaining, 3);
      await (await ac.admit(pq, 'embed', 10)).settle();
      t.equal((await ac.balance(pq)).credits_remaining, 10_000 - 5, 'counting continues from the stored value');
    });

    t.test('the store files never contain a plaintext key', async (t) => {
      const fx = await fixture(t, backend);
      const { key, record } = await fx.admin.create({ customer: 'Secret Keeper', plan: 'scale', metering: 'credits', milliCredits: 7000 });
      const ac = await fx.open();
      const p = await ac.authenticate(key);
      await (await ac.admit(p, 'dedup', 2)).settle();
      await fx.admin.setPlan(record.keyPrefix, 'pro');
      await fx.admin.revoke(key);
      await ac.close();
      await fx.store.close();
      const files = fx.files();
      t.ok(files.length > 0, `store files: ${files.map((f) => f.split('/').slice(-2).join('/')).join(', ')}`);
      const secretPart = key.slice(record.keyPrefix.length);
      let sawHash = false;
      for (const file of files) {
        const bytes = readFileSync(file);
        t.notOk(bytes.includes(key), `${file} has no plaintext key`);
        t.notOk(bytes.includes(secretPart), `${file} has no secret part of the key`);
        sawHash ||= bytes.includes(record.keyHash);
      }
      t.ok(sawHash, 'the files do hold the record (its hash), so the search looked in the right place');
    });
  });
}
