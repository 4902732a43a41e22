import { parseArgs } from 'node:util';
import { AccountAdmin, AccountAdminError, type AccountSummary } from '../core/accounts/admin.js';
import { creditsFromMilli, isPlanName, milliFromCredits, PLANS, PLAN_NAMES } from '../core/accounts/plans.js';
import { openAccountStore, type Metering } from '../core/accounts/store.js';
import type { Clock } from '../core/accounts/clock.js';

export interface KeysCommandOptions {
  /** MENU_DATA_DIR: the embedded store the server uses. */
  dataDir: string;
  /** MENU_REDIS_URL: when set, the accounts live in Redis. */
  redisUrl?: string | undefined;
  out: (line: string) => void;
  err: (line: string) => void;
  clock?: Clock;
}

export const KEYS_USAGE = `usage: menu-intel keys <command>
  create --customer NAME --plan ${PLAN_NAMES.join('|')} [--credits N | --unlimited]
        new key; printed once, as the last line. Without --credits/--unlimited the key is
        metered by the plan's monthly call quota; with --credits N by a credit balance.
  list                              every key: prefix, customer, plan, metering, balance, status
  revoke KEY_OR_PREFIX              the key stops authenticating at once
  set-plan KEY_OR_PREFIX PLAN       change plan (gating, rate limit, quota); usage this month stays
  add-credits KEY_OR_PREFIX N       add N credits to a key created with --credits
KEY_OR_PREFIX is the full key, the prefix shown by \`keys list\` (≥ 12 characters) or the account id.
The store is MENU_DATA_DIR (SQLite) or MENU_REDIS_URL; a running server may use it at the same time.`;

class UsageError extends Error {}

function parseCredits(text: string | undefined, what: string, allowZero: boolean): number {
  const credits = Number(text);
  const milli = text !== undefined && text.trim() !== '' ? milliFromCredits(credits) : undefined;
  if (milli === undefined || milli < 0 || (!allowZero && milli === 0)) {
    throw new UsageError(`${what} must be a ${allowZero ? 'non-negative' : 'positive'} number of credits with at most 3 decimals, got "${text ?? ''}"`);
  }
  return milli;
}

function parsePlan(text: string | undefined): (typeof PLAN_NAMES)[number] {
  if (text === undefined || !isPlanName(text)) {
    throw new UsageError(`the plan must be one of ${PLAN_NAMES.join(', ')}, got "${text ?? ''}"`);
  }
  return text;
}

function describeMetering(metering: Metering, plan: (typeof PLAN_NAMES)[number]): string {
  if (metering === 'quota') return `quota metering (${PLANS[plan].monthlyCalls} calls per month)`;
  return metering === 'credits' ? 'credit metering' : 'unlimited';
}

function balanceText(summary: AccountSummary): string {
  const { record } = summary;
  if (record.metering === 'unlimited') return 'unlimited';
  if (record.metering === 'credits') return `${creditsFromMilli(summary.milliCredits)} credits`;
  return `${Math.max(0, PLANS[record.plan].monthlyCalls - summary.callsThisMonth)} calls`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col]!)).join('  ').trimEnd());
}

/**
 * `menu-intel keys …`: operator commands on API keys. `argv` is what follows `keys` (a leading
 * "keys" is accepted too). Returns the exit code: 0 done, 1 the store or the operator's target was
 * wrong (unknown key, ambiguous prefix, store unreachable), 2 usage error.
 */
