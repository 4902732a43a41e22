import cliProgress from 'cli-progress';
import { loadConfig, type Config } from '../config.js';
import { Services } from '../core/services.js';
import { parseCleanedText } from '../core/menu-text.js';
import { DEFAULT_COSINE_THRESHOLD } from '../core/match.js';
import {
  CatalogInterrupted,
  runCatalog,
  type CandidateMode,
  type CatalogCommand,
  type CatalogDeps,
  type CatalogResult,
  type StageName,
  type StageProgress,
} from '../core/catalog/engine.js';
import { InputError, type InputFormat } from '../core/catalog/input.js';

export const CATALOG_USAGE = `usage: menu-intel catalog <dedup|classify|report|embed> FILE --text-column NAME --out PREFIX [options]
       menu-intel catalog worker [--concurrency N]
  FILE                      a CSV file with a header row, a JSONL file, or - for standard input
  --text-column NAME        the column (JSONL: key) holding the item text
  --out PREFIX              outputs go to PREFIX.csv, PREFIX.jsonl, ... and PREFIX.errors.csv (rows that could not be used)
  --restaurant-column NAME  carried through and used for per-restaurant report rows (default: a column named restaurant)
  --outlet-column NAME      carried through (default: a column named outlet)
  --format csv|jsonl        default: from the file name; for standard input, from the first character
  --threshold X             dedup cosine threshold, 0-1 (default ${DEFAULT_COSINE_THRESHOLD})
  --candidates MODE         auto (default: the HNSW index above its measured crossover), index or all-pairs
  --cache-dir DIR           the embedding store (default PREFIX.cache); a rerun reuses what is there
  --distributed             split the run into jobs for 'catalog worker' processes over MENU_REDIS_URL
  --chunk-rows N            rows per distributed chunk job (default 20000)
  --quiet                   no progress bars and no summary (bars are off anyway when stdout is not a terminal)`;

export interface CatalogArgs {
  readonly command: CatalogCommand;
  readonly file: string;
  readonly textColumn: string;
  readonly out: string;
  readonly restaurantColumn?: string;
  readonly outletColumn?: string;
  readonly format?: InputFormat;
  readonly threshold: number;
  readonly candidates: CandidateMode;
  readonly cacheDir?: string;
  readonly quiet: boolean;
  readonly distributed: boolean;
  readonly chunkRows: number;
}

export class UsageError extends Error {}

const COMMANDS: readonly CatalogCommand[] = ['dedup', 'classify', 'report', 'embed'];

