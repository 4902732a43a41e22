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
