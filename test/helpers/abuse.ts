/**
 * Shared pieces of the abuse tests (concurrency, crashes, store faults, soak, overload): real `menu-intel serve`
 * processes with request logging, keys with an exact number of calls or credits left, a mix of small requests over
 * every metered endpoint with their exact credit cost, and the server log read back per request id.
 */
import type { ChildProcess } from 'node:child_process';
import type { Test } from 'tap';
import { AccountAdmin } from '../../src/core/accounts/admin.js';
import { utcMonth } from '../../src/core/accounts/clock.js';
import { costInMilliCredits, ENDPOINTS, PLANS, type EndpointName, type PlanName } from '../../src/core/accounts/plans.js';
import { openAccountStore, type AccountStore } from '../../src/core/accounts/store.js';
import { OPERATOR_KEY, spawnServer, waitHealthy } from './server.js';

export interface StoreLocation {
  dataDir: string;
  redisUrl?: string;
}

export const storeEnv = (location: StoreLocation): Record<string, string> => ({
  MENU_DATA_DIR: location.dataDir,
  ...(location.redisUrl ? { MENU_REDIS_URL: location.redisUrl } : {}),
});

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

/** A logging server process on the store, ready to serve (models loaded); killed at teardown if still running. */
export async function startServerProcess(t: Test, location: StoreLocation, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await spawnServer({
    MENU_OPERATOR_KEY: OPERATOR_KEY,
    MENU_LOG_REQUESTS: '1',
    MENU_THREADS: '1',
    ...storeEnv(location),
    ...env,
  });
  t.teardown(() => {
    if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill('SIGKILL');
  });
  await waitHealthy(server.url, 120_000);
  return server;
}

export async function stopServerProcess(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => server.proc.once('exit', resolve));
  server.proc.kill(signal);
  await exited;
}

export interface TestKey {
  key: string;
  customer: string;
  accountId: string;
  plan: PlanName;
  metering: 'quota' | 'credits';
  /** Calls (quota) or milli-credits (credits) the key has left when the test starts. */
  left: number;
}

/** A key on `plan` with exactly `calls` calls left this month, or `credits` credits (as milli-credits: exact). */
export async function createTestKey(
  store: AccountStore,
  spec: { customer: string; plan: PlanName } & ({ calls: number } | { milliCredits: number }),
): Promise<TestKey> {
  const admin = new AccountAdmin(store);
  if ('calls' in spec) {
    const { key, record } = await admin.create({ customer: spec.customer, plan: spec.plan, metering: 'quota' });
    await store.adjustCallsUsed(record.id, utcMonth(Date.now()), PLANS[spec.plan].monthlyCalls - spec.calls);
    return { key, customer: spec.customer, accountId: record.id, plan: spec.plan, metering: 'quota', left: spec.calls };
  }
  const { key, record } = await admin.create({ customer: spec.customer, plan: spec.plan, metering: 'credits', milliCredits: spec.milliCredits });
  return { key, customer: spec.customer, accountId: record.id, plan: spec.plan, metering: 'credits', left: spec.milliCredits };
}

export async function openStore(location: StoreLocation): Promise<AccountStore> {
  return openAccountStore(location);
}

/** What the key has used since the test started: calls (quota) or milli-credits (credits). */
export async function usedSinceStart(store: AccountStore, k: TestKey): Promise<number> {
  if (k.metering === 'quota') return (await store.callsUsed(k.accountId, utcMonth(Date.now()))) - (PLANS[k.plan].monthlyCalls - k.left);
  return k.left - (await store.milliCredits(k.accountId));
}

export interface PlannedRequest {
  endpoint: EndpointName;
  path: string;
  body: Record<string, unknown>;
  /** Exact charge for a credit account, in milli-credits. */
  milliCost: number;
}

const DISHES = [
  'Paneer Tikka', 'Chicken Dum Biryani', 'Masala Dosa', 'Veg Hakka Noodles', 'Dal Makhani', 'Gulab Jamun',
  'Cold Coffee', 'Butter Naan', 'Margherita Pizza', 'Chilli Chicken', 'Mango Lassi', 'Aloo Paratha', 'Idli Sambar',
  'Veg Manchurian', 'Chocolate Brownie', 'Tandoori Roti', 'Jeera Rice', 'Fish Curry', 'Masala Chai', 'Pav Bhaji',
];

function pick<T>(list: readonly T[], random: () => number, n: number): T[] {
  return Array.from({ length: n }, () => list[Math.floor(random() * list.length)]!);
}

