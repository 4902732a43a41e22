//! Which instruction set the kernels use. Detected once at run time (our machines differ: some have
//! AVX2+FMA only, some AVX-512), never assumed at compile time, so one binary runs everywhere.
//! A process can lower the level (tests run every kernel on one machine, benchmarks compare them)
//! but never raise it above what the CPU reports.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum SimdLevel {
    Scalar = 0,
    Avx2 = 1,
    Avx512 = 2,
}

impl SimdLevel {
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    pub fn parse(name: &str) -> Option<SimdLevel> {
        match name {
            "scalar" => Some(SimdLevel::Scalar),
            "avx2" => Some(SimdLevel::Avx2),
            "avx512" => Some(SimdLevel::Avx512),
            _ => None,
        }
    }

    fn from_u8(value: u8) -> SimdLevel {
        match value {
            2 => SimdLevel::Avx512,
            1 => SimdLevel::Avx2,
            _ => SimdLevel::Scalar,
        }
    }
}

/// The best level this CPU (and OS, which must save the wide registers) supports.
pub fn detected_level() -> SimdLevel {
    static DETECTED: OnceLock<SimdLevel> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> SimdLevel {
    // The AVX-512 kernels also use FMA on 512-bit registers (part of AVX-512F); the AVX2 kernels need
    // FMA3 separately, which every AVX2 CPU we know of has but the ISA does not promise.
    if std::arch::is_x86_feature_detected!("avx512f") {
        SimdLevel::Avx512
    } else if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        SimdLevel::Avx2
    } else {
        SimdLevel::Scalar
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> SimdLevel {
    SimdLevel::Scalar
}

const UNSET: u8 = u8::MAX;
static CHOSEN: AtomicU8 = AtomicU8::new(UNSET);

/// The level new calls use: the detected one unless `limit_level` lowered it.
pub fn current_level() -> SimdLevel {
    let chosen = CHOSEN.load(Ordering::Relaxed);
    if chosen == UNSET {
        detected_level()
    } else {
        SimdLevel::from_u8(chosen)
    }
}

/// Use at most `wanted` from now on; returns the level actually in effect (lower than `wanted`
/// when the CPU lacks it).
pub fn limit_level(wanted: SimdLevel) -> SimdLevel {
    let effective = wanted.min(detected_level());
    CHOSEN.store(effective as u8, Ordering::Relaxed);
    effective
}
