import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { parse } from 'csv-parse';
import { MAX_TEXT_CHARS } from '../text/limits.js';

/**
 * Catalog rows, streamed: a CSV file with a header row or a JSONL file (one JSON object a line), or standard input
 * ('-'). Nothing is held but the row being read. A row that cannot be used (unparseable, no text, too long) becomes a
 * RowError and the stream goes on; only a problem with the whole input (no such column in the header) stops it.
 */
export type InputFormat = 'csv' | 'jsonl';

export interface CatalogRow {
  /** 1-based position among the input's data rows (the header and blank lines not counted). */
  readonly row: number;
  /** 1-based line of the input where the row starts. */
  readonly line: number;
  readonly text: string;
  readonly restaurant: string | null;
  readonly outlet: string | null;
}

export interface RowError {
  readonly row: number;
  readonly line: number;
  readonly error: string;
  /** The start of the offending input, for a person to find it. */
  readonly excerpt: string;
}

export interface InputOptions {
  readonly path: string;
  /** Default: from the file name (.jsonl/.ndjson/.json → jsonl, else csv); for stdin, from the first character. */
  readonly format?: InputFormat;
  readonly textColumn: string;
  /** Default: a column named restaurant / restaurant_name / "Restaurant Name" when there is one. */
  readonly restaurantColumn?: string;
  /** Default: a column named outlet / outlet_id / location when there is one. */
  readonly outletColumn?: string;
  /** Bytes read so far and the input's size (null for stdin). */
  readonly onBytes?: (read: number, total: number | null) => void;
  readonly stdin?: Readable;
}

/** The whole input is unusable: the caller stops with this message. */
export class InputError extends Error {}

const RESTAURANT_COLUMNS = ['restaurant', 'restaurant_name', 'restaurant name', 'restaurantname', 'brand'];
const OUTLET_COLUMNS = ['outlet', 'outlet_id', 'outlet_name', 'location', 'city'];

function findColumn(columns: readonly string[], wanted: string | undefined, defaults: readonly string[]): string | null {
  if (wanted !== undefined) return columns.includes(wanted) ? wanted : null;
  for (const name of defaults) {
    const hit = columns.find((c) => c.trim().toLowerCase() === name);
    if (hit !== undefined) return hit;
  }
  return null;
}

function excerpt(raw: string): string {
  const flat = raw.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}

/** The text value's problem, or null when it is usable. */
export function textProblem(value: unknown, column: string): string | null {
  if (value === undefined || value === null) return `no "${column}" value`;
  if (typeof value !== 'string') return `"${column}" must be a string, got ${Array.isArray(value) ? 'array' : typeof value}`;
  if (value.trim() === '') return `"${column}" is empty`;
  const len = [...value].length;
  if (len > MAX_TEXT_CHARS) return `"${column}" is ${len} characters; the limit is ${MAX_TEXT_CHARS}`;
  return null;
}

function optionalString(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const s = typeof value === 'string' ? value : String(value);
  return s.trim() === '' ? null : s;
}

function countingStream(onBytes: InputOptions['onBytes'], total: number | null): Transform {
  let read = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      read += chunk.length;
      onBytes?.(read, total);
      done(null, chunk);
    },
  });
}

