import { createHash } from 'node:crypto';
import Keyv from 'keyv';
import KeyvRedis from '@keyv/redis';
import { ClientClosedError, ClientOfflineError, createClient } from '@redis/client';
import {
  isAccountRecord,
  type AccountRecord,
  type AccountStore,
  type AdmitOutcome,
  type AdmitRequest,
  type ReservationRef,
  StoreNotReachedError,
} from './store.js';

/**
 * One admission as one Lua script: Redis runs scripts atomically, so the rate count, the in-flight
 * check, the charge, the lease and the reservation are decided together for every replica at once.
 * Refusals return before anything but the rate count is written.
 *
 * KEYS: rate window, in-flight zset, monthly calls, credit balance, reservation.
 * ARGV: rate/s, max in flight, now ms, lease id, lease expiry ms, metering, monthly quota,
 *       cost (milli-credits), reservation expiry ms (clock), reservation TTL ms (Redis GC), period,
 *       in-flight zset TTL ms.
 */
const ADMIT_SCRIPT = `
local rate = redis.call('INCR', KEYS[1])
if rate == 1 then redis.call('PEXPIRE', KEYS[1], 5000) end
if rate > tonumber(ARGV[1]) then return {'rate_limited', rate} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
local inflight = redis.call('ZCARD', KEYS[2])
if inflight >= tonumber(ARGV[2]) then return {'too_many_in_flight', inflight} end
local metering = ARGV[6]
local milli_left = 0
local charged = 0
if metering == 'quota' then
  local used = tonumber(redis.call('GET', KEYS[3]) or '0')
  if used + 1 > tonumber(ARGV[7]) then return {'quota_exceeded', used} end
elseif metering == 'credits' then
  local balance = tonumber(redis.call('GET', KEYS[4]) or '0')
  local cost = tonumber(ARGV[8])
  if balance < cost then return {'insufficient_credits', balance} end
  milli_left = redis.call('DECRBY', KEYS[4], cost)
  charged = cost
end
local calls = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[12])
redis.call('SET', KEYS[5], ARGV[11] .. '|1|' .. string.format('%d', charged) .. '|' .. ARGV[9], 'PX', ARGV[10])
return {'admitted', calls, milli_left, rate}
`;

/** KEYS: reservation, in-flight zset. ARGV: lease id. */
const SETTLE_SCRIPT = `
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`;

/**
 * GET + DEL of the reservation and the refund in one script, so a retried release (after a lost reply)
 * finds the reservation gone and refunds nothing.
 * KEYS: reservation, in-flight zset, monthly calls of the reservation's period, credit balance.
 * ARGV: lease id, now ms.
 */
