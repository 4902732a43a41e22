//! The register-blocked dot-product tile shared by top-k and all-pairs: MR rows of one matrix
//! against a packed panel of NR rows of another, i.e. one MR×NR block of A·Bᵀ.
//!
//! The panel is packed transposed (`packed[k * NR + c] = B[c][k]`) so the inner loop is an outer
//! product: per k, load NR consecutive floats of the panel, broadcast one float of each A row, and
//! do MR·NR/lanes FMAs into accumulators that stay in registers. That is the GEMM micro-kernel
//! shape that reaches near-peak FMA throughput without horizontal sums. Long rows are cut into
//! depth slices (`depth_per_slice`) so a panel slice stays in L1 while every A group of a block
//! passes over it; the kernel then carries its accumulators through `out` from slice to slice.
//!
//! Every output is the same sequential chain `acc = fma(a[k], b[k], acc)` for k = 0..d in every
//! FMA-capable kernel (carrying through `out` stores and reloads the exact f32), so the AVX2 and
//! AVX-512 kernels give bit-identical scores; only the non-FMA scalar build rounds twice per step.

/// A panel buffer aligned to 64 bytes so that vector loads never straddle cache lines.
///
/// Its storage comes from, and goes back to, a small per-thread pool: a fresh megabyte-sized
/// allocation is mapped and zeroed page by page, which cost a small top-k call (512 × 512) about a
/// quarter of its time. Every caller overwrites what it reads (packing fills each slot it uses), so
/// a reused buffer's old contents never reach a result.
pub struct PanelBuffer {
    storage: Vec<f32>,
    offset: usize,
    len: usize,
}

/// Buffers kept per thread: a driver holds two at a time, so four covers a call and its successor.
const SPARE_BUFFERS: usize = 4;

thread_local! {
    static SPARE: std::cell::RefCell<Vec<Vec<f32>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl PanelBuffer {
    pub fn new(len: usize) -> PanelBuffer {
        let needed = len + 16;
        let reused = SPARE.with(|spare| {
            let mut spare = spare.borrow_mut();
            spare.iter().position(|storage| storage.len() >= needed).map(|index| spare.swap_remove(index))
        });
        let storage = reused.unwrap_or_else(|| vec![0f32; needed]);
        let misalignment = (storage.as_ptr() as usize / std::mem::size_of::<f32>()) % 16;
        let offset = if misalignment == 0 { 0 } else { 16 - misalignment };
        PanelBuffer { storage, offset, len }
    }

    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.storage[self.offset..self.offset + self.len]
    }

    pub fn as_ptr(&self) -> *const f32 {
        self.storage[self.offset..].as_ptr()
    }
}

impl Drop for PanelBuffer {
    fn drop(&mut self) {
        let storage = std::mem::take(&mut self.storage);
        // try_with: a buffer dropped while the thread itself is exiting just frees its memory.
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_BUFFERS {
                spare.push(storage);
            }
        });
    }
}

/// Packs rows `first..first + NR` of `matrix` (row length `dim`) transposed, `packed[k * NR + c]`;
/// rows past the end of the matrix are packed as zeros and callers mask their scores off.
pub fn pack_panel<const NR: usize>(matrix: &[f32], dim: usize, first: usize, packed: &mut [f32]) {
    pack_interleaved::<NR>(matrix, dim, first, &mut packed[..dim * NR]);
}

/// Packs rows `first..` of `matrix` in groups of `G`: group t holds `packed[t*G*dim + k*G + r] =
/// matrix[first + t*G + r][k]`, zeros past the last row. With `G = MR` this is the micro-kernel's A
/// layout: each k step reads MR consecutive floats, one stream for the prefetcher instead of MR.
pub fn pack_interleaved<const G: usize>(matrix: &[f32], dim: usize, first: usize, packed: &mut [f32]) {
    let rows = matrix.len() / dim;
    for (group_index, group) in packed.chunks_exact_mut(G * dim).enumerate() {
        let group_first = first + group_index * G;
        if group_first + G <= rows {
            let source = &matrix[group_first * dim..(group_first + G) * dim];
            for (k, destination) in group.chunks_exact_mut(G).enumerate() {
                for (r, value) in destination.iter_mut().enumerate() {
                    *value = source[r * dim + k];
                }
            }
        } else {
            for (k, destination) in group.chunks_exact_mut(G).enumerate() {
                for (r, value) in destination.iter_mut().enumerate() {
                    let row = group_first + r;
                    *value = if row < rows { matrix[row * dim + k] } else { 0.0 };
                }
            }
        }
    }
}

