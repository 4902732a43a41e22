import typia, { tags } from 'typia';
import { buildMenuReport, type MenuReport } from '../core/report.js';
import { typed, type MenuText, type Route } from './route.js';

export interface ReportRequest {
  /** A whole menu (split larger ones into batches). */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<2000>;
  /** Shown back in the report; default empty. */
  restaurant_name?: MenuText | null;
}

export const reportRoute: Route<{ items: string[]; restaurantName: string }, MenuReport> = {
  endpoint: 'report',
  method: 'post',
  path: '/report',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<ReportRequest>(body));
    const restaurantName = req.restaurant_name ?? '';
    return { items: req.items, restaurantName };
  },
  async handle(req, ctx) {
    return buildMenuReport(ctx.services, req.items, req.restaurantName);
  },
};
