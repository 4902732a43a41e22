import * as ort from 'onnxruntime-node';

/**
 * One inference run as it leaves the batcher: the rows' token ids packed end to end (no padding), each row's length,
 * and per row what it wants back. Packed ids are about a third of the padded int64 tensors' bytes, so handing a run
 * to a worker thread costs little; the runner pads them into buffers it reuses.
 */
export interface TokenBatch {
  readonly rows: number;
  /** The longest row: every row is padded to it. */
  readonly seqLen: number;
  readonly tokens: Int32Array;
  readonly lengths: Uint16Array;
  /** Token type ids packed like `tokens` (cross-encoder pairs); null: all zero. */
  readonly typeIds: Uint8Array | null;
  /** Encoders: the vector size each row is wanted at (a projection's, or 0 or null for the model's own). */
  readonly dimensions: Uint16Array | null;
}

/** The flat output of a run: row r's values are `data[offsets[r] .. offsets[r + 1])`. */
export interface RunOutput {
  readonly data: Float32Array;
  readonly offsets: Uint32Array;
}

export interface SessionSettings {
  readonly path: string;
  readonly intraOpThreads: number;
  readonly executionProvider: 'cpu' | 'cuda';
}

/** What a runner computes from the graph's output. */
export type RunnerKind =
  | {
      readonly kind: 'encoder';
      readonly hiddenSize: number;
      /** How 256/128 are made: PCA components [hidden, cols] row-major and a mean, or the first d dimensions. */
      readonly dimensionMode: 'pca' | 'prefix';
      readonly projMean: Float32Array;
      readonly projComponents: Float32Array;
      readonly projCols: number;
    }
  | { readonly kind: 'cross-encoder' };