async function openInput(options: InputOptions): Promise<{ stream: Readable; format: InputFormat }> {
  if (options.path === '-') {
    const stdin = options.stdin ?? process.stdin;
    if (options.format) return { stream: stdin.pipe(countingStream(options.onBytes, null)), format: options.format };
    // Sniff: a JSONL catalog starts with '{'. The first chunk is read, looked at, and put back in front of the rest.
    const chunks = stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
    const first = await chunks.next();
    const head = first.done ? '' : Buffer.isBuffer(first.value) ? first.value.toString('utf8', 0, Math.min(first.value.length, 64)) : first.value.slice(0, 64);
    const format: InputFormat = /^\s*\{/.test(head.replace(/^\uFEFF/, '')) ? 'jsonl' : 'csv';
    const replay = Readable.from((async function* () {
      if (!first.done) yield Buffer.isBuffer(first.value) ? first.value : Buffer.from(first.value);
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    })());
    return { stream: replay.pipe(countingStream(options.onBytes, null)), format };
  }
  let size: number;
  try {
    size = statSync(options.path).size;
  } catch {
    throw new InputError(`cannot read ${options.path}: no such file`);
  }
  const format = options.format ?? (/\.(jsonl|ndjson|json)$/i.test(options.path) ? 'jsonl' : 'csv');
  return { stream: createReadStream(options.path).pipe(countingStream(options.onBytes, size)), format };
}

/**
 * Yields each usable row and each row error, in input order. Throws InputError when the input as a whole cannot be
 * read (missing file, a CSV header without the text column).
 */
export async function* readCatalogRows(options: InputOptions): AsyncGenerator<CatalogRow | RowError> {
  const { stream, format } = await openInput(options);
  if (format === 'jsonl') yield* jsonlRows(stream, options);
  else yield* csvRows(stream, options);
}

export function isRowError(x: CatalogRow | RowError): x is RowError {
  return (x as RowError).error !== undefined;
}

async function* jsonlRows(stream: Readable, options: InputOptions): AsyncGenerator<CatalogRow | RowError> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  let row = 0;
  for await (const raw of lines) {
    line++;
    const trimmed = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (trimmed.trim() === '') continue;
    row++;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      yield { row, line, error: `not valid JSON (${err instanceof Error ? err.message : err})`, excerpt: excerpt(trimmed) };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { row, line, error: 'not a JSON object', excerpt: excerpt(trimmed) };
      continue;
    }
    const obj = value as Record<string, unknown>;
    const problem = textProblem(obj[options.textColumn], options.textColumn);
    if (problem) {
      yield { row, line, error: problem, excerpt: excerpt(trimmed) };
      continue;
    }
    const keys = Object.keys(obj);
    const restaurantKey = findColumn(keys, options.restaurantColumn, RESTAURANT_COLUMNS);
    const outletKey = findColumn(keys, options.outletColumn, OUTLET_COLUMNS);
    yield {
      row,
      line,
      text: obj[options.textColumn] as string,
      restaurant: restaurantKey === null ? null : optionalString(obj[restaurantKey]),
      outlet: outletKey === null ? null : optionalString(obj[outletKey]),
    };
  }
}

interface CsvSkip {
  readonly message: string;
  readonly lines?: number;
  readonly record?: unknown;
  readonly raw?: string;
}

async function* csvRows(stream: Readable, options: InputOptions): AsyncGenerator<CatalogRow | RowError> {
  let header: string[] | null = null;
  const parser = parse({
    bom: true,
    columns: (names: string[]) => {
      header = names.map((n) => n.trim());
      return header;
    },
    skip_empty_lines: true,
    skip_records_with_error: true,
    info: true,
    raw: true,
  });
  // Records the parser had to skip (a wrong number of fields, a broken quote) arrive as events between records.
  const skipped: CsvSkip[] = [];
  parser.on('skip', (err: CsvSkip) => skipped.push(err));
  stream.on('error', (err) => parser.destroy(err));
  stream.pipe(parser);
  let row = 0;
  let textColumn: string | null = null;
  let restaurantColumn: string | null = null;
  let outletColumn: string | null = null;
  // The parser reads ahead: a skip event can fire before the records above it are consumed. Skipped rows are yielded
  // in line order among the records.
  const flushSkipped = function* (beforeLine: number): Generator<RowError> {
    while (skipped.length > 0 && (skipped[0]!.lines ?? 0) < beforeLine) {
      const err = skipped.shift()!;
      row++;
      yield { row, line: err.lines ?? 0, error: `unreadable CSV row: ${err.message}`, excerpt: excerpt(err.raw ?? (Array.isArray(err.record) ? err.record.join(',') : '')) };
    }
  };
  for await (const item of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number; columns?: unknown }; raw: string }>) {
    if (textColumn === null) {
      const columns: string[] = header ?? [];
      if (!columns.includes(options.textColumn)) {
        parser.destroy();
        throw new InputError(`no column "${options.textColumn}" in the CSV header (columns: ${columns.join(', ')})`);
      }
      textColumn = options.textColumn;
      restaurantColumn = findColumn(columns, options.restaurantColumn, RESTAURANT_COLUMNS);
      outletColumn = findColumn(columns, options.outletColumn, OUTLET_COLUMNS);
    }
    const { record, info } = item;
    const startLine = info.lines - (item.raw.match(/\n/g)?.length ?? 0) + (item.raw.endsWith('\n') ? 1 : 0);
    yield* flushSkipped(startLine);
    row++;
    const problem = textProblem(record[textColumn], textColumn);
    if (problem) {
      yield { row, line: startLine, error: problem, excerpt: excerpt(item.raw) };
      continue;
    }
    yield {
      row,
      line: startLine,
      text: record[textColumn]!,
      restaurant: restaurantColumn === null ? null : optionalString(record[restaurantColumn]),
      outlet: outletColumn === null ? null : optionalString(record[outletColumn]),
    };
  }
  if (textColumn === null && header !== null && !(header as string[]).includes(options.textColumn)) {
    throw new InputError(`no column "${options.textColumn}" in the CSV header (columns: ${(header as string[]).join(', ')})`);
  }
  yield* flushSkipped(Infinity);
}
