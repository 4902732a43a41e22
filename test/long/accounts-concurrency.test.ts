/**
 * Accounts under concurrency through real HTTP: 500 concurrent clients over every metered endpoint against keys with
 * 1, 7 and 50 calls left and 1, 7 and 50 credits left, a fifth of them hanging up at a random moment. Two server
 * processes on one Redis, then one process on SQLite. Each request carries its own X-Request-Id, so every answer a
 * client saw is reconciled with the servers' request logs and with the store:
 * - the charges in the store are exactly the requests the servers settled (200 written whole), per key;
 * - every 200 a client received was settled; no error answer was;
 * - once the keys are drained, exactly the paid number of calls was served (quota) and the credits reached exactly
 *   0, each charge 0.05 × items (or the endpoint's price) to 1e-9; credits never read below 0 meanwhile;
 * - the usage reads the same after both processes restart.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { creditsFromMilli } from '../../src/core/accounts/plans.js';
import {
  createTestKey,
  openStore,
  plannedRequest,
  requestLog,
  seededRandom,
  send,
  sleep,
  startServerProcess,
  stopServerProcess,
  usedSinceStart,
  type ClientOutcome,
  type PlannedRequest,
  type ServerProcess,
  type StoreLocation,
  type TestKey,
} from '../helpers/abuse.js';
import { redisSkipReason, startRedis } from '../helpers/redis.js';

const CLIENTS = 500;
const ABORT_SHARE = 0.2;

interface Attempt {
  key: TestKey;
  planned: PlannedRequest;
  outcome: ClientOutcome;
}

/** Sends until a final answer: 429 and 503 are retried after Retry-After; 200, 4xx, an abort or no response end it. */
async function persistentClient(
  servers: ServerProcess[],
  key: TestKey,
  planned: PlannedRequest,
  clientId: string,
  abortAfterMs: number | undefined,
  attempts: Attempt[],
): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const server = servers[attempt % servers.length]!;
    const outcome = await send(server.url, 'POST', planned.path, {
      id: `${clientId}-${attempt}`,
      key: key.key,
      body: planned.body,
      ...(abortAfterMs !== undefined ? { abortAfterMs } : {}),
    });
    attempts.push({ key, planned, outcome });
    if (outcome.status === 429 || outcome.status === 503) {
      await sleep(Number(outcome.headers?.get('retry-after') ?? 1) * 1000 * (0.5 + Math.random()));
      continue;
    }
    return;
  }
}

