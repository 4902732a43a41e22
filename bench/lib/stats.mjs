// Order statistics for small samples. Nearest-rank percentiles report a time that was actually measured (no
// interpolation between runs); with 15 runs, p95 is simply the slowest run.

export function percentile(samples, p) {
  if (samples.length === 0) throw new Error('percentile of an empty sample');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function median(samples) {
  return percentile(samples, 50);
}

/** One decimal below 100, none above: the noise on this box (±30%) makes more digits meaningless. */
export function fmt(x) {
  if (!Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1);
}

export function fmtRatio(x) {
  return Number.isFinite(x) ? x.toFixed(2) : String(x);
}
