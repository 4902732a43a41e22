import typia from 'typia';
import { buildMenuReport, type MenuReport } from '../core/report.js';
import { checkCount, checkText, checkTexts, typed, type Route } from './route.js';

export interface ReportRequest {
  items: string[];
  restaurant_name?: string | null;
}

export const MAX_REPORT_ITEMS = 2000;

export const reportRoute: Route<{ items: string[]; restaurantName: string }, MenuReport> = {
  endpoint: 'report',
  method: 'post',
  path: '/report',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<ReportRequest>(body));
    checkCount('items', req.items.length, 1, MAX_REPORT_ITEMS);
    checkTexts('items', req.items);
    const restaurantName = req.restaurant_name ?? '';
    checkText('restaurant_name', restaurantName);
    return { items: req.items, restaurantName };
  },
  async handle(req, ctx) {
    return buildMenuReport(ctx.services, req.items, req.restaurantName);
  },
};
