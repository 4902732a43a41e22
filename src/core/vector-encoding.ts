/**
 * Embeddings as bytes for a response, written straight from the Float32Arrays (no number[] copies, no
 * JSON.stringify of 100k numbers): JSON text, base64 of little-endian float32 (OpenAI's `encoding_format: "base64"`)
 * and the raw float32 body of `Accept: application/octet-stream`.
 */

/** Decimal places of a vector component in JSON: absolute error ≤ 5e-10, far below float32's resolution at the sizes
 * that move a cosine (a unit vector's components are at most 1); base64 and binary carry the exact float32 bits. */
export const JSON_DECIMALS = 9;
const SCALE = 10 ** JSON_DECIMALS;
// A component's text: sign, one integer digit, point, 9 decimals, comma. Vectors with a component of 9.5 or more (never
// produced by the encoder, which writes unit vectors) go through JSON.stringify instead.
const MAX_COMPONENT_BYTES = 13;
const FAST_LIMIT = 9.5;

/** Little-endian float32 bytes of a vector, base64-encoded: what OpenAI clients decode for `encoding_format: "base64"`. */
export function float32Base64(v: Float32Array): string {
  // Float32Array is little-endian on every platform Node supports.
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

/** The vectors end to end as little-endian float32 (count × dimension × 4 bytes). */
export function float32Body(vectors: readonly Float32Array[], dimension: number): Buffer {
  const out = Buffer.allocUnsafe(vectors.length * dimension * 4);
  const view = new Float32Array(out.buffer, out.byteOffset, vectors.length * dimension);
  vectors.forEach((v, i) => {
    if (v.length !== dimension) throw new Error(`vector ${i} has ${v.length} components, expected ${dimension}`);
    view.set(v, i * dimension);
  });
  return out;
}

/**
 * Writes one number in [-9.5, 9.5] with at most 9 decimals at `pos`, trailing zeros dropped ("0.5", "-0.012", "0");
 * returns the new position. int32 arithmetic only: V8's double-to-shortest-string was most of a warm /embed (measured
 * 100 × 128 components: 2.2 ms JSON.stringify, 0.55 ms this way).
 */
function writeComponent(buf: Uint8Array, pos: number, x: number): number {
  let n = Math.round(x * SCALE);
  if (n < 0) {
    buf[pos++] = 45; // '-'
    n = -n;
  }
  const whole = (n / SCALE) | 0;
  buf[pos++] = 48 + whole;
  let frac = n - whole * SCALE;
  if (frac === 0) return pos;
  buf[pos++] = 46; // '.'
  for (let d = JSON_DECIMALS - 1; d >= 0; d--) {
    const q = (frac / 10) | 0;
    buf[pos + d] = 48 + (frac - q * 10);
    frac = q;
  }
  let end = pos + JSON_DECIMALS;
  while (buf[end - 1] === 48) end--;
  return end;
}

function writeAscii(buf: Buffer, pos: number, text: string): number {
  return pos + buf.write(text, pos, 'latin1');
}

/**
 * The /embed response body, `{"embeddings":[[...],...],"dimension":d,"count":n}`, with each vector as JSON numbers
 * (9 decimals) or, for `base64`, as a base64 string of its float32 bytes.
 */
export function embeddingsJson(vectors: readonly Float32Array[], dimension: number, format: 'float' | 'base64'): Buffer {
  const head = '{"embeddings":[';
  const tail = `],"dimension":${dimension},"count":${vectors.length}}`;
  if (format === 'base64') {
    return Buffer.from(head + vectors.map((v) => `"${float32Base64(v)}"`).join(',') + tail, 'latin1');
  }
  let size = head.length + tail.length + 2;
  for (const v of vectors) {
    for (let j = 0; j < v.length; j++) {
      if (!(Math.abs(v[j]!) < FAST_LIMIT)) return Buffer.from(JSON.stringify({ embeddings: vectors.map((x) => Array.from(x)), dimension, count: vectors.length }));
    }
    size += 3 + v.length * MAX_COMPONENT_BYTES;
  }
  const buf = Buffer.allocUnsafe(size);
  let pos = writeAscii(buf, 0, head);
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i]!;
    if (i > 0) buf[pos++] = 44; // ','
    buf[pos++] = 91; // '['
    for (let j = 0; j < v.length; j++) {
      if (j > 0) buf[pos++] = 44;
      pos = writeComponent(buf, pos, v[j]!);
    }
    buf[pos++] = 93; // ']'
  }
  pos = writeAscii(buf, pos, tail);
  return buf.subarray(0, pos);
}
