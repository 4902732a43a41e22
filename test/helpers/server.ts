import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { Services } from '../../src/core/services.js';
import { OperatorOnlyGate, type AccessGate } from '../../src/core/access-gate.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { ROUTES } from '../../src/routes/index.js';
import { REPO_ROOT } from '../../src/core/paths.js';
import { loadKnowledge, type Knowledge } from '../../src/core/knowledge/index.js';
import { conformance } from './openapi-conformance.js';

export const OPERATOR_KEY = 'test-operator-key-0123456789';

export interface TestServer {
  readonly url: string;
  readonly server: HttpServer;
  readonly services: Services;
  readonly config: Config;
  close(): Promise<void>;
}

/**
 * An in-process server on a free loopback port (real uWS socket, real models). A test file that starts several passes
 * its one `knowledge` to each.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  gate?: AccessGate,
  waitReady = true,
  knowledge: Knowledge = loadKnowledge(),
): Promise<TestServer> {
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', MENU_OPERATOR_KEY: OPERATOR_KEY, ...env });
  const services = new Services(config, knowledge);
  services.ready.catch(() => {});
  const server = await startHttpServer({ config, services, gate: gate ?? new OperatorOnlyGate(config.operatorKey), routes: ROUTES });
  if (waitReady) await services.ready;
  return { url: `http://127.0.0.1:${server.port}`, server, services, config, close: () => server.shutdown() };
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Responses that did not match /openapi.json, across every call of this test process (tests may assert none). */
export const nonConforming: string[] = [];

/**
 * One request to a real server. Every response is checked against the OpenAPI document (status documented for the
 * operation, body valid against its schema, required headers present): a response that does not conform throws, so
 * every HTTP test is also a schema-conformance test.
 */
export async function call<T = any>(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text: the test will fail on the JSON assertion */
  }
  const problems = conformance().check(method, path, res.status, res.headers, parsed);
  if (problems.length) {
    nonConforming.push(...problems);
    throw new Error(`response does not conform to /openapi.json:\n${problems.join('\n')}`);
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A real `menu-intel serve` process (for shutdown and multi-replica tests). Resolves once it listens. */
export async function spawnServer(env: Record<string, string>): Promise<{ proc: ChildProcess; url: string; output: () => string }> {
  const proc = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'menu-intel.js'), 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60000);
    const check = (): void => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', check);
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { proc, url, output: () => out };
}

export async function waitHealthy(url: string, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await fetch(url + '/health').catch(() => null);
    if (r?.status === 200) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${url} never became healthy`);
}
