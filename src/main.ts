import { loadConfig } from './config.js';
import { Services } from './core/services.js';
import type { AccessGate } from './core/access-gate.js';
import { createAccessControl } from './core/accounts/access.js';
import { startHttpServer } from './http/server.js';
import { ROUTES } from './routes/index.js';

const USAGE = `usage: menu-intel <command>
  serve                      start the HTTP server (HOST, PORT and MENU_* environment variables; see README)
  keys <subcommand> ...      manage API keys (create, list, revoke, set-plan, add-credits)
  catalog <subcommand> ...   whole-catalog dedup, classify, report and embed from CSV/JSONL files; catalog worker
                             processes share a distributed run (menu-intel catalog help)`;

async function createGate(config: ReturnType<typeof loadConfig>): Promise<AccessGate> {
  return createAccessControl({ dataDir: config.dataDir, redisUrl: config.redisUrl, operatorKey: config.operatorKey });
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const services = new Services(config);
  services.ready.catch((err: unknown) => console.error(`[menu-intel] model loading failed: ${err instanceof Error ? err.message : err}`));
  const gate = await createGate(config);
  const server = await startHttpServer({ config, services, gate, routes: ROUTES });
  console.log(`[menu-intel] listening on http://${config.host}:${server.port}`);
  void services.ready.then(() => console.log(`[menu-intel] models ready in ${services.loadTimeSeconds.toFixed(2)}s (${services.modelId})`), () => {});
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`[menu-intel] ${signal}: draining`);
    server.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('[menu-intel] shutdown error', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') {
    await serve();
    return -1; // keep running
  }
  if (command === 'keys') {
    const { runKeysCommand } = await import('./cli/keys.js');
    const config = loadConfig();
    return runKeysCommand(rest, {
      dataDir: config.dataDir,
      redisUrl: config.redisUrl,
      out: (l: string) => console.log(l),
      err: (l: string) => console.error(l),
    });
  }
  if (command === 'catalog') {
    const { runCatalogCommand } = await import('./cli/catalog.js');
    return runCatalogCommand(rest);
  }
  console.error(USAGE);
  return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
}
