#!/usr/bin/env node
// Runs every compiled tap test and ends with one line "N passed, N failed" (what CI reads). Exit 1 on failures.
// `--long` runs the long suite instead (dist/test/long: fuzzing, soak, overload; `npm run test:long`) and writes its
// own summary, dist/test-long-summary.txt, which .ci/run adds to the final line.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const long = process.argv.includes('--long');
// The suite: the service's tests, the typed client's (client/test, compiled with the rest by the root tsconfig) and
// dist/eval/ for the held-out firewall test (the one test that may read the held-out set). `--long`: dist/test/long.
const testDirs = long ? [join('dist', 'test', 'long')] : [join('dist', 'test'), join('dist', 'client', 'test'), join('dist', 'eval')];
const summaryFile = join(root, 'dist', long ? 'test-long-summary.txt' : 'test-summary.txt');
// Long tests measure the machine (load, latency, memory): one at a time, each with up to 25 minutes.
const LONG_TAP_OPTIONS = ['--jobs=1', `--timeout=${Number(process.env.MENU_LONG_TIMEOUT_S ?? 1500)}`];
const only = process.argv.slice(2).filter((a) => a !== '--long');
const files = only.length
  ? only
  : testDirs.flatMap((dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((f) => f.endsWith('.test.js')).sort().map((f) => join(dir, f)) : []));
if (files.length === 0) {
  console.log('0 passed, 1 failed');
  console.error('no compiled tests found in dist/test, dist/client/test or dist/eval');
  process.exit(1);
}

const child = spawn(join(root, 'node_modules', '.bin', 'tap'), ['--reporter=tap', ...(long ? LONG_TAP_OPTIONS : []), ...files], { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
let out = '';
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  out += d.toString();
});
child.stderr.on('data', (d) => process.stderr.write(d));
child.on('close', (code) => {
  // Count test points at every nesting level that are leaves (assertions) from the TAP stream.
  let passed = 0;
  let failed = 0;
  for (const line of out.split('\n')) {
    const m = /^\s*(ok|not ok) \d+/.exec(line);
    if (!m) continue;
    if (/#\s*(SKIP|TODO)/i.test(line)) continue;
    if (m[1] === 'ok') passed++;
    else failed++;
  }
  if (code !== 0 && failed === 0) failed = 1; // a crash without a failing point still fails the run
  const summary = `${passed} passed, ${failed} failed`;
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(summaryFile, summary + '\n');
  console.log(summary);
  process.exit(failed > 0 ? 1 : 0);
});
