import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

/**
 * What every benchmark prints and keeps: result lines on stdout (also kept for the results file), progress on
 * stderr, and target checks that print "target ok: …" or a "WARNING target missed: …" line (a missed target is a
 * finding, not a failure). Warnings pushed directly (coldness checks) are repeated at the end by `finish()`.
 */
export function createReporter() {
  const lines = [];
  const warnings = [];
  const report = (line) => {
    lines.push(line);
    console.log(line);
  };
  return {
    lines,
    warnings,
    report,
    progress: (msg) => console.error(`# ${msg}`),
    check(ok, okText, missText) {
      if (ok) report(`target ok: ${okText}`);
      else {
        const w = `WARNING target missed: ${missText}`;
        warnings.push(w);
        report(w);
      }
    },
    /** Repeats the warnings not printed yet and the load at the end, the two things a reader checks first. */
    finish() {
      for (const w of warnings.filter((w) => !lines.includes(w))) report(w);
      report(`# load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')} (other agents share this box: ±30% between runs is normal)`);
    },
  };
}

/** Writes every sample of a run to bench/results/<prefix>-<start time>.json (gitignored); returns the path. */
export function writeResults(benchDir, prefix, started, results) {
  const outDir = join(benchDir, 'results');
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, `${prefix}-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(outFile, JSON.stringify(results, null, 2));
  return outFile;
}

/** Runs a benchmark's main(): exit 0 when it completed whatever the numbers, 1 when the benchmark itself failed.
 * The explicit exit keeps ONNX Runtime's threads from holding the process open. */
export function runBench(main) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`bench failed: ${err instanceof Error ? err.stack : err}`);
      process.exit(1);
    },
  );
}
