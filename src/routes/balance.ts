import type { CallerBalance } from '../core/access-gate.js';
import type { Route } from './route.js';

/** GET /balance: free, on every plan. The HTTP layer fills in the balance from the access gate. */
export const balanceRoute: Route<null, CallerBalance> = {
  endpoint: 'balance',
  method: 'get',
  path: '/balance',
  authenticated: true,
  needsModels: false,
  parse: () => null,
  async handle(_req, ctx) {
    return ctx.balance();
  },
};
