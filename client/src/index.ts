/**
 * @menu-intel/client: a typed client for the Menu Intelligence API. The request and response types are generated
 * from the server's OpenAPI document (./schema.ts); this file is the small fetch wrapper around them, with retries of
 * 429 and 503 answers after their Retry-After. It needs nothing but a global fetch (Node 18+, browsers, Deno, Bun).
 */
import type { components, paths } from './schema.js';

export type { components, paths } from './schema.js';
export type Schemas = components['schemas'];

type Method = 'get' | 'post';
/** Paths that have an operation for the method. */
export type PathFor<M extends Method> = { [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never }[keyof paths];
/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** The JSON body of an operation's 200 response. */
export type ResponseBody<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** A retry the client is about to make. */
export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  status: number;
  code: string | null;
  /** How long the client waits first: Retry-After when the server sent it. */
  delayMs: number;
}

export interface ClientOptions {
  /** The server, e.g. "http://127.0.0.1:8080". */
  baseUrl: string;
  /** Sent as X-API-Key. /health and the documentation need none. */
  apiKey?: string;
  /** Retries of a 429 or 503 answer (default 3). Nothing is charged for those, so retrying them is safe. */
  maxRetries?: number;
  /** Longest wait before one retry, whatever Retry-After says (default 30 s). */
  maxRetryDelayMs?: number;
  /** Wait when a 429/503 carries no Retry-After: this, doubled per retry (default 500 ms). */
  retryBaseDelayMs?: number;
  /** Abort a request (each attempt) after this long (default: no limit). */
  timeoutMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/** An error answer of the API, or the last one when retries ran out. */
export class MenuIntelError extends Error {
  readonly status: number;
  /** The error code of docs/errors.md (e.g. "validation_error", "rate_limited"), or null when the body had none. */
  readonly code: string | null;
  readonly requestId: string | null;
  /** Seconds the server asked to wait (429, 503), or null. */
  readonly retryAfterSeconds: number | null;
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers) {
    const b = body as { detail?: string; code?: string; error?: { message?: string; code?: string } } | null;
    const message = b?.detail ?? b?.error?.message ?? (typeof body === 'string' ? body : `HTTP ${status}`);
    super(`${status} ${b?.code ?? b?.error?.code ?? ''}: ${message}`.replace('  ', ' '));
    this.name = 'MenuIntelError';
    this.status = status;
    this.code = b?.code ?? b?.error?.code ?? null;
    this.requestId = headers.get('x-request-id');
    this.retryAfterSeconds = parseRetryAfter(headers.get('retry-after'));
    this.body = body;
  }
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

const RETRIED_STATUSES = new Set([429, 503]);

export class MenuIntelClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Any JSON operation of the API, typed by its path and method. */
  async request<M extends Method, P extends PathFor<M>>(method: M, path: P, body?: RequestBody<P, M>): Promise<ResponseBody<P, M>> {
    const maxRetries = this.options.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(method, path, body);
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        /* not JSON: kept as text for the error */
      }
      if (res.ok) return parsed as ResponseBody<P, M>;
      const error = new MenuIntelError(res.status, parsed, res.headers);
      if (!RETRIED_STATUSES.has(res.status) || attempt >= maxRetries) throw error;
      const delayMs = this.retryDelay(error, attempt);
      this.options.onRetry?.({ method: method.toUpperCase(), path, attempt: attempt + 1, status: res.status, code: error.code, delayMs });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }

  private async send(method: Method, path: string, body: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const signal = this.options.timeoutMs ? AbortSignal.timeout(this.options.timeoutMs) : undefined;
    return this.fetchImpl(this.baseUrl + path, { method: method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  }

  private retryDelay(error: MenuIntelError, attempt: number): number {
    const cap = this.options.maxRetryDelayMs ?? 30_000;
    if (error.retryAfterSeconds !== null) return Math.min(cap, error.retryAfterSeconds * 1000);
    const base = (this.options.retryBaseDelayMs ?? 500) * 2 ** attempt;
    return Math.min(cap, base + Math.random() * base * 0.2);
  }

  embed(body: RequestBody<'/embed', 'post'>): Promise<Schemas['EmbedResponse']> {
    return this.request('post', '/embed', body);
  }

  embedBatch(body: RequestBody<'/embed/batch', 'post'>): Promise<Schemas['EmbedResponse']> {
    return this.request('post', '/embed/batch', body);
  }

  search(body: RequestBody<'/search', 'post'>): Promise<Schemas['SearchResponse']> {
    return this.request('post', '/search', body);
  }

  match(body: RequestBody<'/match', 'post'>): Promise<Schemas['MatchResponse']> {
    return this.request('post', '/match', body);
  }

  dedup(body: RequestBody<'/dedup', 'post'>): Promise<Schemas['DedupResponse']> {
    return this.request('post', '/dedup', body);
  }

  classify(body: RequestBody<'/classify', 'post'>): Promise<Schemas['ClassifyResponse']> {
    return this.request('post', '/classify', body);
  }

  report(body: RequestBody<'/report', 'post'>): Promise<Schemas['MenuReport']> {
    return this.request('post', '/report', body);
  }

  suggest(body: RequestBody<'/suggest', 'post'>): Promise<Schemas['SuggestResponse']> {
    return this.request('post', '/suggest', body);
  }

  health(): Promise<Schemas['HealthResponse']> {
    return this.request('get', '/health');
  }

  balance(): Promise<Schemas['CallerBalance']> {
    return this.request('get', '/balance');
  }
}
