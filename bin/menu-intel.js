#!/usr/bin/env node
// The packaged CLI: `menu-intel serve`, `menu-intel keys ...`, `menu-intel catalog ...`. Runs the compiled build (npm run build / setup).
import { main } from '../dist/src/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    console.error(`[menu-intel] ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
