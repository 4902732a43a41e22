import { randomBytes } from 'node:crypto';
import { systemClock, utcMonth, type Clock } from './clock.js';
import { checkKeyFormat, displayPrefix, generateApiKey, hashKey, KEY_PREFIX } from './keys.js';
import { PLANS, type PlanName } from './plans.js';
import type { AccountRecord, AccountStore, Metering } from './store.js';

/** An operator mistake (unknown key, ambiguous prefix, wrong metering): the CLI prints it and exits 1. */
export class AccountAdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountAdminError';
  }
}

export interface AccountSummary {
  record: AccountRecord;
  /** Successful metered calls in the current UTC month (every metering counts calls). */
  callsThisMonth: number;
  /** Credit balance in milli-credits (credit accounts; 0 otherwise). */
  milliCredits: number;
}

export interface CreateAccountInput {
  customer: string;
  plan: PlanName;
  metering: Metering;
  /** Starting balance for credit accounts, in milli-credits. */
  milliCredits?: number;
}

/** Shortest prefix `keys revoke` & co. accept: the fixed part plus 4 random characters. */
const MIN_PREFIX_LENGTH = KEY_PREFIX.length + 4;

/**
 * Operator actions on accounts, shared by the `menu-intel keys` CLI and the tests. Works on the same
 * store a running server uses: records are whole Keyv values (last write wins, which is fine for
 * operator edits), balances go through the store's atomic counters.
 */
export class AccountAdmin {
  readonly #store: AccountStore;
  readonly #clock: Clock;

  constructor(store: AccountStore, clock: Clock = systemClock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Creates an account and returns its key: the only moment the key exists outside its owner's hands. */
  async create(input: CreateAccountInput): Promise<{ key: string; record: AccountRecord }> {
    const customer = input.customer.trim();
    if (!customer) throw new AccountAdminError('the customer name is empty');
    if (input.metering !== 'credits' && input.milliCredits) {
      throw new AccountAdminError('a starting credit balance needs a credit-metered account');
    }
    const key = generateApiKey();
    const record: AccountRecord = {
      id: `acct_${randomBytes(8).toString('hex')}`,
      customer,
      plan: input.plan,
      metering: input.metering,
      keyHash: hashKey(key),
      keyPrefix: displayPrefix(key),
      createdAt: new Date(this.#clock.now()).toISOString(),
      revokedAt: null,
    };
    // Credits first: a key that authenticates before its balance exists would read as "0 credits".
    if (input.metering === 'credits' && input.milliCredits) await this.#store.addMilliCredits(record.id, input.milliCredits);
    await this.#store.saveAccount(record);
    return { key, record };
  }

  async list(): Promise<AccountSummary[]> {
    const period = utcMonth(this.#clock.now());
    const records = await this.#store.listAccounts();
    records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyPrefix.localeCompare(b.keyPrefix));
    return Promise.all(
      records.map(async (record) => ({
        record,
        callsThisMonth: await this.#store.callsUsed(record.id, period),
        milliCredits: record.metering === 'credits' ? await this.#store.milliCredits(record.id) : 0,
      })),
    );
  }

  /**
   * Finds one account by its full key, its display prefix (or a prefix of it at least 12 characters
   * long) or its account id. Ambiguity is an error, never a guess.
   */
  async resolve(keyOrPrefix: string): Promise<AccountRecord> {
    const wanted = keyOrPrefix.trim();
    if (checkKeyFormat(wanted)) {
      const record = await this.#store.findByKeyHash(hashKey(wanted));
      if (!record) throw new AccountAdminError(`no account has the key ${displayPrefix(wanted)}…`);
      return record;
    }
    const byId = wanted.startsWith('acct_');
    if (!byId && (!wanted.startsWith(KEY_PREFIX) || wanted.length < MIN_PREFIX_LENGTH)) {
      throw new AccountAdminError(
        `"${wanted}" is neither a valid key, an account id nor a key prefix of at least ${MIN_PREFIX_LENGTH} characters`,
      );
    }
    const matches = (await this.#store.listAccounts()).filter((r) =>
      byId ? r.id === wanted : r.keyPrefix.startsWith(wanted) || wanted.startsWith(r.keyPrefix),
    );
    if (matches.length === 0) throw new AccountAdminError(`no account matches "${wanted}"`);
    if (matches.length > 1) {
      const names = matches.map((m) => `${m.keyPrefix} (${m.customer})`).join(', ');
      throw new AccountAdminError(`"${wanted}" matches ${matches.length} accounts: ${names}; give more characters`);
    }
    return matches[0]!;
  }

  async revoke(keyOrPrefix: string): Promise<AccountRecord> {
    const record = await this.resolve(keyOrPrefix);
    if (record.revokedAt) return record;
    const revoked = { ...record, revokedAt: new Date(this.#clock.now()).toISOString() };
    await this.#store.saveAccount(revoked);
    return revoked;
  }

  async setPlan(keyOrPrefix: string, plan: PlanName): Promise<AccountRecord> {
    const record = await this.resolve(keyOrPrefix);
    if (record.revokedAt) throw new AccountAdminError(`${record.keyPrefix} is revoked`);
    const updated = { ...record, plan };
    await this.#store.saveAccount(updated);
    return updated;
  }

  /** Adds credits to a credit-metered account; returns the new balance in milli-credits. */
  async addCredits(keyOrPrefix: string, milli: number): Promise<{ record: AccountRecord; milliCredits: number }> {
    const record = await this.resolve(keyOrPrefix);
    if (record.metering !== 'credits') {
      throw new AccountAdminError(
        `${record.keyPrefix} is ${record.metering === 'quota' ? `metered by the ${PLANS[record.plan].title} plan's monthly quota` : 'unlimited'}; ` +
          'credits apply only to keys created with --credits',
      );
    }
    return { record, milliCredits: await this.#store.addMilliCredits(record.id, milli) };
  }

  /** Operator correction of this month's call count (e.g. a goodwill refund after an incident). */
  async adjustCallsThisMonth(keyOrPrefix: string, delta: number): Promise<number> {
    const record = await this.resolve(keyOrPrefix);
    return this.#store.adjustCallsUsed(record.id, utcMonth(this.#clock.now()), delta);
  }
}