export function parseCatalogArgs(argv: readonly string[]): CatalogArgs {
  const [command, ...rest] = argv;
  if (!COMMANDS.includes(command as CatalogCommand)) throw new UsageError(`unknown catalog command "${command ?? ''}"`);
  const flags = new Map<string, string>();
  const positional: string[] = [];
  const booleans = new Set(['--quiet', '--distributed']);
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '-' || !a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (booleans.has(name)) {
      flags.set(name, 'true');
      continue;
    }
    const value = eq > 0 ? a.slice(eq + 1) : rest[++i];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    flags.set(name, value);
  }
  const known = new Set(['--text-column', '--out', '--restaurant-column', '--outlet-column', '--format', '--threshold', '--candidates', '--cache-dir', '--chunk-rows', ...booleans]);
  for (const name of flags.keys()) if (!known.has(name)) throw new UsageError(`unknown option ${name}`);
  if (positional.length !== 1) throw new UsageError(positional.length === 0 ? 'FILE is required (- for standard input)' : `one FILE expected, got ${positional.join(' ')}`);
  const textColumn = flags.get('--text-column');
  if (!textColumn) throw new UsageError('--text-column is required');
  const out = flags.get('--out');
  if (!out) throw new UsageError('--out is required');
  const format = flags.get('--format');
  if (format !== undefined && format !== 'csv' && format !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  const threshold = flags.has('--threshold') ? Number(flags.get('--threshold')) : DEFAULT_COSINE_THRESHOLD;
  if (!(threshold >= 0 && threshold <= 1)) throw new UsageError('--threshold must be a number from 0 to 1');
  const candidates = (flags.get('--candidates') ?? 'auto') as CandidateMode;
  if (!['auto', 'index', 'all-pairs'].includes(candidates)) throw new UsageError('--candidates must be auto, index or all-pairs');
  const chunkRows = flags.has('--chunk-rows') ? Number(flags.get('--chunk-rows')) : 20_000;
  if (!Number.isInteger(chunkRows) || chunkRows < 1) throw new UsageError('--chunk-rows must be a positive integer');
  return {
    command: command as CatalogCommand,
    file: positional[0]!,
    textColumn,
    out,
    restaurantColumn: flags.get('--restaurant-column'),
    outletColumn: flags.get('--outlet-column'),
    format: format as InputFormat | undefined,
    threshold,
    candidates,
    cacheDir: flags.get('--cache-dir'),
    quiet: flags.has('--quiet'),
    distributed: flags.has('--distributed'),
    chunkRows,
  };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function human(n: number, unit: string): string {
  if (unit !== 'bytes') return fmt(n);
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  return `${(n / 1024).toFixed(0)} KiB`;
}

/** A cli-progress bar per stage with its rate and ETA; the finished stage stays on screen with its summary. */
export class BarProgress implements StageProgress {
  private bar: cliProgress.SingleBar | null = null;
  private unit = '';
  private stage: StageName = 'clean';
  private t0 = 0;
  private total: number | null = null;

  constructor(private readonly stream: NodeJS.WriteStream = process.stdout) {}

  start(stage: StageName, total: number | null, unit: string): void {
    this.stage = stage;
    this.unit = unit;
    this.total = total;
    this.t0 = performance.now();
    const known = '{stage} [{bar}] {percentage}% | {done}/{all} {unit} | {rate}/s | ETA {eta_formatted}';
    const unknown = '{stage} {done} {unit} | {rate}/s';
    this.bar = new cliProgress.SingleBar(
      { format: total === null ? unknown : known, stream: this.stream, hideCursor: true, etaBuffer: 64, fps: 5, barsize: 30, clearOnComplete: false },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total ?? 1, 0, this.payload(0));
  }

  private payload(done: number): Record<string, string> {
    const seconds = (performance.now() - this.t0) / 1000;
    return {
      stage: this.stage.padEnd(8),
      done: human(done, this.unit),
      all: this.total === null ? '?' : human(this.total, this.unit),
      unit: this.unit === 'bytes' ? '' : this.unit,
      rate: seconds > 0 ? human(done / seconds, this.unit) : '0',
    };
  }

  update(done: number, total?: number | null): void {
    if (!this.bar) return;
    if (total !== undefined && total !== null && total !== this.total) {
      this.total = total;
      this.bar.setTotal(total);
    }
    this.bar.update(this.total === null ? 0 : done, this.payload(done));
  }

  end(note: string): void {
    if (!this.bar) return;
    this.bar.stop();
    this.bar = null;
    this.stream.write(`  ${this.stage}: ${((performance.now() - this.t0) / 1000).toFixed(1)}s, ${note}\n`);
  }
}

/** Not a terminal: one line per finished stage. */
export class LineProgress implements StageProgress {
  private stage: StageName = 'clean';
  private t0 = 0;
  constructor(private readonly write: (line: string) => void) {}
  start(stage: StageName): void {
    this.stage = stage;
    this.t0 = performance.now();
  }
  update(): void {}
  end(note: string): void {
    this.write(`${this.stage}: ${((performance.now() - this.t0) / 1000).toFixed(1)}s, ${note}`);
  }
}

const quietProgress: StageProgress = { start() {}, update() {}, end() {} };

/** The catalog engine's dependencies from loaded services: /dedup's menu vectors, knowledge and precision stage. */
export function catalogDeps(services: Services): CatalogDeps {
  return {
    // The store holds cleaned texts; each is read as one to make its menu vector, as /dedup makes it.
    embedder: { id: services.menuVectorId, dim: 384, embed: (texts) => services.vectorsOf(texts.map((t) => parseCleanedText(services.knowledge, t)), 384) },
    knowledge: services.knowledge,
    precision: services.pairPrecision(),
    heads: services.heads,
  };
}

/** The service's models as the catalog engine's dependencies. */
export async function loadCatalogDeps(config: Config): Promise<{ deps: CatalogDeps; close: () => Promise<void> }> {
  // The catalog keeps its own store on disk; the server's in-memory LRU would only churn.
  const services = new Services({ ...config, embeddingCacheBytes: 0 });
  await services.ready;
  return { deps: catalogDeps(services), close: () => services.close() };
}

export function summaryLines(r: CatalogResult): string[] {
  const lines = [`catalog ${r.command}: ${fmt(r.rows)} rows (${fmt(r.rowErrors)} unusable, listed in the errors file), ${fmt(r.distinctTexts)} distinct texts, ${fmt(r.names)} names`];
  if (r.clusters !== null) lines.push(`clusters: ${fmt(r.clusters)} of two or more rows, ${fmt(r.duplicateItems ?? 0)} duplicate rows, ${fmt(r.candidatePairs ?? 0)} candidate pairs judged`);
  lines.push(`embeddings: ${fmt(r.embedded)} computed, ${fmt(r.reusedEmbeddings)} reused (${r.cacheDir})`);
  lines.push(`stages: ${Object.entries(r.seconds).map(([s, t]) => `${s} ${t!.toFixed(1)}s`).join(', ')}; peak RSS ${fmt(process.resourceUsage().maxRSS / 1024)} MiB`);
  lines.push(`wrote ${r.files.join(', ')}`);
  return lines;
}

export interface CatalogIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly isTty: boolean;
}

