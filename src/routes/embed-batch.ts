import { makeEmbedRoute } from './embed.js';

/** Same contract as /embed with up to 5000 items; the batcher chunks them and interleaves other requests. */
export const embedBatchRoute = makeEmbedRoute({ endpoint: 'embed_batch', path: '/embed/batch', maxItems: 5000 });
