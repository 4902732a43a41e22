import typia, { tags } from 'typia';
import { ApiError } from '../core/errors.js';
import { suggestForCart, type CartSuggestions } from '../core/suggest.js';
import { typed, type MenuText, type Route } from './route.js';
import { roundHundredths } from '../core/number-format.js';

export interface SuggestRequest {
  /** What the customer has chosen. */
  cart: MenuText[] & tags.MinItems<1> & tags.MaxItems<50>;
  /** The restaurant's menu to suggest from. */
  menu: MenuText[] & tags.MinItems<1> & tags.MaxItems<500>;
  /** Most suggestions (1-20, default 5; outside is 400 invalid_parameter). */
  top_k?: (number & tags.JsonSchemaPlugin<{ minimum: 1; maximum: 20 }> & tags.Default<5>) | null;
}

export interface SuggestResponse extends CartSuggestions {
  processing_time_ms: number;
}

export const DEFAULT_SUGGEST_TOP_K = 5;
export const MAX_SUGGEST_TOP_K = 20;

/** top_k is a whole number in 1–20; a well-typed value outside that is 400 (a wrong type is 422, from typia). */
export function parseSuggestTopK(value: number | null | undefined): number {
  if (value === undefined || value === null) return DEFAULT_SUGGEST_TOP_K;
  if (!Number.isInteger(value) || value < 1 || value > MAX_SUGGEST_TOP_K) {
    throw new ApiError('invalid_parameter', `top_k must be a whole number from 1 to ${MAX_SUGGEST_TOP_K}, got ${value}`, {}, 'top_k');
  }
  return value;
}

/** POST /suggest: upsell suggestions for a cart from a menu (ranking rules in src/core/suggest.ts). */
export const suggestRoute: Route<{ cart: string[]; menu: string[]; topK: number }, SuggestResponse> = {
  endpoint: 'suggest',
  method: 'post',
  path: '/suggest',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<SuggestRequest>(body));
    return { cart: req.cart, menu: req.menu, topK: parseSuggestTopK(req.top_k) };
  },
  async handle(req, ctx) {
    const started = performance.now();
    const result = await suggestForCart(ctx.services, req.cart, req.menu, req.topK);
    return { ...result, processing_time_ms: roundHundredths(performance.now() - started) };
  },
};