export async function runKeysCommand(argv: string[], opts: KeysCommandOptions): Promise<number> {
  const args = argv[0] === 'keys' ? argv.slice(1) : argv;
  const [command, ...rest] = args;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    (command === undefined ? opts.err : opts.out)(KEYS_USAGE);
    return command === undefined ? 2 : 0;
  }

  let run: (admin: AccountAdmin) => Promise<void>;
  try {
    run = planCommand(command, rest, opts);
  } catch (error) {
    if (!(error instanceof UsageError || (error instanceof TypeError && 'code' in error))) throw error;
    opts.err(`keys ${command}: ${error.message}`);
    opts.err(KEYS_USAGE);
    return 2;
  }

  let store;
  try {
    store = await openAccountStore({ dataDir: opts.dataDir, redisUrl: opts.redisUrl });
  } catch (error) {
    opts.err(`keys ${command}: cannot open the account store: ${(error as Error).message}`);
    return 1;
  }
  try {
    await run(new AccountAdmin(store, opts.clock));
    return 0;
  } catch (error) {
    if (error instanceof AccountAdminError) opts.err(`keys ${command}: ${error.message}`);
    else opts.err(`keys ${command}: the account store failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await store.close().catch(() => {});
  }
}

/** Parses one command's arguments (throwing UsageError) and returns the work to do against the store. */
function planCommand(command: string, rest: string[], opts: KeysCommandOptions): (admin: AccountAdmin) => Promise<void> {
  switch (command) {
    case 'create': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: {
          customer: { type: 'string' },
          plan: { type: 'string' },
          credits: { type: 'string' },
          unlimited: { type: 'boolean', default: false },
        },
        strict: true,
        allowPositionals: true,
      });
      if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      if (!values.customer?.trim()) throw new UsageError('--customer NAME is required');
      const plan = parsePlan(values.plan);
      if (values.unlimited && values.credits !== undefined) throw new UsageError('--credits and --unlimited exclude each other');
      const metering: Metering = values.unlimited ? 'unlimited' : values.credits !== undefined ? 'credits' : 'quota';
      const milliCredits = values.credits !== undefined ? parseCredits(values.credits, '--credits', true) : 0;
      const customer = values.customer;
      return async (admin) => {
        const { key, record } = await admin.create({ customer, plan, metering, milliCredits });
        opts.out(`created ${record.id} for "${record.customer}": ${PLANS[plan].title} plan, ${describeMetering(metering, plan)}` +
          (metering === 'credits' ? `, ${creditsFromMilli(milliCredits)} credits` : ''));
        opts.out(`key prefix ${record.keyPrefix}; the full key follows and is not shown again:`);
        opts.out(key);
      };
    }
    case 'list': {
      if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
      return async (admin) => {
        const summaries = await admin.list();
        if (summaries.length === 0) {
          opts.out('no keys yet: create one with `menu-intel keys create --customer NAME --plan starter`');
          return;
        }
        const rows = [['PREFIX', 'ACCOUNT', 'CUSTOMER', 'PLAN', 'METERING', 'BALANCE', 'CALLS THIS MONTH', 'STATUS', 'CREATED']];
        for (const s of summaries) {
          rows.push([
            s.record.keyPrefix, s.record.id, s.record.customer, PLANS[s.record.plan].title, s.record.metering,
            balanceText(s), String(s.callsThisMonth), s.record.revokedAt ? `revoked ${s.record.revokedAt}` : 'active',
            s.record.createdAt,
          ]);
        }
        for (const line of table(rows)) opts.out(line);
      };
    }
    case 'revoke': {
      if (rest.length !== 1) throw new UsageError('give exactly one KEY_OR_PREFIX');
      const target = rest[0]!;
      return async (admin) => {
        const record = await admin.revoke(target);
        opts.out(`revoked ${record.keyPrefix} (${record.customer}) at ${record.revokedAt}`);
      };
    }
    case 'set-plan': {
      if (rest.length !== 2) throw new UsageError('give KEY_OR_PREFIX and PLAN');
      const target = rest[0]!;
      const plan = parsePlan(rest[1]);
      return async (admin) => {
        const before = await admin.resolve(target);
        const record = await admin.setPlan(target, plan);
        opts.out(`${record.keyPrefix} (${record.customer}): ${PLANS[before.plan].title} → ${PLANS[record.plan].title}`);
      };
    }
    case 'add-credits': {
      if (rest.length !== 2) throw new UsageError('give KEY_OR_PREFIX and N');
      const target = rest[0]!;
      const milli = parseCredits(rest[1], 'N', false);
      return async (admin) => {
        const { record, milliCredits } = await admin.addCredits(target, milli);
        opts.out(`${record.keyPrefix} (${record.customer}): +${creditsFromMilli(milli)} credits, balance ${creditsFromMilli(milliCredits)}`);
      };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
