/**
 * The load mix of the soak and overload runs: autocannon (loopback only) with one instance per endpoint at its own
 * rate, so latency percentiles come per endpoint. Bodies are drawn per request from real dish names with a random
 * numbered variant now and then, so the embedding cache sees hits and misses as with real traffic.
 */
import autocannon from 'autocannon';

const DISHES = [
  'Paneer Tikka', 'Chicken Dum Biryani', 'Masala Dosa', 'Veg Hakka Noodles', 'Dal Makhani', 'Gulab Jamun', 'Cold Coffee',
  'Butter Naan', 'Margherita Pizza', 'Chilli Chicken', 'Mango Lassi', 'Aloo Paratha', 'Idli Sambar', 'Veg Manchurian',
  'Chocolate Brownie', 'Tandoori Roti', 'Jeera Rice', 'Fish Curry', 'Masala Chai', 'Pav Bhaji', 'Chole Bhature',
  'Hyderabadi Mutton Biryani', 'Paneer Butter Masala', 'Egg Fried Rice', 'Veg Spring Roll', 'Rasmalai', 'Fresh Lime Soda',
  'Kadai Chicken', 'Onion Uttapam', 'Schezwan Noodles', 'Caesar Salad', 'Pasta Alfredo', 'Lemon Iced Tea', 'Mutton Rogan Josh',
];

let counter = 0;
function dishes(n: number): string[] {
  return Array.from({ length: n }, () => {
    const d = DISHES[Math.floor(Math.random() * DISHES.length)]!;
    // About one in five is a name the cache has not seen.
    return Math.random() < 0.2 ? `${d} Special ${++counter}` : d;
  });
}

export interface EndpointLoad {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** Requests per second. */
  rate: number;
  body?: () => Record<string, unknown>;
}

/** The soak's mix at 150 requests per second (the Scale plan's rate); metered endpoints take 133 of them. */
export const SOAK_MIX: EndpointLoad[] = [
  { name: 'embed', method: 'POST', path: '/embed', rate: 35, body: () => ({ items: dishes(1 + Math.floor(Math.random() * 8)) }) },
  { name: 'embed_batch', method: 'POST', path: '/embed/batch', rate: 8, body: () => ({ items: dishes(50) }) },
  { name: 'search', method: 'POST', path: '/search', rate: 30, body: () => ({ query: dishes(1)[0]!.split(' ')[0]!.toLowerCase(), corpus: dishes(20) }) },
  { name: 'classify', method: 'POST', path: '/classify', rate: 20, body: () => ({ items: dishes(5) }) },
  { name: 'match', method: 'POST', path: '/match', rate: 20, body: () => ({ pairs: Array.from({ length: 3 }, () => ({ text_a: dishes(1)[0], text_b: dishes(1)[0] })) }) },
  { name: 'suggest', method: 'POST', path: '/suggest', rate: 10, body: () => ({ cart: dishes(2), menu: dishes(20) }) },
  { name: 'dedup', method: 'POST', path: '/dedup', rate: 6, body: () => ({ items: dishes(20) }) },
  { name: 'report', method: 'POST', path: '/report', rate: 4, body: () => ({ items: dishes(20), restaurant_name: 'Soak Kitchen' }) },
  { name: 'balance', method: 'GET', path: '/balance', rate: 10 },
  { name: 'health', method: 'GET', path: '/health', rate: 7 },
];

export interface EndpointResult {
  name: string;
  rate: number;
  sent: number;
  byStatus: Record<string, number>;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  max: number;
  achievedRate: number;
}

/** Runs `load` against `url` for `seconds`, each endpoint with `key(endpoint)`; resolves with one result per endpoint. */
export async function runMix(url: string, key: (endpoint: string) => string, load: readonly EndpointLoad[], seconds: number, opts: { scale?: number; connections?: number } = {}): Promise<EndpointResult[]> {
  const scale = opts.scale ?? 1;
  const runs = load.map(async (e) => {
    const rate = Math.max(1, Math.round(e.rate * scale));
    const connections = opts.connections ?? Math.max(2, Math.ceil(rate / 5));
    const result = await autocannon({
      url: url + e.path,
      connections,
      overallRate: rate,
      duration: seconds,
      timeout: 30,
      requests: [
        {
          method: e.method,
          path: e.path,
          headers: { 'content-type': 'application/json', 'x-api-key': key(e.name) },
          ...(e.body ? { setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify(e.body!()) }) } : {}),
        },
      ],
    });
    const byStatus: Record<string, number> = {};
    for (const [status, s] of Object.entries(result.statusCodeStats ?? {})) byStatus[status] = Number((s as { count: number | string }).count);
    const sent = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return {
      name: e.name,
      rate,
      sent,
      byStatus,
      errors: result.errors,
      timeouts: result.timeouts,
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
      achievedRate: sent / seconds,
    } satisfies EndpointResult;
  });
  return Promise.all(runs);
}