async function storm(t: Test, location: StoreLocation, servers: ServerProcess[], seed: number): Promise<void> {
  const store = await openStore(location);
  t.teardown(() => store.close());
  const keys: TestKey[] = [];
  for (const left of [1, 7, 50]) {
    keys.push(await createTestKey(store, { customer: `Calls ${left}`, plan: 'scale', calls: left }));
    keys.push(await createTestKey(store, { customer: `Credits ${left}`, plan: 'scale', milliCredits: left * 1000 }));
  }
  const random = seededRandom(seed);
  const attempts: Attempt[] = [];

  // Credit balances are read throughout the storm: never below zero.
  let lowestMilli = Infinity;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      for (const k of keys.filter((k) => k.metering === 'credits')) lowestMilli = Math.min(lowestMilli, await store.milliCredits(k.accountId));
      await sleep(20);
    }
  })();

  const clients = Array.from({ length: CLIENTS }, (_, i) => {
    const key = keys[i % keys.length]!;
    const planned = plannedRequest(random, key.plan);
    const abortAfterMs = random() < ABORT_SHARE ? Math.floor(random() * 400) : undefined;
    return persistentClient(servers, key, planned, `s${seed}-c${i}`, abortAfterMs, attempts);
  });
  const started = Date.now();
  await Promise.all(clients);
  const stormMs = Date.now() - started;

  // Drain: whatever the storm left (aborted requests were refunded) is used up by plain requests until 402.
  for (const key of keys) {
    for (let i = 0; i < 2000; i++) {
      const planned = key.metering === 'credits' ? plannedRequest(() => 0, key.plan, ['embed']) : plannedRequest(random, key.plan);
      const outcome = await send(servers[i % servers.length]!.url, 'POST', planned.path, { id: `s${seed}-drain-${key.accountId}-${i}`, key: key.key, body: planned.body });
      attempts.push({ key, planned, outcome });
      if (outcome.status === 402) break;
      if (outcome.status === 429 || outcome.status === 503) await sleep(1000);
    }
  }
  polling = false;
  await poller;

  const log = new Map<string, ReturnType<typeof requestLog> extends Map<string, infer V> ? V : never>();
  for (const server of servers) for (const [id, lines] of requestLog(server.output())) log.set(id, [...(log.get(id) ?? []), ...lines]);

  const statuses: Record<string, number> = {};
  for (const a of attempts) statuses[String(a.outcome.status)] = (statuses[String(a.outcome.status)] ?? 0) + 1;
  t.comment(`${attempts.length} requests (${CLIENTS} clients) in ${stormMs} ms of storm; by outcome ${JSON.stringify(statuses)}`);
  t.notOk(attempts.some((a) => typeof a.outcome.status === 'number' && a.outcome.status >= 500 && a.outcome.status !== 503), 'no 5xx but 503');
  t.equal(attempts.filter((a) => a.outcome.status === 'no_response').length, 0, 'every request not aborted got an answer');
  t.ok(attempts.filter((a) => a.outcome.status === 'aborted').length > 20, 'clients did hang up');

  let settledAfterAbort = 0;
  for (const a of attempts) {
    const lines = log.get(a.outcome.id) ?? [];
    if (lines.length > 1) t.fail(`${a.outcome.id} was logged ${lines.length} times`);
    const line = lines[0];
    if (a.outcome.status === 200) {
      if (line?.admission !== 'settled') t.fail(`${a.outcome.id}: the client got 200 but the server logged ${JSON.stringify(line)}`);
    } else if (typeof a.outcome.status === 'number') {
      if (line?.admission === 'settled') t.fail(`${a.outcome.id}: the client got ${a.outcome.status} but the server settled it`);
    } else if (line?.admission === 'settled') {
      settledAfterAbort++; // written whole to the socket, then the client hung up before reading it
    }
  }
  t.comment(`${settledAfterAbort} aborted requests were written whole before the client hung up (and so charged)`);

  for (const key of keys) {
    const mine = attempts.filter((a) => a.key === key);
    const settled = mine.filter((a) => log.get(a.outcome.id)?.[0]?.admission === 'settled');
    const used = await usedSinceStart(store, key);
    const received = mine.filter((a) => a.outcome.status === 200).length;
    if (key.metering === 'quota') {
      t.equal(used, settled.length, `${key.left} calls: the store counts exactly the settled requests (${settled.length})`);
      t.equal(settled.length, key.left, `${key.left} calls: exactly the paid count served (${received} received whole by their clients)`);
    } else {
      const charged = settled.reduce((sum, a) => sum + a.planned.milliCost, 0);
      t.equal(used, charged, `${key.left} credits: the store charged exactly the settled requests' prices (${creditsFromMilli(charged)})`);
      t.equal(await store.milliCredits(key.accountId), 0, `${key.left} credits: drained to exactly 0`);
      const balance = await send(servers[0]!.url, 'GET', '/balance', { id: `s${seed}-bal-${key.accountId}`, key: key.key });
      const expected = creditsFromMilli(key.left) - settled.reduce((sum, a) => sum + creditsFromMilli(a.planned.milliCost), 0);
      t.ok(Math.abs((balance.body as { credits_remaining: number }).credits_remaining - expected) < 1e-9, `${key.left} credits: /balance matches 0.05 × items to 1e-9`);
    }
  }
  t.ok(lowestMilli >= 0, `credits never read below 0 (lowest ${lowestMilli} milli-credits)`);

  // Usage survives a restart of every process.
  const before = await Promise.all(keys.map((k) => usedSinceStart(store, k)));
  const restarted: ServerProcess[] = [];
  for (const server of servers) await stopServerProcess(server);
  for (let i = 0; i < servers.length; i++) restarted.push(await startServerProcess(t, location));
  const balances = await Promise.all(keys.map((k, i) => send(restarted[i % restarted.length]!.url, 'GET', '/balance', { id: `s${seed}-after-${i}`, key: k.key })));
  t.same(await Promise.all(keys.map((k) => usedSinceStart(store, k))), before, 'usage identical after restarting the processes');
  t.ok(balances.every((b) => b.status === 200 && (b.body as { credits_remaining: number }).credits_remaining === 0), 'every key reads 0 left after the restart');
  const refused = await send(restarted[0]!.url, 'POST', '/embed', { id: `s${seed}-refused`, key: keys[2]!.key, body: { items: ['Dal'] } });
  t.equal(refused.status, 402, 'a drained key stays refused after the restart');
  for (const server of restarted) await stopServerProcess(server);
}

t.test('two server processes on one Redis', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-conc-redis-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const location = { dataDir, redisUrl: redis.url };
  const servers = [await startServerProcess(t, location), await startServerProcess(t, location)];
  await storm(t, location, servers, 1);
});

t.test('one server process on SQLite', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-conc-sqlite-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const location = { dataDir };
  const servers = [await startServerProcess(t, location)];
  await storm(t, location, servers, 2);
});
