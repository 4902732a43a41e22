import type { Route } from './route.js';
import { embedRoute } from './embed.js';
import { embedBatchRoute } from './embed-batch.js';
import { healthRoute } from './health.js';
import { balanceRoute } from './balance.js';
import { matchRoute } from './match.js';
import { searchRoute } from './search.js';
import { dedupRoute } from './dedup.js';
import { reportRoute } from './report.js';
import { classifyRoute } from './classify.js';
import { suggestRoute } from './suggest.js';

/** Every route, registered in one place. */
export const ROUTES: readonly Route<any, any>[] = [healthRoute, balanceRoute, embedRoute, embedBatchRoute, matchRoute, searchRoute, dedupRoute, reportRoute, classifyRoute, suggestRoute];
