/**
 * A `catalog worker` process for the distributed test with the trigram stand-in encoder (test/helpers/fake-embedder.ts)
 * instead of the models, so BullMQ chunking, retries and the merge are tested on any developer box with redis-server.
 * FAKE_EMBED_DELAY_MS slows each embedding call so a test can kill the process while a chunk is in hand.
 * argv: REDIS_URL CACHE_DIR
 */
import { loadKnowledge } from '../../src/core/knowledge/index.js';
import { startCatalogWorker } from '../../src/core/catalog/distributed.js';
import { CountingEmbedder } from './fake-embedder.js';

const [redisUrl, cacheDir] = process.argv.slice(2);
const delay = Number(process.env.FAKE_EMBED_DELAY_MS ?? 0);
const worker = await startCatalogWorker(
  { redisUrl: redisUrl!, cacheDir: cacheDir!, lockMs: 2000, log: (line) => console.log(line) },
  { embedder: new CountingEmbedder('fake-trigram-v1', delay), knowledge: loadKnowledge() },
);
const stop = async (): Promise<void> => {
  setTimeout(() => process.exit(1), 10_000).unref(); // Redis gone: stop anyway
  await worker.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
