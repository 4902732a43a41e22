import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Tokenizer } from '@huggingface/tokenizers';
import { createAccessControl } from '../src/core/accounts/access.js';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { resolveBuiltModel } from '../src/core/inference/model-files.js';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** What an OpenAI client does with a base64 embedding: little-endian float32 bytes. */
function decodeBase64Floats(b64: string): Float32Array {
  const bytes = Buffer.from(b64, 'base64');
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

t.test('the official openai client, pointed at the server, unchanged', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-openai-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openAccountStore({ dataDir });
  const admin = new AccountAdmin(store);
  const credit = await admin.create({ customer: 'OpenAI Credits', plan: 'starter', metering: 'credits', milliCredits: 10_000 });
  const quota = await admin.create({ customer: 'OpenAI Quota', plan: 'starter', metering: 'quota' });
  await store.close();
  const gate = await createAccessControl({ dataDir, operatorKey: OPERATOR_KEY });
  const srv = await startTestServer({}, gate);
  t.teardown(() => srv.close());
  const model = srv.services.modelId!;
  const client = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: quota.key, maxRetries: 0 });
  const texts = ['Chicken 65', 'Gobi Manchurian Dry', 'Hyderabadi Veg Biryani [Serves 2] ₹299'];

  t.test('models.list names the served model', async (t) => {
    const page = await client.models.list();
    t.same(page.data.map((m) => m.id), [model]);
    t.equal(page.data[0]!.object, 'model');
  });

  t.test('embeddings.create: the client asks for base64 by default and decodes it; float gives the same numbers', async (t) => {
    const viaDefault = await client.embeddings.create({ model, input: texts });
    t.equal(viaDefault.object, 'list');
    t.equal(viaDefault.model, model);
    t.same(viaDefault.data.map((d) => [d.object, d.index]), texts.map((_, i) => ['embedding', i]));
    const viaFloat = await client.embeddings.create({ model, input: texts, encoding_format: 'float' });
    const viaBase64 = await client.embeddings.create({ model, input: texts, encoding_format: 'base64' });
    for (let i = 0; i < texts.length; i++) {
      const floats = viaFloat.data[i]!.embedding as number[];
      t.equal(floats.length, 384, 'the model\'s own 384 dimensions by default');
      t.ok(Math.abs(dot(floats, floats) - 1) < 1e-4, 'unit norm');
      t.same(viaDefault.data[i]!.embedding, floats, `text ${i}: the client's base64 decoding equals the float output exactly`);
      const raw = viaBase64.data[i]!.embedding as unknown as string;
      t.type(raw, 'string', 'explicit base64 comes back as a string');
      t.same(Array.from(decodeBase64Floats(raw)), floats, `text ${i}: our own little-endian decoding equals the float output`);
    }
    const direct = await call(srv.url, 'POST', '/embed', { items: texts, dimension: 384 }, { 'x-api-key': OPERATOR_KEY });
    for (let i = 0; i < texts.length; i++) t.ok(dot(direct.body.embeddings[i], viaFloat.data[i]!.embedding as number[]) > 0.9999, `text ${i}: the same vector as /embed`);
  });

  t.test('usage counts the tokens the encoder read, from the model\'s own tokenizer', async (t) => {
    const r = await client.embeddings.create({ model, input: texts, encoding_format: 'float' });
    const dir = resolveBuiltModel(undefined).dir;
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')));
    const expected = texts.map((x) => Math.min(srv.config.maxSequenceTokens, tokenizer.encode(srv.services.cleaner.clean(x).text).ids.length)).reduce((a, b) => a + b, 0);
    t.equal(r.usage.prompt_tokens, expected, `${expected} tokens ([CLS] and [SEP] included, cleaned text)`);
    t.equal(r.usage.total_tokens, r.usage.prompt_tokens);
    const one = await client.embeddings.create({ model, input: 'Idli', encoding_format: 'float' });
    t.equal(one.data.length, 1, 'a single string is one input');
    t.ok(one.usage.prompt_tokens >= 3 && one.usage.prompt_tokens < r.usage.prompt_tokens, 'fewer tokens for one short text');
  });

  t.test('dimensions 128 and 256 are /embed\'s projections', async (t) => {
    for (const dimensions of [128, 256] as const) {
      const r = await client.embeddings.create({ model, input: texts, dimensions, encoding_format: 'float' });
      const direct = await call(srv.url, 'POST', '/embed', { items: texts, dimension: dimensions }, { 'x-api-key': OPERATOR_KEY });
      for (let i = 0; i < texts.length; i++) {
        const v = r.data[i]!.embedding as number[];
        t.equal(v.length, dimensions);
        t.ok(dot(v, direct.body.embeddings[i]) > 0.9999, `${dimensions}-d text ${i} equals /embed's`);
      }
    }
  });

  t.test('errors arrive in OpenAI\'s shape, as the client\'s own error classes', async (t) => {
    const unknownModel = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'Idli' }).catch((e: unknown) => e);
    t.type(unknownModel, OpenAI.NotFoundError, 'unknown model: 404 NotFoundError');
    t.match(unknownModel, { status: 404, code: 'model_not_found', param: 'model', type: 'invalid_request_error' });
    t.match((unknownModel as InstanceType<typeof OpenAI.APIError>).message, new RegExp(model), 'the message names the served model');

    const badDims = await client.embeddings.create({ model, input: 'Idli', dimensions: 100 }).catch((e: unknown) => e);
    t.type(badDims, OpenAI.BadRequestError);
    t.match(badDims, { status: 400, code: 'invalid_parameter', param: 'dimensions' });

    const tooMany = await client.embeddings.create({ model, input: Array.from({ length: 2049 }, (_, i) => `Dish ${i}`) }).catch((e: unknown) => e);
    t.type(tooMany, OpenAI.BadRequestError, '2049 inputs: 400 (OpenAI\'s status for an invalid request)');
    t.match(tooMany, { status: 400, code: 'validation_error', param: 'input' });

    const tokens = await client.embeddings.create({ model, input: [[101, 2023, 102]] as unknown as string[] }).catch((e: unknown) => e);
    t.match(tokens, { status: 400, code: 'validation_error', param: 'input' }, 'token-id arrays are refused clearly');

    const badKey = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: 'sk-not-a-menu-key', maxRetries: 0 });
    const unauthorized = await badKey.embeddings.create({ model, input: 'Idli' }).catch((e: unknown) => e);
    t.type(unauthorized, OpenAI.AuthenticationError);
    t.match(unauthorized, { status: 401, code: 'unauthorized', type: 'authentication_error' });

    const raw = await call(srv.url, 'POST', '/v1/embeddings', { model, input: 'x'.repeat(501) }, { authorization: `Bearer ${quota.key}` });
    t.equal(raw.status, 400);
    t.same(Object.keys(raw.body), ['error'], 'no detail/code at the top level on /v1');
    t.same(Object.keys(raw.body.error).sort(), ['code', 'message', 'param', 'type']);
    t.equal(raw.body.error.param, 'input');
    const missing = await call(srv.url, 'POST', '/v1/embeddings', { input: 'Idli' }, { authorization: `Bearer ${quota.key}` });
    t.match(missing.body.error, { code: 'validation_error', param: 'model', message: /model is required/ });
  });

  t.test('X-API-Key works as well as Bearer; metered and priced like /embed', async (t) => {
    const before = (await call(srv.url, 'GET', '/balance', undefined, { 'x-api-key': credit.key })).body.credits_remaining;
    const r = await call(srv.url, 'POST', '/v1/embeddings', { model, input: texts, encoding_format: 'float' }, { 'x-api-key': credit.key });
    t.equal(r.status, 200);
    t.equal(r.headers.get('x-credits-remaining'), String(before - 0.15), 'the response says the balance after it');
    const after = (await call(srv.url, 'GET', '/balance', undefined, { 'x-api-key': credit.key })).body.credits_remaining;
    t.equal(Math.round((before - after) * 1000), 150, '3 inputs × 0.05 credits, as /embed charges 3 items');
    const failed = await call(srv.url, 'POST', '/v1/embeddings', { model: 'nope', input: texts }, { 'x-api-key': credit.key });
    t.equal(failed.status, 404);
    t.equal((await call(srv.url, 'GET', '/balance', undefined, { 'x-api-key': credit.key })).body.credits_remaining, after, 'an unknown model is not charged');
    const quotaCall = await call(srv.url, 'POST', '/v1/embeddings', { model, input: 'Idli' }, { authorization: `Bearer ${quota.key}` });
    t.match(quotaCall.headers.get('ratelimit'), /"monthly";r=\d+/, 'quota accounts see the RateLimit headers');
  });
});
