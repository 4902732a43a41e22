/**
 * `menu-intel keys …` against the same store a running AccessControl uses, in-process and from a
 * separate process, on SQLite and on Redis.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createAccessControl } from '../src/core/accounts/access.js';
import { checkKeyFormat } from '../src/core/accounts/keys.js';
import { runKeysCommand } from '../src/cli/keys.js';
import { redisSkipReason, startRedis } from './helpers/redis.js';

const execFileAsync = promisify(execFile);
const KEYS_MODULE = fileURLToPath(new URL('../src/cli/keys.js', import.meta.url));

interface Run {
  code: number;
  out: string[];
  err: string[];
}

function cli(location: { dataDir: string; redisUrl?: string }) {
  return async (...argv: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runKeysCommand(argv, {
      ...location,
      out: (line) => out.push(...line.split('\n')),
      err: (line) => err.push(...line.split('\n')),
    });
    return { code, out, err };
  };
}

/** The CLI in a child process, as an operator would run it next to a live server. */
async function cliInChildProcess(location: { dataDir: string; redisUrl?: string }, argv: string[]): Promise<Run> {
  const program = `
    const { runKeysCommand } = await import(${JSON.stringify(KEYS_MODULE)});
    const out = [], err = [];
    const code = await runKeysCommand(${JSON.stringify(argv)}, {
      dataDir: ${JSON.stringify(location.dataDir)}, redisUrl: ${JSON.stringify(location.redisUrl ?? '')} || undefined,
      out: (l) => out.push(...l.split('\\n')), err: (l) => err.push(...l.split('\\n')),
    });
    process.stdout.write(JSON.stringify({ code, out, err }));
  `;
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', program], { timeout: 30_000 });
  return JSON.parse(stdout) as Run;
}

function tempDataDir(t: { teardown(fn: () => unknown): void }): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

t.test('create / list / set-plan / add-credits / revoke round trip while a server instance is running', async (t) => {
  const dataDir = tempDataDir(t);
  const keys = cli({ dataDir });
  const ac = await createAccessControl({ dataDir });
  t.teardown(() => ac.close());

  const created = await keys('keys', 'create', '--customer', 'Spice Route', '--plan', 'starter');
  t.equal(created.code, 0, created.err.join('\n'));
  const key = created.out.at(-1)!;
  t.ok(checkKeyFormat(key), 'the key is the last line of stdout');
  t.equal(created.out.filter((line) => line.includes(key)).length, 1, 'and is printed once');
  const prefix = key.slice(0, 16);
  t.match(created.out.join('\n'), new RegExp(`key prefix ${prefix}`));

  let p = await ac.authenticate(key);
  await (await ac.admit(p, 'search', 4)).settle();

  const credit = await keys('create', '--customer', 'Chai Point', '--plan', 'pro', '--credits', '10');
  t.equal(credit.code, 0);
  const creditKey = credit.out.at(-1)!;
  const unlimited = await keys('create', '--customer', 'Big Chain', '--plan', 'scale', '--unlimited');
  t.equal(unlimited.code, 0);

  const listed = await keys('list');
  t.equal(listed.code, 0);
  const text = listed.out.join('\n');
  t.match(text, /PREFIX\s+ACCOUNT\s+CUSTOMER\s+PLAN\s+METERING\s+BALANCE/);
  t.match(text, new RegExp(`${prefix}\\s+acct_[0-9a-f]{16}\\s+Spice Route\\s+Starter\\s+quota\\s+9999 calls\\s+1\\s+active`));
  t.match(text, /Chai Point\s+Pro\s+credits\s+10 credits\s+0\s+active/);
  t.match(text, /Big Chain\s+Scale\s+unlimited\s+unlimited/);
  for (const k of [key, creditKey, unlimited.out.at(-1)!]) t.notMatch(text, k, 'list never shows a full key');

  t.equal((await keys('set-plan', prefix, 'pro')).code, 0);
  t.throws(() => ac.authorize(p, 'suggest'), { code: 'plan_forbidden' }, 'the old principal keeps its plan');
  p = await ac.authenticate(key);
  t.doesNotThrow(() => ac.authorize(p, 'suggest'), 'a new request sees the upgrade without a restart');
  t.equal((await ac.balance(p)).credits_remaining, 100_000 - 1);

  const topUp = await keys('add-credits', creditKey.slice(0, 14), '2.5');
  t.equal(topUp.code, 0, topUp.err.join('\n'));
  t.match(topUp.out.join('\n'), /\+2\.5 credits, balance 12\.5/);
  t.equal((await ac.balance(await ac.authenticate(creditKey))).credits_remaining, 12.5);

  const wrongMetering = await keys('add-credits', prefix, '5');
  t.equal(wrongMetering.code, 1, 'credits on a quota key is refused');
  t.match(wrongMetering.err.join('\n'), /monthly quota; credits apply only to keys created with --credits/);

  const revoked = await keys('revoke', prefix);
  t.equal(revoked.code, 0);
  t.match(revoked.out.join('\n'), new RegExp(`revoked ${prefix} \\(Spice Route\\)`));
  await t.rejects(ac.authenticate(key), { code: 'unauthorized' }, 'the running instance refuses the revoked key at once');
  t.match((await keys('list')).out.join('\n'), /Spice Route\s+Pro\s+quota\s+\d+ calls\s+1\s+revoked 20/);
  t.equal((await keys('set-plan', prefix, 'scale')).code, 1, 'a revoked key cannot be changed');

  const byFullKey = await keys('revoke', creditKey);
  t.equal(byFullKey.code, 0, 'the full key works as KEY_OR_PREFIX too');
  await t.rejects(ac.authenticate(creditKey), { code: 'unauthorized' });
});