/// One micro-kernel over `depth` steps of k: `out[r][c] (+)= sum_k a[k][r] * b[k][c]` for a packed
/// MR-row group of A and a packed NR-column panel slice, starting from zero or, when `carry`, from
/// the partial sums already in `out`. Sets bit c of `masks[r]` when `out[r][c] >= thresholds[r]`
/// (ordered compare: NaN never sets a bit), so callers scan only the scores that matter.
pub trait TileKernel<const MR: usize, const NR: usize> {
    /// # Safety
    /// `a_packed` must point at `depth * MR` floats and `b_packed` at `depth * NR` floats aligned
    /// to 64 bytes, and the CPU must support the kernel's instruction set (`with_kernel!` dispatch
    /// guarantees it).
    unsafe fn tile(
        a_packed: *const f32,
        b_packed: *const f32,
        depth: usize,
        carry: bool,
        out: &mut [[f32; NR]; MR],
        thresholds: &[f32; MR],
        masks: &mut [u32; MR],
    );
}

pub struct ScalarKernel;

impl TileKernel<4, 8> for ScalarKernel {
    unsafe fn tile(
        a_packed: *const f32,
        b_packed: *const f32,
        depth: usize,
        carry: bool,
        out: &mut [[f32; 8]; 4],
        thresholds: &[f32; 4],
        masks: &mut [u32; 4],
    ) {
        let mut acc = if carry { *out } else { [[0f32; 8]; 4] };
        for k in 0..depth {
            // SAFETY: the caller guarantees depth * 4 and depth * 8 floats behind the two pointers.
            let (a, b) = unsafe {
                (
                    &*(a_packed.add(k * 4) as *const [f32; 4]),
                    &*(b_packed.add(k * 8) as *const [f32; 8]),
                )
            };
            for r in 0..4 {
                for c in 0..8 {
                    acc[r][c] = multiply_add(a[r], b[c], acc[r][c]);
                }
            }
        }
        for r in 0..4 {
            masks[r] = acc[r]
                .iter()
                .enumerate()
                .filter(|&(_, &score)| score >= thresholds[r])
                .fold(0, |mask, (c, _)| mask | 1 << c);
        }
        *out = acc;
    }
}

/// A fused multiply-add where the hardware has one in the baseline instruction set (aarch64);
/// elsewhere the portable build must not call the slow software `fmaf`, so it rounds twice.
#[inline(always)]
fn multiply_add(a: f32, b: f32, acc: f32) -> f32 {
    #[cfg(any(target_arch = "aarch64", target_feature = "fma"))]
    {
        a.mul_add(b, acc)
    }
    #[cfg(not(any(target_arch = "aarch64", target_feature = "fma")))]
    {
        a * b + acc
    }
}

#[cfg(target_arch = "x86_64")]
pub mod x86 {
    use super::TileKernel;
    use std::arch::x86_64::*;

    /// 6×16: 12 ymm accumulators + 2 panel registers + 1 broadcast fit the 16 ymm registers.
    pub struct Avx2Kernel;

    impl TileKernel<6, 16> for Avx2Kernel {
        unsafe fn tile(
            a_packed: *const f32,
            b_packed: *const f32,
            depth: usize,
            carry: bool,
            out: &mut [[f32; 16]; 6],
            thresholds: &[f32; 6],
            masks: &mut [u32; 6],
        ) {
            unsafe { tile_avx2(a_packed, b_packed, depth, carry, out, thresholds, masks) }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile_avx2(
        a_packed: *const f32,
        b_packed: *const f32,
        depth: usize,
        carry: bool,
        out: &mut [[f32; 16]; 6],
        thresholds: &[f32; 6],
        masks: &mut [u32; 6],
    ) {
        let mut acc = [[_mm256_setzero_ps(); 2]; 6];
        if carry {
            for r in 0..6 {
                acc[r] = unsafe { [_mm256_loadu_ps(out[r].as_ptr()), _mm256_loadu_ps(out[r].as_ptr().add(8))] };
            }
        }
        let (mut a, mut b) = (a_packed, b_packed);
        for _ in 0..depth {
            let (b0, b1) = unsafe { (_mm256_load_ps(b), _mm256_load_ps(b.add(8))) };
            for r in 0..6 {
                let broadcast = unsafe { _mm256_broadcast_ss(&*a.add(r)) };
                acc[r][0] = _mm256_fmadd_ps(broadcast, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(broadcast, b1, acc[r][1]);
            }
            (a, b) = unsafe { (a.add(6), b.add(16)) };
        }
        for r in 0..6 {
            let (lo, hi) = (acc[r][0], acc[r][1]);
            let limit = _mm256_set1_ps(thresholds[r]);
            let low_bits = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(lo, limit)) as u32;
            let high_bits = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(hi, limit)) as u32;
            masks[r] = low_bits | high_bits << 8;
            unsafe {
                _mm256_storeu_ps(out[r].as_mut_ptr(), lo);
                _mm256_storeu_ps(out[r].as_mut_ptr().add(8), hi);
            }
        }
    }

