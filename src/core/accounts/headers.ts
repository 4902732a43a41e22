/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy` lists
 * the quota policies (`q` quota, `w` window in seconds, `qu` quota unit) and `RateLimit` the live state
 * per policy (`r` remaining, `t` seconds until the quota resets). Both are Structured-Field lists whose
 * members are quoted policy names.
 */
export interface QuotaPolicy {
  name: string;
  quota: number;
  windowSeconds?: number;
  unit?: 'requests' | 'concurrent-requests';
}

export interface QuotaState {
  name: string;
  remaining: number;
  resetSeconds?: number;
}

export function formatRateLimitPolicy(policies: readonly QuotaPolicy[]): string {
  return policies
    .map((p) => {
      let item = `"${p.name}";q=${p.quota}`;
      if (p.unit && p.unit !== 'requests') item += `;qu="${p.unit}"`;
      if (p.windowSeconds !== undefined) item += `;w=${p.windowSeconds}`;
      return item;
    })
    .join(', ');
}

export function formatRateLimit(states: readonly QuotaState[]): string {
  return states
    .map((s) => {
      let item = `"${s.name}";r=${Math.max(0, s.remaining)}`;
      if (s.resetSeconds !== undefined) item += `;t=${Math.max(0, s.resetSeconds)}`;
      return item;
    })
    .join(', ');
}

/** Policy names used by the service (also what clients see in the headers). */
export const POLICY = { perSecond: 'per-second', monthly: 'monthly', inFlight: 'in-flight' } as const;
