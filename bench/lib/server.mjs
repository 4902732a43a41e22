import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { once } from 'node:events';

/**
 * The server under test, as a child process: `node bin/menu-intel.js serve` with PORT=0, its port read from the
 * "listening on" line. `nodeArgs` go to the child's node only (e.g. --cpu-prof, which NODE_OPTIONS refuses).
 */
export async function startServer({ repoRoot, env, nodeArgs = [], startTimeoutMs = 60_000 }) {
  const childEnv = { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1' };
  const child = spawn(process.execPath, [...nodeArgs, 'bin/menu-intel.js', 'serve'], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = [];
  const keep = (chunk) => {
    log.push(...chunk.toString().split('\n').filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stderr.on('data', keep);

  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no "listening on" line in ${startTimeoutMs} ms:\n${log.join('\n')}`)), startTimeoutMs);
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      keep(chunk);
      buffered += chunk.toString();
      const m = /listening on https?:\/\/[^\s:]+:(\d+)/.exec(buffered);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${log.join('\n')}`));
    });
  });

  /** A client on its own kept-alive connection: requests of one client are sequential, two clients overlap. */
  const makeClient = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    /** One HTTP exchange; `ms` runs from sending the request to the last byte of the body (parsing excluded). */
    const exchange = (method, path, { body, headers = {}, raw } = {}) =>
      new Promise((resolve, reject) => {
        const payload = raw ?? (body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
        const started = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent,
            headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
          },
          (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
            res.on('error', reject);
          },
        );
        req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
        req.end(payload);
      });
    return {
      agent,
      /**
       * A kept-alive socket that the server closed while idle fails on reuse; Node's documented remedy is to retry
       * such a request once on a new socket (the failed attempt is not timed).
       */
      async call(method, path, opts = {}) {
        try {
          return await exchange(method, path, opts);
        } catch (err) {
          if (err?.reusedSocket && (err.code === 'ECONNRESET' || err.message === 'socket hang up')) return exchange(method, path, opts);
          throw err;
        }
      },
    };
  };
  const clients = [makeClient()];

  const server = {
    port,
    child,
    log,
    call: clients[0].call,
    /** Another connection to the same server, for requests that must overlap the main client's. */
    client() {
      const c = makeClient();
      clients.push(c);
      return c;
    },
    async stop(timeoutMs = 20_000) {
      for (const c of clients) c.agent.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const [code] = await exited;
      clearTimeout(timer);
      return code;
    },
  };

  return server;
}

/** Polls GET /health until 200 (the server answers 503 while the models load). */
export async function waitHealthy(server, timeoutMs = 120_000) {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited while loading:\n${server.log.join('\n')}`);
    try {
      const res = await server.call('GET', '/health');
      if (res.status === 200) return JSON.parse(res.body.toString());
      last = `${res.status} ${res.body.toString().slice(0, 200)}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server not healthy after ${timeoutMs} ms (last: ${last})`);
}

/** Stops the server under test (SIGTERM, so a drain problem shows as a non-zero exit) and removes its data folder. */
export async function stopServer(server, dataDir) {
  console.error('# stopping the server (SIGTERM)');
  const code = await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (code !== 0) console.error(`# server exited with ${code}`);
}
