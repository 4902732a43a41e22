import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ENDPOINTS, plansIncluding } from '../src/core/accounts/plans.js';
import { ERROR_CODES } from '../src/core/errors.js';
import { REPO_ROOT } from '../src/core/paths.js';
import { MAX_TEXT_CHARS } from '../src/core/text/limits.js';
import { DEFAULT_COSINE_THRESHOLD } from '../src/core/contract.js';
import { ROUTES } from '../src/routes/index.js';
import { buildOpenApiDocument, operationExamples, statusOf } from '../src/routes/openapi.js';
import type { Route } from '../src/routes/route.js';
import { OpenApiConformance } from './helpers/openapi-conformance.js';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';

const modelsBuilt = existsSync(join(REPO_ROOT, 'models', 'build', 'manifest.lock.json'));
const doc = buildOpenApiDocument(ROUTES);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function documentedOperations(d: Record<string, any>): string[] {
  return Object.entries(d.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

t.test('the document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async (t) => {
  const result = await new Validator().validate(doc);
  t.ok(result.valid, 'valid');
  t.same(result.errors ?? [], [], 'no errors');
  t.equal(doc.openapi, '3.1.0');
});

t.test('the document and the routing table list exactly the same operations', async (t) => {
  const routed = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
  t.same(documentedOperations(doc), routed);
  const ghost: Route<null, null> = { endpoint: 'health', method: 'get', path: '/ghost', authenticated: false, needsModels: false, parse: () => null, handle: async () => null };
  t.throws(() => buildOpenApiDocument([...ROUTES, ghost]), /no operation for the route GET \/ghost/, 'a route the document lacks fails the build');
  t.throws(() => buildOpenApiDocument(ROUTES.filter((r) => r.path !== '/match')), /do not exist: POST \/match/, 'an operation without a route fails the build');
});

t.test('every operation: plans, security, statuses and error codes from the tables the server uses', async (t) => {
  for (const route of ROUTES) {
    const op = doc.paths[route.path][route.method];
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const spec = ENDPOINTS[route.endpoint];
    t.ok(op.summary && op.description && op.operationId, `${name}: summary, description, operationId`);
    t.same(op['x-plans'], route.authenticated && !spec.operatorOnly ? plansIncluding(route.endpoint) : [], `${name}: x-plans`);
    if (route.authenticated) {
      t.same(op.security, [{ ApiKeyAuth: [] }, ...(route.acceptsBearer ? [{ BearerAuth: [] }] : [])], `${name}: key schemes`);
      t.ok(op.responses['401'], `${name}: documents 401`);
    } else {
      t.same(op.security, [], `${name}: no key needed`);
    }
    if (spec.operatorOnly) t.ok(op['x-operator-only'] && op.responses['403'], `${name}: operator only, 403 documented`);
    if (route.authenticated && spec.metered) {
      t.ok(op.responses['429'].headers['Retry-After'], `${name}: 429 carries Retry-After`);
      t.ok(op.responses['200'].headers.RateLimit && op.responses['200'].headers['RateLimit-Policy'], `${name}: RateLimit headers on 200`);
      t.ok(op.responses['402'].headers['X-Credits-Remaining'], `${name}: 402 documents X-Credits-Remaining`);
      t.equal(op['x-credits'].credits, spec.milliCreditsPerUnit / 1000, `${name}: price from the plans table`);
      t.match(op.description, /Plans: /, `${name}: plans in words`);
    }
    for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
      if (status === '200') continue;
      const schema = response.content['application/json'].schema;
      const narrowed = (schema.oneOf ? schema.oneOf.at(-1) : schema).allOf[1];
      const codes: string[] = route.errorStyle === 'openai' ? narrowed.properties.error.properties.code.enum : narrowed.properties.code.enum;
      for (const code of codes) {
        t.ok(code in ERROR_CODES, `${name} ${status}: ${code} is a real code`);
        t.equal(statusOf(code as keyof typeof ERROR_CODES, route.errorStyle), Number(status), `${name}: ${code} under ${status}`);
      }
    }
    if (route.method === 'post') {
      t.ok(op.requestBody?.content['application/json'].schema.$ref, `${name}: request schema`);
      t.ok(Object.keys(op.requestBody.content['application/json'].examples ?? {}).length > 0, `${name}: has examples`);
      t.ok(op.responses['422'] || op.responses['400'], `${name}: documents validation errors`);
    }
  }
});

