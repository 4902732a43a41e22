/**
 * Argument checks shared by both backends, run on the JS side so that callers get a TypeError or
 * RangeError that names the argument, whichever backend is active. The addon repeats the checks
 * memory safety depends on, but never sees bad input through the facade.
 */

/** Row counts and indices travel as Int32/Uint32, so every count stays below 2^31. */
export const MAX_COUNT = 0x7fff_ffff;

export const SIMD_LEVELS = ['avx512', 'avx2', 'scalar'] as const;

export function requireFloat32Array(value: unknown, name: string): Float32Array {
  if (!(value instanceof Float32Array)) throw new TypeError(`${name} must be a Float32Array, got ${describe(value)}`);
  return value;
}

export function requireUint32Array(value: unknown, name: string): Uint32Array {
  if (!(value instanceof Uint32Array)) throw new TypeError(`${name} must be a Uint32Array, got ${describe(value)}`);
  return value;
}

function requireNumber(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  return value;
}

export function requireDim(dim: unknown): number {
  const value = requireNumber(dim, 'dim');
  if (!Number.isInteger(value) || value < 1 || value > MAX_COUNT) {
    throw new RangeError(`dim must be an integer in [1, ${MAX_COUNT}], got ${value}`);
  }
  return value;
}

/** The number of `dim`-wide rows in `matrix`. */
export function requireRows(matrix: Float32Array, dim: number, name: string): number {
  if (matrix.length % dim !== 0) {
    throw new RangeError(`${name} has ${matrix.length} values, not a multiple of dim ${dim}`);
  }
  const rows = matrix.length / dim;
  if (rows > MAX_COUNT) throw new RangeError(`${name} has ${rows} rows, more than ${MAX_COUNT}`);
  return rows;
}

/** k must be a positive integer; values above the row count are clamped later, not rejected. */
export function requireK(k: unknown): number {
  const value = requireNumber(k, 'k');
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`k must be an integer >= 1, got ${value}`);
  return value;
}

export function requireThreshold(threshold: unknown): number {
  const value = requireNumber(threshold, 'threshold');
  if (!Number.isFinite(value)) throw new RangeError(`threshold must be a finite number, got ${value}`);
  return value;
}

export function requireNodeCount(n: unknown): number {
  const value = requireNumber(n, 'n');
  if (!Number.isInteger(value) || value < 0 || value > MAX_COUNT) {
    throw new RangeError(`n must be an integer in [0, ${MAX_COUNT}], got ${value}`);
  }
  return value;
}

export function requireEdges(n: number, a: Uint32Array, b: Uint32Array): void {
  if (a.length !== b.length) throw new RangeError(`edge lists differ in length: a has ${a.length}, b has ${b.length}`);
  for (const [name, ends] of [['a', a], ['b', b]] as const) {
    for (let e = 0; e < ends.length; e++) {
      if (ends[e]! >= n) throw new RangeError(`${name}[${e}] = ${ends[e]} is not below n = ${n}`);
    }
  }
}

export function requireMilliseconds(ms: unknown): number {
  const value = requireNumber(ms, 'ms');
  if (!(value > 0 && value <= 60_000)) throw new RangeError(`ms must be in (0, 60000], got ${value}`);
  return value;
}

export function requireSimdLevel(level: unknown): (typeof SIMD_LEVELS)[number] {
  if (typeof level !== 'string' || !(SIMD_LEVELS as readonly string[]).includes(level)) {
    throw new RangeError(`level must be one of ${SIMD_LEVELS.join(', ')}, got ${describe(level)}`);
  }
  return level as (typeof SIMD_LEVELS)[number];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value === 'string' ? JSON.stringify(value) : `${typeof value} ${String(value)}`;
}
