/**
 * Separate OS processes on one store (SQLite file or Redis), real clock: 200 clients split over two
 * processes against a key with 50 calls left are served exactly 50 times in total. In one process the
 * SQLite store is synchronous, so only separate processes prove the locking.
 */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { utcMonth } from '../src/core/accounts/clock.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { redisSkipReason, startRedis } from './helpers/redis.js';

const execFileAsync = promisify(execFile);
const ACCESS_MODULE = fileURLToPath(new URL('../src/core/accounts/access.js', import.meta.url));

interface Location {
  dataDir: string;
  redisUrl?: string;
}

/** One "replica": `clients` concurrent admit+settle loops honouring Retry-After in real time. */
async function replica(location: Location, key: string, clients: number): Promise<Record<string, number>> {
  const program = `
    const { createAccessControl } = await import(${JSON.stringify(ACCESS_MODULE)});
    const ac = await createAccessControl(${JSON.stringify(location)});
    const p = await ac.authenticate(${JSON.stringify(key)});
    const tally = {};
    await Promise.all(Array.from({ length: ${clients} }, async () => {
      for (;;) {
        try {
          const admission = await ac.admit(p, 'search', 20);
          await new Promise((r) => setTimeout(r, 5)); // the work
          await admission.settle();
          tally.ok = (tally.ok ?? 0) + 1;
          return;
        } catch (error) {
          if (error.status === 429) {
            tally.retries = (tally.retries ?? 0) + 1;
            await new Promise((r) => setTimeout(r, Number(error.headers['Retry-After']) * 1000));
            continue;
          }
          tally[error.code ?? String(error)] = (tally[error.code ?? String(error)] ?? 0) + 1;
          return;
        }
      }
    }));
    await ac.close();
    process.stdout.write(JSON.stringify(tally));
  `;
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', program], { timeout: 60_000 });
  return JSON.parse(stdout) as Record<string, number>;
}

async function exactlyFifty(t: Test, location: Location): Promise<void> {
  const store = await openAccountStore(location);
  const admin = new AccountAdmin(store);
  const { key, record } = await admin.create({ customer: 'Two Processes', plan: 'scale', metering: 'quota' });
  await store.adjustCallsUsed(record.id, utcMonth(Date.now()), 1_000_000 - 50);
  t.teardown(() => store.close());

  const [a, b] = await Promise.all([replica(location, key, 100), replica(location, key, 100)]);
  t.comment(`process A ${JSON.stringify(a)}, process B ${JSON.stringify(b)}`);
  t.equal((a.ok ?? 0) + (b.ok ?? 0), 50, 'exactly 50 served over both processes');
  t.equal((a.quota_exceeded ?? 0) + (b.quota_exceeded ?? 0), 150, 'the other 150 got 402');
  t.equal(await store.callsUsed(record.id, utcMonth(Date.now())), 1_000_000, 'the month reads exactly the quota');
}

t.test('two processes on one SQLite data dir', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-procs-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await exactlyFifty(t, { dataDir });
});

t.test('two processes on one Redis', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  await exactlyFifty(t, { dataDir: join(tmpdir(), 'mi-unused'), redisUrl: redis.url });
});
