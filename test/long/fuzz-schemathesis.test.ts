/**
 * Property-based fuzzing of every operation with schemathesis (pinned in test/fuzz/requirements.txt, installed into
 * test/fuzz/.venv by test/fuzz/setup-venv.sh): positive and negative cases from the OpenAPI document (wrong types,
 * missing and extra fields, out-of-range numbers, huge and empty strings, unsupported methods, missing keys) plus the
 * unicode cases of test/fuzz/hooks.py (RTL, combining marks, zero-width, lone surrogates, emoji ZWJ).
 * Pass: no 5xx, every error body {detail, code} with a code from src/core/errors.ts and its status, every 2xx
 * matching its schema, every status documented. MENU_FUZZ_SECONDS sets the generation time per operation (default
 * 20); MENU_FUZZ_SEED replays a run (the seed is printed). bench/fuzz.sh runs it longer.
 *
 * The document: GET /openapi.json when the server serves one, else the hand-kept test/fuzz/openapi.hand.json.
 */
import t from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccessControl } from '../../src/core/accounts/access.js';
import { ERROR_CODES } from '../../src/core/errors.js';
import { REPO_ROOT } from '../../src/core/paths.js';
import { OPERATOR_KEY, startTestServer } from '../helpers/server.js';

const FUZZ_DIR = join(REPO_ROOT, 'test', 'fuzz');
const SECONDS = Number(process.env.MENU_FUZZ_SECONDS ?? 20);
const PROBE_SECONDS = 10;
const SEED = process.env.MENU_FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));

const python = spawnSync('python3', ['--version']);
const skip = python.status === 0 ? false : 'python3 is not installed (schemathesis runs in a Python venv; CI has python3)';

interface RunReport {
  test_cases: { generated: number; with_failures: number; errored: number };
  failures: { code: string; title: string; count: number; operations: string[] }[];
  errors: { title: string; count: number }[];
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: (SECONDS + 240) * 1000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout + stderr });
    });
  });
}

t.test('schemathesis over every operation', { skip }, async (t) => {
  const setup = spawnSync('bash', [join(FUZZ_DIR, 'setup-venv.sh')], { encoding: 'utf8', timeout: 600_000 });
  t.equal(setup.status, 0, `the schemathesis venv is set up ${setup.stderr.slice(-500)}`);
  const st = setup.stdout.trim().split('\n').pop()!;

  const dataDir = mkdtempSync(join(tmpdir(), 'mi-fuzz-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const gate = await createAccessControl({ dataDir, operatorKey: OPERATOR_KEY });
  const server = await startTestServer({}, gate);
  t.teardown(() => server.close());

  const location = `${server.url}/openapi.json`;
  const served = await fetch(location);
  t.equal(served.status, 200, 'the server serves its OpenAPI document');
  const doc = (await served.json()) as { paths: Record<string, Record<string, unknown>> };
  t.comment(`document: ${location}; seed ${SEED}; ${SECONDS} s per operation`);
  const errorEnum = (doc as any).components?.schemas?.Error?.properties?.code?.enum as string[] | undefined;
  if (errorEnum) t.same([...errorEnum].sort(), Object.keys(ERROR_CODES).sort(), 'the document lists exactly the codes of src/core/errors.ts');

  const codes = JSON.stringify(Object.fromEntries(Object.entries(ERROR_CODES).map(([code, spec]) => [code, spec.status])));
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() })));
  t.ok(operations.length >= 10, `${operations.length} operations`);
  let generated = 0;
  let requests = 0;
  let fiveHundreds = 0;
  // Two operations at a time: each run spends its first ~10 s on a probe that only waits (see --max-time).
  const fuzzOne = async ({ path, method }: { path: string; method: string }): Promise<void> => {
    const work = mkdtempSync(join(tmpdir(), 'mi-st-'));
    const tally = join(work, 'tally.json');
    const { code, out } = await run(
      st,
      [
        'run', location, '--url', server.url, '--header', `X-API-Key: ${OPERATOR_KEY}`,
        '--include-name', `${method} ${path}`,
        '--checks', 'all', '--exclude-checks', 'positive_data_acceptance',
        // The budget includes schemathesis' probe of the server, about 10 s: a request with a NUL byte in a header,
        // which uWebSockets.js answers by closing the connection when its idle timeout ends.
        '--max-time', String(SECONDS + PROBE_SECONDS), '--seed', SEED, '--workers', '1',
        '--request-timeout', '60', '--generation-database', 'none',
        '--report', 'json', '--report-dir', work, '--no-color',
      ],
      { SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: FUZZ_DIR, MENU_ERROR_CODES: codes, MENU_FUZZ_TALLY: tally },
    );
    const reportFile = spawnSync('bash', ['-c', `ls ${work}/*.json | grep -v tally | head -1`], { encoding: 'utf8' }).stdout.trim();
    let report: RunReport | undefined;
    try {
      report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport;
    } catch {
      t.fail(`${method} ${path}: no report (exit ${code})\n${out.slice(-3000)}`);
      return;
    }
    let byStatus: Record<string, Record<string, number>> = {};
    try {
      byStatus = JSON.parse(readFileSync(tally, 'utf8'));
    } catch {
      /* no responses tallied: the assertions below say so */
    }
    const statuses = Object.values(byStatus).reduce<Record<string, number>>((acc, s) => {
      for (const [k, v] of Object.entries(s)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {});
    const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
    generated += report.test_cases.generated;
    requests += sent;
    fiveHundreds += Object.entries(statuses).filter(([s]) => Number(s) >= 500).reduce((a, [, v]) => a + v, 0);
    t.comment(`${method} ${path}: ${report.test_cases.generated} cases, ${sent} responses ${JSON.stringify(statuses)}`);
    t.ok(sent > 0, `${method} ${path}: requests were sent`);
    t.same(report.failures, [], `${method} ${path}: no failing check${code === 0 ? '' : `\n${out.slice(-6000)}`}`);
    // uWebSockets.js's parser takes header names of letters, digits and '-' only: a name with another character
    // RFC 9110 allows ('_', '.', '`', '^', '|', '~', '!', '#', '*', '+', ...) gets no answer and the connection is closed after the idle
    // timeout, which schemathesis reports as a network error. Counted and reported; any other error fails.
    const transportClosed = report.errors.filter((e) => /network error/i.test(e.title));
    if (transportClosed.length > 0) t.comment(`${method} ${path}: ${transportClosed.reduce((n, e) => n + e.count, 0)} request(s) with a header name uWebSockets.js refuses: connection closed unanswered`);
    t.same(report.errors.filter((e) => !transportClosed.includes(e)), [], `${method} ${path}: no errors`);
    t.notOk(Object.keys(statuses).some((s) => Number(s) >= 500), `${method} ${path}: no 5xx`);
    rmSync(work, { recursive: true, force: true });
  };
  for (let i = 0; i < operations.length; i += 2) await Promise.all(operations.slice(i, i + 2).map(fuzzOne));
  t.comment(`schemathesis: ${generated} cases generated, ${requests} requests, ${fiveHundreds} answered 5xx`);
  writeFileSync(join(REPO_ROOT, 'dist', 'fuzz-summary.json'), JSON.stringify({ generated, requests, fiveHundreds, seed: SEED, secondsPerOperation: SECONDS }));
  t.equal(fiveHundreds, 0, 'no 5xx over the whole run');
});