const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[2], ARGV[1])
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
redis.call('DEL', KEYS[1])
local period, calls, milli, expires = string.match(v, '^([^|]*)|(%d+)|(%d+)|(%d+)$')
if not expires or tonumber(expires) <= tonumber(ARGV[2]) then return 0 end
redis.call('DECRBY', KEYS[3], calls)
if tonumber(milli) > 0 then redis.call('INCRBY', KEYS[4], milli) end
return 1
`;

interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

const script = (source: string): LuaScript => ({ source, sha1: createHash('sha1').update(source).digest('hex') });
const ADMIT = script(ADMIT_SCRIPT);
const SETTLE = script(SETTLE_SCRIPT);
const RELEASE = script(RELEASE_SCRIPT);

/** Milliseconds Redis keeps a reservation after its clock expiry before collecting it. */
const RESERVATION_GC_MARGIN_MS = 60_000;

/**
 * Per-account keys share the `{accountId}` hash tag so that one script's keys sit in one cluster slot.
 */
const keysOf = (accountId: string) => ({
  rate: (second: number) => `mi:{${accountId}}:rate:${second}`,
  inFlight: `mi:{${accountId}}:inflight`,
  calls: (period: string) => `mi:{${accountId}}:calls:${period}`,
  credits: `mi:{${accountId}}:credits`,
  reservation: (id: string) => `mi:{${accountId}}:res:${id}`,
});

type RedisClient = ReturnType<typeof createClient>;

function withTimeout<T>(operation: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis ${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([operation, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Redis store for scale-out: records through Keyv (@keyv/redis) and counters through Lua scripts on
 * the same @redis/client connection. The client never queues commands while disconnected
 * (`disableOfflineQueue`): during an outage every operation fails at once, which the access layer
 * turns into 503 store_unavailable; the client keeps reconnecting (≤ 1 s apart) and operations
 * succeed again as soon as Redis is back.
 */
export class RedisAccountStore implements AccountStore {
  readonly kind = 'redis' as const;
  readonly #client: RedisClient;
  readonly #records: Keyv<AccountRecord>;
  readonly #timeoutMs: number;
  #closed = false;

  private constructor(client: RedisClient, records: Keyv<AccountRecord>, timeoutMs: number) {
    this.#client = client;
    this.#records = records;
    this.#timeoutMs = timeoutMs;
  }

  static async open(url: string, timeoutMs: number): Promise<RedisAccountStore> {
    const client: RedisClient = createClient({
      url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: timeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1000),
      },
    });
    // Connection errors are reported per operation (fail closed); the event needs a listener so that
    // it does not crash the process.
    client.on('error', () => {});
    // connect() keeps retrying until Redis answers. Wait a little so a healthy start is ready at once,
    // but never block start-up on a Redis outage: operations fail closed until it is reachable.
    const connecting = client.connect().then(() => undefined, () => undefined);
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    const adapter = new KeyvRedis(client, { namespace: 'mi:accounts', throwOnErrors: true, throwOnConnectError: true });
    const records = new Keyv<AccountRecord>(adapter, { namespace: 'mi:accounts', useKeyPrefix: false, throwOnErrors: true });
    records.on('error', () => {});
    return new RedisAccountStore(client, records, timeoutMs);
  }

  #ready(): void {
    // Keyv's adapter would otherwise try to (re)connect a closed client itself.
    if (!this.#client.isReady) throw new StoreNotReachedError('redis is not connected');
  }

  async #run(lua: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    this.#ready();
    const options = { keys, arguments: args };
    try {
      try {
        return await withTimeout(this.#client.evalSha(lua.sha1, options), this.#timeoutMs, 'script');
      } catch (error) {
        // A restarted or flushed Redis has an empty script cache: send the source once, then EVALSHA hits.
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
          return await withTimeout(this.#client.eval(lua.source, options), this.#timeoutMs, 'script');
        }
        throw error;
      }
    } catch (error) {
      // Offline / closed: the command was refused before it was written to the socket.
      if (error instanceof ClientOfflineError || error instanceof ClientClosedError) {
        throw new StoreNotReachedError(error.message, { cause: error });
      }
      throw error;
    }
  }

  async findByKeyHash(keyHash: string): Promise<AccountRecord | undefined> {
    this.#ready();
    const record: unknown = await withTimeout(this.#records.get(`key:${keyHash}`), this.#timeoutMs, 'get');
    if (record === undefined) return undefined;
    if (!isAccountRecord(record)) throw new Error(`account record key:${keyHash.slice(0, 12)}… is malformed`);
    return record;
  }

  async saveAccount(record: AccountRecord): Promise<void> {
    this.#ready();
    await withTimeout(this.#records.set(`key:${record.keyHash}`, record), this.#timeoutMs, 'set');
  }

  async listAccounts(): Promise<AccountRecord[]> {
    this.#ready();
    if (!this.#records.iterator) throw new Error('the Keyv Redis adapter cannot iterate');
    const out: AccountRecord[] = [];
    for await (const [, value] of this.#records.iterator(this.#records.namespace)) {
      if (isAccountRecord(value)) out.push(value);
    }
    return out;
  }

  async admit(r: AdmitRequest): Promise<AdmitOutcome> {
    const k = keysOf(r.accountId);
    const reservationTtlMs = Math.max(1, r.reservationExpiresAt - r.nowMs) + RESERVATION_GC_MARGIN_MS;
    const inFlightTtlMs = Math.max(1, r.leaseExpiresAt - r.nowMs) * 2;
    const reply = (await this.#run(
      ADMIT,
      [k.rate(r.rateWindow), k.inFlight, k.calls(r.period), k.credits, k.reservation(r.reservationId)],
      [
        String(r.ratePerSecond), String(r.maxInFlight), String(r.nowMs), r.leaseId, String(r.leaseExpiresAt),
        r.metering, String(r.monthlyCalls), String(r.milliCost), String(r.reservationExpiresAt),
        String(reservationTtlMs), r.period, String(inFlightTtlMs),
      ],
    )) as [string, number, number?, number?];
    const [kind, a, b, c] = reply;
    switch (kind) {
      case 'admitted':
        return { kind, callsUsed: Number(a), milliRemaining: Number(b), rateCount: Number(c) };
      case 'rate_limited':
        return { kind, rateCount: Number(a) };
      case 'too_many_in_flight':
        return { kind, inFlight: Number(a) };
      case 'quota_exceeded':
        return { kind, callsUsed: Number(a) };
      case 'insufficient_credits':
        return { kind, milliRemaining: Number(a) };
      default:
        throw new Error(`unexpected admit reply ${JSON.stringify(reply)}`);
    }
  }

  async settle(ref: ReservationRef): Promise<void> {
    const k = keysOf(ref.accountId);
    await this.#run(SETTLE, [k.reservation(ref.reservationId), k.inFlight], [ref.leaseId]);
  }

  async release(ref: ReservationRef, nowMs: number): Promise<boolean> {
    const k = keysOf(ref.accountId);
    const refunded = await this.#run(
      RELEASE,
      [k.reservation(ref.reservationId), k.inFlight, k.calls(ref.period), k.credits],
      [ref.leaseId, String(nowMs)],
    );
    return Number(refunded) === 1;
  }

  async callsUsed(accountId: string, period: string): Promise<number> {
    this.#ready();
    return Number((await withTimeout(this.#client.get(keysOf(accountId).calls(period)), this.#timeoutMs, 'get')) ?? 0);
  }

  async milliCredits(accountId: string): Promise<number> {
    this.#ready();
    return Number((await withTimeout(this.#client.get(keysOf(accountId).credits), this.#timeoutMs, 'get')) ?? 0);
  }

  async addMilliCredits(accountId: string, milli: number): Promise<number> {
    this.#ready();
    return withTimeout(this.#client.incrBy(keysOf(accountId).credits, milli), this.#timeoutMs, 'incrby');
  }

  async adjustCallsUsed(accountId: string, period: string, delta: number): Promise<number> {
    this.#ready();
    return withTimeout(this.#client.incrBy(keysOf(accountId).calls(period), delta), this.#timeoutMs, 'incrby');
  }

  async inFlight(accountId: string, nowMs: number): Promise<number> {
    this.#ready();
    return withTimeout(this.#client.zCount(keysOf(accountId).inFlight, `(${nowMs}`, '+inf'), this.#timeoutMs, 'zcount');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.isReady) {
      await withTimeout(this.#client.close(), this.#timeoutMs, 'close').catch(() => this.#client.destroy());
    } else if (this.#client.isOpen) {
      this.#client.destroy();
    }
  }
}
