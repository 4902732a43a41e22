import { readFileSync } from 'node:fs';

/** One data row of a knowledge file, with where it came from so validation errors can point at it. */
export interface TsvRow {
  readonly file: string;
  readonly line: number;
  readonly cells: readonly string[];
}

/**
 * Reads a tab-separated knowledge file: `#` comments and blank lines are skipped, cells are trimmed.
 * With `header`, the first data line must equal the expected column names (a guard against column drift).
 */
export function readTsv(path: string, header?: readonly string[]): TsvRow[] {
  const rows: TsvRow[] = [];
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  let sawHeader = header === undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const cells = raw.split('\t').map((c) => c.trim());
    if (!sawHeader) {
      const got = cells.join('\t');
      if (got !== header!.join('\t')) {
        throw new Error(`${path}:${i + 1}: header must be "${header!.join('\\t')}", got "${cells.join('\\t')}"`);
      }
      sawHeader = true;
      continue;
    }
    rows.push({ file: path, line: i + 1, cells });
  }
  return rows;
}

/**
 * The rows of a file that lists each of `keys` exactly once in its first column (a table over an enum: a cuisine's
 * kitchen, a protein's kind), by key. Throws with file:line on an unknown or repeated key, and names the keys without
 * a row.
 */
export function readRowPerKey<K extends string>(path: string, header: readonly string[], keys: readonly K[], what: string): ReadonlyMap<K, TsvRow> {
  const rows = new Map<K, TsvRow>();
  for (const row of readTsv(path, header)) {
    const where = `${row.file}:${row.line}`;
    const key = row.cells[0] ?? '';
    if (!(keys as readonly string[]).includes(key)) throw new Error(`${where}: ${what} "${key}" is not one of ${keys.join(', ')}`);
    if (rows.has(key as K)) throw new Error(`${where}: ${what} "${key}" is listed twice`);
    rows.set(key as K, row);
  }
  const missing = keys.filter((k) => !rows.has(k));
  if (missing.length > 0) throw new Error(`${path}: no row for ${missing.join(', ')}`);
  return rows;
}

/**
 * A table of named whole counts (a conventions file: `name  value`, each of `keys` once, as readRowPerKey reads it),
 * by name. Throws with file:line on a value that is not a positive whole number (`unit` names what it counts).
 */
export function readCountPerKey<K extends string>(path: string, header: readonly string[], keys: readonly K[], unit: string): ReadonlyMap<K, number> {
  const counts = new Map<K, number>();
  for (const [key, row] of readRowPerKey(path, header, keys, header[0]!)) {
    const value = Number(row.cells[1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${row.file}:${row.line}: "${row.cells[1] ?? ''}" is not a whole number of ${unit}`);
    counts.set(key, value);
  }
  return counts;
}

/** Reads a one-entry-per-line knowledge file (comments and blanks skipped). */
export function readList(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