/** A seeded generator (mulberry32), so a failing mix can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** One small request to a random metered endpoint the plan includes, with a random item count. */
export function plannedRequest(random: () => number, plan: PlanName, endpoints?: readonly EndpointName[]): PlannedRequest {
  const allowed = (endpoints ?? (['embed', 'embed_batch', 'classify', 'search', 'match', 'suggest', 'report', 'dedup'] as const)).filter(
    (e) => PLANS[plan].rank >= PLANS[ENDPOINTS[e].minPlan].rank,
  );
  const endpoint = allowed[Math.floor(random() * allowed.length)]!;
  const n = 1 + Math.floor(random() * 6);
  let body: Record<string, unknown>;
  switch (endpoint) {
    case 'embed':
    case 'embed_batch':
    case 'classify':
    case 'dedup':
    case 'report':
      body = { items: pick(DISHES, random, n) };
      break;
    case 'search':
      body = { query: pick(DISHES, random, 1)[0]!.split(' ')[0]!, corpus: pick(DISHES, random, n) };
      break;
    case 'match':
      body = { pairs: Array.from({ length: n }, () => ({ text_a: pick(DISHES, random, 1)[0], text_b: pick(DISHES, random, 1)[0] })) };
      break;
    case 'suggest':
      body = { cart: pick(DISHES, random, 1 + Math.floor(n / 3)), menu: pick(DISHES, random, n) };
      break;
    default:
      throw new Error(`no planned body for ${endpoint}`);
  }
  const units = ENDPOINTS[endpoint].countUnits(body as never);
  return { endpoint, path: ENDPOINTS[endpoint].path, body, milliCost: costInMilliCredits(endpoint, units) };
}

export interface LoggedRequest {
  method: string;
  path: string;
  /** The HTTP status written, or 'aborted'. */
  outcome: string;
  id: string;
  admission: 'settled' | 'released' | 'none';
}

/** A request line as the server writes it (pino JSON, msg "request"). */
interface RequestLine {
  msg: string;
  request_id: string;
  method: string;
  route: string;
  status: number | null;
  aborted?: boolean;
  admission: 'settled' | 'released' | 'none';
}

/** Every request line of a server's log (MENU_LOG_REQUESTS=1), by request id. */
export function requestLog(output: string): Map<string, LoggedRequest[]> {
  const byId = new Map<string, LoggedRequest[]>();
  for (const text of output.split('\n')) {
    if (!text.includes('"msg":"request"')) continue;
    let line: RequestLine;
    try {
      line = JSON.parse(text) as RequestLine;
    } catch {
      continue; // a line cut by a kill -9
    }
    const entry: LoggedRequest = {
      method: line.method,
      path: line.route,
      outcome: line.aborted || line.status === null ? 'aborted' : String(line.status),
      id: line.request_id,
      admission: line.admission,
    };
    byId.set(entry.id, [...(byId.get(entry.id) ?? []), entry]);
  }
  return byId;
}

export interface ClientOutcome {
  id: string;
  /** HTTP status, or 'aborted' (the client gave up) or 'no_response' (the connection failed). */
  status: number | 'aborted' | 'no_response';
  code?: string;
  body?: unknown;
  headers?: Headers;
}

/** One request with a chosen request id; `abortAfterMs` makes the client hang up after that long. */
export async function send(
  url: string,
  method: string,
  path: string,
  opts: { id: string; key?: string; body?: unknown; abortAfterMs?: number; timeoutMs?: number },
): Promise<ClientOutcome> {
  const controller = new AbortController();
  let abortedByUs = false;
  const timer =
    opts.abortAfterMs !== undefined
      ? setTimeout(() => {
          abortedByUs = true;
          controller.abort();
        }, opts.abortAfterMs)
      : undefined;
  const deadline = setTimeout(() => controller.abort(), opts.timeoutMs ?? 120_000);
  try {
    const res = await fetch(url + path, {
      method,
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        'x-request-id': opts.id,
        ...(opts.key ? { 'x-api-key': opts.key } : {}),
      },
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    });
    // Headers arrived: the status is known even if the client hangs up while the body is still coming.
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: left as text for the assertion to show */
    }
    const code = typeof body === 'object' && body !== null && 'code' in body ? String((body as { code: unknown }).code) : undefined;
    return { id: opts.id, status: res.status, body, headers: res.headers, ...(code ? { code } : {}) };
  } catch {
    return { id: opts.id, status: abortedByUs ? 'aborted' : 'no_response' };
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident set size of a process in bytes, from /proc. */
export function rssBytes(pid: number, readFile: (path: string) => string): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFile(`/proc/${pid}/status`));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * How much a series' level rose from the first `windowS` seconds to the last `windowS` of a `seconds`-long run: the
 * median of the last window over the median of the first, minus one. Medians over a minute of samples ride out the
 * heap's swings between major collections and a single dip; a leak lifts the whole series, so both medians part.
 */
export function rssWindowGrowth(points: readonly { at: number; value: number }[], windowS: number, seconds: number): number {
  const first = points.filter((p) => p.at <= windowS).map((p) => p.value);
  const last = points.filter((p) => p.at >= seconds - windowS).map((p) => p.value);
  return median(last) / median(first) - 1;
}

/** One sample of a server's memory: RSS, and its main V8 heap committed and live (after the last full collection). */
export interface MemorySample {
  readonly rss: number;
  readonly heapCommitted: number;
  readonly heapLive: number;
}

/**
 * The memory a process holds: RSS less the main heap's garbage not yet collected (committed minus live). Garbage
 * comes and goes with V8's collection cycle and moves RSS with it; a leak, in JavaScript objects or native memory,
 * moves this.
 */
export function heldBytes(s: MemorySample): number {
  return s.rss - s.heapCommitted + s.heapLive;
}
