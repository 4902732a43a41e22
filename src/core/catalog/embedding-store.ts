import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Embeddings on disk, keyed by model id + cleaned text: `<dir>/<model>.f32` holds the vectors back to back (float32,
 * `dim` each) and `<dir>/<model>.texts` the texts, one JSON string a line, in the same order. Each batch is appended
 * vectors first, then texts, so a run stopped at any point (Ctrl-C, a crash, SIGKILL) leaves at most a torn tail that
 * the next open cuts off: every text listed has its vector, and a rerun embeds only what is missing.
 *
 * Only the text → slot map lives in memory; vectors are read back by position when a stage needs them.
 */
export class EmbeddingStore {
  private readonly slots = new Map<string, number>();
  private readonly vectorFd: number;
  private readonly textFd: number;
  private count = 0;
  private readonly rowBytes: number;
  /** Vectors found on disk when the store was opened. */
  readonly reused: number;

  private constructor(readonly dir: string, readonly modelId: string, readonly dim: number) {
    mkdirSync(dir, { recursive: true });
    const base = join(dir, modelId.replace(/[^A-Za-z0-9._-]/g, '_'));
    this.rowBytes = dim * 4;
    const textPath = `${base}.texts`;
    const vectorPath = `${base}.f32`;
    const texts: string[] = [];
    let textBytes = 0;
    if (existsSync(textPath)) {
      const raw = readFileSync(textPath, 'utf8');
      let start = 0;
      for (;;) {
        const nl = raw.indexOf('\n', start);
        if (nl < 0) break; // a torn last line: cut
        try {
          texts.push(JSON.parse(raw.slice(start, nl)) as string);
        } catch {
          break;
        }
        start = nl + 1;
      }
      textBytes = Buffer.byteLength(raw.slice(0, start), 'utf8');
    }
    this.vectorFd = openSync(vectorPath, existsSync(vectorPath) ? 'r+' : 'w+');
    this.textFd = openSync(textPath, existsSync(textPath) ? 'r+' : 'w+');
    const vectors = Math.floor(fstatSync(this.vectorFd).size / this.rowBytes);
    this.count = Math.min(vectors, texts.length);
    // Cut both files back to the records they both hold.
    const keptTextBytes = this.count === texts.length ? textBytes : Buffer.byteLength(texts.slice(0, this.count).map((t) => JSON.stringify(t) + '\n').join(''), 'utf8');
    ftruncateSync(this.textFd, keptTextBytes);
    ftruncateSync(this.vectorFd, this.count * this.rowBytes);
    for (let i = 0; i < this.count; i++) this.slots.set(texts[i]!, i);
    this.reused = this.count;
  }

  static open(dir: string, modelId: string, dim: number): EmbeddingStore {
    return new EmbeddingStore(dir, modelId, dim);
  }

  get size(): number {
    return this.count;
  }

  slotOf(text: string): number | undefined {
    return this.slots.get(text);
  }

  /** Appends texts not yet stored with their vectors; returns each text's slot. */
  append(texts: readonly string[], vectors: readonly Float32Array[]): number[] {
    const fresh: number[] = [];
    const out = texts.map((t, i) => {
      const known = this.slots.get(t);
      if (known !== undefined) return known;
      if (vectors[i]!.length !== this.dim) throw new Error(`embedding of "${t}" has ${vectors[i]!.length} dimensions, not ${this.dim}`);
      this.slots.set(t, this.count + fresh.length);
      fresh.push(i);
      return this.count + fresh.length - 1;
    });
    if (fresh.length === 0) return out;
    const buf = Buffer.allocUnsafe(fresh.length * this.rowBytes);
    fresh.forEach((i, r) => Buffer.from(vectors[i]!.buffer, vectors[i]!.byteOffset, this.rowBytes).copy(buf, r * this.rowBytes));
    writeSync(this.vectorFd, buf, 0, buf.length, this.count * this.rowBytes);
    const lines = fresh.map((i) => JSON.stringify(texts[i]!) + '\n').join('');
    writeSync(this.textFd, lines, fstatSync(this.textFd).size, 'utf8');
    this.count += fresh.length;
    return out;
  }

  /** Copies the vectors at `slots` into `out` (row r ← slot slots[r]). */
  read(slots: ArrayLike<number>, out: Float32Array): void {
    if (out.length < slots.length * this.dim) throw new Error('EmbeddingStore.read: output too small');
    const bytes = Buffer.from(out.buffer, out.byteOffset, slots.length * this.rowBytes);
    // Runs of consecutive slots are read in one call (a catalog's texts are mostly stored in first-seen order).
    let r = 0;
    while (r < slots.length) {
      let run = 1;
      while (r + run < slots.length && slots[r + run] === slots[r]! + run && run < 4096) run++;
      const slot = slots[r]!;
      if (slot < 0 || slot >= this.count) throw new Error(`EmbeddingStore.read: no slot ${slot}`);
      readSync(this.vectorFd, bytes, r * this.rowBytes, run * this.rowBytes, slot * this.rowBytes);
      r += run;
    }
  }

  close(): void {
    closeSync(this.vectorFd);
    closeSync(this.textFd);
  }
}
