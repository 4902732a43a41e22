import type { IValidation } from 'typia';
import { ApiError } from '../core/errors.js';
import type { Services } from '../core/services.js';
import type { CallerBalance } from '../core/access-gate.js';

import type { EndpointName } from '../core/accounts/plans.js';

export type { EndpointName };

export interface RouteContext {
  readonly services: Services;
  /** True when the caller holds the operator key (diagnostic views). */
  readonly isOperator: boolean;
  /** The caller's account balance (for /balance), from the access gate. */
  balance(): Promise<CallerBalance>;
  /** The request's Accept header, for routes that can answer in more than one format (absent: JSON). */
  readonly accept?: string;
}

/** A response body the route wrote itself: binary vectors, or JSON written straight from typed arrays. */
export class RawResponse {
  constructor(
    readonly contentType: string,
    readonly body: string | Buffer,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/**
 * Whether the Accept header prefers `type` to JSON: the higher quality wins, an equal one goes to the type listed
 * first; no Accept header, or `*\/*`, means JSON.
 */
export function prefers(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  let best: { q: number; index: number } | null = null;
  let json: { q: number; index: number } | null = null;
  accept.split(',').forEach((part, index) => {
    const [media, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) return;
    if (media === type && (!best || q > best.q)) best = { q, index };
    if ((media === 'application/json' || media === 'application/*' || media === '*/*') && (!json || q > json.q)) json = { q, index };
  });
  const b = best as { q: number; index: number } | null;
  const j = json as { q: number; index: number } | null;
  if (!b) return false;
  return !j || b.q > j.q || (b.q === j.q && b.index < j.index);
}

/**
 * One endpoint: a pure function from a validated request (plus services) to a response object. The HTTP layer owns
 * sockets, auth, metering and error mapping; a route never sees them.
 */
export interface Route<Req = unknown, Res = unknown> {
  readonly endpoint: EndpointName;
  readonly method: 'get' | 'post';
  readonly path: string;
  /** Needs an API key (everything but /health). */
  readonly authenticated: boolean;
  /** Needs a loaded model before it can answer (503 model_loading otherwise). */
  readonly needsModels: boolean;
  /** Type check (422) then value and limit checks (400/422); throws ApiError. */
  parse(body: unknown): Req;
  /** The JSON response object, or a RawResponse (written as it is) for the routes that answer otherwise. */
  handle(req: Req, ctx: RouteContext): Promise<Res>;
}

/** Turns a typia validation result into the request or a 422 naming the first problems. */
export function typed<T>(result: IValidation<T>): T {
  if (result.success) return result.data;
  const problems = result.errors.slice(0, 5).map((e) => {
    const path = e.path.replace(/^\$input\.?/, '') || 'body';
    return e.value === undefined ? `${path} is required (${e.expected})` : `${path} must be ${e.expected}`;
  });
  throw new ApiError('validation_error', problems.join('; '));
}

export function checkCount(name: string, n: number, min: number, max: number): void {
  if (n < min || n > max) throw new ApiError('validation_error', `${name} must have ${min}-${max} entries, got ${n}`);
}

export const MAX_TEXT_CHARS = 500;

export function checkTexts(name: string, texts: readonly string[]): void {
  for (let i = 0; i < texts.length; i++) {
    const len = [...texts[i]!].length;
    if (len > MAX_TEXT_CHARS) throw new ApiError('validation_error', `${name}[${i}] is ${len} characters; the limit is ${MAX_TEXT_CHARS}`);
  }
}

export function checkText(name: string, text: string, min = 0): void {
  const len = [...text].length;
  if (len > MAX_TEXT_CHARS) throw new ApiError('validation_error', `${name} is ${len} characters; the limit is ${MAX_TEXT_CHARS}`);
  if (len < min || (min > 0 && text.trim() === '')) throw new ApiError('validation_error', `${name} must not be empty`);
}
