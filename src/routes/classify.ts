import typia from 'typia';
import { classifyItems } from '../core/classify.js';
import { checkCount, checkTexts, typed, type Route } from './route.js';

export interface ClassifyRequest {
  items: string[];
}

export interface ClassificationResult {
  text: string;
  cuisine: string;
  confidence: number;
}

export interface ClassifyResponse {
  results: ClassificationResult[];
}

export const MAX_CLASSIFY_ITEMS = 512;

/** POST /classify: one cuisine label (or "uncertain") per item, in submission order. */
export const classifyRoute: Route<ClassifyRequest, ClassifyResponse> = {
  endpoint: 'classify',
  method: 'post',
  path: '/classify',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<ClassifyRequest>(body));
    checkCount('items', req.items.length, 1, MAX_CLASSIFY_ITEMS);
    checkTexts('items', req.items);
    return { items: req.items };
  },
  async handle(req, ctx) {
    const { texts, vectors } = await ctx.services.embedTexts(req.items, 384);
    const labels = await classifyItems(ctx.services, texts, vectors);
    return {
      results: req.items.map((text, i) => ({ text, cuisine: labels[i]!.cuisine, confidence: labels[i]!.confidence })),
    };
  },
};
