/**
 * # Access control and metering (no HTTP in here)
 *
 * The HTTP layer calls, for every request:
 *
 *   1. `authenticate(X-API-Key)`       → 401 `unauthorized` (missing, malformed, wrong checksum, unknown or
 *                                         revoked key). The operator key (MENU_OPERATOR_KEY, compared in
 *                                         constant time) gives an unlimited principal with `isOperator`.
 *   2. `authorize(principal, endpoint)` → 403 `plan_forbidden`, naming the cheapest plan with the endpoint
 *                                         (403 `operator_only` for operator-only endpoints such as /metrics).
 *   3. (the HTTP layer parses and validates the body: 400 / 422, so a bad request is never charged)
 *   4. `admit(principal, endpoint, units)` → 429 `rate_limited` (more than the plan's requests in this
 *                                         one-second window), 429 `too_many_in_flight` (the key's concurrent
 *                                         requests at the plan's ceiling), then 402 `quota_exceeded`
 *                                         (plan accounts: the month's calls are used up) or 402
 *                                         `insufficient_credits` (credit accounts: the request costs more than
 *                                         the balance; nothing is charged). 503 `store_unavailable` when the
 *                                         store cannot be reached: metered requests fail closed.
 *   5. the work; then `admission.settle()` on success or `admission.release()` when the work failed or
 *      the client went away. /health and /balance skip steps 2–5 (free, never rate-limited).
 *
 * Reserve-then-settle. `admit` takes the charge at once (one call; plus the credits for credit
 * accounts), an in-flight lease and a reservation record, all in one atomic store operation, so
 * concurrent requests on any number of replicas can never overspend: with 50 calls left exactly 50
 * are admitted. `settle` drops the reservation (the charge stands) and frees the lease; `release`
 * deletes the reservation and refunds it in the same atomic step, so a retried release refunds once.
 * Each admission settles or releases exactly once; later calls are no-ops. If the store is down when
 * the outcome is known, the outcome is kept and retried until the store is back.
 *
 * What a crash costs. Usage is written before the work starts, so a restart never loses it. If the
 * process dies mid-request, the reservation is neither settled nor released: the charge for that one
 * request stands (the customer may not have received the answer), its in-flight slot comes back when
 * the lease expires (60 s), and nothing else is affected. A customer can therefore lose at most the
 * requests that were in flight in the crashed process, one charge each, and is never charged twice.
 * When the store connection drops between an admission's write and its reply, the request is refused
 * with 503 and a release of its reservation is queued: if the write happened, it is refunded once the
 * store is back.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, isApiError } from '../errors.js';
import { systemClock, utcMonth, utcMonthBounds, type Clock } from './clock.js';
import { formatRateLimit, formatRateLimitPolicy, POLICY, type QuotaPolicy, type QuotaState } from './headers.js';
import { checkKeyFormat, hashKey, secretsEqual } from './keys.js';
import {
  costInMilliCredits,
  creditsFromMilli,
  ENDPOINTS,
  PLANS,
  planIncludes,
  type EndpointName,
  type PlanName,
} from './plans.js';
import { openAccountStore, StoreNotReachedError, type AccountStore, type Metering, type ReservationRef } from './store.js';

export interface Principal {
  readonly accountId: string;
  readonly customer: string;
  readonly plan: PlanName;
  readonly metering: Metering;
  readonly isOperator: boolean;
  /** Display prefix of the key (never the key), for logs. */
  readonly keyPrefix: string;
}

export interface Admission {
  /** Quota headers for the successful response (RateLimit, RateLimit-Policy, X-Credits-Remaining). */
  readonly headers: Record<string, string>;
  /** The work succeeded: the reservation becomes the charge and the in-flight slot is freed. */
  settle(): Promise<void>;
  /** The work failed or the client left: the reservation is refunded and the slot freed. */
  release(): Promise<void>;
}

export interface Balance {
  customer: string;
  credits_remaining: number;
  unlimited: boolean;
}

export interface AccessControlOptions {
  /** Folder of the embedded SQLite store (MENU_DATA_DIR); unused when `redisUrl` is set. */
  dataDir: string;
  /** MENU_REDIS_URL: records and counters in Redis, shared by every replica. */
  redisUrl?: string | undefined;
  /** MENU_OPERATOR_KEY: unlimited, sees the diagnostic /health view. At least 16 characters. */
  operatorKey?: string | undefined;
  clock?: Clock;
  /** How long an in-flight slot survives without settle/release (a crashed process). Default 60 s. */
  inFlightLeaseMs?: number;
  /** How long a reservation can still be refunded by `release`. Default 15 min. */
  reservationTtlMs?: number;
  /** A store operation slower than this counts as unreachable (Redis). Default 2 s. */
  storeTimeoutMs?: number;
}

