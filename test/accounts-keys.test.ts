/**
 * Keys, the plan/endpoint table checked against the spec, plan gating, authentication (including the
 * operator key) and the RateLimit header syntax.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessControl, createAccessControl, UNLIMITED_BALANCE } from '../src/core/accounts/access.js';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { ManualClock, utcMonth, utcMonthBounds } from '../src/core/accounts/clock.js';
import { formatRateLimit, formatRateLimitPolicy } from '../src/core/accounts/headers.js';
import {
  checkKeyFormat, crc32, DISPLAY_PREFIX_LENGTH, displayPrefix, generateApiKey, hashKey, KEY_LENGTH, secretsEqual,
} from '../src/core/accounts/keys.js';
import {
  costInMilliCredits, ENDPOINT_NAMES, ENDPOINTS, milliFromCredits, PLAN_NAMES, PLANS, type EndpointName, type PlanName,
} from '../src/core/accounts/plans.js';
import { openAccountStore, type AccountStore } from '../src/core/accounts/store.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);

t.test('generated keys: prefix, length, alphabet, checksum, uniqueness', async (t) => {
  const keys = Array.from({ length: 2000 }, generateApiKey);
  t.equal(new Set(keys).size, keys.length, 'no repeats');
  for (const key of keys.slice(0, 50)) {
    t.match(key, /^mi_live_[0-9A-Za-z]{38}$/);
    t.equal(key.length, KEY_LENGTH);
    t.ok(checkKeyFormat(key));
  }
  // 32 random base62 characters: every character of the alphabet shows up in every position range.
  const bodyChars = new Set(keys.flatMap((k) => [...k.slice(8, 40)]));
  t.equal(bodyChars.size, 62, 'the body uses the whole base62 alphabet');
  t.ok(32 * Math.log2(62) >= 128, 'at least 128 bits of entropy');
  t.equal(displayPrefix(keys[0]!), keys[0]!.slice(0, DISPLAY_PREFIX_LENGTH));
});

t.test('checksum: typos, truncation and foreign strings are rejected without a lookup', async (t) => {
  const key = generateApiKey();
  let rejected = 0;
  const positions = [8, 20, 39, 40, 45];
  for (const i of positions) {
    const c = key[i]!;
    const swapped = key.slice(0, i) + (c === 'a' ? 'b' : 'a') + key.slice(i + 1);
    if (!checkKeyFormat(swapped)) rejected++;
  }
  t.equal(rejected, positions.length, 'a single changed character fails the checksum');
  const transposed = key.slice(0, 10) + key[11] + key[10] + key.slice(12);
  if (key[10] !== key[11]) t.notOk(checkKeyFormat(transposed), 'two swapped neighbours fail');
  t.notOk(checkKeyFormat(key.slice(0, -1)), 'truncated');
  t.notOk(checkKeyFormat(`${key}x`), 'too long');
  t.notOk(checkKeyFormat(key.replace('mi_live_', 'mi_test_')), 'other prefix');
  t.notOk(checkKeyFormat(` ${key.slice(1)}`), 'whitespace');
  t.notOk(checkKeyFormat(''), 'empty');
  t.equal(crc32('123456789'), 0xcbf43926, 'CRC-32/IEEE check value');
});

t.test('hashKey is SHA-256 hex; secretsEqual compares exactly', async (t) => {
  const key = generateApiKey();
  t.equal(hashKey(key), createHash('sha256').update(key).digest('hex'));
  t.match(hashKey(key), /^[0-9a-f]{64}$/);
  t.ok(secretsEqual('operator-secret-value', 'operator-secret-value'));
  t.notOk(secretsEqual('operator-secret-value', 'operator-secret-valuE'));
  t.notOk(secretsEqual('operator-secret-value', 'operator-secret-value-longer'), 'different lengths do not throw');
});

t.test('plan table matches the spec', async (t) => {
  t.same(
    PLAN_NAMES.map((n) => [PLANS[n].monthlyCalls, PLANS[n].ratePerSecond]),
    [[10_000, 20], [100_000, 60], [1_000_000, 150]],
  );
  for (const n of PLAN_NAMES) t.ok(PLANS[n].maxInFlight >= 1 && PLANS[n].maxInFlight <= PLANS[n].ratePerSecond);
  t.ok(PLANS.starter.maxInFlight < PLANS.pro.maxInFlight && PLANS.pro.maxInFlight < PLANS.scale.maxInFlight);
});

t.test('credit prices per unit match the spec, in exact milli-credits', async (t) => {
  const spec: Record<EndpointName, number> = {
    embed: 0.05, embed_batch: 0.05, classify: 0.05, search: 0.05, suggest: 0.1, match: 1.0, dedup: 1.0, report: 3.0,
    health: 0, balance: 0,
    // Beyond the spec: the OpenAI-compatible embeddings cost what /embed costs; the rest is free.
    openai_embeddings: 0.05, openai_models: 0, metrics: 0, openapi: 0, docs: 0,
  };
  for (const name of ENDPOINT_NAMES) t.equal(ENDPOINTS[name].milliCreditsPerUnit, Math.round(spec[name] * 1000), name);
  t.equal(costInMilliCredits('search', 512), 25_600, '512 corpus items cost 25.6 credits');
  t.notOk(ENDPOINTS.health.metered);
  t.notOk(ENDPOINTS.balance.metered);
  t.equal(milliFromCredits(2.5), 2500);
  t.equal(milliFromCredits(0.001), 1);
  t.equal(milliFromCredits(0.0001), undefined, 'sub-milli amounts are refused, not rounded');
});

t.test('units: items, corpus items, pairs, cart + menu items', async (t) => {
  const five = ['a', 'b', 'c', 'd', 'e'];
  t.equal(ENDPOINTS.embed.countUnits({ items: five }), 5);
  t.equal(ENDPOINTS.embed_batch.countUnits({ items: five }), 5);
  t.equal(ENDPOINTS.classify.countUnits({ items: five }), 5);
  t.equal(ENDPOINTS.search.countUnits({ corpus: five }), 5, 'the query is not a unit');
  t.equal(ENDPOINTS.match.countUnits({ pairs: [{}, {}] }), 2);
  t.equal(ENDPOINTS.dedup.countUnits({ items: five }), 5);
  t.equal(ENDPOINTS.report.countUnits({ items: five }), 5);
  t.equal(ENDPOINTS.suggest.countUnits({ cart: ['x', 'y'], menu: five }), 7);
  t.equal(ENDPOINTS.health.countUnits({}), 0);
});

t.test('RateLimit header syntax (structured-field lists)', async (t) => {
  t.equal(
    formatRateLimitPolicy([
      { name: 'per-second', quota: 20, windowSeconds: 1 },
      { name: 'in-flight', quota: 5, unit: 'concurrent-requests' },
    ]),
    '"per-second";q=20;w=1, "in-flight";q=5;qu="concurrent-requests"',
  );
  t.equal(formatRateLimit([{ name: 'monthly', remaining: -3, resetSeconds: 10 }]), '"monthly";r=0;t=10', 'never negative');
});

t.test('UTC months', async (t) => {
  t.equal(utcMonth(Date.UTC(2026, 0, 31, 23, 59, 59, 999)), '2026-01');
  t.equal(utcMonth(Date.UTC(2026, 1, 1)), '2026-02');
  t.same(utcMonthBounds(Date.UTC(2028, 1, 10)), { start: Date.UTC(2028, 1, 1), end: Date.UTC(2028, 2, 1) });
});

interface Ctx {
  ac: AccessControl;
  admin: AccountAdmin;
  store: AccountStore;
  clock: ManualClock;
}

async function sqliteContext(t: { teardown(fn: () => unknown): void }, operatorKey?: string): Promise<Ctx> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-keys-'));
  const clock = new ManualClock(START);
  const store = await openAccountStore({ dataDir });
  const ac = await createAccessControl({ dataDir, operatorKey, clock });
  t.teardown(async () => {
    await ac.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { ac, admin: new AccountAdmin(store, clock), store, clock };
}

t.test('plan gating: every endpoint × every plan, as the spec lists them', async (t) => {
  const { ac, admin, store, clock } = await sqliteContext(t);
  // From the spec: Starter gets /search /classify /match; Pro adds /suggest /report; Scale adds /dedup;
  // /embed, /embed/batch, /health, /balance are on every plan. Beyond the spec: the OpenAI-compatible embeddings
  // and the documentation are on every plan too, and /metrics is on none (operator key only).
  const allPlans = ['embed', 'embed_batch', 'health', 'balance', 'openai_embeddings', 'openai_models', 'openapi', 'docs'];
  const included: Record<PlanName, string[]> = {
    starter: [...allPlans, 'search', 'classify', 'match'],
    pro: [...allPlans, 'search', 'classify', 'match', 'suggest', 'report'],
    scale: [...allPlans, 'search', 'classify', 'match', 'suggest', 'report', 'dedup'],
  };
  const cheapest: Record<string, string> = { suggest: 'Pro', report: 'Pro', dedup: 'Scale' };
  t.same(new Set(ENDPOINT_NAMES), new Set([...included.scale, 'metrics']), 'the table has exactly the spec endpoints and ours');

  for (const plan of PLAN_NAMES) {
    const { key, record } = await admin.create({ customer: `Gate ${plan}`, plan, metering: 'quota' });
    const p = await ac.authenticate(key);
    for (const endpoint of ENDPOINT_NAMES) {
      if (included[plan].includes(endpoint)) {
        t.doesNotThrow(() => ac.authorize(p, endpoint), `${plan} × ${endpoint} allowed`);
      } else if (endpoint === 'metrics') {
        t.throws(() => ac.authorize(p, endpoint), { code: 'operator_only', status: 403, message: '/metrics is for the operator key only' }, `${plan} × metrics forbidden`);
      } else {
        t.throws(() => ac.authorize(p, endpoint), {
          code: 'plan_forbidden',
          status: 403,
          message: `${ENDPOINTS[endpoint].path} needs the ${cheapest[endpoint]} plan; this key is on ${PLANS[plan].title}`,
        }, `${plan} × ${endpoint} forbidden`);
        await t.rejects(ac.admit(p, endpoint, 1), { code: 'plan_forbidden' }, 'admit re-checks the plan');
      }
    }
    t.equal(await store.callsUsed(record.id, utcMonth(clock.now())), 0, 'forbidden requests are never charged');
  }
});

t.test('authenticate: missing, malformed, unknown, revoked → 401 with the spec detail', async (t) => {
  const { ac, admin } = await sqliteContext(t);
  const { key, record } = await admin.create({ customer: 'Auth Co', plan: 'starter', metering: 'quota' });
  const p = await ac.authenticate(key);
  t.match(p, { customer: 'Auth Co', plan: 'starter', isOperator: false, keyPrefix: record.keyPrefix, accountId: record.id });
  const unauthorized = { code: 'unauthorized', status: 401, message: 'invalid or missing API key' };
  await t.rejects(ac.authenticate(undefined), unauthorized, 'missing');
  await t.rejects(ac.authenticate(''), unauthorized, 'empty');
  await t.rejects(ac.authenticate('not-a-key'), unauthorized, 'malformed');
  await t.rejects(ac.authenticate(generateApiKey()), unauthorized, 'well-formed but unknown');
  await admin.revoke(record.keyPrefix);
  await t.rejects(ac.authenticate(key), unauthorized, 'revoked, seen at once by a running instance');
});

t.test('a key failing the checksum never reaches the store', async (t) => {
  const { admin, store } = await sqliteContext(t);
  const { key } = await admin.create({ customer: 'Typo', plan: 'starter', metering: 'quota' });
  let lookups = 0;
  const counting: AccountStore = Object.create(store, {
    findByKeyHash: { value: (hash: string) => (lookups++, store.findByKeyHash(hash)) },
  });
  const ac = new AccessControl(counting, {});
  const typo = key.slice(0, 20) + (key[20] === 'x' ? 'y' : 'x') + key.slice(21);
  await t.rejects(ac.authenticate(typo), { code: 'unauthorized' });
  t.equal(lookups, 0);
  await ac.authenticate(key);
  t.equal(lookups, 1, 'a valid key is looked up');
});

t.test('operator key: unlimited principal, never metered, constant-time match', async (t) => {
  const operatorKey = 'op-0123456789abcdef-secret';
  const { ac } = await sqliteContext(t, operatorKey);
  const p = await ac.authenticate(operatorKey);
  t.ok(p.isOperator);
  for (const endpoint of ENDPOINT_NAMES) t.doesNotThrow(() => ac.authorize(p, endpoint));
  let withHeaders = 0;
  for (let i = 0; i < 300; i++) {
    const admission = await ac.admit(p, 'dedup', 2000); // far above any rate, in-flight or credit limit
    if (Object.keys(admission.headers).length) withHeaders++;
  }
  t.equal(withHeaders, 0, '300 unsettled operator requests in one second: all admitted, no quota headers');
  t.same(await ac.balance(p), { customer: 'operator', credits_remaining: UNLIMITED_BALANCE, unlimited: true });
  await t.rejects(ac.authenticate(`${operatorKey}x`), { code: 'unauthorized' });
  await t.rejects(createAccessControl({ dataDir: tmpdir(), operatorKey: 'short' }), /at least 16 characters/);
});

t.test('unlimited and free: unlimited accounts are never refused for quota; health/balance never touch the meters', async (t) => {
  const { ac, admin, store, clock } = await sqliteContext(t);
  const unlimited = await admin.create({ customer: 'Big Chain', plan: 'scale', metering: 'unlimited' });
  const pu = await ac.authenticate(unlimited.key);
  await store.adjustCallsUsed(unlimited.record.id, utcMonth(START), 5_000_000);
  const admission = await ac.admit(pu, 'report', 2000);
  t.notOk('X-Credits-Remaining' in admission.headers);
  t.match(admission.headers.RateLimit, /^"per-second";r=\d+;t=1$/, 'rate headers only: no monthly quota');
  await admission.settle();
  t.same(await ac.balance(pu), { customer: 'Big Chain', credits_remaining: UNLIMITED_BALANCE, unlimited: true });

  const empty = await admin.create({ customer: 'Broke', plan: 'starter', metering: 'credits' });
  const pe = await ac.authenticate(empty.key);
  await t.rejects(ac.admit(pe, 'embed', 1), { code: 'insufficient_credits' });
  for (let i = 0; i < 50; i++) {
    await (await ac.admit(pe, 'balance', 0)).settle();
    await (await ac.admit(pe, 'health', 0)).settle();
  }
  t.equal(await store.callsUsed(empty.record.id, utcMonth(clock.now())), 0, 'free endpoints are not counted');
  t.same(await ac.balance(pe), { customer: 'Broke', credits_remaining: 0, unlimited: false });
  await t.rejects(ac.admit(pe, 'embed', -1), RangeError, 'a negative unit count is a caller bug');
});

t.test('quota: the 402 names the reset date; an upgrade resumes service in the same month', async (t) => {
  const { ac, admin, store } = await sqliteContext(t);
  const { key, record } = await admin.create({ customer: 'Upgrader', plan: 'starter', metering: 'quota' });
  await store.adjustCallsUsed(record.id, utcMonth(START), 10_000);
  let p = await ac.authenticate(key);
  await t.rejects(ac.admit(p, 'search', 3), {
    code: 'quota_exceeded',
    status: 402,
    message: /10000 calls for 2026-11 are used up; the quota resets on 2026-12-01 \(UTC\) or on upgrade/,
  });
  await admin.setPlan(key, 'pro');
  p = await ac.authenticate(key);
  t.equal((await ac.balance(p)).credits_remaining, 90_000);
  await (await ac.admit(p, 'search', 3)).settle();
  await admin.setPlan(key, 'starter');
  p = await ac.authenticate(key);
  t.equal((await ac.balance(p)).credits_remaining, 0, 'a downgrade below the usage reads 0, not negative');
});
