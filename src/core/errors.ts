/**
 * The one table of error codes the service can answer with. Every error body is
 * `{ "detail": string, "code": ErrorCode }`; the HTTP layer maps `status` straight through.
 * Core modules throw `ApiError` with a code from this table and never mention HTTP themselves:
 * the status lives here so that the mapping is reviewed in one place (and tested: every code is
 * documented in docs/errors.md and listed, per operation, in the OpenAPI document).
 */
export const ERROR_CODES = {
  malformed_json: { status: 400, doc: 'The body is not valid JSON, is empty, or is not a JSON object.' },
  invalid_parameter: { status: 400, doc: 'A field has a value outside its allowed set or range (for example dimension 100, top_k 0).' },
  unauthorized: { status: 401, doc: 'Missing or invalid API key.' },
  quota_exceeded: { status: 402, doc: "The plan's monthly call quota is used up; it resets on the 1st (UTC) or on upgrade." },
  insufficient_credits: { status: 402, doc: 'The request costs more credits than the account has left; nothing was charged.' },
  plan_forbidden: { status: 403, doc: "The endpoint is not part of the key's plan; the detail names the plan that includes it." },
  operator_only: { status: 403, doc: 'The endpoint (/metrics) is for the operator key only.' },
  not_found: { status: 404, doc: 'No such endpoint.' },
  model_not_found: { status: 404, doc: 'The model named in a /v1/embeddings request is not the one this server serves; GET /v1/models lists it.' },
  method_not_allowed: { status: 405, doc: 'The endpoint exists but not for this HTTP method.' },
  payload_too_large: { status: 413, doc: 'The request body is larger than MENU_MAX_BODY_BYTES.' },
  unsupported_media_type: { status: 415, doc: 'Reserved: bodies are read as JSON whatever the Content-Type says.' },
  validation_error: { status: 422, doc: 'A required field is missing or has the wrong type, a text is too long, or a count limit is broken.' },
  rate_limited: { status: 429, doc: "More requests per second than the plan allows; retry after the Retry-After header's seconds." },
  too_many_in_flight: { status: 429, doc: 'Too many requests of this key are in flight at once; retry after Retry-After.' },
  overloaded: { status: 429, doc: 'The inference queue is full; retry after Retry-After.' },
  internal_error: { status: 500, doc: 'A bug on our side; the request id in the response header identifies it in the logs.' },
  model_loading: { status: 503, doc: 'Models are still loading; retry after a few seconds.' },
  store_unavailable: { status: 503, doc: 'The account store (SQLite or Redis) is unreachable; metered requests fail closed until it is back.' },
  shutting_down: { status: 503, doc: 'The server is draining for shutdown; retry on another replica.' },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. Retry-After for 429. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request field at fault, when one is (the OpenAI-compatible error body names it). */
  readonly param: string | null;

  constructor(code: ErrorCode, detail: string, headers: Record<string, string> = {}, param: string | null = null) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.headers = headers;
    this.param = param;
  }

  toBody(): { detail: string; code: ErrorCode } {
    return { detail: this.message, code: this.code };
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
