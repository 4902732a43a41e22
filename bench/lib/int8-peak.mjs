// The machine's int8 matrix-multiply peak as ONNX Runtime reaches it: one MatMulInteger (uint8 x int8 -> int32) on
// large square matrices, the kernel family the served encoder's int8 projections run on (MLAS picks AMX, AVX-512 VNNI
// or AVX2 by what the CPU has). The one-node ONNX model is written here byte by byte (protobuf wire format), so the
// bench needs no Python.
import { createRequire } from 'node:module';
import { join } from 'node:path';

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const field = (num, wire) => varint((num << 3) | wire);
const int = (num, value) => [...field(num, 0), ...varint(value)];
const bytes = (num, payload) => [...field(num, 2), ...varint(payload.length), ...payload];
const str = (num, s) => bytes(num, [...Buffer.from(s, 'utf8')]);

// TensorProto.DataType
const UINT8 = 2;
const INT8 = 3;
const INT32 = 6;

function valueInfo(name, elemType, dims) {
  const shape = dims.flatMap((d) => bytes(1, int(1, d)));
  const tensorType = [...int(1, elemType), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

/** A ModelProto with one MatMulInteger node: A uint8 [m, k] x B int8 [k, n] -> Y int32 [m, n]. */
export function matMulIntegerModel(m, k, n) {
  const node = [...str(1, 'A'), ...str(1, 'B'), ...str(2, 'Y'), ...str(3, 'mm'), ...str(4, 'MatMulInteger')];
  const graph = [
    ...bytes(1, node),
    ...str(2, 'int8_peak'),
    ...bytes(11, valueInfo('A', UINT8, [m, k])),
    ...bytes(11, valueInfo('B', INT8, [k, n])),
    ...bytes(12, valueInfo('Y', INT32, [m, n])),
  ];
  const opset = [...str(1, ''), ...int(2, 17)];
  return Uint8Array.from([...int(1, 8), ...bytes(7, graph), ...bytes(8, opset)]);
}

/**
 * GOPS (2 x multiply-adds per second) of the best of `runs` MatMulInteger runs at size n^3 with `threads` intra-op
 * threads, and the median. Best-of is the peak (a shared box only ever slows a run down); the median says how steady.
 */
export async function int8PeakGops(repoRoot, { n = 1024, threads = 1, runs = 15 } = {}) {
  const require = createRequire(join(repoRoot, 'package.json'));
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(matMulIntegerModel(n, n, n), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionProviders: ['cpu'],
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  const a = new Uint8Array(n * n).map((_, i) => (i * 37) & 0xff);
  const b = new Int8Array(n * n).map((_, i) => ((i * 91) % 255) - 127);
  const feeds = { A: new ort.Tensor('uint8', a, [n, n]), B: new ort.Tensor('int8', b, [n, n]) };
  for (let i = 0; i < 3; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  await session.release();
  times.sort((x, y) => x - y);
  const ops = 2 * n * n * n;
  return { best: ops / (times[0] / 1000) / 1e9, median: ops / (times[Math.floor(times.length / 2)] / 1000) / 1e9 };
}
