import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAccessControl } from '../../src/core/accounts/access.js';
import { AccountAdmin } from '../../src/core/accounts/admin.js';
import { openAccountStore } from '../../src/core/accounts/store.js';
import { REPO_ROOT } from '../../src/core/paths.js';
import { OPERATOR_KEY, startTestServer } from '../../test/helpers/server.js';
import { MenuIntelClient, MenuIntelError, parseRetryAfter, type RetryEvent } from '../src/index.js';

t.test('the generated types are those of the server\'s current document', async (t) => {
  const generator = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'generate-client-types.mjs')).href)) as {
    clientTypesSource(doc: unknown): Promise<string>;
    documentForClient(): Promise<unknown>;
  };
  const expected = await generator.clientTypesSource(await generator.documentForClient());
  const actual = readFileSync(join(REPO_ROOT, 'client', 'src', 'schema.ts'), 'utf8');
  t.ok(actual === expected, 'client/src/schema.ts is up to date (else: node scripts/generate-client-types.mjs)');
  t.match(actual, /"\/v1\/embeddings"/, 'every path is in it');
});

t.test('the package builds on its own (tsc, declarations)', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'mi-client-build-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(REPO_ROOT, 'client', 'tsconfig.json'), '--outDir', out], { stdio: 'pipe' });
  t.ok(existsSync(join(out, 'index.js')) && existsSync(join(out, 'index.d.ts')), 'index.js and index.d.ts');
  t.match(readFileSync(join(out, 'index.d.ts'), 'utf8'), /embed\(body/, 'typed methods in the declarations');
});

t.test('Retry-After parsing: seconds and HTTP dates', async (t) => {
  t.equal(parseRetryAfter('2'), 2);
  t.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 5)).toUTCString(), Date.UTC(2030, 0, 1)), 5);
  t.equal(parseRetryAfter(null), null);
  t.equal(parseRetryAfter('soon'), null);
});

t.test('against a real server', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-client-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openAccountStore({ dataDir });
  const admin = new AccountAdmin(store);
  const starter = await admin.create({ customer: 'Client Starter', plan: 'starter', metering: 'quota' });
  await store.close();
  const gate = await createAccessControl({ dataDir, operatorKey: OPERATOR_KEY });
  const srv = await startTestServer({}, gate);
  t.teardown(() => srv.close());

  t.test('typed calls return the server\'s answers', async (t) => {
    const client = new MenuIntelClient({ baseUrl: srv.url, apiKey: OPERATOR_KEY });
    const emb = await client.embed({ items: ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'पनीर टिक्का'], dimension: 256 });
    t.equal(emb.count, 2);
    t.equal(emb.dimension, 256);
    t.same(emb.embeddings.map((v) => v.length), [256, 256]);
    const found = await client.search({ query: 'something sweet', corpus: ['Gulab Jamun (2 Pcs)', 'Butter Naan', 'Chicken 65'] });
    t.equal(found.results[0]?.text, 'Gulab Jamun (2 Pcs)', 'the sweet item first');
    const matched = await client.match({ pairs: [{ text_a: 'Murgh Makhani', text_b: 'Butter Chicken' }] });
    t.equal(matched.results.length, 1);
    t.type(matched.results[0]!.match, 'boolean');
    const labels = await client.classify({ items: ['Masala Dosa'] });
    t.equal(labels.results[0]!.cuisine, 'South Indian');
    const health = await new MenuIntelClient({ baseUrl: srv.url }).health();
    t.same(health, { status: 'healthy', model: srv.services.modelId }, '/health without a key');
    const openai = await client.request('post', '/v1/embeddings', { model: srv.services.modelId!, input: 'Idli', dimensions: 128 });
    t.equal((openai.data[0]!.embedding as number[]).length, 128, 'any operation through request(), typed by path');
  });

  t.test('errors become MenuIntelError with the code; 4xx other than 429 are not retried', async (t) => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => ((calls++, fetch(input, init)));
    const client = new MenuIntelClient({ baseUrl: srv.url, apiKey: starter.key, fetch: counting, maxRetries: 3 });
    const invalid = await client.embed({ items: [] }).catch((e: unknown) => e);
    t.type(invalid, MenuIntelError);
    t.match(invalid, { status: 422, code: 'validation_error', message: /items must have at least 1 entry, got 0/ });
    t.ok((invalid as MenuIntelError).requestId, 'the request id to quote');
    const forbidden = await client.dedup({ items: ['Idli', 'Idly'] }).catch((e: unknown) => e);
    t.match(forbidden, { status: 403, code: 'plan_forbidden' });
    const noKey = await new MenuIntelClient({ baseUrl: srv.url, fetch: counting }).balance().catch((e: unknown) => e);
    t.match(noKey, { status: 401, code: 'unauthorized' });
    t.equal(calls, 3, 'one attempt each');
  });

  t.test('429 from the plan\'s in-flight ceiling: retried after Retry-After until answered', async (t) => {
    const retries: RetryEvent[] = [];
    const client = new MenuIntelClient({ baseUrl: srv.url, apiKey: starter.key, maxRetries: 10, onRetry: (e) => retries.push(e) });
    const started = Date.now();
    // Twelve at once on a Starter key (5 in flight at most): without retries some would be 429.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => client.embed({ items: [`Retry Probe Kulcha ${i}`, `Retry Probe Lassi ${i}`] })));
    t.equal(answers.length, 12);
    t.ok(answers.every((a) => a.count === 2), 'every request answered');
    t.ok(retries.length > 0, `${retries.length} retries`);
    t.ok(retries.every((r) => r.status === 429 && ['too_many_in_flight', 'rate_limited'].includes(r.code ?? '')), 'only 429s were retried');
    t.ok(retries.every((r) => r.delayMs === 1000), 'each waited the Retry-After the server sent (1 s)');
    t.ok(Date.now() - started >= 1000, 'and the wait really happened');

    const impatient = new MenuIntelClient({ baseUrl: srv.url, apiKey: starter.key, maxRetries: 0 });
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => impatient.embed({ items: [`No Retry Kulcha ${i}`] })));
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as MenuIntelError);
    t.ok(refused.length > 0, 'with maxRetries 0 the 429s surface');
    t.ok(refused.every((e) => e.status === 429 && e.retryAfterSeconds === 1), 'as MenuIntelError with retryAfterSeconds');
  });

  t.test('503 while the models load: retried after Retry-After until they are ready', async (t) => {
    const loading = await startTestServer({}, undefined, false);
    t.teardown(() => loading.close());
    const retries: RetryEvent[] = [];
    const client = new MenuIntelClient({ baseUrl: loading.url, apiKey: OPERATOR_KEY, maxRetries: 60, onRetry: (e) => retries.push(e) });
    const emb = await client.embed({ items: ['Veg Hakka Noodles'] });
    t.equal(emb.count, 1, 'answered once the models were ready');
    t.ok(retries.length > 0, `${retries.length} retries while loading`);
    t.ok(retries.every((r) => r.status === 503 && r.code === 'model_loading' && r.delayMs === 2000), '503 model_loading, Retry-After 2 s');
  });
});