t.test('usage errors exit 2 with a clear message; operator mistakes exit 1', async (t) => {
  const dataDir = tempDataDir(t);
  const keys = cli({ dataDir });
  const usage: Array<[string[], RegExp]> = [
    [[], /usage: menu-intel keys/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['create', '--plan', 'starter'], /--customer NAME is required/],
    [['create', '--customer', 'A'], /the plan must be one of starter, pro, scale/],
    [['create', '--customer', 'A', '--plan', 'gold'], /got "gold"/],
    [['create', '--customer', 'A', '--plan', 'pro', '--credits=-1'], /non-negative number of credits/],
    [['create', '--customer', 'A', '--plan', 'pro', '--credits', '-1'], /argument is ambiguous/],
    [['create', '--customer', 'A', '--plan', 'pro', '--credits', 'ten'], /got "ten"/],
    [['create', '--customer', 'A', '--plan', 'pro', '--credits', '0.0001'], /at most 3 decimals/],
    [['create', '--customer', 'A', '--plan', 'pro', '--credits', '5', '--unlimited'], /exclude each other/],
    [['create', '--customer', 'A', '--plan', 'pro', '--colour', 'red'], /Unknown option '--colour'/],
    [['revoke'], /exactly one KEY_OR_PREFIX/],
    [['set-plan', 'mi_live_abcd'], /KEY_OR_PREFIX and PLAN/],
    [['set-plan', 'mi_live_abcd', 'platinum'], /plan must be one of/],
    [['add-credits', 'mi_live_abcd', '0'], /positive number of credits/],
    [['list', 'extra'], /unexpected argument "extra"/],
  ];
  for (const [argv, message] of usage) {
    const run = await keys(...argv);
    t.equal(run.code, 2, `keys ${argv.join(' ')} → exit 2`);
    t.match(run.err.join('\n'), message);
    t.same(run.out, [], 'nothing on stdout');
  }
  t.equal((await keys('--help')).code, 0);
  t.equal((await keys('list')).out[0], 'no keys yet: create one with `menu-intel keys create --customer NAME --plan starter`');

  const missing = await keys('revoke', 'mi_live_ZZZZZZZZ');
  t.equal(missing.code, 1);
  t.match(missing.err.join('\n'), /no account matches "mi_live_ZZZZZZZZ"/);
  const tooShort = await keys('revoke', 'mi_live_');
  t.equal(tooShort.code, 1);
  t.match(tooShort.err.join('\n'), /at least 12 characters/);
});

t.test('the CLI in another process shares the SQLite store with a running instance', async (t) => {
  const dataDir = tempDataDir(t);
  const ac = await createAccessControl({ dataDir });
  t.teardown(() => ac.close());
  // Keep the server side busy on the same files while the other process writes.
  let stop = false;
  const first = await cli({ dataDir })('create', '--customer', 'Busy Server', '--plan', 'scale', '--unlimited');
  const busyPrincipal = await ac.authenticate(first.out.at(-1)!);
  const busy = (async () => {
    let served = 0;
    while (!stop) {
      await (await ac.admit(busyPrincipal, 'embed', 1).catch(() => undefined))?.settle();
      served++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return served;
  })();

  const created = await cliInChildProcess({ dataDir }, ['create', '--customer', 'Other Process', '--plan', 'pro', '--credits', '4']);
  t.equal(created.code, 0, created.err.join('\n'));
  const key = created.out.at(-1)!;
  const p = await ac.authenticate(key);
  await (await ac.admit(p, 'match', 3)).settle();
  const listed = await cliInChildProcess({ dataDir }, ['list']);
  t.match(listed.out.join('\n'), /Other Process\s+Pro\s+credits\s+1 credits\s+1\s+active/, 'the other process sees the charge');
  const revoked = await cliInChildProcess({ dataDir }, ['revoke', key.slice(0, 16)]);
  t.equal(revoked.code, 0);
  await t.rejects(ac.authenticate(key), { code: 'unauthorized' });
  stop = true;
  t.ok((await busy) > 0, 'the instance kept serving meanwhile');
});

t.test('the CLI on Redis (MENU_REDIS_URL)', { skip: redisSkipReason }, async (t) => {
  const redis = await startRedis(t);
  const location = { dataDir: join(tmpdir(), 'mi-unused'), redisUrl: redis.url };
  const ac = await createAccessControl(location);
  t.teardown(() => ac.close());
  const created = await cliInChildProcess(location, ['create', '--customer', 'Redis Cafe', '--plan', 'starter', '--credits', '1']);
  t.equal(created.code, 0, created.err.join('\n'));
  const key = created.out.at(-1)!;
  const p = await ac.authenticate(key);
  for (let i = 0; i < 20; i++) await (await ac.admit(p, 'classify', 1)).settle();
  t.match((await cli(location)('list')).out.join('\n'), /Redis Cafe\s+Starter\s+credits\s+0 credits\s+20\s+active/);
  t.equal((await cli(location)('add-credits', key, '1')).code, 0);
  t.equal((await ac.balance(p)).credits_remaining, 1);
  t.equal((await cli(location)('revoke', key.slice(0, 12))).code, 0);
  await t.rejects(ac.authenticate(key), { code: 'unauthorized' });

  await redis.kill();
  const down = await cli(location)('list');
  t.equal(down.code, 1, 'store unreachable → exit 1');
  t.match(down.err.join('\n'), /the account store failed/);
});
