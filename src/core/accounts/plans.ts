/**
 * What each plan buys and what each endpoint costs: the one table the HTTP layer, the metering core,
 * the CLI and the README all read. Later endpoints are registered here first so that their plan
 * requirement and price exist before their route does.
 */

export type PlanName = 'starter' | 'pro' | 'scale';

export interface Plan {
  readonly name: PlanName;
  /** How the plan is written in messages and the README. */
  readonly title: string;
  /** Position in the price ladder; a plan includes every endpoint whose `minPlan` rank is not higher. */
  readonly rank: number;
  /** Successful metered requests per calendar month (UTC) for quota-metered accounts. */
  readonly monthlyCalls: number;
  /** Metered requests per second per key (fixed one-second windows). */
  readonly ratePerSecond: number;
  /**
   * Ceiling on one key's concurrent metered requests. Sized by Little's law at about 0.25 s per request
   * (rate × 0.25, rounded): a key can use its full per-second rate with ordinary requests
   * (/search, /match, /classify answer in ~50–150 ms), while slow calls (/report at ~1.5 s,
   * /embed/batch with thousands of items at ~2 s) are held to that many at once, so one key cannot
   * fill the shared inference queue and starve the other customers.
   */
  readonly maxInFlight: number;
}

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  starter: { name: 'starter', title: 'Starter', rank: 0, monthlyCalls: 10_000, ratePerSecond: 20, maxInFlight: 5 },
  pro: { name: 'pro', title: 'Pro', rank: 1, monthlyCalls: 100_000, ratePerSecond: 60, maxInFlight: 15 },
  scale: { name: 'scale', title: 'Scale', rank: 2, monthlyCalls: 1_000_000, ratePerSecond: 150, maxInFlight: 40 },
};

export const PLAN_NAMES: readonly PlanName[] = ['starter', 'pro', 'scale'];

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

export type EndpointName =
  | 'embed'
  | 'embed_batch'
  | 'search'
  | 'match'
  | 'dedup'
  | 'classify'
  | 'report'
  | 'suggest'
  | 'openai_embeddings'
  | 'openai_models'
  | 'health'
  | 'balance'
  | 'metrics'
  | 'openapi'
  | 'docs';

/**
 * The request fields a unit count can depend on. Bodies reach `countUnits` after validation, so the
 * arrays are present for the endpoints that require them; missing ones count as empty.
 */
export interface MeteredBody {
  readonly items?: readonly unknown[];
  readonly corpus?: readonly unknown[];
  readonly pairs?: readonly unknown[];
  readonly cart?: readonly unknown[];
  readonly menu?: readonly unknown[];
}

/** One embedded text costs the same whichever embeddings endpoint it comes through (0.05 credits). */
const EMBEDDED_TEXT_MILLI_CREDITS = 50;

export interface EndpointSpec {
  readonly name: EndpointName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** The cheapest plan that includes the endpoint. */
  readonly minPlan: PlanName;
  /** Only the operator key may call it (operations endpoints such as /metrics); any other key gets 403. */
  readonly operatorOnly?: boolean;
  /**
   * Free endpoints (health, balance) are not rate-limited, not counted against the monthly quota and
   * not charged credits: they never touch the meters, so a customer can always read the balance.
   */
  readonly metered: boolean;
  /** Credits per unit in milli-credits (integers, so sums never drift: 0.05 credits = 50). */
  readonly milliCreditsPerUnit: number;
  /** What one unit is, for messages and the README. */
  readonly unit: string;
  /** Units of a validated request body. */
  readonly countUnits: (body: MeteredBody) => number;
}

const countOf = (list: readonly unknown[] | undefined): number => list?.length ?? 0;
const noUnits = (): number => 0;

/**
 * Endpoint table. Unit choices that the spec leaves open:
 * - /search: one unit per corpus item. The corpus is what gets encoded, scored and reranked; the
 *   query is one text whatever the corpus size. Precomputed `corpus_embeddings` do not change the
 *   price, so a customer can predict it from the request alone.
 * - /suggest: one unit per cart item plus one per menu item. Both lists are cleaned, embedded and
 *   classified; charging the menu alone would make large carts free.
 * - /v1/embeddings (OpenAI-compatible): the same texts-to-vectors work as /embed, so the same plans and
 *   the same price per text; its route hands the metering its `input` as `items`.
 * - Operations and documentation endpoints (/v1/models, /metrics, /openapi.json, /docs) are free.
 */
