/**
 * Hand-written abuse cases that property-based fuzzing does not generate (the schemathesis run is in
 * test/long/fuzz-schemathesis.test.ts): raw JSON with lone UTF-16 surrogates, duplicate keys, nesting a million
 * deep, bodies exactly at and one byte over MENU_MAX_BODY_BYTES (declared and chunked), invalid UTF-8, wrong content
 * types, query strings on POSTs, non-object JSON and prototype keys. Every answer is < 500, every error is
 * {detail, code} with a code from src/core/errors.ts and its status, and every 200 is the endpoint's shape.
 */
import t, { type Test } from 'tap';
import { request } from 'node:http';
import { ERROR_CODES } from '../src/core/errors.js';
import { OPERATOR_KEY, startTestServer, type TestServer } from './helpers/server.js';

// Small enough that bodies over it are quick to send, large enough that a million nested arrays fit.
const MAX_BODY = 4 * 1024 * 1024;
let server: TestServer;

t.before(async () => {
  server = await startTestServer({ MENU_MAX_BODY_BYTES: String(MAX_BODY) });
});
t.teardown(() => server?.close());

interface Raw {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request with a raw body (string or bytes), optional chunked framing and any headers. */
function raw(path: string, body: string | Buffer | undefined, opts: { method?: string; headers?: Record<string, string>; chunked?: boolean } = {}): Promise<Raw> {
  const u = new URL(server.url + path);
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path, // as given: new URL() would resolve dot segments the server should see
        method: opts.method ?? 'POST',
        headers: {
          'x-api-key': OPERATOR_KEY,
          ...(opts.chunked || bytes === undefined ? {} : { 'content-length': String(bytes.length) }),
          ...(opts.headers ?? { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (bytes && opts.chunked) {
      // Several chunks, so the size cap is met while reading rather than from a declared length.
      for (let i = 0; i < bytes.length; i += 8192) req.write(bytes.subarray(i, i + 8192));
      req.end();
    } else req.end(bytes);
  });
}

/** Asserts the answer's contract and returns the parsed body. */
function checked(t: Test, r: Raw, what: string): any {
  t.ok(r.status < 500, `${what}: not a 5xx (${r.status})`);
  let body: any;
  try {
    body = JSON.parse(r.text);
  } catch {
    t.fail(`${what}: the body is not JSON: ${r.text.slice(0, 200)}`);
    return undefined;
  }
  if (r.status >= 400) {
    t.same(Object.keys(body).sort(), ['code', 'detail'], `${what}: error body is {detail, code}`);
    const spec = ERROR_CODES[body.code as keyof typeof ERROR_CODES];
    t.ok(spec, `${what}: code ${body.code} is in the errors table`);
    t.equal(spec?.status, r.status, `${what}: ${body.code} is answered with its status`);
    t.ok(typeof body.detail === 'string' && body.detail.length > 0, `${what}: detail says why`);
  }
  return body;
}

t.test('lone surrogates escaped in JSON are text like any other', async (t) => {
  const lone = ['\\ud800', '\\udfff', 'Paneer \\ud83d Tikka', '\\ud83d\\ude00\\ud83d', '\\udc00\\ud800'];
  for (const s of lone) {
    const embed = checked(t, await raw('/embed', `{"items":["${s}","Dal"]}`), `/embed ${s}`);
    t.equal(embed?.count, 2, `/embed ${s}: two vectors`);
    t.equal(embed?.embeddings?.[0]?.length, 128);
    const search = checked(t, await raw('/search', `{"query":"${s} paneer","corpus":["${s}","Paneer Tikka"]}`), `/search ${s}`);
    t.ok(Array.isArray(search?.results), `/search ${s}: results`);
    for (const r of search?.results ?? []) t.ok(r.text === 'Paneer Tikka' || r.text.length > 0, 'a result text is from the corpus');
    const cls = checked(t, await raw('/classify', `{"items":["${s}"]}`), `/classify ${s}`);
    t.equal(cls?.results?.length, 1);
    checked(t, await raw('/match', `{"pairs":[{"text_a":"${s}","text_b":"Paneer Tikka"}]}`), `/match ${s}`);
    checked(t, await raw('/dedup', `{"items":["${s}","${s}","Dal"]}`), `/dedup ${s}`);
    checked(t, await raw('/report', `{"items":["${s}","Dal"],"restaurant_name":"${s}"}`), `/report ${s}`);
    checked(t, await raw('/suggest', `{"cart":["${s}"],"menu":["${s}","Coke","Gulab Jamun"]}`), `/suggest ${s}`);
  }
  // The response escapes what it echoes, so it stays valid JSON (a lone surrogate cannot be UTF-8).
  const echoed = await raw('/classify', '{"items":["a\\ud800b"]}');
  t.match(echoed.text, /a\\ud800b/, 'an echoed lone surrogate comes back as its JSON escape');
});

t.test('duplicate keys: the last one wins, as in JSON.parse', async (t) => {
  const r = checked(t, await raw('/embed', '{"items":["a"],"items":["Paneer","Dal"]}'), 'duplicate items');
  t.equal(r?.count, 2, 'the second items array is the one embedded');
  const d = checked(t, await raw('/embed', '{"items":["a"],"dimension":384,"dimension":256}'), 'duplicate dimension');
  t.equal(d?.dimension, 256);
  const bad = checked(t, await raw('/embed', '{"items":["a"],"dimension":128,"dimension":"128"}'), 'a duplicate of the wrong type');
  t.equal(bad?.code, 'validation_error');
  checked(t, await raw('/search', '{"query":"x","query":"","corpus":["a"]}'), 'an empty duplicate query');
});

t.test('deep nesting is a clear error, never a crash', async (t) => {
  for (const depth of [1000, 100_000, 1_000_000]) {
    const arrays = '['.repeat(depth) + ']'.repeat(depth);
    const inItems = checked(t, await raw('/embed', `{"items":${arrays}}`), `items nested ${depth} deep`);
    t.equal(inItems?.code, depth * 2 + 12 > MAX_BODY ? 'payload_too_large' : 'validation_error', `items nested ${depth} deep`);
    const objects = '{"a":'.repeat(Math.min(depth, 10_000)) + '1' + '}'.repeat(Math.min(depth, 10_000));
    checked(t, await raw('/search', `{"query":"x","corpus":["a"],"extra":${objects}}`), `an unknown field nested ${Math.min(depth, 10_000)} deep`);
    checked(t, await raw('/search', `{"query":"x","corpus":["a"],"corpus_embeddings":[${'['.repeat(Math.min(depth, 10_000))}${']'.repeat(Math.min(depth, 10_000))}]}`), `corpus_embeddings nested`);
  }
  const health = await fetch(server.url + '/health');
  t.equal(health.status, 200, 'the server is fine afterwards');
});

t.test('bodies at and over MENU_MAX_BODY_BYTES', async (t) => {
  const sized = (n: number): string => {
    const head = '{"items":["Paneer Tikka"],"pad":"';
    return head + 'x'.repeat(n - head.length - 2) + '"}';
  };
  t.equal(Buffer.byteLength(sized(MAX_BODY)), MAX_BODY);
  const at = checked(t, await raw('/embed', sized(MAX_BODY)), 'a body of exactly the limit');
  t.equal(at?.count, 1, 'exactly at the limit is served');
  const atChunked = checked(t, await raw('/embed', sized(MAX_BODY), { chunked: true }), 'exactly the limit, chunked');
  t.equal(atChunked?.count, 1);
  const over = checked(t, await raw('/embed', sized(MAX_BODY + 1)), 'one byte over');
  t.equal(over?.code, 'payload_too_large', 'one byte over: 413');
  const overChunked = checked(t, await raw('/embed', sized(MAX_BODY + 1), { chunked: true }), 'one byte over, chunked');
  t.equal(overChunked?.code, 'payload_too_large', 'one byte over without a declared length: 413');
  const huge = checked(t, await raw('/embed', sized(MAX_BODY * 8), { chunked: true }), 'eight times the limit, chunked');
  t.equal(huge?.code, 'payload_too_large');
  // Multi-byte characters count as bytes here, as characters in the 500-character text limit.
  const emoji = '🍛'.repeat(500);
  const fits = checked(t, await raw('/embed', `{"items":["${emoji}"]}`), '500 emoji (2000 bytes)');
  t.equal(fits?.count, 1, '500 four-byte characters are 500 characters');
  const tooLong = checked(t, await raw('/embed', `{"items":["${emoji}🍛"]}`), '501 emoji');
  t.equal(tooLong?.code, 'validation_error');
  const nothing = checked(t, await raw('/embed', ''), 'an empty body');
  t.equal(nothing?.code, 'malformed_json');
  const noBody = checked(t, await raw('/embed', undefined), 'no body at all');
  t.equal(noBody?.code, 'malformed_json');
});

t.test('huge and empty strings, odd numbers, invalid UTF-8', async (t) => {
  const longText = 'a'.repeat(60_000);
  t.equal(checked(t, await raw('/embed', `{"items":["${longText}"]}`), 'a 60,000-character item')?.code, 'validation_error');
  t.equal(checked(t, await raw('/embed', '{"items":[""]}'), 'an empty item')?.count, 1, 'an empty item is embedded (it cleans to nothing)');
  t.equal(checked(t, await raw('/search', '{"query":"","corpus":["a"]}'), 'an empty query')?.code, 'validation_error');
  checked(t, await raw('/search', '{"query":" \\u200b\\ufeff ","corpus":["a"]}'), 'an invisible query');
  for (const dimension of ['1e308', '-0', '128.0', '128.5', '"128"', 'true', '[128]', '-128', '1e-320']) {
    const r = checked(t, await raw('/embed', `{"items":["a"],"dimension":${dimension}}`), `dimension ${dimension}`);
    if (dimension === '128.0') t.equal(r?.dimension, 128, '128.0 is 128');
  }
  for (const topK of ['0', '1e21', '-1', '2.5', '1000', '1001', 'null']) checked(t, await raw('/search', `{"query":"x","corpus":["a"],"top_k":${topK}}`), `top_k ${topK}`);
  for (const th of ['-0.0001', '1.0001', '1e-300', 'null', '"0.5"']) checked(t, await raw('/match', `{"pairs":[{"text_a":"a","text_b":"b"}],"cosine_threshold":${th}}`), `cosine_threshold ${th}`);
  checked(t, await raw('/embed', Buffer.from([0x7b, 0x22, 0x69, 0x74, 0x65, 0x6d, 0x73, 0x22, 0x3a, 0x5b, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x5d, 0x7d])), 'invalid UTF-8 inside a string');
  checked(t, await raw('/embed', Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"items":["a"]}')])), 'a UTF-8 byte-order mark before the JSON');
  checked(t, await raw('/embed', '{"items":["nul\\u0000inside","\u0000"]}'), 'NUL characters');
  checked(t, await raw('/embed', `{"items":["${'\u0301'.repeat(499)}"]}`), '499 combining marks alone');
  checked(t, await raw('/embed', '{"items":["\u202eakkiT\u202c","👨\u200d👩\u200d👧","\u200b","ﷺ"]}'), 'RTL override, a ZWJ family, a zero-width space, a ligature');
});

t.test('not a JSON object', async (t) => {
  for (const body of ['[]', '"items"', 'null', '123', 'true', '{', '{"items":["a"]} {"x":1}', '{"items":["a"],}', "{'items':['a']}", 'NaN', '{"items":[NaN]}']) {
    const r = checked(t, await raw('/embed', body), `body ${body}`);
    t.match(r?.code, /^(malformed_json|validation_error)$/, `body ${body}: 400 or 422`);
  }
  const proto = checked(t, await raw('/embed', '{"__proto__":{"items":["a"]}}'), '__proto__');
  t.equal(proto?.code, 'validation_error', 'items inside __proto__ are not items');
  checked(t, await raw('/embed', '{"items":["a"],"constructor":{"prototype":{"polluted":1}}}'), 'constructor.prototype');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'nothing was polluted');
});

t.test('wrong content types and query strings on POSTs', async (t) => {
  const json = '{"items":["Paneer Tikka"]}';
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/xml', '']) {
    const r = checked(t, await raw('/embed', json, { headers: type ? { 'content-type': type } : {} }), `Content-Type ${type || '(none)'}`);
    t.equal(r?.count, 1, `Content-Type ${type || '(none)'}: the body is read as JSON`);
  }
  const form = checked(t, await raw('/embed', 'items=Paneer&dimension=384', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'a form body');
  t.equal(form?.code, 'malformed_json');
  const q = checked(t, await raw('/embed?dimension=384&items=x&x-api-key=nope', json), 'query parameters on a POST');
  t.equal(q?.dimension, 128, 'query parameters are ignored: the body says the dimension');
  checked(t, await raw('/embed?', json), 'an empty query string');
  checked(t, await raw('/embed?%ff%fe=%00', json), 'a query string of invalid percent-escapes');
  checked(t, await raw('/embed/?a=b', json), 'a trailing slash with a query');
  t.equal(checked(t, await raw('/embed/../embed', json), 'dot segments')?.code, 'not_found');
  t.equal(checked(t, await raw('/EMBED', json), 'upper-case path')?.code, 'not_found');
  t.equal(checked(t, await raw('/embed', json, { method: 'GET' }), 'GET with a body')?.code, 'method_not_allowed');
  t.equal(checked(t, await raw('/health', json, { method: 'POST' }), 'POST /health')?.code, 'method_not_allowed');
});
