import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { KeyvSqlite } from '@keyv/sqlite';
import {
  isAccountRecord,
  type AccountRecord,
  type AccountStore,
  type AdmitOutcome,
  type AdmitRequest,
  type ReservationRef,
  StoreNotReachedError,
} from './store.js';

/** Milliseconds a statement waits for another process's write lock (CLI, a second server) before failing. */
const BUSY_TIMEOUT_MS = 5000;

const METER_SCHEMA = `
CREATE TABLE IF NOT EXISTS monthly_calls (
  account TEXT NOT NULL, period TEXT NOT NULL, calls INTEGER NOT NULL,
  PRIMARY KEY (account, period)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS credit_balances (
  account TEXT PRIMARY KEY, milli INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rate_windows (
  account TEXT NOT NULL, second INTEGER NOT NULL, count INTEGER NOT NULL,
  PRIMARY KEY (account, second)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS leases (
  id TEXT PRIMARY KEY, account TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS leases_by_account ON leases (account, expires_at);
CREATE TABLE IF NOT EXISTS reservations (
  id TEXT PRIMARY KEY, account TEXT NOT NULL, period TEXT NOT NULL,
  calls INTEGER NOT NULL, milli INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS reservations_by_expiry ON reservations (expires_at);
`;

/**
 * Creates the database file owner-only (0600) before SQLite opens it, and tightens an existing one. SQLite gives
 * its -wal and -shm files the mode of the database file, so they are 0600 too. The files hold key hashes and
 * every account's usage: no other local user needs to read them.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

function openWal(file: string): Database.Database {
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  // WAL lets readers (a server answering requests) run while a writer (the CLI) commits; the mode is
  // stored in the file, so every later connection uses it too.
  db.pragma('journal_mode = WAL');
  // NORMAL under WAL survives process crashes; only an OS crash or power loss can drop the last
  // commits, which errs towards the customer (a few uncounted calls), never a double charge.
  db.pragma('synchronous = NORMAL');
  return db;
}

/** A failed better-sqlite3 transaction is rolled back whole: nothing of it was written. */
function rolledBackOnError<T>(transaction: () => T): T {
  try {
    return transaction();
  } catch (error) {
    throw new StoreNotReachedError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/**
 * Embedded store in a data folder: `accounts.sqlite` holds the account records through Keyv
 * (@keyv/sqlite), `meters.sqlite` the counters through better-sqlite3, where each admission is one
 * IMMEDIATE transaction of single-statement upserts (… ON CONFLICT DO UPDATE … WHERE … RETURNING), so
 * concurrent requests, other server processes on the same host and the CLI all see exact counts.
 */
export class SqliteAccountStore implements AccountStore {
  readonly kind = 'sqlite' as const;
  readonly #records: Keyv<AccountRecord>;
  readonly #meters: Database.Database;
  readonly #admitTransaction: (request: AdmitRequest) => AdmitOutcome;
  readonly #settleTransaction: (ref: ReservationRef) => void;
  readonly #releaseTransaction: (ref: ReservationRef, nowMs: number) => boolean;
  readonly #statements;
  #closed = false;

  private constructor(records: Keyv<AccountRecord>, meters: Database.Database) {
    this.#records = records;
    this.#meters = meters;
    const db = meters;
    const s = {
      countRate: db.prepare<{ account: string; second: number }, { count: number }>(
        `INSERT INTO rate_windows (account, second, count) VALUES (@account, @second, 1)
         ON CONFLICT (account, second) DO UPDATE SET count = count + 1 RETURNING count`),
      dropOldRateWindows: db.prepare<{ account: string; second: number }>(
        'DELETE FROM rate_windows WHERE account = @account AND second < @second'),
      dropExpiredLeases: db.prepare<{ account: string; now: number }>(
        'DELETE FROM leases WHERE account = @account AND expires_at <= @now'),
      countLeases: db.prepare<{ account: string }, { n: number }>(
        'SELECT count(*) AS n FROM leases WHERE account = @account'),
      countLiveLeases: db.prepare<{ account: string; now: number }, { n: number }>(
        'SELECT count(*) AS n FROM leases WHERE account = @account AND expires_at > @now'),
      takeCallWithinQuota: db.prepare<{ account: string; period: string; quota: number }, { calls: number }>(
        `INSERT INTO monthly_calls (account, period, calls) VALUES (@account, @period, 1)
         ON CONFLICT (account, period) DO UPDATE SET calls = calls + 1 WHERE calls + 1 <= @quota
         RETURNING calls`),
      addCalls: db.prepare<{ account: string; period: string; delta: number }, { calls: number }>(
        `INSERT INTO monthly_calls (account, period, calls) VALUES (@account, @period, @delta)
         ON CONFLICT (account, period) DO UPDATE SET calls = calls + @delta RETURNING calls`),
      callsUsed: db.prepare<{ account: string; period: string }, { calls: number }>(
        'SELECT calls FROM monthly_calls WHERE account = @account AND period = @period'),
      takeCredits: db.prepare<{ account: string; cost: number }, { milli: number }>(
        'UPDATE credit_balances SET milli = milli - @cost WHERE account = @account AND milli >= @cost RETURNING milli'),
      addCredits: db.prepare<{ account: string; delta: number }, { milli: number }>(
        `INSERT INTO credit_balances (account, milli) VALUES (@account, @delta)
         ON CONFLICT (account) DO UPDATE SET milli = milli + @delta RETURNING milli`),
      credits: db.prepare<{ account: string }, { milli: number }>(
        'SELECT milli FROM credit_balances WHERE account = @account'),
      insertLease: db.prepare<{ id: string; account: string; expires: number }>(
        'INSERT INTO leases (id, account, expires_at) VALUES (@id, @account, @expires)'),
      deleteLease: db.prepare<{ id: string }>('DELETE FROM leases WHERE id = @id'),
      insertReservation: db.prepare<{ id: string; account: string; period: string; calls: number; milli: number; expires: number }>(
        `INSERT INTO reservations (id, account, period, calls, milli, expires_at)
         VALUES (@id, @account, @period, @calls, @milli, @expires)`),
      takeReservation: db.prepare<{ id: string }, { account: string; period: string; calls: number; milli: number; expires_at: number }>(
        'DELETE FROM reservations WHERE id = @id RETURNING account, period, calls, milli, expires_at'),
      dropExpiredReservations: db.prepare<{ now: number }>('DELETE FROM reservations WHERE expires_at <= @now'),
    };
    this.#statements = s;

    this.#admitTransaction = db.transaction((r: AdmitRequest): AdmitOutcome => {
      const account = r.accountId;
      const rateCount = s.countRate.get({ account, second: r.rateWindow })!.count;
      if (rateCount === 1) {
        // First request of a new window: the cheap moment to forget old windows and dead reservations.
        s.dropOldRateWindows.run({ account, second: r.rateWindow });
        s.dropExpiredReservations.run({ now: r.nowMs });
      }
      if (rateCount > r.ratePerSecond) return { kind: 'rate_limited', rateCount };

      s.dropExpiredLeases.run({ account, now: r.nowMs });
      const inFlight = s.countLeases.get({ account })!.n;
      if (inFlight >= r.maxInFlight) return { kind: 'too_many_in_flight', inFlight };

      let callsUsed: number;
      let milliRemaining = 0;
      let milliCharged = 0;
      if (r.metering === 'quota') {
        const taken = s.takeCallWithinQuota.get({ account, period: r.period, quota: r.monthlyCalls });
        if (!taken) {
          return { kind: 'quota_exceeded', callsUsed: s.callsUsed.get({ account, period: r.period })?.calls ?? 0 };
        }
        callsUsed = taken.calls;
      } else {
        if (r.metering === 'credits') {
          const left = s.takeCredits.get({ account, cost: r.milliCost });
          if (!left) return { kind: 'insufficient_credits', milliRemaining: s.credits.get({ account })?.milli ?? 0 };
          milliRemaining = left.milli;
          milliCharged = r.milliCost;
        }
        callsUsed = s.addCalls.get({ account, period: r.period, delta: 1 })!.calls;
      }
      s.insertLease.run({ id: r.leaseId, account, expires: r.leaseExpiresAt });
      s.insertReservation.run({
        id: r.reservationId, account, period: r.period, calls: 1, milli: milliCharged, expires: r.reservationExpiresAt,
      });
      return { kind: 'admitted', callsUsed, milliRemaining, rateCount };
    }).immediate;

    this.#settleTransaction = db.transaction((ref: ReservationRef): void => {
      s.takeReservation.get({ id: ref.reservationId });
      s.deleteLease.run({ id: ref.leaseId });
    }).immediate;

    this.#releaseTransaction = db.transaction((ref: ReservationRef, nowMs: number): boolean => {
      s.deleteLease.run({ id: ref.leaseId });
      const reservation = s.takeReservation.get({ id: ref.reservationId });
      if (!reservation || reservation.expires_at <= nowMs) return false;
      s.addCalls.get({ account: reservation.account, period: reservation.period, delta: -reservation.calls });
      if (reservation.milli > 0) s.addCredits.get({ account: reservation.account, delta: reservation.milli });
      return true;
    }).immediate;
  }

  static async open(dataDir: string): Promise<SqliteAccountStore> {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const recordsFile = join(dataDir, 'accounts.sqlite');
    const metersFile = join(dataDir, 'meters.sqlite');
    ownerOnly(recordsFile);
    ownerOnly(metersFile);
    // Each file is opened by one SQLite library only: better-sqlite3 and node-sqlite3 each bundle their
    // own copy, and two copies in one process on one file break each other's POSIX locks (closing one
    // connection drops the other's locks and can delete its WAL). So the records file gets its WAL mode
    // through the Keyv driver itself, and the meters file is better-sqlite3's alone.
    const adapter = new KeyvSqlite({ uri: `sqlite://${recordsFile}`, table: 'accounts', busyTimeout: BUSY_TIMEOUT_MS });
    const records = new Keyv<AccountRecord>(adapter, { namespace: 'accounts', throwOnErrors: true });
    // Failures surface as rejected promises (throwOnErrors); the event only needs a listener so that
    // an emitted error is not treated as unhandled.
    records.on('error', () => {});
    await adapter.query('PRAGMA journal_mode = WAL');
    await adapter.query('PRAGMA synchronous = NORMAL');
    const meters = openWal(metersFile);
    meters.exec(METER_SCHEMA);
    return new SqliteAccountStore(records, meters);
  }

  async findByKeyHash(keyHash: string): Promise<AccountRecord | undefined> {
    const record: unknown = await this.#records.get(`key:${keyHash}`);
    if (record === undefined) return undefined;
    if (!isAccountRecord(record)) throw new Error(`account record key:${keyHash.slice(0, 12)}… is malformed`);
    return record;
  }

  async saveAccount(record: AccountRecord): Promise<void> {
    await this.#records.set(`key:${record.keyHash}`, record);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const out: AccountRecord[] = [];
    if (!this.#records.iterator) throw new Error('the Keyv SQLite adapter cannot iterate');
    for await (const [, value] of this.#records.iterator(this.#records.namespace)) {
      if (isAccountRecord(value)) out.push(value);
    }
    return out;
  }

  async admit(request: AdmitRequest): Promise<AdmitOutcome> {
    return rolledBackOnError(() => this.#admitTransaction(request));
  }

  async settle(ref: ReservationRef): Promise<void> {
    rolledBackOnError(() => this.#settleTransaction(ref));
  }

  async release(ref: ReservationRef, nowMs: number): Promise<boolean> {
    return rolledBackOnError(() => this.#releaseTransaction(ref, nowMs));
  }

  async callsUsed(accountId: string, period: string): Promise<number> {
    return this.#statements.callsUsed.get({ account: accountId, period })?.calls ?? 0;
  }

  async milliCredits(accountId: string): Promise<number> {
    return this.#statements.credits.get({ account: accountId })?.milli ?? 0;
  }

  async addMilliCredits(accountId: string, milli: number): Promise<number> {
    return this.#statements.addCredits.get({ account: accountId, delta: milli })!.milli;
  }

  async adjustCallsUsed(accountId: string, period: string, delta: number): Promise<number> {
    return this.#statements.addCalls.get({ account: accountId, period, delta })!.calls;
  }

  async inFlight(accountId: string, nowMs: number): Promise<number> {
    return this.#statements.countLiveLeases.get({ account: accountId, now: nowMs })!.n;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#meters.close();
    await this.#records.disconnect();
  }
}
