// The int8 kernel family ONNX Runtime's MLAS picks on this CPU, by the flags Linux reports. Kernels of different
// families round the int8 encoder's sums differently (without VNNI, pairs of u8×s8 products are summed in saturating
// 16-bit), so a fit that reads encoder vectors records the family it ran on, and check:fits reads a difference from a
// file fitted on another family as rounding, not drift.
import { readFileSync } from 'node:fs';

/** 'AMX', 'AVX-512 VNNI', 'AVX-VNNI', 'AVX2', 'SSE', or 'unknown' where /proc/cpuinfo cannot be read. */
export function int8Kernels(cpuinfo = readCpuinfo()) {
  if (cpuinfo === null) return 'unknown';
  const flags = cpuinfo.match(/^flags\s*:(.*)$/m)?.[1] ?? '';
  const has = new Set(flags.trim().split(/\s+/));
  if (has.has('amx_int8')) return 'AMX';
  if (has.has('avx512_vnni')) return 'AVX-512 VNNI';
  if (has.has('avx_vnni')) return 'AVX-VNNI';
  return has.has('avx2') ? 'AVX2' : 'SSE';
}

function readCpuinfo() {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return null;
  }
}
