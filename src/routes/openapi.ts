import typia from 'typia';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallerBalance } from '../core/access-gate.js';
import { ENDPOINTS, PLANS, creditsFromMilli, plansIncluding } from '../core/accounts/plans.js';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { REPO_ROOT } from '../core/paths.js';
import { servedModelIds } from '../core/inference/model-files.js';
import type { MenuReport } from '../core/report.js';
import type { ClassifyRequest, ClassifyResponse } from './classify.js';
import type { DedupRequest, DedupResponse } from './dedup.js';
import type { EmbedBatchRequest, EmbedRequest, EmbedResponse } from './embed.js';
import type { HealthLoading, HealthResponse } from './health.js';
import type { MatchRequest, MatchResponse } from './match.js';
import type { OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse, OpenAIModelList } from './openai-embeddings.js';
import type { ReportRequest } from './report.js';
import type { Route } from './route.js';
import type { SearchRequest, SearchResponse } from './search.js';
import type { SuggestRequest, SuggestResponse } from './suggest.js';

/** Every error body outside /v1/: `code` is one of docs/errors.md; `detail` says what to change, in words. */
export interface ErrorBody {
  /** What went wrong and what to change. */
  detail: string;
  code: ErrorCode;
}

/** Errors on the OpenAI-compatible paths (/v1/...), in OpenAI's shape; `code` is one of docs/errors.md. */
export interface OpenAIErrorBody {
  error: {
    message: string;
    /** invalid_request_error, authentication_error, permission_error, insufficient_quota, rate_limit_error or server_error. */
    type: string;
    /** The request field at fault, when one is. */
    param: string | null;
    code: ErrorCode;
  };
}

/** The wire types, as JSON Schema 2020-12 (OpenAPI 3.1) generated from the TypeScript types the routes validate with. */
const GENERATED = typia.json.schemas<
  [
    EmbedRequest, EmbedBatchRequest, EmbedResponse, SearchRequest, SearchResponse, MatchRequest, MatchResponse,
    DedupRequest, DedupResponse, ClassifyRequest, ClassifyResponse, ReportRequest, MenuReport, SuggestRequest,
    SuggestResponse, HealthResponse, HealthLoading, CallerBalance, OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse,
    OpenAIModelList, ErrorBody, OpenAIErrorBody,
  ],
  '3.1'
>();

type SchemaName =
  | 'EmbedRequest' | 'EmbedBatchRequest' | 'EmbedResponse' | 'SearchRequest' | 'SearchResponse' | 'MatchRequest'
  | 'MatchResponse' | 'DedupRequest' | 'DedupResponse' | 'ClassifyRequest' | 'ClassifyResponse' | 'ReportRequest'
  | 'MenuReport' | 'SuggestRequest' | 'SuggestResponse' | 'HealthResponse' | 'CallerBalance'
  | 'OpenAIEmbeddingsRequest' | 'OpenAIEmbeddingsResponse' | 'OpenAIModelList';

type Body = { schema: SchemaName } | { contentType: string; description: string };

interface Example {
  summary: string;
  value: Record<string, unknown>;
}

/** What the document says about one route beyond its types. Keyed by "METHOD /path" below; every route needs one. */
interface OperationDoc {
  operationId: string;
  summary: string;
  /** Markdown; the plans, the price and the behaviour page are added to it. */
  description: string;
  tag: string;
  /** Behaviour notes in docs/ (served at /docs/guide/<page>). */
  page: string | null;
  request?: SchemaName;
  response: Body;
  /** Codes the route raises itself besides those its kind of route can (see errorCodesOf). */
  raises?: ErrorCode[];
  /** Runs inference: the admission limit (429 overloaded) applies. */
  inference?: boolean;
  pathParams?: { name: string; description: string; values: () => string[] }[];
}

/** The docs pages served at /docs/guide/{page}: every Markdown file of docs/. */
export function guidePages(): string[] {
  return readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort();
}

/** Files of the /docs page: Swagger UI from node_modules, our start-up script beside it. */
export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'docs.js'] as const;

/** Stands for the served model's id in the examples; the document is built with the real one. */
const SERVED_MODEL = '<served-model>';

/**
 * Request bodies with menu text, by operation ("METHOD /path"): the docs page offers them, and a test sends each one to
 * the server. They are documentation and live with it, in docs/openapi-examples.json; read once.
 */
