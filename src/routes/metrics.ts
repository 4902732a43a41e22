import { RawResponse, type Route } from './route.js';

/** GET /metrics: Prometheus text for the operator key (the access gate refuses every other key with 403). */
export const metricsRoute: Route<null, RawResponse> = {
  endpoint: 'metrics',
  method: 'get',
  path: '/metrics',
  authenticated: true,
  needsModels: false,
  parse: () => null,
  async handle(_req, ctx) {
    return new RawResponse(ctx.services.metrics.contentType, await ctx.services.metrics.render());
  },
};
