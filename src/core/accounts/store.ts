import typia from 'typia';
import type { PlanName } from './plans.js';

/**
 * How an account pays:
 * - `quota`: the plan's monthly call quota (one successful metered request = one call);
 * - `credits`: a prepaid credit balance charged per item / pair from the endpoint table;
 * - `unlimited`: never refused for quota or credits (still rate- and in-flight-limited by its plan).
 */
export type Metering = 'quota' | 'credits' | 'unlimited';

/**
 * One API key = one account. The record never holds the key itself: only its SHA-256 and the display
 * prefix. Balances and counters are not in the record (records are plain Keyv values, written whole);
 * they live in the store's atomic counters.
 */
export interface AccountRecord {
  id: string;
  customer: string;
  plan: PlanName;
  metering: Metering;
  keyHash: string;
  keyPrefix: string;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601 once revoked; revoked records stay so that `keys list` shows them. */
  revokedAt: string | null;
}

export const isAccountRecord = typia.createIs<AccountRecord>();

/**
 * A store operation that certainly wrote nothing: it was never sent (no connection) or its
 * transaction rolled back. Other failures (a connection dropped or timed out after sending) leave the
 * outcome unknown, and the access layer then queues a release so that a charge whose reply was lost
 * is refunded once the store is back.
 */
export class StoreNotReachedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreNotReachedError';
  }
}

/** Everything one admission decides, computed by the caller so both stores apply identical rules. */
export interface AdmitRequest {
  accountId: string;
  nowMs: number;
  /** Fixed one-second window number: floor(now / 1000). */
  rateWindow: number;
  ratePerSecond: number;
  maxInFlight: number;
  leaseId: string;
  leaseExpiresAt: number;
  /** Billing month `YYYY-MM` (UTC). */
  period: string;
  metering: Metering;
  /** Monthly call ceiling; enforced only for `quota` metering. */
  monthlyCalls: number;
  /** Charge in milli-credits; taken only for `credits` metering. */
  milliCost: number;
  reservationId: string;
  /** Until then a release can still refund the reservation; afterwards the charge stands. */
  reservationExpiresAt: number;
}

export type AdmitOutcome =
  | { kind: 'admitted'; callsUsed: number; milliRemaining: number; rateCount: number }
  | { kind: 'rate_limited'; rateCount: number }
  | { kind: 'too_many_in_flight'; inFlight: number }
  | { kind: 'quota_exceeded'; callsUsed: number }
  | { kind: 'insufficient_credits'; milliRemaining: number };

/** What settle / release need to find a reservation again, in any process. */
export interface ReservationRef {
  accountId: string;
  reservationId: string;
  leaseId: string;
  period: string;
}

/**
 * The account store: Keyv-held records plus the store's own atomic counters. Every method either
 * completes or throws (store unreachable, busy beyond the timeout, …): no method answers "nothing"
 * on failure, because a missing record would turn an outage into 401s and a failed counter read
 * into free service.
 */
export interface AccountStore {
  readonly kind: 'sqlite' | 'redis';
  findByKeyHash(keyHash: string): Promise<AccountRecord | undefined>;
  saveAccount(record: AccountRecord): Promise<void>;
  listAccounts(): Promise<AccountRecord[]>;
  /**
   * Atomically: count the request in its rate window, check the in-flight ceiling, check and take the
   * charge (one call; plus milli-credits for credit accounts), take an in-flight lease and write the
   * reservation. A refusal at any step leaves the charge and the lease untouched.
   */
  admit(request: AdmitRequest): Promise<AdmitOutcome>;
  /** The charge stands: drops the reservation and frees the lease. Idempotent. */
  settle(ref: ReservationRef): Promise<void>;
  /**
   * Refunds the charge exactly once if the reservation still exists and has not expired at `nowMs`,
   * and frees the lease. Returns whether a refund happened.
   */
  release(ref: ReservationRef, nowMs: number): Promise<boolean>;
  callsUsed(accountId: string, period: string): Promise<number>;
  milliCredits(accountId: string): Promise<number>;
  /** Adds (or with a negative amount removes) credits; returns the new balance. */
  addMilliCredits(accountId: string, milli: number): Promise<number>;
  /** Operator correction of a month's call count (goodwill refunds, migrations); returns the new count. */
  adjustCallsUsed(accountId: string, period: string, delta: number): Promise<number>;
  /** Live leases of an account at `nowMs`. */
  inFlight(accountId: string, nowMs: number): Promise<number>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Folder of the embedded SQLite store; unused when `redisUrl` is set. */
  dataDir: string;
  /** `redis://host:port[/db]`: records and counters live in Redis, shared by every replica. */
  redisUrl?: string | undefined;
  /** Milliseconds a store operation may take before it counts as unreachable. */
  operationTimeoutMs?: number;
}

export async function openAccountStore(options: StoreOptions): Promise<AccountStore> {
  if (options.redisUrl) {
    const { RedisAccountStore } = await import('./redis-store.js');
    return RedisAccountStore.open(options.redisUrl, options.operationTimeoutMs ?? 2000);
  }
  const { SqliteAccountStore } = await import('./sqlite-store.js');
  return SqliteAccountStore.open(options.dataDir);
}