let examplesByOperation: Readonly<Record<string, Record<string, Example>>> | undefined;
export function operationExamples(): Readonly<Record<string, Record<string, Example>>> {
  if (!examplesByOperation) {
    const file = JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'openapi-examples.json'), 'utf8')) as Record<string, unknown>;
    examplesByOperation = Object.freeze(Object.fromEntries(Object.entries(file).filter(([k]) => !k.startsWith('_')))) as Record<string, Record<string, Example>>;
  }
  return examplesByOperation;
}

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'POST /embed': {
    operationId: 'embed',
    summary: 'Embed menu items',
    description: 'Dense vectors for up to 512 menu item texts. Texts are cleaned first (prices, sizes and promo labels stripped, misspellings corrected), so noise does not move a vector.',
    tag: 'Embeddings',
    page: 'embed.md',
    request: 'EmbedRequest',
    response: { schema: 'EmbedResponse' },
    raises: ['invalid_parameter'],
    inference: true,
  },
  'POST /embed/batch': {
    operationId: 'embedBatch',
    summary: 'Embed a large list of menu items',
    description: 'Same as /embed for up to 5000 texts; chunked internally and interleaved with other requests. Latency grows linearly with the item count.',
    tag: 'Embeddings',
    page: 'embed.md',
    request: 'EmbedBatchRequest',
    response: { schema: 'EmbedResponse' },
    raises: ['invalid_parameter'],
    inference: true,
  },
  'POST /search': {
    operationId: 'search',
    summary: 'Search a menu in natural language',
    description: 'Ranks a menu (corpus) for a query: dish names, misspellings, needs (a craving or an occasion rather than a dish), Hinglish and other scripts. Results pass a relevance floor and stay near the best one, so fewer than top_k may come back; when nothing does, a category-aware fallback answers (is_fallback).',
    tag: 'Search and matching',
    page: 'search.md',
    request: 'SearchRequest',
    response: { schema: 'SearchResponse' },
    raises: ['invalid_parameter'],
    inference: true,
  },
  'POST /match': {
    operationId: 'match',
    summary: 'Decide whether pairs of items are the same dish',
    description: 'For each pair: cosine, a precision score, the verdict, and veg/non-veg and protein conflicts. For a whole menu use /dedup.',
    tag: 'Search and matching',
    page: 'match.md',
    request: 'MatchRequest',
    response: { schema: 'MatchResponse' },
    raises: ['invalid_parameter'],
    inference: true,
  },
  'POST /dedup': {
    operationId: 'dedup',
    summary: 'Cluster duplicate items in a menu',
    description: 'Groups the items of one menu that are the same dish (sizes, prices and promo labels ignored); the shortest member is canonical.',
    tag: 'Menus',
    page: 'dedup.md',
    request: 'DedupRequest',
    response: { schema: 'DedupResponse' },
    raises: ['invalid_parameter'],
    inference: true,
  },
  'POST /classify': {
    operationId: 'classify',
    summary: 'Predict a cuisine label per item',
    description: 'One of 19 cuisine labels per item, or "uncertain" below the confidence threshold. Indo-Chinese dishes come back as Chinese; drinks, sweets and bakes have their own labels.',
    tag: 'Menus',
    page: 'classify.md',
    request: 'ClassifyRequest',
    response: { schema: 'ClassifyResponse' },
    inference: true,
  },
  'POST /report': {
    operationId: 'report',
    summary: 'Whole-menu quality report',
    description: 'Runs the full pipeline over one menu: noise, duplicates, cuisines and non-food items, and a 0-100 quality score. Slower than the single endpoints.',
    tag: 'Menus',
    page: 'report.md',
    request: 'ReportRequest',
    response: { schema: 'MenuReport' },
    inference: true,
  },
  'POST /suggest': {
    operationId: 'suggest',
    summary: 'Upsell suggestions for a cart',
    description: 'Items from the menu that complete a cart: missing categories first (a drink, a bread, a dessert), the cart\'s cuisine preferred, and never a non-veg item for an all-veg cart.',
    tag: 'Menus',
    page: 'suggest.md',
    request: 'SuggestRequest',
    response: { schema: 'SuggestResponse' },
    raises: ['invalid_parameter'],
    inference: true,
  },
  'GET /health': {
    operationId: 'health',
    summary: 'Server status',
    description: 'No key needed. 503 `{"status": "loading"}` while the models load; the operator key gets the diagnostic fields.',
    tag: 'Operations',
    page: 'health.md',
    response: { schema: 'HealthResponse' },
  },
  'GET /balance': {
    operationId: 'balance',
    summary: 'Remaining quota or credits',
    description: 'Free on every plan, never rate-limited: calls left this month (quota accounts) or credits left (credit accounts).',
    tag: 'Account',
    page: 'balance.md',
    response: { schema: 'CallerBalance' },
  },
  'POST /v1/embeddings': {
    operationId: 'createEmbedding',
    summary: 'OpenAI-compatible embeddings',
    description:
      'Point an OpenAI client at this server (baseURL `<server>/v1`, the API key as its key) and it works unchanged. Same vectors, plans and price per text as /embed. ' +
      'Errors come in OpenAI\'s shape; a request OpenAI would call invalid is 400 (where /embed says 422), an unknown `model` is 404 `model_not_found`.',
    tag: 'OpenAI-compatible',
    page: 'openai.md',
    request: 'OpenAIEmbeddingsRequest',
    response: { schema: 'OpenAIEmbeddingsResponse' },
    raises: ['invalid_parameter', 'model_not_found'],
    inference: true,
  },
  'GET /v1/models': {
    operationId: 'listModels',
    summary: 'The served embedding model (OpenAI-compatible)',
    description: 'Lists the one model /v1/embeddings serves; its id is what `model` must say.',
    tag: 'OpenAI-compatible',
    page: 'openai.md',
    response: { schema: 'OpenAIModelList' },
  },
  'GET /metrics': {
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description: 'Prometheus text format: requests by route and status, latency histograms, inference queue depth, batch sizes and tokens, embedding cache hits/misses/bytes, 429/402 counts by reason, model load time. Operator key only.',
    tag: 'Operations',
    page: 'metrics.md',
    response: { contentType: 'text/plain; version=0.0.4; charset=utf-8', description: 'Prometheus exposition format.' },
  },
  'GET /openapi.json': {
    operationId: 'openapi',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of the API, generated from the types the server validates with. No key needed.',
    tag: 'Documentation',
    page: null,
    response: { contentType: 'application/json', description: 'OpenAPI 3.1 document.' },
  },
  'GET /docs': {
    operationId: 'docsPage',
    summary: 'Interactive API reference',
    description: 'This reference, rendered from /openapi.json; "Try it out" sends real requests with your key (Authorize).',
    tag: 'Documentation',
    page: null,
    response: { contentType: 'text/html; charset=utf-8', description: 'The reference page.' },
  },
  'GET /docs/assets/{file}': {
    operationId: 'docsAsset',
    summary: 'A file of the reference page',
    description: 'Scripts, styles and icons of /docs, served from the server itself (no CDN).',
    tag: 'Documentation',
    page: null,
    response: { contentType: '*/*', description: 'The file.' },
    pathParams: [{ name: 'file', description: 'The file name.', values: () => [...DOCS_ASSETS] }],
  },
  'GET /docs/guide/{page}': {
    operationId: 'docsGuide',
    summary: 'A behaviour page (Markdown)',
    description: 'The rules behind each endpoint, one page per endpoint plus accounts and errors, as Markdown.',
    tag: 'Documentation',
    page: null,
    response: { contentType: 'text/plain; charset=utf-8', description: 'The page, as Markdown text.' },
    pathParams: [{ name: 'page', description: 'The page name.', values: guidePages }],
  },
};

