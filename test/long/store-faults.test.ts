/**
 * Store faults under load, through real HTTP: the account store goes away for 10 s while clients keep sending, then
 * comes back. Metered requests fail closed with 503 store_unavailable meanwhile, the server recovers by itself (no
 * restart) and afterwards the store holds exactly the calls the clients were served: none lost, none counted twice.
 *
 * - Redis: the redis-server process is killed (SIGKILL) and started again on the same port and append-only file.
 * - SQLite: the data files are made immutable with `chattr +i` (tests run as root, and root ignores file modes, so
 *   chmod would not stop a write; the immutable flag stops root too, even through file descriptors already open).
 *   Skipped with the reason when the filesystem does not support the flag.
 */
import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestKey,
  openStore,
  requestLog,
  send,
  sleep,
  startServerProcess,
  stopServerProcess,
  usedSinceStart,
  type ClientOutcome,
  type StoreLocation,
  type TestKey,
} from '../helpers/abuse.js';
import { redisSkipReason, startRedis } from '../helpers/redis.js';

const OUTAGE_MS = 10_000;

/** Why `chattr +i` cannot be used here, or false when it can. */
function immutableSkipReason(): string | false {
  const dir = mkdtempSync(join(tmpdir(), 'mi-chattr-'));
  const probe = join(dir, 'probe');
  writeFileSync(probe, 'x');
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'pipe' });
    execFileSync('chattr', ['-i', probe], { stdio: 'pipe' });
    return false;
  } catch (error) {
    return `chattr +i does not work here (${error instanceof Error ? error.message.split('\n')[0] : error}); it is how the test makes the SQLite files read-only for root`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Sent {
  key: TestKey;
  at: number;
  outcome: ClientOutcome;
}

async function outage(
  t: Test,
  location: StoreLocation,
  fault: { begin(): Promise<void>; end(): Promise<void> },
): Promise<void> {
  const store = await openStore(location);
  const keys = [
    await createTestKey(store, { customer: 'Fault Calls', plan: 'scale', calls: 100_000 }),
    await createTestKey(store, { customer: 'Fault Credits', plan: 'scale', milliCredits: 10_000_000 }),
  ];
  // The test's own connection must not see the fault: it reads the store again once the fault is over.
  await store.close();
  const server = await startServerProcess(t, location);
  const sent: Sent[] = [];
  let stop = false;
  let n = 0;
  const client = async (key: TestKey): Promise<void> => {
    while (!stop) {
      const id = `fault-${n++}`;
      const outcome = await send(server.url, 'POST', '/embed', { id, key: key.key, body: { items: ['Paneer Butter Masala', `Dish ${n % 7}`] } });
      sent.push({ key, at: Date.now(), outcome });
      await sleep(outcome.status === 503 ? 100 : 20);
    }
  };
  const clients = Array.from({ length: 8 }, (_, i) => client(keys[i % keys.length]!));
  await sleep(3000);
  const faultStart = Date.now();
  await fault.begin();
  await sleep(OUTAGE_MS);
  await fault.end();
  const faultEnd = Date.now();
  // Keep the load on until requests succeed again, then a little longer.
  const recoveryDeadline = Date.now() + 30_000;
  let recoveredAt: number | undefined;
  while (Date.now() < recoveryDeadline && recoveredAt === undefined) {
    recoveredAt = sent.find((s) => s.at > faultEnd && s.outcome.status === 200)?.at;
    await sleep(100);
  }
  await sleep(2000);
  stop = true;
  await Promise.all(clients);

  const during = sent.filter((s) => s.at > faultStart + 1000 && s.at < faultEnd);
  const statuses: Record<string, number> = {};
  for (const s of sent) statuses[String(s.outcome.status)] = (statuses[String(s.outcome.status)] ?? 0) + 1;
  t.comment(`${sent.length} requests, by status ${JSON.stringify(statuses)}; recovered ${recoveredAt ? recoveredAt - faultEnd : '∞'} ms after the store came back`);
  t.ok(during.length > 10, 'clients kept sending through the outage');
  t.ok(during.every((s) => s.outcome.status === 503 && s.outcome.code === 'store_unavailable'), 'every request during the outage: 503 store_unavailable (fail closed)');
  t.notOk(sent.some((s) => s.outcome.status === 200 && s.at > faultStart + 1000 && s.at < faultEnd), 'nothing served free meanwhile');
  t.notOk(sent.some((s) => typeof s.outcome.status === 'number' && s.outcome.status >= 500 && s.outcome.status !== 503), 'no other 5xx');
  t.ok(recoveredAt !== undefined, 'served again without a restart');
  t.ok(during.every((s) => s.outcome.headers?.get('retry-after') === '1'), '503s say Retry-After');

  // Outcomes kept in memory through the outage are applied once the store is back (retry backoff ≤ 2 s).
  await sleep(3000);
  const check = await openStore(location);
  t.teardown(() => check.close());
  const log = requestLog(server.output());
  for (const key of keys) {
    const mine = sent.filter((s) => s.key === key);
    const served = mine.filter((s) => s.outcome.status === 200).length;
    const settled = mine.filter((s) => log.get(s.outcome.id)?.[0]?.admission === 'settled').length;
    const used = await usedSinceStart(check, key);
    const perCall = key.metering === 'quota' ? 1 : 100; // 2 items × 0.05 credits = 100 milli-credits
    t.equal(settled, served, `${key.customer}: the server settled exactly the requests its clients got 200 for`);
    t.equal(used, served * perCall, `${key.customer}: the store holds exactly the ${served} served calls: none lost, none counted twice`);
  }
  await stopServerProcess(server);
}

t.test('Redis stopped for 10 s under load, then restarted', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-fault-redis-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await outage(t, { dataDir, redisUrl: redis.url }, { begin: () => redis.kill(), end: () => redis.start() });
});

t.test('SQLite files read-only (chattr +i) for 10 s under load', { skip: immutableSkipReason() }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-fault-sqlite-'));
  const files = () => ['meters.sqlite', 'meters.sqlite-wal', 'accounts.sqlite', 'accounts.sqlite-wal'].map((f) => join(dataDir, f)).filter(existsSync);
  const setImmutable = (on: boolean) => {
    for (const f of files()) execFileSync('chattr', [on ? '+i' : '-i', f]);
  };
  t.teardown(() => {
    setImmutable(false);
    rmSync(dataDir, { recursive: true, force: true });
  });
  await outage(t, { dataDir }, { begin: async () => setImmutable(true), end: async () => setImmutable(false) });
});