/** What unlimited accounts show as their balance. */
export const UNLIMITED_BALANCE = 1e9;
const OPERATOR_KEY_MIN_LENGTH = 16;
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 2000;
/**
 * Bound on outcomes kept through an outage. Beyond it new ones are dropped: a dropped settle changes
 * nothing (the charge is already taken, the lease expires), a dropped release leaves that one request
 * charged.
 */
const MAX_PENDING_OUTCOMES = 100_000;

const OPERATOR: Principal = Object.freeze({
  accountId: 'operator',
  customer: 'operator',
  plan: 'scale',
  metering: 'unlimited',
  isOperator: true,
  keyPrefix: 'operator',
});

const FREE_ADMISSION: Admission = Object.freeze({
  headers: Object.freeze({}) as Record<string, string>,
  settle: async () => {},
  release: async () => {},
});

const UNAUTHORIZED_DETAIL = 'invalid or missing API key';

/** An outcome that could not reach the store, kept until it can. */
interface PendingOutcome {
  kind: 'settle' | 'release';
  ref: ReservationRef;
  /** Clock time of the release: decides whether the reservation was still refundable. */
  atMs: number;
  /** Real time after which retrying is pointless (the reservation is gone from any store). */
  giveUpAt: number;
}

export class AccessControl {
  readonly #store: AccountStore;
  readonly #operatorKey: string | undefined;
  readonly #clock: Clock;
  readonly #leaseMs: number;
  readonly #reservationTtlMs: number;
  readonly #pending = new Set<PendingOutcome>();
  #retryTimer: NodeJS.Timeout | undefined;
  #retryDelayMs = RETRY_MIN_MS;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(store: AccountStore, options: Omit<AccessControlOptions, 'dataDir' | 'redisUrl' | 'storeTimeoutMs'>) {
    this.#store = store;
    this.#operatorKey = options.operatorKey || undefined;
    this.#clock = options.clock ?? systemClock;
    this.#leaseMs = options.inFlightLeaseMs ?? 60_000;
    this.#reservationTtlMs = options.reservationTtlMs ?? 15 * 60_000;
  }

  get storeKind(): 'sqlite' | 'redis' {
    return this.#store.kind;
  }

  /** Settle/release outcomes waiting for the store to come back (for the diagnostic /health view). */
  get pendingOutcomes(): number {
    return this.#pending.size;
  }

  async authenticate(rawKey: string | undefined): Promise<Principal> {
    if (!rawKey) throw new ApiError('unauthorized', UNAUTHORIZED_DETAIL);
    if (this.#operatorKey !== undefined && secretsEqual(rawKey, this.#operatorKey)) return OPERATOR;
    // The checksum rejects typos and random strings without a store round trip.
    if (!checkKeyFormat(rawKey)) throw new ApiError('unauthorized', UNAUTHORIZED_DETAIL);
    const record = await this.#guard(() => this.#store.findByKeyHash(hashKey(rawKey)));
    if (!record || record.revokedAt) throw new ApiError('unauthorized', UNAUTHORIZED_DETAIL);
    return {
      accountId: record.id,
      customer: record.customer,
      plan: record.plan,
      metering: record.metering,
      isOperator: false,
      keyPrefix: record.keyPrefix,
    };
  }

  authorize(principal: Principal, endpoint: EndpointName): void {
    if (principal.isOperator || planIncludes(principal.plan, endpoint)) return;
    const spec = ENDPOINTS[endpoint];
    if (spec.operatorOnly) throw new ApiError('operator_only', `${spec.path} is for the operator key only`);
    throw new ApiError(
      'plan_forbidden',
      `${spec.path} needs the ${PLANS[spec.minPlan].title} plan; this key is on ${PLANS[principal.plan].title}`,
    );
  }

  /**
   * Rate, in-flight and charge checks plus the reservation, after the body was validated. `units` is
   * `ENDPOINTS[endpoint].countUnits(body)`: items, corpus items, pairs or cart + menu items.
   */
  async admit(principal: Principal, endpoint: EndpointName, units: number): Promise<Admission> {
    if (!Number.isSafeInteger(units) || units < 0) throw new RangeError(`units must be a whole number ≥ 0, got ${units}`);
    this.authorize(principal, endpoint);
    if (!ENDPOINTS[endpoint].metered || principal.isOperator) return FREE_ADMISSION;

    const plan = PLANS[principal.plan];
    const now = this.#clock.now();
    const rateWindow = Math.floor(now / 1000);
    const secondsToNextWindow = Math.max(1, Math.ceil(((rateWindow + 1) * 1000 - now) / 1000));
    const month = utcMonthBounds(now);
    const secondsToNextMonth = Math.ceil((month.end - now) / 1000);
    const period = utcMonth(now);
    const milliCost = costInMilliCredits(endpoint, units);
    const id = randomUUID();

    const ref: ReservationRef = { accountId: principal.accountId, reservationId: id, leaseId: id, period };
    let outcome;
    try {
      outcome = await this.#guard(() =>
        this.#store.admit({
          accountId: principal.accountId,
          nowMs: now,
          rateWindow,
          ratePerSecond: plan.ratePerSecond,
          maxInFlight: plan.maxInFlight,
          leaseId: id,
          leaseExpiresAt: now + this.#leaseMs,
          period,
          metering: principal.metering,
          monthlyCalls: plan.monthlyCalls,
          milliCost,
          reservationId: id,
          reservationExpiresAt: now + this.#reservationTtlMs,
        }),
      );
    } catch (error) {
      // The reply was lost, not necessarily the write: undo it once the store answers again.
      if (isApiError(error) && error.code === 'store_unavailable' && !(error.cause instanceof StoreNotReachedError)) {
        this.#keepPending({ kind: 'release', ref, atMs: now, giveUpAt: Date.now() + this.#reservationTtlMs });
      }
      throw error;
    }

    const perSecondPolicy = { name: POLICY.perSecond, quota: plan.ratePerSecond, windowSeconds: 1 };
    const monthlyPolicy = { name: POLICY.monthly, quota: plan.monthlyCalls, windowSeconds: Math.round((month.end - month.start) / 1000) };
    switch (outcome.kind) {
      case 'rate_limited':
        throw new ApiError(
          'rate_limited',
          `more than ${plan.ratePerSecond} requests per second for this key (${plan.title} plan); retry after ${secondsToNextWindow} s`,
          {
            'Retry-After': String(secondsToNextWindow),
            'RateLimit-Policy': formatRateLimitPolicy([perSecondPolicy]),
            RateLimit: formatRateLimit([{ name: POLICY.perSecond, remaining: 0, resetSeconds: secondsToNextWindow }]),
          },
        );
      case 'too_many_in_flight':
        throw new ApiError(
          'too_many_in_flight',
          `${outcome.inFlight} requests of this key are already in flight, the ${plan.title} plan's ceiling; retry after 1 s`,
          {
            'Retry-After': '1',
            'RateLimit-Policy': formatRateLimitPolicy([{ name: POLICY.inFlight, quota: plan.maxInFlight, unit: 'concurrent-requests' }]),
            RateLimit: formatRateLimit([{ name: POLICY.inFlight, remaining: 0 }]),
          },
        );
      case 'quota_exceeded':
        throw new ApiError(
          'quota_exceeded',
          `the ${plan.title} plan's ${plan.monthlyCalls} calls for ${period} are used up; ` +
            `the quota resets on ${new Date(month.end).toISOString().slice(0, 10)} (UTC) or on upgrade`,
          {
            'RateLimit-Policy': formatRateLimitPolicy([monthlyPolicy]),
            RateLimit: formatRateLimit([{ name: POLICY.monthly, remaining: 0, resetSeconds: secondsToNextMonth }]),
          },
        );
      case 'insufficient_credits':
        throw new ApiError(
          'insufficient_credits',
          `this request costs ${creditsFromMilli(milliCost)} credits (${units} × ${creditsFromMilli(ENDPOINTS[endpoint].milliCreditsPerUnit)} ` +
            `per ${ENDPOINTS[endpoint].unit} for ${ENDPOINTS[endpoint].path}) and ${creditsFromMilli(outcome.milliRemaining)} remain; nothing was charged`,
          { 'X-Credits-Remaining': String(creditsFromMilli(outcome.milliRemaining)) },
        );
      case 'admitted': {
        const policies: QuotaPolicy[] = [perSecondPolicy];
        const states: QuotaState[] = [{ name: POLICY.perSecond, remaining: plan.ratePerSecond - outcome.rateCount, resetSeconds: secondsToNextWindow }];
        const headers: Record<string, string> = {};
        if (principal.metering === 'quota') {
          policies.push(monthlyPolicy);
          states.push({ name: POLICY.monthly, remaining: plan.monthlyCalls - outcome.callsUsed, resetSeconds: secondsToNextMonth });
        } else if (principal.metering === 'credits') {
          headers['X-Credits-Remaining'] = String(creditsFromMilli(outcome.milliRemaining));
        }
        headers['RateLimit-Policy'] = formatRateLimitPolicy(policies);
        headers.RateLimit = formatRateLimit(states);
        return this.#admission(ref, headers);
      }
    }
  }

  async balance(principal: Principal): Promise<Balance> {
    if (principal.isOperator || principal.metering === 'unlimited') {
      return { customer: principal.customer, credits_remaining: UNLIMITED_BALANCE, unlimited: true };
    }
    if (principal.metering === 'credits') {
      const milli = await this.#guard(() => this.#store.milliCredits(principal.accountId));
      return { customer: principal.customer, credits_remaining: creditsFromMilli(milli), unlimited: false };
    }
    const used = await this.#guard(() => this.#store.callsUsed(principal.accountId, utcMonth(this.#clock.now())));
    // After a downgrade the month's calls can exceed the new quota; the balance never goes negative.
    const left = Math.max(0, PLANS[principal.plan].monthlyCalls - used);
    return { customer: principal.customer, credits_remaining: left, unlimited: false };
  }

  /** Tries the outcomes still waiting for the store once more; resolves when the attempt is over. */
  flushPending(): Promise<void> {
    this.#flushing ??= this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    if (this.#pending.size) await this.flushPending();
    await this.#store.close();
  }

  #admission(ref: ReservationRef, headers: Record<string, string>): Admission {
    let done = false;
    const finish = async (kind: 'settle' | 'release'): Promise<void> => {
      if (done) return;
      done = true;
      const outcome: PendingOutcome = { kind, ref, atMs: this.#clock.now(), giveUpAt: Date.now() + this.#reservationTtlMs };
      try {
        await this.#apply(outcome);
      } catch {
        // The response is already decided; the store learns the outcome as soon as it is back.
        this.#keepPending(outcome);
      }
    };
    return { headers, settle: () => finish('settle'), release: () => finish('release') };
  }

  #keepPending(outcome: PendingOutcome): void {
    if (this.#pending.size >= MAX_PENDING_OUTCOMES) return;
    this.#pending.add(outcome);
    this.#scheduleRetry();
  }

  async #apply(outcome: PendingOutcome): Promise<void> {
    if (outcome.kind === 'settle') await this.#store.settle(outcome.ref);
    else await this.#store.release(outcome.ref, outcome.atMs);
  }

  async #flushOnce(): Promise<void> {
    // Outcomes stay in the set until applied, so `pendingOutcomes` counts the ones being retried too.
    for (const outcome of [...this.#pending]) {
      if (Date.now() > outcome.giveUpAt) {
        this.#pending.delete(outcome);
        continue;
      }
      try {
        await this.#apply(outcome);
        this.#pending.delete(outcome);
      } catch {
        break; // still unreachable: the next retry starts over
      }
    }
    if (this.#pending.size === 0) this.#retryDelayMs = RETRY_MIN_MS;
  }

  #scheduleRetry(): void {
    if (this.#retryTimer || this.#closed) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.flushPending().then(() => {
        if (this.#pending.size) {
          this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, RETRY_MAX_MS);
          this.#scheduleRetry();
        }
      });
    }, this.#retryDelayMs);
    // Pending outcomes must not keep a finished process alive; close() flushes them once more.
    this.#retryTimer.unref();
  }

  async #guard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (isApiError(error)) throw error;
      const unavailable = new ApiError(
        'store_unavailable',
        `the account store (${this.#store.kind}) is unreachable; metered requests are refused until it is back`,
        { 'Retry-After': '1' },
      );
      unavailable.cause = error;
      throw unavailable;
    }
  }
}

export async function createAccessControl(options: AccessControlOptions): Promise<AccessControl> {
  if (options.operatorKey !== undefined && options.operatorKey !== '' && options.operatorKey.length < OPERATOR_KEY_MIN_LENGTH) {
    throw new Error(`MENU_OPERATOR_KEY must be at least ${OPERATOR_KEY_MIN_LENGTH} characters`);
  }
  const store = await openAccountStore({
    dataDir: options.dataDir,
    redisUrl: options.redisUrl,
    operationTimeoutMs: options.storeTimeoutMs ?? 2000,
  });
  return new AccessControl(store, options);
}
