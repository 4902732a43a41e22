import { randomUUID } from 'node:crypto';
import uWS from '@trufflesuite/uws-js-unofficial';
import { pino, type Logger } from 'pino';
import type { Config } from '../config.js';
import type { AccessGate, CallAdmission, CallerPrincipal } from '../core/access-gate.js';
import { ApiError, ERROR_CODES, isApiError, type ErrorCode } from '../core/errors.js';
import type { Services } from '../core/services.js';
import { RawResponse, type Route } from '../routes/route.js';
import { statusOf } from '../routes/openapi.js';
import { ENDPOINTS, type MeteredBody } from '../core/accounts/plans.js';
import { checkKeyFormat, displayPrefix, KEY_PREFIX, secretsEqual } from '../core/accounts/keys.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

export interface HttpServer {
  readonly port: number;
  /** Stop accepting, let in-flight requests finish (up to the grace period), then close services. */
  shutdown(): Promise<void>;
}

interface Reply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** Set for error replies: the code from src/core/errors.ts (metrics count 429/402 by it). */
  code?: ErrorCode;
}

type ErrorStyle = Route['errorStyle'];

/** OpenAI's error `type` for a status, so OpenAI clients raise the error class they would for OpenAI itself. */
function openAIErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function errorReply(err: unknown, style: ErrorStyle, log: Logger, requestId: string): Reply {
  let e: ApiError;
  if (isApiError(err)) {
    e = err;
  } else {
    log.error({ request_id: requestId, err }, 'unexpected error');
    e = new ApiError('internal_error', 'internal error; the request id identifies it in the server log');
  }
  if (style === 'openai') {
    const status = statusOf(e.code, style);
    return { status, body: { error: { message: e.message, type: openAIErrorType(status), param: e.param, code: e.code } }, headers: { ...e.headers }, code: e.code };
  }
  return { status: e.status, body: e.toBody(), headers: { ...e.headers }, code: e.code };
}

/** A path with `{name}` parameters as a matcher; exact paths match only themselves. */
interface RoutePattern {
  readonly path: string;
  readonly regex: RegExp;
  readonly names: string[];
  readonly routes: Route<any, any>[];
}

function compilePatterns(routes: readonly Route<any, any>[]): { exact: Map<string, RoutePattern>; templated: RoutePattern[] } {
  const byPath = new Map<string, RoutePattern>();
  for (const r of routes) {
    let pattern = byPath.get(r.path);
    if (!pattern) {
      const names: string[] = [];
      const source = r.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'));
      pattern = { path: r.path, regex: new RegExp(`^${source}$`), names, routes: [] };
      byPath.set(r.path, pattern);
    }
    pattern.routes.push(r);
  }
  const exact = new Map<string, RoutePattern>();
  const templated: RoutePattern[] = [];
  for (const p of byPath.values()) {
    if (p.names.length) templated.push(p);
    else exact.set(p.path, p);
  }
  return { exact, templated };
}

function findPattern(table: ReturnType<typeof compilePatterns>, url: string): { pattern: RoutePattern; params: Record<string, string> } | null {
  const exact = table.exact.get(url);
  if (exact) return { pattern: exact, params: {} };
  for (const pattern of table.templated) {
    const m = pattern.regex.exec(url);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      pattern.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
    } catch {
      continue; // a malformed %-escape matches nothing
    }
    return { pattern, params };
  }
  return null;
}

/** What a request log line may say about the key: its display prefix for well-formed keys, never the key itself. */
function loggableKeyPrefix(principal: CallerPrincipal | null, rawKey: string | undefined): string | null {
  if (principal?.keyPrefix) return principal.keyPrefix;
  if (rawKey && checkKeyFormat(rawKey)) return displayPrefix(rawKey);
  return null;
}

/**
 * The only module that touches uWebSockets.js. It owns body reading (chunks copied, size-capped), the uWS
 * contract (onAborted before any await, writes corked after an await), request ids, the auth/metering sequence and
 * error → status mapping. Routes stay pure functions.
 */
