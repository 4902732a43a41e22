/**
 * A real redis-server for a test: its own free loopback port and temp folder, append-only file with
 * fsync on every write (so a SIGKILL loses nothing and a restart on the same port sees the same data),
 * killed and deleted at teardown. Tests that need it skip with `redisSkipReason` when Debian's
 * redis-server is not installed (scripts/ensure-redis.sh installs it; CI runs that first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

export const REDIS_SERVER_BIN = findRedisServer();

/** `false` when redis-server is available, else the reason to pass as tap's `skip` option. */
export const redisSkipReason: string | false = REDIS_SERVER_BIN
  ? false
  : 'redis-server is not installed (run scripts/ensure-redis.sh, or apt-get install redis-server)';

interface Teardown {
  teardown(fn: () => unknown): void;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** One PING over a raw socket: true when the server answers +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

const running = new Set<ChildProcess>();
// A test that crashes must not leave redis-server processes behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class RedisProcess {
  readonly port: number;
  readonly dir: string;
  #child: ChildProcess | undefined;
  #log = '';

  constructor(port: number, dir: string) {
    this.port = port;
    this.dir = dir;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts (or restarts) the server on the same port and folder, and waits until it answers PING. */
  async start(): Promise<void> {
    if (this.#child) return;
    if (!REDIS_SERVER_BIN) throw new Error(redisSkipReason || 'redis-server missing');
    const child = spawn(
      REDIS_SERVER_BIN,
      [
        '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '',
        '--appendonly', 'yes', '--appendfsync', 'always', '--daemonize', 'no', '--logfile', '',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => (this.#log = (this.#log + chunk.toString()).slice(-4000)));
    child.stderr?.on('data', (chunk: Buffer) => (this.#log = (this.#log + chunk.toString()).slice(-4000)));
    this.#child = child;
    running.add(child);
    child.once('exit', () => {
      running.delete(child);
      if (this.#child === child) this.#child = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (!this.#child) throw new Error(`redis-server exited at start:\n${this.#log}`);
      if (await ping(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server on port ${this.port} did not answer within 10 s:\n${this.#log}`);
  }

  /** SIGKILL, as in a crash; resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Starts a redis-server for test `t` and registers its teardown. */
export async function startRedis(t: Teardown): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'mi-redis-'));
  const redis = new RedisProcess(await freeLoopbackPort(), dir);
  t.teardown(() => redis.destroy());
  await redis.start();
  return redis;
}