const REF = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/** The status a code is answered with on a route (the OpenAI-compatible routes say 400 where the others say 422). */
export function statusOf(code: ErrorCode, style: Route['errorStyle']): number {
  const status = ERROR_CODES[code].status;
  return style === 'openai' && status === 422 ? 400 : status;
}

/** Every error code a route can answer with, from what it is: the document lists them per status. */
export function errorCodesOf(route: Route<any, any>, doc: OperationDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>(['internal_error', 'shutting_down']);
  if (route.method === 'post') ['malformed_json', 'validation_error', 'payload_too_large'].forEach((c) => codes.add(c as ErrorCode));
  for (const c of doc.raises ?? []) codes.add(c);
  if (route.needsModels) codes.add('model_loading');
  if (doc.inference) codes.add('overloaded');
  if (doc.pathParams?.length) codes.add('not_found');
  if (route.authenticated) {
    const spec = ENDPOINTS[route.endpoint];
    codes.add('unauthorized');
    codes.add('store_unavailable');
    if (spec.operatorOnly) codes.add('operator_only');
    else if (spec.minPlan !== 'starter') codes.add('plan_forbidden');
    if (spec.metered) ['rate_limited', 'too_many_in_flight', 'quota_exceeded', 'insufficient_credits'].forEach((c) => codes.add(c as ErrorCode));
  }
  return [...codes];
}