/** `menu-intel catalog …`: exit code 0 done, 1 failed, 2 bad usage or unusable input, 130 interrupted. */
export async function runCatalogCommand(argv: readonly string[], io: CatalogIo = defaultIo()): Promise<number> {
  if (argv[0] === 'worker') {
    const { runWorkerCommand } = await import('./catalog-worker.js');
    return runWorkerCommand(argv.slice(1), io);
  }
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    io.out(CATALOG_USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  let args: CatalogArgs;
  try {
    args = parseCatalogArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`menu-intel catalog: ${err.message}`);
    io.err(CATALOG_USAGE);
    return 2;
  }
  const config = loadConfig();
  const progress: StageProgress = args.quiet ? quietProgress : io.isTty ? new BarProgress() : new LineProgress(io.out);
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    io.err('\n[menu-intel] Ctrl-C: stopping after the current batch (again to quit at once)');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const loaded = await loadCatalogDeps(config);
  try {
    const options = {
      command: args.command,
      input: { path: args.file, format: args.format, textColumn: args.textColumn, restaurantColumn: args.restaurantColumn, outletColumn: args.outletColumn },
      outPrefix: args.out,
      cacheDir: args.cacheDir,
      cosineThreshold: args.threshold,
      candidates: args.candidates,
      signal: controller.signal,
      progress,
    };
    let result: CatalogResult;
    if (args.distributed) {
      if (!config.redisUrl) {
        io.err('menu-intel catalog: --distributed needs MENU_REDIS_URL (the Redis the workers share)');
        return 2;
      }
      const { runDistributedCatalog } = await import('../core/catalog/distributed.js');
      result = await runDistributedCatalog({ ...options, redisUrl: config.redisUrl, chunkRows: args.chunkRows, log: args.quiet ? () => {} : io.out }, loaded.deps);
    } else {
      result = await runCatalog(options, loaded.deps);
    }
    if (!args.quiet) for (const line of summaryLines(result)) io.out(line);
    return 0;
  } catch (err) {
    if (err instanceof CatalogInterrupted) {
      io.err(
        `[menu-intel] interrupted during ${err.stage}: no output file written; ${fmt(err.embeddingsStored)} embeddings are stored in ${err.cacheDir}` +
          ' and a rerun with the same --out (or --cache-dir) reuses them',
      );
      return 130;
    }
    if (err instanceof InputError) {
      io.err(`menu-intel catalog: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    await loaded.close();
  }
}

function defaultIo(): CatalogIo {
  return { out: (l) => console.log(l), err: (l) => console.error(l), isTty: process.stdout.isTTY === true };
}
