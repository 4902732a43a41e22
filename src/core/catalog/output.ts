import { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/**
 * Output files written through a buffer into `<path>.partial` and renamed into place only when the run completes, so
 * an interrupted run never leaves a half-written file under the final name.
 */
export class OutputFile {
  private readonly fd: number;
  private chunks: string[] = [];
  private pending = 0;
  private closed = false;
  readonly partialPath: string;

  constructor(readonly path: string) {
    this.partialPath = `${path}.partial`;
    this.fd = openSync(this.partialPath, 'w');
  }

  write(text: string): void {
    this.chunks.push(text);
    this.pending += text.length;
    if (this.pending >= 1 << 20) this.flush();
  }

  writeBytes(bytes: Uint8Array): void {
    this.flush();
    writeSync(this.fd, bytes);
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.pending = 0;
  }

  /** Flushes and closes; the file stays `.partial` until commit. */
  close(): void {
    if (this.closed) return;
    this.flush();
    closeSync(this.fd);
    this.closed = true;
  }

  commit(): void {
    this.close();
    renameSync(this.partialPath, this.path);
  }

  discard(): void {
    try {
      this.close();
    } catch {
      // already closed or never flushed: the file is removed below either way
    }
    if (existsSync(this.partialPath)) rmSync(this.partialPath);
  }
}

/** One CSV field (RFC 4180: quoted when it holds a comma, quote, CR or LF, or starts or ends with a space). */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const s = String(value);
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The columns of PREFIX.errors.csv: one line per unusable input row. */
export const ERROR_COLUMNS = ['row', 'line', 'error', 'excerpt'] as const;

export function csvLine(values: readonly (string | number | boolean | null | undefined)[]): string {
  return values.map(csvField).join(',') + '\n';
}

/** The header of a NumPy .npy file (format 1.0) holding a C-order float32 matrix of rows × cols. */
export function npyHeader(rows: number, cols: number): Uint8Array {
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`;
  const unpadded = 10 + dict.length + 1;
  const padded = Math.ceil(unpadded / 64) * 64;
  const header = dict + ' '.repeat(padded - unpadded) + '\n';
  const out = new Uint8Array(10 + header.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0); // \x93NUMPY v1.0
  out[8] = header.length & 0xff;
  out[9] = header.length >> 8;
  out.set(Buffer.from(header, 'latin1'), 10);
  return out;
}
