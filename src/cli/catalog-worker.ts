import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { startCatalogWorker } from '../core/catalog/distributed.js';
import { loadCatalogDeps, type CatalogIo } from './catalog.js';

/**
 * `menu-intel catalog worker [--concurrency N] [--cache-dir DIR]`: takes chunk, shard and query jobs of distributed
 * catalog runs from MENU_REDIS_URL until SIGTERM / SIGINT (it finishes the job in hand first).
 */
export async function runWorkerCommand(argv: readonly string[], io: CatalogIo): Promise<number> {
  let concurrency = 1;
  let cacheDir: string | undefined;
  let lockMs = 30_000;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = argv[i + 1];
    if (a === '--concurrency' && value !== undefined) concurrency = Number(argv[++i]);
    else if (a === '--cache-dir' && value !== undefined) cacheDir = argv[++i];
    else if (a === '--lock-ms' && value !== undefined) lockMs = Number(argv[++i]);
    else {
      io.err(`menu-intel catalog worker: unknown option ${a}`);
      return 2;
    }
  }
  if (!Number.isInteger(concurrency) || concurrency < 1 || !Number.isFinite(lockMs) || lockMs < 1000) {
    io.err('menu-intel catalog worker: --concurrency must be a positive integer and --lock-ms at least 1000');
    return 2;
  }
  const config = loadConfig();
  if (!config.redisUrl) {
    io.err('menu-intel catalog worker: MENU_REDIS_URL is not set (the Redis the coordinator and workers share)');
    return 2;
  }
  const loaded = await loadCatalogDeps(config);
  const worker = await startCatalogWorker(
    { redisUrl: config.redisUrl, cacheDir: cacheDir ?? join(config.dataDir, 'catalog-cache'), concurrency, lockMs, log: io.out },
    loaded.deps,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  io.out(`[worker ${worker.id}] stopping`);
  // A worker whose Redis is gone cannot hand its job back; it stops anyway (the job's lock expires and it is retried).
  const closed = await Promise.race([worker.close().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref())]);
  if (!closed) io.err(`[worker ${worker.id}] Redis did not answer within 10 s; stopping without it`);
  await loaded.close();
  if (!closed) process.exit(1); // the dead connection's reconnect timers would keep the process alive
  return 0;
}