const STATUS_WORDS: Record<number, string> = {
  400: 'Malformed JSON or a value outside its allowed set.',
  401: 'Missing or invalid API key.',
  402: 'Monthly quota used up, or not enough credits (nothing was charged).',
  403: 'The key may not call this endpoint.',
  404: 'No such file, page or model.',
  413: 'The body is larger than MENU_MAX_BODY_BYTES.',
  422: 'A field is missing or has the wrong type, a text is too long, or a count limit is broken.',
  429: 'Too many requests: per-second rate, requests in flight, or the inference queue. Retry after Retry-After seconds.',
  500: 'A bug on our side; X-Request-Id identifies it in the server log.',
  503: 'Models loading, account store unreachable, or shutting down. Retry after Retry-After seconds.',
};

function headerRef(name: string): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

function errorResponses(route: Route<any, any>, doc: OperationDoc): Record<string, object> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route, doc)) {
    const status = statusOf(code, route.errorStyle);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, object> = {};
  for (const [status, codes] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    const narrowed =
      route.errorStyle === 'openai'
        ? { allOf: [REF('OpenAIErrorBody'), { properties: { error: { properties: { code: { enum: codes } } } } }] }
        : { allOf: [REF('ErrorBody'), { properties: { code: { enum: codes } } }] };
    const headers: Record<string, object> = { 'X-Request-Id': headerRef('X-Request-Id') };
    if (status === 429) Object.assign(headers, { 'Retry-After': { ...headerRef('Retry-After') }, RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy') });
    if (status === 402) Object.assign(headers, { RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy'), 'X-Credits-Remaining': headerRef('X-Credits-Remaining') });
    if (status === 503) headers['Retry-After'] = headerRef('Retry-After');
    const schema = route.endpoint === 'health' && status === 503 ? { oneOf: [REF('HealthLoading'), narrowed] } : narrowed;
    out[String(status)] = {
      description: `${STATUS_WORDS[status] ?? ''} Codes: ${codes.map((c) => `\`${c}\``).join(', ')} ([errors](/docs/guide/errors.md)).`,
      headers,
      content: { 'application/json': { schema } },
    };
  }
  return out;
}

function planWords(route: Route<any, any>): { plans: string[]; words: string } {
  const spec = ENDPOINTS[route.endpoint];
  if (!route.authenticated) return { plans: [], words: 'No key needed; free.' };
  if (spec.operatorOnly) return { plans: [], words: 'Operator key only (MENU_OPERATOR_KEY); customer keys get 403 `operator_only`. Free.' };
  const plans = plansIncluding(route.endpoint);
  const titles = plans.map((p) => PLANS[p].title).join(', ');
  if (!spec.metered) return { plans, words: `Plans: ${titles}. Free: not metered, not rate-limited.` };
  const credits = creditsFromMilli(spec.milliCreditsPerUnit);
  return {
    plans,
    words: `Plans: ${titles}${plans.length < 3 ? ` (others get 403 \`plan_forbidden\`)` : ''}. Metered: one call of the monthly quota, or ${credits} credits per ${spec.unit} on credit accounts ([accounts](/docs/guide/accounts.md)).`,
  };
}

function operationOf(route: Route<any, any>, key: string, doc: OperationDoc, servedModel: string): object {
  const { plans, words } = planWords(route);
  const spec = ENDPOINTS[route.endpoint];
  const page = doc.page ? `\n\nBehaviour, rule by rule: [docs/${doc.page}](/docs/guide/${doc.page}).` : '';
  const okHeaders: Record<string, object> = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (route.authenticated && spec.metered) {
    Object.assign(okHeaders, { RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy'), 'X-Credits-Remaining': headerRef('X-Credits-Remaining') });
  }
  const okContent =
    'schema' in doc.response
      ? { 'application/json': { schema: REF(doc.response.schema) } }
      : { [doc.response.contentType]: { schema: doc.response.contentType.startsWith('application/json') ? { type: 'object' } : { type: 'string' } } };
  const operation: Record<string, unknown> = {
    operationId: doc.operationId,
    summary: doc.summary,
    description: `${doc.description}\n\n${words}${page}`,
    tags: [doc.tag],
    'x-plans': plans,
    security: route.authenticated ? [{ ApiKeyAuth: [] }, ...(route.acceptsBearer ? [{ BearerAuth: [] }] : [])] : [],
    responses: {
      '200': { description: 'OK' + ('schema' in doc.response ? '' : `: ${doc.response.description}`), headers: okHeaders, content: okContent },
      ...errorResponses(route, doc),
    },
  };
  if (spec.operatorOnly) operation['x-operator-only'] = true;
  if (route.authenticated && spec.metered) {
    operation['x-credits'] = { per: spec.unit, credits: creditsFromMilli(spec.milliCreditsPerUnit) };
  }
  if (doc.pathParams) {
    operation.parameters = doc.pathParams.map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: { type: 'string', enum: p.values() } }));
  }
  if (doc.request) {
    const own = operationExamples()[key];
    const examples = own && (JSON.parse(JSON.stringify(own).replaceAll(SERVED_MODEL, servedModel)) as Record<string, Example>);
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: REF(doc.request), ...(examples ? { examples } : {}) } },
    };
  }
  return operation;
}

const INFO_DESCRIPTION = `Menu-item texts in, as restaurants write them (prices, sizes and promo labels, misspellings,
other scripts: each operation's examples show some), food intelligence out: embeddings, semantic search, same-dish
matching, duplicate clusters, cuisine labels, menu health reports and cart upsell suggestions.

**Keys.** Every endpoint but /health and the documentation needs \`X-API-Key: <key>\` (Authorize, above);
/v1/* also takes \`Authorization: Bearer <key>\`. Each operation says which plans include it.

**Limits.** Every item text is at most 500 characters (counted in characters, not bytes); counts are in each
request schema. A wrong type, a missing field or a broken count or length limit is 422 \`validation_error\`; a
well-typed value outside its allowed set (dimension 100, top_k 0) is 400 \`invalid_parameter\`.

**Errors** are \`{"detail": "...", "code": "..."}\` (OpenAI's shape on /v1/*), codes in [docs/errors.md](/docs/guide/errors.md).
Metered responses carry \`RateLimit\` / \`RateLimit-Policy\` (or \`X-Credits-Remaining\`); 429 and 503 carry
\`Retry-After\`. Plans, metering and keys: [docs/accounts.md](/docs/guide/accounts.md).`;

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The OpenAPI 3.1 document of the given routes. Throws when a route has no entry in OPERATIONS or an entry has no
 * route, so the document and the server's routing table cannot drift apart. `servedModel` is the id the
 * /v1/embeddings examples name (default: the one the build manifest serves).
 */
export function buildOpenApiDocument(routes: readonly Route<any, any>[], servedModel: string = servedModelIds().biencoder ?? 'menu-minilm'): Record<string, any> {
  const paths: Record<string, Record<string, object>> = {};
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method.toUpperCase()} ${route.path}`;
    const doc = OPERATIONS[key];
    if (!doc) throw new Error(`the OpenAPI document has no operation for the route ${key} (add it to OPERATIONS in src/routes/openapi.ts)`);
    seen.add(key);
    (paths[route.path] ??= {})[route.method] = operationOf(route, key, doc, servedModel);
  }
  const orphans = Object.keys(OPERATIONS).filter((k) => !seen.has(k));
  if (orphans.length) throw new Error(`OPERATIONS documents routes that do not exist: ${orphans.join(', ')}`);
  const tags = [...new Set(Object.values(OPERATIONS).map((o) => o.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: { title: 'Menu Intelligence API', version: packageVersion(), description: INFO_DESCRIPTION },
    servers: [{ url: '/' }],
    tags,
    paths,
    components: {
      schemas: GENERATED.components.schemas,
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (`mi_live_...`, from `menu-intel keys create`) or the operator key.' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'The same key as `Authorization: Bearer <key>`, for OpenAI clients (/v1/* only).' },
      },
      headers: {
        'X-Request-Id': { description: 'Identifies the request in the server log; a well-formed incoming X-Request-Id is echoed.', required: true, schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
        RateLimit: {
          description: 'IETF RateLimit header (draft-ietf-httpapi-ratelimit-headers): remaining quota `r` and seconds to reset `t` per policy, e.g. `"per-second";r=17;t=1, "monthly";r=9950;t=1339200`. Sent for customer keys.',
          schema: { type: 'string' },
        },
        'RateLimit-Policy': {
          description: 'The quota policies: `q` quota, `w` window in seconds, `qu` unit, e.g. `"per-second";q=20;w=1, "monthly";q=10000;w=2592000`.',
          schema: { type: 'string' },
        },
        'X-Credits-Remaining': { description: 'Credits left, for credit-metered accounts.', schema: { type: 'string' } },
      },
    },
  };
}