export async function startHttpServer(opts: {
  config: Config;
  services: Services;
  gate: AccessGate;
  routes: readonly Route<any, any>[];
  /** Where request lines and unexpected errors go (default: JSON lines on stdout). */
  logger?: Logger;
}): Promise<HttpServer> {
  const { config, services, gate, routes } = opts;
  const log = opts.logger ?? pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime });
  const table = compilePatterns(routes);
  const metrics = services.metrics;

  let inFlight = 0;
  let draining = false;
  const app = uWS.App();

  app.any('/*', (res, req) => {
    const started = performance.now();
    const method = req.getMethod().toLowerCase();
    const url = req.getUrl().replace(/\/+$/, '') || '/';
    const found = findPattern(table, url);
    const candidates = found?.pattern.routes;
    const route = candidates?.find((r) => r.method === method);
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.getHeader('authorization'))?.[1];
    const apiKey = req.getHeader('x-api-key') || (route?.acceptsBearer ? bearer : undefined) || undefined;
    // Errors of an OpenAI-compatible path come in OpenAI's shape even when the path or method does not exist.
    const errorStyle: ErrorStyle = route ? route.errorStyle : url.startsWith('/v1/') ? 'openai' : undefined;
    const incomingId = req.getHeader('x-request-id');
    // An incoming id is echoed and logged, so one that is (or looks like) an API key is replaced, never repeated.
    const echoable = /^[\w.-]{1,64}$/.test(incomingId) && !incomingId.startsWith(KEY_PREFIX) && !(apiKey && secretsEqual(incomingId, apiKey));
    const requestId = echoable ? incomingId : randomUUID();
    const contentLength = Number(req.getHeader('content-length') || 0);

    let aborted = false;
    let admission: CallAdmission | null = null;
    let principal: CallerPrincipal | null = null;
    let units: number | null = null;
    // True until the route's work (and its admission) has an outcome: an abort meanwhile keeps the in-flight slot
    // held, so a client that hangs up cannot make the server work beyond its plan's concurrency for free.
    let working = true;
    let abortBody: (() => void) | undefined;
    let replyStatus: number | null = null;
    let replyCode: string | undefined;
    const routeLabel = route?.path ?? found?.pattern.path ?? 'unmatched';
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      inFlight--;
    };
    inFlight++;
    // One JSON line per finished request (MENU_LOG_REQUESTS): its status, whether the client left before the whole
    // answer was written, and what became of its admission (settled: the charge, if the key is metered, stands;
    // released: refunded; none: never admitted). Never the key: its display prefix only.
    const logRequest = (admissionOutcome: 'settled' | 'released' | 'none'): void => {
      if (!config.logRequests) return;
      log.info({
        request_id: requestId,
        method: method.toUpperCase(),
        route: routeLabel,
        status: replyStatus,
        latency_ms: Math.round((performance.now() - started) * 10) / 10,
        items: units,
        key_prefix: loggableKeyPrefix(principal, apiKey),
        ...(replyCode ? { code: replyCode } : {}),
        ...(aborted ? { aborted: true } : {}),
        admission: admissionOutcome,
      }, 'request');
    };
    res.onAborted(() => {
      aborted = true;
      abortBody?.();
      if (working) return; // the work's end releases the admission and finishes the request
      // The client left before the whole answer was written: nothing is charged for a response it never received.
      logRequest(admission ? 'released' : 'none');
      const released = admission?.release();
      if (released) void released.finally(finish);
      else finish();
    });

    // Writes with backpressure (tryEnd + onWritable): a large response is fully flushed before the request counts as
    // finished, so a draining shutdown never cuts a response it already promised. A successful request's admission is
    // settled (its charge stands) once the whole response is handed to the socket; a client that leaves before that
    // is refunded (release). Error replies were released before they reach here.
    const send = (reply: Reply): void => {
      const seconds = (performance.now() - started) / 1000;
      metrics.recordRequest(routeLabel, method.toUpperCase(), reply.status, seconds, reply.code);
      replyStatus = reply.status;
      replyCode = reply.code;
      working = false;
      if (aborted) {
        logRequest(admission ? 'released' : 'none');
        const released = admission?.release();
        if (released) void released.finally(finish);
        else finish();
        return;
      }
      const delivered = (): void => {
        logRequest(admission && reply.status === 200 ? 'settled' : admission ? 'released' : 'none');
        const settled = admission?.settle();
        if (settled) void settled.finally(finish);
        else finish();
      };
      const raw = reply.body instanceof RawResponse ? reply.body : null;
      const payload = raw ? (typeof raw.body === 'string' ? Buffer.from(raw.body) : raw.body) : Buffer.from(JSON.stringify(reply.body));
      const total = payload.length;
      res.cork(() => {
        res.writeStatus(`${reply.status} ${STATUS_TEXT[reply.status] ?? ''}`);
        res.writeHeader('Content-Type', raw ? raw.contentType : 'application/json');
        res.writeHeader('X-Request-Id', requestId);
        if (raw) for (const [k, v] of Object.entries(raw.headers)) res.writeHeader(k, v);
        for (const [k, v] of Object.entries(reply.headers)) res.writeHeader(k, v);
        const startOffset = res.getWriteOffset();
        const [, done] = res.tryEnd(payload, total);
        if (done) return delivered();
        res.onWritable((offset) => {
          const [ok, doneNow] = res.tryEnd(payload.subarray(offset - startOffset), total);
          if (doneNow) delivered();
          return ok;
        });
      });
    };
    const fail = (err: unknown): Reply => errorReply(err, errorStyle, log, requestId);

    if (!route) {
      const err = candidates
        ? new ApiError('method_not_allowed', `${url} accepts ${candidates.map((r) => r.method.toUpperCase()).join(', ')}`, { Allow: candidates.map((r) => r.method.toUpperCase()).join(', ') })
        : new ApiError('not_found', `no endpoint ${method.toUpperCase()} ${url}`);
      send(fail(err));
      return;
    }
    if (draining) {
      send(fail(new ApiError('shutting_down', 'the server is shutting down; retry on another replica', { 'Retry-After': '1' })));
      return;
    }

    // Read the body now (uWS only delivers it to a handler attached synchronously), authenticate meanwhile.
    const body = new Promise<Buffer | null>((resolve, reject) => {
      if (route.method === 'get') return resolve(null);
      abortBody = () => reject(new ApiError('malformed_json', 'the client closed the connection before the body ended'));
      if (contentLength > config.maxBodyBytes) {
        return reject(new ApiError('payload_too_large', `request body is ${contentLength} bytes; the limit is ${config.maxBodyBytes}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let failed = false;
      res.onData((chunk, isLast) => {
        if (failed) return;
        size += chunk.byteLength;
        if (size > config.maxBodyBytes) {
          failed = true;
          return reject(new ApiError('payload_too_large', `request body exceeds ${config.maxBodyBytes} bytes`));
        }
        chunks.push(Buffer.from(chunk.slice(0))); // uWS reuses the chunk's memory after this callback
        if (isLast) resolve(Buffer.concat(chunks, size));
      });
    });
    body.catch(() => {}); // handled below; avoid an unhandled rejection while authentication is pending

    void (async (): Promise<Reply> => {
      if (route.needsModels && route.method === 'post') services.refuseIfOverloaded();
      if (route.authenticated) {
        principal = await gate.authenticate(apiKey);
        gate.authorize(principal, route.endpoint);
      } else if (apiKey) {
        // /health with a key: the diagnostic view for the operator; any bad key just gets the basic view.
        principal = await gate.authenticate(apiKey).catch(() => null);
      }
      const raw = await body;
      let parsed: unknown = null;
      if (raw !== null) {
        try {
          parsed = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
        } catch {
          throw new ApiError('malformed_json', 'request body is not valid JSON');
        }
        if (parsed === undefined) throw new ApiError('malformed_json', 'request body is empty; send a JSON object');
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          throw new ApiError('malformed_json', 'request body must be a JSON object');
        }
      }
      const request = route.parse(parsed, found!.params);
      if (route.method === 'post') units = ENDPOINTS[route.endpoint].countUnits(request as MeteredBody);
      if (route.needsModels && services.state !== 'ready') {
        if (route.endpoint === 'health' && services.state === 'loading') return { status: 503, body: { status: 'loading' }, headers: { 'Retry-After': '2' } };
        throw new ApiError('model_loading', services.state === 'failed' ? `models failed to load: ${services.loadError}` : 'models are loading; retry in a few seconds', { 'Retry-After': '2' });
      }
      let headers: Record<string, string> = {};
      if (route.authenticated && principal) {
        // Units come from the one metering table (src/core/accounts/plans.ts), not from the route.
        admission = await gate.admit(principal, route.endpoint, units ?? 0);
        headers = { ...admission.headers };
      }
      const caller = principal;
      const result = await route.handle(request, {
        services,
        isOperator: caller?.isOperator ?? false,
        balance: () => gate.balance(caller!),
      });
      return { status: 200, body: result, headers };
    })()
      .catch(async (err) => {
        await admission?.release();
        return fail(err);
      })
      .then(send);
  });

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(config.host, config.port, (sock) => (sock ? resolve(sock) : reject(new Error(`cannot listen on ${config.host}:${config.port}`))));
  });
  const port = uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket);

  return {
    port,
    async shutdown() {
      draining = true;
      uWS.us_listen_socket_close(listenSocket);
      const deadline = Date.now() + config.shutdownGraceMs;
      const waitForInFlight = async (): Promise<void> => {
        while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      };
      await waitForInFlight();
      // Closing services drains the inference queue, so responses of requests still in flight are written after it:
      // wait for those too before the accounts store closes and the process exits.
      await services.close();
      await waitForInFlight();
      await gate.close();
    },
  };
}

/** For the README table: every error code with its status. */
export function errorTable(): { code: string; status: number; doc: string }[] {
  return Object.entries(ERROR_CODES).map(([code, v]) => ({ code, status: v.status, doc: v.doc }));
}