export async function createSession(settings: SessionSettings): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(settings.path, {
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // No CPU memory arena: with a session per inference worker and per model, each arena grew to the largest batch
    // shape it had seen and kept it, so RSS climbed through a 10-minute soak (+11 % median, 897 → 996 MiB) and sat
    // ~170 MiB above the arena-free level. Allocating per run costs 3-6 % of a cold request (bench/checkouts.bench.mjs,
    // arena on vs off in one run: /embed 100 p50 98.5 vs 105 ms, /embed/batch 1000 834 vs 858 ms).
    enableCpuMemArena: false,
    enableMemPattern: false,
    // CUDA is for GPU hosts (onnxruntime-node's CUDA build); untested on our CPU machines.
    executionProviders: settings.executionProvider === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
    // Spinning intra-op threads burn the other core between runs; on shared 2-core hosts that cost more than it saved
    // (measured under load: 100 names 1012 ms with spinning vs 752 ms without).
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
}

/** L2-normalises in place; a zero vector stays zero. */
export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

/**
 * (x − mean)·W[:, :d] re-normalised (PCA), or the first d dimensions re-normalised (Matryoshka prefix); d equal to
 * the hidden size returns x itself. Writes into `out` (length d).
 */
export function projectInto(
  x: Float32Array,
  out: Float32Array,
  hidden: number,
  mode: 'pca' | 'prefix',
  mean: Float32Array,
  components: Float32Array,
  cols: number,
): Float32Array {
  const d = out.length;
  if (d === hidden) {
    out.set(x.subarray(0, hidden));
    return out;
  }
  if (mode === 'prefix') {
    out.set(x.subarray(0, d));
    return l2normalize(out);
  }
  if (d > cols) throw new Error(`no projection to ${d}`);
  out.fill(0);
  for (let i = 0; i < hidden; i++) {
    const xi = x[i]! - mean[i]!;
    if (xi === 0) continue;
    const row = i * cols;
    for (let j = 0; j < d; j++) out[j]! += xi * components[row + j]!;
  }
  return l2normalize(out);
}

/**
 * Owns one ONNX Runtime session and turns a TokenBatch into outputs: pads the packed ids into int64 buffers it keeps
 * between runs (grown, never shrunk; the tensors are views of them), runs the graph, then for an encoder mean-pools
 * over each row's real tokens, L2-normalises and projects to the row's dimension, for a cross-encoder returns each
 * row's logit. Used inside an inference worker thread, or on the caller's thread when no workers are configured.
 */
export class SessionRunner {
  private ids = new BigInt64Array(0);
  private mask = new BigInt64Array(0);
  private types = new BigInt64Array(0);
  private pooled: Float32Array;
  /** Dimensions the graph computes itself (outputs embedding_<d>: pooled, normalised, projected by the build). */
  private readonly graphDimensions: ReadonlySet<number>;

  private constructor(private readonly session: ort.InferenceSession, private readonly what: RunnerKind) {
    this.pooled = new Float32Array(what.kind === 'encoder' ? what.hiddenSize : 0);
    this.graphDimensions = new Set(session.outputNames.map((n) => /^embedding_(\d+)$/.exec(n)?.[1]).filter((d): d is string => d !== undefined).map(Number));
  }

  static async create(settings: SessionSettings, what: RunnerKind): Promise<SessionRunner> {
    return new SessionRunner(await createSession(settings), what);
  }

  private ensureCapacity(n: number): void {
    if (this.ids.length >= n) return;
    const size = Math.max(n, this.ids.length * 2, 1024);
    this.ids = new BigInt64Array(size);
    this.mask = new BigInt64Array(size);
    this.types = new BigInt64Array(size);
  }

  async run(b: TokenBatch): Promise<RunOutput> {
    const n = b.rows * b.seqLen;
    this.ensureCapacity(n);
    const ids = this.ids.subarray(0, n);
    const mask = this.mask.subarray(0, n);
    const types = this.types.subarray(0, n);
    ids.fill(0n);
    mask.fill(0n);
    types.fill(0n);
    let k = 0;
    for (let r = 0; r < b.rows; r++) {
      const base = r * b.seqLen;
      const len = b.lengths[r]!;
      for (let t = 0; t < len; t++, k++) {
        ids[base + t] = BigInt(b.tokens[k]!);
        mask[base + t] = 1n;
        if (b.typeIds) types[base + t] = BigInt(b.typeIds[k]!);
      }
    }
    const dims = [b.rows, b.seqLen];
    const feeds = {
      input_ids: new ort.Tensor('int64', ids, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
      token_type_ids: new ort.Tensor('int64', types, dims),
    };
    if (this.what.kind === 'encoder' && this.graphDimensions.size > 0) {
      const wanted = new Set<number>();
      for (let r = 0; r < b.rows; r++) wanted.add(b.dimensions?.[r] || this.what.hiddenSize);
      // Only the vectors come back from the graph: the hidden states of every token are never copied out.
      if ([...wanted].every((d) => this.graphDimensions.has(d))) return this.fromGraph(await this.session.run(feeds, [...wanted].map((d) => `embedding_${d}`)), b);
    }
    const result = await this.session.run(feeds);
    if (this.what.kind === 'cross-encoder') {
      const logits = result.logits!.data as Float32Array;
      const offsets = new Uint32Array(b.rows + 1);
      for (let r = 0; r <= b.rows; r++) offsets[r] = r;
      return { data: Float32Array.from(logits.subarray(0, b.rows)), offsets };
    }
    return this.poolAndProject(result.last_hidden_state!.data as Float32Array, b);
  }

  private fromGraph(result: ort.InferenceSession.ReturnType, b: TokenBatch): RunOutput {
    const hidden = (this.what as Extract<RunnerKind, { kind: 'encoder' }>).hiddenSize;
    const offsets = new Uint32Array(b.rows + 1);
    for (let r = 0; r < b.rows; r++) offsets[r + 1] = offsets[r]! + (b.dimensions?.[r] || hidden);
    const data = new Float32Array(offsets[b.rows]!);
    for (let r = 0; r < b.rows; r++) {
      const d = offsets[r + 1]! - offsets[r]!;
      const all = result[`embedding_${d}`]!.data as Float32Array;
      data.set(all.subarray(r * d, (r + 1) * d), offsets[r]!);
    }
    return { data, offsets };
  }

  private poolAndProject(hidden: Float32Array, b: TokenBatch): RunOutput {
    const w = this.what as Extract<RunnerKind, { kind: 'encoder' }>;
    const h = w.hiddenSize;
    const offsets = new Uint32Array(b.rows + 1);
    for (let r = 0; r < b.rows; r++) offsets[r + 1] = offsets[r]! + (b.dimensions?.[r] || h);
    const data = new Float32Array(offsets[b.rows]!);
    const pooled = this.pooled;
    for (let r = 0; r < b.rows; r++) {
      pooled.fill(0);
      const len = b.lengths[r]!;
      for (let t = 0; t < len; t++) {
        const base = (r * b.seqLen + t) * h;
        for (let i = 0; i < h; i++) pooled[i]! += hidden[base + i]!;
      }
      // Mean then L2: the mean's 1/len cancels in the normalisation.
      l2normalize(pooled);
      projectInto(pooled, data.subarray(offsets[r]!, offsets[r + 1]!), h, w.dimensionMode, w.projMean, w.projComponents, w.projCols);
    }
    return { data, offsets };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
