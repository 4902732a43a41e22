import typia, { tags } from 'typia';
import { classifyItems } from '../core/classify.js';
import { typed, type MenuText, type Route } from './route.js';

export interface ClassifyRequest {
  /** Menu item texts, in the order their labels come back. */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<512>;
}

export interface ClassificationResult {
  /** As submitted. */
  text: string;
  /** One of the 19 cuisine labels (North Indian, South Indian, Chinese, Italian, ..., Beverages, Desserts), or "uncertain". */
  cuisine: string;
  /** Calibrated confidence, 0-1 (0 for a name nothing is known about). */
  confidence: number;
}

export interface ClassifyResponse {
  /** One result per item, in submission order. */
  results: ClassificationResult[];
}

/** POST /classify: one cuisine label (or "uncertain") per item, in submission order. */
export const classifyRoute: Route<ClassifyRequest, ClassifyResponse> = {
  endpoint: 'classify',
  method: 'post',
  path: '/classify',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<ClassifyRequest>(body));
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
