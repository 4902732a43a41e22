#!/usr/bin/env node
// Builds the Rust vector addon into native/menu_native.node (cargo build --release, then copy the
// shared library). Idempotent and quick when nothing changed: skips the build when the .node file is
// newer than Cargo.toml, Cargo.lock, build.rs and every file under native/src. Uses --locked when
// Cargo.lock exists so every machine builds the same crates. Exits non-zero on any failure.
//   node scripts/build-native.mjs [--force]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(root, 'native');
const targetDir = join(nativeDir, 'target');
const addonPath = join(nativeDir, 'menu_native.node');
const log = (message) => console.log(`[build-native] ${message}`);

function fail(message) {
  console.error(`[build-native] FAILED: ${message}`);
  process.exit(1);
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The library cargo writes for a cdylib named menu_native, per platform. */
function builtLibraryName() {
  if (process.platform === 'win32') return 'menu_native.dll';
  if (process.platform === 'darwin') return 'libmenu_native.dylib';
  return 'libmenu_native.so';
}

const inputs = [join(nativeDir, 'Cargo.toml'), join(nativeDir, 'Cargo.lock'), join(nativeDir, 'build.rs'), ...filesUnder(join(nativeDir, 'src'))].filter(existsSync);
const force = process.argv.includes('--force');
if (!force && existsSync(addonPath)) {
  const builtAt = statSync(addonPath).mtimeMs;
  const newer = inputs.filter((file) => statSync(file).mtimeMs > builtAt);
  if (newer.length === 0) {
    log(`up to date: ${addonPath}`);
    process.exit(0);
  }
  log(`rebuilding: ${newer.map((file) => file.slice(root.length + 1)).join(', ')} changed`);
} else {
  log(force ? 'rebuilding (--force)' : `building ${addonPath} (not built yet)`);
}

const cargoArgs = ['build', '--release', '--manifest-path', join(nativeDir, 'Cargo.toml'), '--target-dir', targetDir];
if (existsSync(join(nativeDir, 'Cargo.lock'))) cargoArgs.push('--locked');
log(`cargo ${cargoArgs.join(' ')}`);
const started = Date.now();
const cargo = spawnSync('cargo', cargoArgs, { cwd: nativeDir, stdio: 'inherit' });
if (cargo.error) fail(`cannot run cargo (${cargo.error.message}); install Rust (rustup) and retry`);
if (cargo.status !== 0) fail(`cargo exited with ${cargo.status ?? cargo.signal}`);

const built = join(targetDir, 'release', builtLibraryName());
if (!existsSync(built)) fail(`cargo succeeded but ${built} is missing`);
// Copy then rename, so a process that has the old addon loaded never sees a half-written file.
const staging = `${addonPath}.tmp-${process.pid}`;
try {
  copyFileSync(built, staging);
  renameSync(staging, addonPath);
} catch (err) {
  fail(`cannot install ${addonPath}: ${err.message}`);
}
log(`built ${addonPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