export const ENDPOINTS: Readonly<Record<EndpointName, EndpointSpec>> = {
  embed: {
    name: 'embed', method: 'POST', path: '/embed', minPlan: 'starter', metered: true,
    milliCreditsPerUnit: EMBEDDED_TEXT_MILLI_CREDITS, unit: 'item', countUnits: (b) => countOf(b.items),
  },
  embed_batch: {
    name: 'embed_batch', method: 'POST', path: '/embed/batch', minPlan: 'starter', metered: true,
    milliCreditsPerUnit: EMBEDDED_TEXT_MILLI_CREDITS, unit: 'item', countUnits: (b) => countOf(b.items),
  },
  search: {
    name: 'search', method: 'POST', path: '/search', minPlan: 'starter', metered: true,
    milliCreditsPerUnit: 50, unit: 'corpus item', countUnits: (b) => countOf(b.corpus),
  },
  match: {
    name: 'match', method: 'POST', path: '/match', minPlan: 'starter', metered: true,
    milliCreditsPerUnit: 1000, unit: 'pair', countUnits: (b) => countOf(b.pairs),
  },
  classify: {
    name: 'classify', method: 'POST', path: '/classify', minPlan: 'starter', metered: true,
    milliCreditsPerUnit: 50, unit: 'item', countUnits: (b) => countOf(b.items),
  },
  suggest: {
    name: 'suggest', method: 'POST', path: '/suggest', minPlan: 'pro', metered: true,
    milliCreditsPerUnit: 100, unit: 'cart or menu item', countUnits: (b) => countOf(b.cart) + countOf(b.menu),
  },
  report: {
    name: 'report', method: 'POST', path: '/report', minPlan: 'pro', metered: true,
    milliCreditsPerUnit: 3000, unit: 'item', countUnits: (b) => countOf(b.items),
  },
  dedup: {
    name: 'dedup', method: 'POST', path: '/dedup', minPlan: 'scale', metered: true,
    milliCreditsPerUnit: 1000, unit: 'item', countUnits: (b) => countOf(b.items),
  },
  openai_embeddings: {
    name: 'openai_embeddings', method: 'POST', path: '/v1/embeddings', minPlan: 'starter', metered: true,
    milliCreditsPerUnit: EMBEDDED_TEXT_MILLI_CREDITS, unit: 'input text', countUnits: (b) => countOf(b.items),
  },
  openai_models: {
    name: 'openai_models', method: 'GET', path: '/v1/models', minPlan: 'starter', metered: false,
    milliCreditsPerUnit: 0, unit: 'request', countUnits: noUnits,
  },
  health: {
    name: 'health', method: 'GET', path: '/health', minPlan: 'starter', metered: false,
    milliCreditsPerUnit: 0, unit: 'request', countUnits: noUnits,
  },
  balance: {
    name: 'balance', method: 'GET', path: '/balance', minPlan: 'starter', metered: false,
    milliCreditsPerUnit: 0, unit: 'request', countUnits: noUnits,
  },
  metrics: {
    name: 'metrics', method: 'GET', path: '/metrics', minPlan: 'starter', operatorOnly: true, metered: false,
    milliCreditsPerUnit: 0, unit: 'request', countUnits: noUnits,
  },
  openapi: {
    name: 'openapi', method: 'GET', path: '/openapi.json', minPlan: 'starter', metered: false,
    milliCreditsPerUnit: 0, unit: 'request', countUnits: noUnits,
  },
  docs: {
    name: 'docs', method: 'GET', path: '/docs', minPlan: 'starter', metered: false,
    milliCreditsPerUnit: 0, unit: 'request', countUnits: noUnits,
  },
};

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

export function isEndpointName(value: string): value is EndpointName {
  return Object.hasOwn(ENDPOINTS, value);
}

export function planIncludes(plan: PlanName, endpoint: EndpointName): boolean {
  return !ENDPOINTS[endpoint].operatorOnly && PLANS[plan].rank >= PLANS[ENDPOINTS[endpoint].minPlan].rank;
}

/** The plans whose keys may call the endpoint (none for operator-only endpoints). */
export function plansIncluding(endpoint: EndpointName): PlanName[] {
  return PLAN_NAMES.filter((plan) => planIncludes(plan, endpoint));
}

/** Milli-credits for `units` of `endpoint`; integer arithmetic only. */
export function costInMilliCredits(endpoint: EndpointName, units: number): number {
  return ENDPOINTS[endpoint].milliCreditsPerUnit * units;
}

export const MILLI_PER_CREDIT = 1000;

export function creditsFromMilli(milli: number): number {
  return milli / MILLI_PER_CREDIT;
}

/**
 * Whole milli-credits from a credit amount typed by an operator ("2.5"); more than three decimals
 * would be silently rounded, so they are refused instead.
 */
export function milliFromCredits(credits: number): number | undefined {
  const milli = Math.round(credits * MILLI_PER_CREDIT);
  if (!Number.isFinite(credits) || Math.abs(milli - credits * MILLI_PER_CREDIT) > 1e-6) return undefined;
  if (!Number.isSafeInteger(milli)) return undefined;
  return milli;
}
