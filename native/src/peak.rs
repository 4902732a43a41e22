//! This core's single-thread f32 FMA peak, measured rather than looked up: the benchmark divides a
//! kernel's FLOPs by it to say how far the kernel is from the GEMM bound on the machine it ran on.

use crate::simd::SimdLevel;
use std::hint::black_box;
use std::time::Instant;

/// Independent FMA chains per round: more than latency (4 cycles) × FMA ports (2) needs, so the
/// loop is throughput-bound, and few enough that the chains plus the two operands stay in
/// registers (16 ymm registers for AVX2, 32 zmm for AVX-512). `acc * x + y` with x < 1 converges
/// to y / (1 - x): no overflow, no denormals to slow it down.
const CHAINS: usize = 16;
#[cfg(target_arch = "x86_64")]
const AVX2_CHAINS: usize = 12;
/// The portable loop is vectorised by the compiler into separate multiplies and adds (twice the
/// latency of an FMA), so it needs more chains: 48 floats are 12 SSE registers.
const SCALAR_CHAINS: usize = 48;
const ROUNDS_PER_CHECK: u64 = 4096;

pub fn peak_gflops(milliseconds: f64, level: SimdLevel) -> f64 {
    let budget = milliseconds / 1000.0;
    // A short untimed run first, so a core that changes clock for wide vectors has settled.
    let _ = measure(level, budget.min(0.02));
    let (flops, seconds) = measure(level, budget);
    flops / seconds / 1e9
}

fn measure(level: SimdLevel, seconds: f64) -> (f64, f64) {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level is never above what the CPU reported.
        SimdLevel::Avx512 => unsafe { x86::peak_avx512(seconds) },
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx2 => unsafe { x86::peak_avx2(seconds) },
        _ => peak_scalar(seconds),
    }
}

fn peak_scalar(seconds: f64) -> (f64, f64) {
    let (x, y) = (black_box(0.999_999f32), black_box(1e-7f32));
    let mut acc = [0f32; SCALAR_CHAINS];
    let start = Instant::now();
    let mut rounds = 0u64;
    loop {
        for _ in 0..ROUNDS_PER_CHECK {
            for value in acc.iter_mut() {
                *value = *value * x + y;
            }
        }
        rounds += ROUNDS_PER_CHECK;
        if start.elapsed().as_secs_f64() >= seconds {
            break;
        }
    }
    black_box(acc);
    ((rounds * SCALAR_CHAINS as u64 * 2) as f64, start.elapsed().as_secs_f64())
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{black_box, Instant, AVX2_CHAINS, CHAINS, ROUNDS_PER_CHECK};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn peak_avx2(seconds: f64) -> (f64, f64) {
        let (x, y) = (_mm256_set1_ps(black_box(0.999_999)), _mm256_set1_ps(black_box(1e-7)));
        let mut acc = [_mm256_setzero_ps(); AVX2_CHAINS];
        let start = Instant::now();
        let mut rounds = 0u64;
        loop {
            for _ in 0..ROUNDS_PER_CHECK {
                for value in acc.iter_mut() {
                    *value = _mm256_fmadd_ps(*value, x, y);
                }
            }
            rounds += ROUNDS_PER_CHECK;
            if start.elapsed().as_secs_f64() >= seconds {
                break;
            }
        }
        black_box(acc);
        ((rounds * AVX2_CHAINS as u64 * 8 * 2) as f64, start.elapsed().as_secs_f64())
    }

    #[target_feature(enable = "avx512f")]
    pub unsafe fn peak_avx512(seconds: f64) -> (f64, f64) {
        let (x, y) = (_mm512_set1_ps(black_box(0.999_999)), _mm512_set1_ps(black_box(1e-7)));
        let mut acc = [_mm512_setzero_ps(); CHAINS];
        let start = Instant::now();
        let mut rounds = 0u64;
        loop {
            for _ in 0..ROUNDS_PER_CHECK {
                for value in acc.iter_mut() {
                    *value = _mm512_fmadd_ps(*value, x, y);
                }
            }
            rounds += ROUNDS_PER_CHECK;
            if start.elapsed().as_secs_f64() >= seconds {
                break;
            }
        }
        black_box(acc);
        ((rounds * CHAINS as u64 * 16 * 2) as f64, start.elapsed().as_secs_f64())
    }
}
