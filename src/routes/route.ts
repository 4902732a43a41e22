import type { IValidation, tags } from 'typia';
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

/** A response that is not JSON: the docs page and its assets, Prometheus text. */
export class RawResponse {
  constructor(
    readonly contentType: string,
    readonly body: string | Buffer,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/**
 * One endpoint: a pure function from a validated request (plus services) to a response object. The HTTP layer owns
 * sockets, auth, metering and error mapping; a route never sees them.
 */
export interface Route<Req = unknown, Res = unknown> {
  readonly endpoint: EndpointName;
  readonly method: 'get' | 'post';
  /** The path, with `{name}` for a path parameter (`/docs/assets/{file}`), as the OpenAPI document writes it. */
  readonly path: string;
  /** Needs an API key (everything but /health and the documentation). */
  readonly authenticated: boolean;
  /** Also takes the key as `Authorization: Bearer <key>` (what OpenAI clients send). */
  readonly acceptsBearer?: boolean;
  /** Errors in OpenAI's shape ({error: {message, type, param, code}}) rather than {detail, code}. */
  readonly errorStyle?: 'openai';
  /** Needs a loaded model before it can answer (503 model_loading otherwise). */
  readonly needsModels: boolean;
  /** Type check (422) then value and limit checks (400/422); throws ApiError. */
  parse(body: unknown, params?: Readonly<Record<string, string>>): Req;
  /** The JSON response object, or a RawResponse for the routes that answer something else. */
  handle(req: Req, ctx: RouteContext): Promise<Res>;
}

/**
 * Text length in characters (Unicode code points, as JSON Schema's maxLength counts them), not UTF-16 units: a
 * 500-character name in Devanagari or with emoji is within the limit. Validates in typia and writes `maxLength` into
 * the OpenAPI document, so the two cannot disagree.
 */
export type MaxChars<N extends number> = tags.TagBase<{
  target: 'string';
  kind: 'maxChars';
  value: N;
  validate: `$input.length <= ${N} || [...$input].length <= ${N}`;
  exclusive: ['maxLength'];
  schema: { maxLength: N };
}>;

/** A menu item text as submitted: at most 500 characters. */
export type MenuText = string & MaxChars<500>;

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** One typia problem in words: limits from the type's tags are said as limits, with the value's size. */
function describeProblem(e: IValidation.IError): string {
  const path = e.path.replace(/^\$input\.?/, '') || 'body';
  if (e.value === undefined) return `${path} is required (${e.expected})`;
  const minItems = /MinItems<(\d+)>/.exec(e.expected);
  const maxItems = /MaxItems<(\d+)>/.exec(e.expected);
  if ((minItems || maxItems) && Array.isArray(e.value)) {
    const n = e.value.length;
    if (minItems && n < Number(minItems[1])) return `${path} must have at least ${plural(Number(minItems[1]), 'entry', 'entries')}, got ${n}`;
    if (maxItems) return `${path} must have at most ${maxItems[1]} entries, got ${n}`;
  }
  const maxChars = /MaxChars<(\d+)>/.exec(e.expected);
  if (maxChars && typeof e.value === 'string') return `${path} is ${[...e.value].length} characters; the limit is ${maxChars[1]}`;
  const minLength = /MinLength<(\d+)>/.exec(e.expected);
  if (minLength && typeof e.value === 'string') return `${path} must have at least ${plural(Number(minLength[1]), 'character', 'characters')}`;
  return `${path} must be ${e.expected}`;
}

/** The request field a typia problem is about, as a client names it ("items", "input[3]"). */
function problemParam(e: IValidation.IError): string | null {
  return e.path.replace(/^\$input\.?/, '') || null;
}

/** Turns a typia validation result into the request or a 422 naming the first problems. */
export function typed<T>(result: IValidation<T>): T {
  if (result.success) return result.data;
  const problems = result.errors.slice(0, 5).map(describeProblem);
  throw new ApiError('validation_error', problems.join('; '), {}, result.errors[0] ? problemParam(result.errors[0]) : null);
}

/** A text that must say something: blank (only spaces) is as empty as "". */
export function checkText(name: string, text: string, min = 0): void {
  if ([...text].length < min || (min > 0 && text.trim() === '')) throw new ApiError('validation_error', `${name} must not be empty`, {}, name);
}
