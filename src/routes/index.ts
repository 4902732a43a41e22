import type { Route } from './route.js';
import { embedBatchRoute, embedRoute } from './embed.js';
import { healthRoute } from './health.js';
import { balanceRoute } from './balance.js';
import { matchRoute } from './match.js';
import { searchRoute } from './search.js';
import { dedupRoute } from './dedup.js';
import { reportRoute } from './report.js';
import { classifyRoute } from './classify.js';
import { suggestRoute } from './suggest.js';
import { openAIEmbeddingsRoute, openAIModelsRoute } from './openai-embeddings.js';
import { metricsRoute } from './metrics.js';
import { docsAssetRoute, docsGuideRoute, docsPageRoute, makeOpenApiRoute } from './docs.js';

/** Every route, registered in one place; /openapi.json describes exactly these (a test holds it to that). */
export const ROUTES: readonly Route<any, any>[] = [
  healthRoute,
  balanceRoute,
  embedRoute,
  embedBatchRoute,
  matchRoute,
  searchRoute,
  dedupRoute,
  reportRoute,
  classifyRoute,
  suggestRoute,
  openAIEmbeddingsRoute,
  openAIModelsRoute,
  metricsRoute,
  makeOpenApiRoute(() => ROUTES),
  docsPageRoute,
  docsAssetRoute,
  docsGuideRoute,
];
