#!/usr/bin/env node
// Runs every compiled tap test and ends with one line "N passed, N failed" (what CI reads). Exit 1 on failures.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The suite: the service's tests, the typed client's (client/test, compiled with the rest by the root tsconfig) and
// dist/eval/ for the held-out firewall test (the one test that may read the held-out set).
const testDirs = [join('dist', 'test'), join('dist', 'client', 'test'), join('dist', 'eval')];
const only = process.argv.slice(2);
const files = only.length
  ? only
  : testDirs.flatMap((dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((f) => f.endsWith('.test.js')).sort().map((f) => join(dir, f)) : []));
if (files.length === 0) {
  console.log('0 passed, 1 failed');
  console.error('no compiled tests found in dist/test, dist/client/test or dist/eval');
  process.exit(1);
}

const child = spawn(join(root, 'node_modules', '.bin', 'tap'), ['--reporter=tap', ...files], { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
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
  writeFileSync(join(root, 'dist', 'test-summary.txt'), summary + '\n');
  console.log(summary);
  process.exit(failed > 0 ? 1 : 0);
});
