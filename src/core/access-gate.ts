import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';
import type { EndpointName } from './accounts/plans.js';
import { UNLIMITED_BALANCE } from './accounts/access.js';

/** Who is calling, as far as routes and the HTTP layer need to know. */
export interface CallerPrincipal {
  readonly customer: string;
  readonly isOperator: boolean;
  /** The key's display prefix (never the key), for request logs. */
  readonly keyPrefix?: string;
}

/** A reservation for one request: settle when the work succeeded, release when it did not (both idempotent). */
export interface CallAdmission {
  readonly headers: Readonly<Record<string, string>>;
  settle(): Promise<void>;
  release(): Promise<void>;
}

export interface CallerBalance {
  customer: string;
  credits_remaining: number;
  unlimited: boolean;
}

/**
 * What the HTTP layer asks of the accounts layer, in this order: authenticate (401) → authorize (403) → [the HTTP
 * layer validates the body: 400/422] → admit (429 rate/in-flight, then 402 quota/credits) → work → settle/release.
 */
export interface AccessGate {
  authenticate(rawKey: string | undefined): Promise<CallerPrincipal>;
  authorize(principal: CallerPrincipal, endpoint: EndpointName): void;
  admit(principal: CallerPrincipal, endpoint: EndpointName, units: number): Promise<CallAdmission>;
  balance(principal: CallerPrincipal): Promise<CallerBalance>;
  close(): Promise<void>;
}

const FREE_ADMISSION: CallAdmission = { headers: {}, settle: async () => {}, release: async () => {} };

/**
 * Only the operator key from MENU_OPERATOR_KEY is accepted. Used when no account store is configured (tests of the
 * inference path, local development); the account store replaces it without touching routes.
 */
export class OperatorOnlyGate implements AccessGate {
  private readonly digest: Buffer | null;

  constructor(operatorKey: string | undefined) {
    this.digest = operatorKey ? createHash('sha256').update(operatorKey).digest() : null;
  }

  async authenticate(rawKey: string | undefined): Promise<CallerPrincipal> {
    if (rawKey && this.digest && timingSafeEqual(createHash('sha256').update(rawKey).digest(), this.digest)) {
      return { customer: 'operator', isOperator: true, keyPrefix: 'operator' };
    }
    throw new ApiError('unauthorized', 'invalid or missing API key');
  }

  authorize(): void {}

  async admit(): Promise<CallAdmission> {
    return FREE_ADMISSION;
  }

  async balance(p: CallerPrincipal): Promise<CallerBalance> {
    return { customer: p.customer, credits_remaining: UNLIMITED_BALANCE, unlimited: true };
  }

  async close(): Promise<void> {}
}
