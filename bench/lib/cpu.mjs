import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, all threads) of a process in ms, from /proc/<pid>/stat; NaN off Linux.
 * On a shared box wall time mostly measures the other tenants; CPU time per request is the steadier signal of how
 * much work a request costs. Resolution is one clock tick (10 ms), so it is summed over an arm, never read per run.
 */
const TICK_MS = 10; // USER_HZ is 100 on every Linux ABI Node supports

export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may contain spaces): utime is the 14th field, stime the 15th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}
