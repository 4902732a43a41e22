/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a HELP, a TYPE or a
 * sample of a declared family, label values are unescaped, and a histogram's series must be well formed (cumulative
 * buckets ending in +Inf equal to _count, with a _sum). Throws on anything else, so a scrape that parses is valid.
 */
export interface Series {
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  /** Samples by their full name (`x`, or `x_bucket` / `x_sum` / `x_count` for histograms). */
  samples: Map<string, Series[]>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(i));
    if (!m) throw new Error(`bad labels in: ${line}`);
    i += m[0].length;
    let value = '';
    for (;;) {
      const c = text[i++];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === '\\') {
        const e = text[i++];
        value += e === 'n' ? '\n' : e === '\\' ? '\\' : e === '"' ? '"' : (() => { throw new Error(`bad escape in: ${line}`); })();
      } else value += c;
    }
    if (m[1]! in labels) throw new Error(`duplicate label ${m[1]} in: ${line}`);
    labels[m[1]!] = value;
    const rest = text.slice(i);
    if (/^\s*,/.test(rest)) i += rest.indexOf(',') + 1;
    else if (rest.trim() !== '') throw new Error(`bad labels in: ${line}`);
  }
  return labels;
}

function parseValue(raw: string, line: string): number {
  // Prometheus reads values with Go's ParseFloat: Inf and NaN in any case (prom-client writes "Nan").
  if (/^\+?inf$/i.test(raw)) return Infinity;
  if (/^-inf$/i.test(raw)) return -Infinity;
  if (/^nan$/i.test(raw)) return NaN;
  const v = Number(raw);
  if (raw === '' || Number.isNaN(v)) throw new Error(`bad value in: ${line}`);
  return v;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const familyOf = (sampleName: string): Family | undefined => {
    const exact = families.get(sampleName);
    if (exact) return exact;
    const m = /^(.*)_(bucket|sum|count)$/.exec(sampleName);
    const base = m ? families.get(m[1]!) : undefined;
    return base && (base.type === 'histogram' || base.type === 'summary') ? base : undefined;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      const f = families.get(name) ?? { name, help: '', type: 'untyped' as const, samples: new Map() };
      if (kind === 'HELP') f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) f.type = rest as Family['type'];
      else throw new Error(`bad TYPE: ${line}`);
      families.set(name, f);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const family = familyOf(sample[1]!);
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    const series = family.samples.get(sample[1]!) ?? [];
    series.push({ labels: sample[2] ? parseLabels(sample[2], line) : {}, value: parseValue(sample[3]!, line) });
    family.samples.set(sample[1]!, series);
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

const key = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort());

function checkHistogram(f: Family): void {
  const buckets = new Map<string, Series[]>();
  for (const b of f.samples.get(`${f.name}_bucket`) ?? []) buckets.set(key(b.labels), [...(buckets.get(key(b.labels)) ?? []), b]);
  for (const c of f.samples.get(`${f.name}_count`) ?? []) {
    const bs = buckets.get(key(c.labels)) ?? [];
    const last = bs.at(-1);
    if (!last || last.labels.le !== '+Inf' || last.value !== c.value) throw new Error(`${f.name}: +Inf bucket is not _count for ${key(c.labels)}`);
    for (let i = 1; i < bs.length; i++) if (bs[i]!.value < bs[i - 1]!.value) throw new Error(`${f.name}: buckets not cumulative`);
    if (!(f.samples.get(`${f.name}_sum`) ?? []).some((s) => key(s.labels) === key(c.labels))) throw new Error(`${f.name}: no _sum for ${key(c.labels)}`);
  }
}

/** The value of the first sample named `name` whose labels include `labels` (0 when there is none). */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  for (const f of families.values()) {
    const s = f.samples.get(name)?.find((x) => Object.entries(labels).every(([k, v]) => x.labels[k] === v));
    if (s) return s.value;
  }
  return 0;
}