t.test('limits in the document are the limits the routes enforce (one set of typia tags)', async (t) => {
  const s = doc.components.schemas;
  t.equal(s.MenuText.maxLength, MAX_TEXT_CHARS, 'item texts: 500 characters, the limit the catalog jobs apply too');
  t.equal(MAX_TEXT_CHARS, 500, 'the contract says 500');
  t.equal(DEFAULT_COSINE_THRESHOLD, 0.85, 'the contract says cosine_threshold defaults to 0.85');
  for (const schema of ['MatchRequest', 'DedupRequest']) {
    const ref: string = s[schema].properties.cosine_threshold.oneOf.find((o: { $ref?: string }) => o.$ref).$ref;
    t.equal(s[ref.split('/').pop()!].default, DEFAULT_COSINE_THRESHOLD, `${schema}.cosine_threshold: the documented default is the one applied`);
  }
  const limits: [string, string, number][] = [
    ['EmbedRequest', 'items', 512], ['EmbedBatchRequest', 'items', 5000], ['SearchRequest', 'corpus', 512],
    ['MatchRequest', 'pairs', 100], ['DedupRequest', 'items', 2000], ['ClassifyRequest', 'items', 512],
    ['ReportRequest', 'items', 2000], ['SuggestRequest', 'cart', 50], ['SuggestRequest', 'menu', 500],
  ];
  const routeOf: Record<string, Route<any, any>> = {};
  for (const r of ROUTES) if (r.method === 'post') routeOf[doc.paths[r.path].post.requestBody.content['application/json'].schema.$ref.split('/').pop()] = r;
  const base: Record<string, Record<string, unknown>> = {
    SearchRequest: { query: 'dosa', corpus: ['Masala Dosa'] },
    MatchRequest: { pairs: [{ text_a: 'Idli', text_b: 'Idly' }] },
    SuggestRequest: { cart: ['Idli'], menu: ['Vada'] },
  };
  for (const [schema, field, max] of limits) {
    const prop = s[schema].properties[field];
    t.equal(prop.maxItems, max, `${schema}.${field} maxItems ${max}`);
    t.equal(prop.minItems, 1, `${schema}.${field} minItems 1`);
    const route = routeOf[schema]!;
    const fill = (n: number): unknown[] => Array.from({ length: n }, (_, i) => (field === 'pairs' ? { text_a: `Dish ${i}`, text_b: `Dish ${i}` } : `Dish ${i}`));
    const body = (n: number): Record<string, unknown> => ({ ...(base[schema] ?? {}), [field]: fill(n) });
    t.doesNotThrow(() => route.parse(body(max)), `${route.path}: ${max} ${field} accepted`);
    t.throws(() => route.parse(body(max + 1)), { code: 'validation_error', message: new RegExp(`${field} must have at most ${max} entries, got ${max + 1}`) }, `${route.path}: ${max + 1} refused, in words`);
    t.throws(() => route.parse(body(0)), { code: 'validation_error' }, `${route.path}: none refused`);
  }
  const embed = routeOf.EmbedRequest!;
  t.doesNotThrow(() => embed.parse({ items: ['पनीर'.repeat(125)] }), '500 Devanagari code points pass');
  t.doesNotThrow(() => embed.parse({ items: ['😀'.repeat(500)] }), '500 emoji (1000 UTF-16 units) pass: characters, not units');
  t.throws(() => embed.parse({ items: ['Idli', 'x'.repeat(501)] }), { code: 'validation_error', message: /items\[1\] is 501 characters; the limit is 500/ });
  t.same(s.EmbedRequest.properties.dimension.oneOf.find((o: any) => o.enum).enum, [128, 256, 384], 'dimension values');
});