    /// 12×32: 24 zmm accumulators; per k two panel loads and twelve broadcasts feed 24 FMAs, so
    /// the FMA ports, not the load ports, set the pace.
    pub struct Avx512Kernel;

    impl TileKernel<12, 32> for Avx512Kernel {
        unsafe fn tile(
            a_packed: *const f32,
            b_packed: *const f32,
            depth: usize,
            carry: bool,
            out: &mut [[f32; 32]; 12],
            thresholds: &[f32; 12],
            masks: &mut [u32; 12],
        ) {
            unsafe { tile_avx512(a_packed, b_packed, depth, carry, out, thresholds, masks) }
        }
    }

    #[target_feature(enable = "avx512f")]
    unsafe fn tile_avx512(
        a_packed: *const f32,
        b_packed: *const f32,
        depth: usize,
        carry: bool,
        out: &mut [[f32; 32]; 12],
        thresholds: &[f32; 12],
        masks: &mut [u32; 12],
    ) {
        let mut acc = [[_mm512_setzero_ps(); 2]; 12];
        if carry {
            for r in 0..12 {
                acc[r] = unsafe { [_mm512_loadu_ps(out[r].as_ptr()), _mm512_loadu_ps(out[r].as_ptr().add(16))] };
            }
        }
        let (mut a, mut b) = (a_packed, b_packed);
        for _ in 0..depth {
            let (b0, b1) = unsafe { (_mm512_load_ps(b), _mm512_load_ps(b.add(16))) };
            for r in 0..12 {
                let broadcast = _mm512_set1_ps(unsafe { *a.add(r) });
                acc[r][0] = _mm512_fmadd_ps(broadcast, b0, acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(broadcast, b1, acc[r][1]);
            }
            (a, b) = unsafe { (a.add(12), b.add(32)) };
        }
        for r in 0..12 {
            let (lo, hi) = (acc[r][0], acc[r][1]);
            let limit = _mm512_set1_ps(thresholds[r]);
            let low_bits = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(lo, limit) as u32;
            let high_bits = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(hi, limit) as u32;
            masks[r] = low_bits | high_bits << 16;
            unsafe {
                _mm512_storeu_ps(out[r].as_mut_ptr(), lo);
                _mm512_storeu_ps(out[r].as_mut_ptr().add(16), hi);
            }
        }
    }
}

/// Calls `$body` with the kernel type and its MR/NR for `$level`, so that each driver is written
/// once and monomorphised per instruction set.
#[macro_export]
macro_rules! with_kernel {
    ($level:expr, $body:ident ( $($arg:expr),* )) => {{
        match $level {
            #[cfg(target_arch = "x86_64")]
            $crate::simd::SimdLevel::Avx512 => $body::<12, 32, $crate::gemm::x86::Avx512Kernel>($($arg),*),
            #[cfg(target_arch = "x86_64")]
            $crate::simd::SimdLevel::Avx2 => $body::<6, 16, $crate::gemm::x86::Avx2Kernel>($($arg),*),
            _ => $body::<4, 8, $crate::gemm::ScalarKernel>($($arg),*),
        }
    }};
}

/// How many rows of the streamed operand to pack and keep per block: about 1 MiB, rounded down to
/// whole micro-tiles. Each block repacks every panel it meets, and with 512 KiB blocks at d = 384
/// that repacking cost about a tenth of the time; the block itself is read at only a few bytes per
/// cycle, so where it outgrows L2 (half of this machine's 2 MiB, most of a 1.25 MiB AVX2 core's)
/// the L3 keeps up.
pub fn rows_per_block(dim: usize, mr: usize) -> usize {
    const TARGET_BYTES: usize = 1024 * 1024;
    let rows = (TARGET_BYTES / (dim * std::mem::size_of::<f32>())).clamp(mr, 1 << 16);
    (rows / mr) * mr
}

/// Depth of one k slice: a 16 KiB panel slice, a third of a 48 KiB L1, leaving room for the A
/// group and the carried tile.
pub fn depth_per_slice(nr: usize) -> usize {
    16 * 1024 / (nr * std::mem::size_of::<f32>())
}