t.test('every operation description links a docs page that exists', async (t) => {
  for (const path of Object.keys(doc.paths)) {
    for (const op of Object.values(doc.paths[path] as Record<string, any>)) {
      for (const m of (op.description as string).matchAll(/\(\/docs\/guide\/([\w.-]+)\)/g)) t.ok(existsSync(join(REPO_ROOT, 'docs', m[1]!)), `${op.operationId}: docs/${m[1]} exists`);
    }
  }
  const endpointPages = ['embed', 'search', 'match', 'dedup', 'classify', 'report', 'suggest', 'health', 'balance', 'openai', 'metrics'];
  for (const page of endpointPages) t.match(JSON.stringify(doc.paths), `(/docs/guide/${page}.md)`, `an operation links docs/${page}.md`);
});

t.test('every request example validates against its own schema', async (t) => {
  const check = new OpenApiConformance();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [name, example] of Object.entries((op.requestBody?.content['application/json'].examples ?? {}) as Record<string, any>)) {
        t.same(check.checkRequest(method, path, example.value), [], `${method.toUpperCase()} ${path} example ${name}`);
      }
    }
  }
  const operations = new Set(Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
  t.same(Object.keys(operationExamples()).filter((k) => !operations.has(k)), [], 'docs/openapi-examples.json names only operations the document has');
});

t.test('the server: /openapi.json without a key, every documented operation routed, undocumented paths 404', async (t) => {
  const srv = await startTestServer({}, undefined, false);
  t.teardown(() => srv.close());
  const served = await call(srv.url, 'GET', '/openapi.json');
  t.equal(served.status, 200);
  t.match(served.headers.get('content-type'), /^application\/json/);
  t.same(documentedOperations(served.body), documentedOperations(doc), 'the served document has the same operations');
  t.same(served.body.components.schemas, doc.components.schemas, 'and the same schemas');
  const probe = async (method: string, path: string, headers: Record<string, string>): Promise<Response> =>
    fetch(srv.url + path, { method, headers, body: method === 'POST' ? '{}' : undefined });
  for (const op of documentedOperations(doc)) {
    const [method, template] = op.split(' ') as [string, string];
    const params = doc.paths[template][method.toLowerCase()].parameters ?? [];
    const path = template.replace(/\{(\w+)\}/g, (_m, n: string) => params.find((p: any) => p.name === n).schema.enum[0]);
    const r = await probe(method, path, { 'x-api-key': OPERATOR_KEY });
    const body = r.headers.get('content-type')?.startsWith('application/json') ? await r.json() : await r.text();
    t.not(r.status, 405, `${op} is routed for ${method}`);
    t.notOk(r.status === 404 && JSON.stringify(body).includes('no endpoint'), `${op} is routed`);
  }
  const unknown = await call(srv.url, 'GET', '/v2/embed');
  t.equal(unknown.status, 404, 'a path the document lacks is 404');
  t.equal(unknown.body.code, 'not_found');
});

t.test('the documented examples, sent to the real server, answer 200 and conform', { skip: !modelsBuilt && 'models are not built (models/build/manifest.lock.json): run node scripts/setup.mjs' }, async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const served = (await call(srv.url, 'GET', '/openapi.json')).body;
  for (const [path, ops] of Object.entries(served.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [name, example] of Object.entries((op.requestBody?.content['application/json'].examples ?? {}) as Record<string, any>)) {
        // call() checks the response against the document and throws when it does not conform.
        const r = await call(srv.url, method.toUpperCase(), path, example.value, { 'x-api-key': OPERATOR_KEY });
        t.equal(r.status, 200, `${method.toUpperCase()} ${path} example ${name}: ${JSON.stringify(r.body).slice(0, 200)}`);
      }
    }
  }
});
