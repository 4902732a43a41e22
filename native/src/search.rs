//! Cosine top-k and all-pairs-above-threshold over row-major f32 matrices whose rows are already
//! L2-normalised (so a dot product is the cosine). Both are blocked GEMMs: a packed block of rows
//! of one operand (about 1 MiB) is swept against packed panels of the other, one L1-sized depth
//! slice at a time, and each micro-tile is thresholded in registers so that only the scores that
//! can matter (a pair above the threshold, a row that enters a top-k list) are looked at.

use crate::gemm::{depth_per_slice, pack_interleaved, pack_panel, rows_per_block, PanelBuffer, TileKernel};
use crate::simd::SimdLevel;
use crate::with_kernel;

/// `k` best rows per query, query-major; `k` is already clamped to the row count.
pub struct TopK {
    pub indices: Vec<i32>,
    pub scores: Vec<f32>,
}

/// Pairs `a < b` with `score >= threshold`, sorted by `(a, b)`.
pub struct Pairs {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub score: Vec<f32>,
}

pub fn cosine_top_k(queries: &[f32], matrix: &[f32], dim: usize, k: usize, level: SimdLevel) -> TopK {
    with_kernel!(level, top_k_blocked(queries, matrix, dim, k))
}

pub fn all_pairs_above(matrix: &[f32], dim: usize, threshold: f64, level: SimdLevel) -> Pairs {
    with_kernel!(level, all_pairs_blocked(matrix, dim, threshold))
}

/// One candidate as an integer whose order is the ranking order: higher score first, NaN after
/// every number, equal scores (and NaNs among themselves) by lower index. The high half maps the
/// f32 onto an unsigned integer that sorts like the number (negatives bit-flipped, positives with
/// the sign bit set, ±0 as one value, NaN as 0); the low half is the complemented index. Comparing
/// one u64 instead of branching on NaN and ties halved the cost of keeping the lists.
#[inline]
fn rank_key(score: f32, index: usize) -> u64 {
    // Adding +0 turns -0 into +0 and leaves every other value as it is; the xor flips every bit
    // of a negative and only the sign bit of a positive, without a branch on the sign.
    let bits = (score + 0.0).to_bits();
    let flipped = bits ^ (((bits as i32) >> 31) as u32 | 0x8000_0000);
    let ordered = if score.is_nan() { 0 } else { flipped };
    (u64::from(ordered) << 32) | u64::from(!(index as u32))
}

/// The score a `rank_key` was made from (a negative zero comes back as +0, any NaN as the NaN).
#[inline]
fn key_score(key: u64) -> f32 {
    let ordered = (key >> 32) as u32;
    if ordered == 0 {
        f32::NAN
    } else if ordered >> 31 == 1 {
        f32::from_bits(ordered & 0x7fff_ffff)
    } else {
        f32::from_bits(!ordered)
    }
}

#[inline]
fn key_index(key: u64) -> i32 {
    !(key as u32) as i32
}

/// Inserts a candidate into one query's best-k list, sorted by descending key. A list starts as
/// zeros, which rank below every candidate (a NaN's key still carries its complemented index), so
/// "still filling" is simply "the last slot is 0". Keys are distinct because indices are.
///
/// The insertion is branch-free: slot i becomes max(slot i, min(key, slot i-1)), which is the
/// element above it when the key lands higher, the key when it lands at i, and the slot itself
/// otherwise. At k = 10 this is a few cmovs per slot instead of a data-dependent exit from a
/// shifting loop, which mispredicted on about every other candidate.
#[inline]
fn offer(list: &mut [u64], key: u64) {
    let k = list.len();
    if key <= list[k - 1] {
        return;
    }
    for i in (1..k).rev() {
        list[i] = list[i].max(key.min(list[i - 1]));
    }
    list[0] = list[0].max(key);
}

/// The packed MR-row groups of rows `first..end` of `matrix`, in `buffer`.
fn pack_block<const MR: usize>(matrix: &[f32], dim: usize, first: usize, end: usize, buffer: &mut PanelBuffer) -> usize {
    let groups = (end - first).div_ceil(MR);
    pack_interleaved::<MR>(matrix, dim, first, &mut buffer.as_mut_slice()[..groups * MR * dim]);
    groups
}

/// Iterates the set bits of a mask, lowest first.
#[inline]
fn set_bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let bit = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(bit)
    })
}

fn top_k_blocked<const MR: usize, const NR: usize, K: TileKernel<MR, NR>>(queries: &[f32], matrix: &[f32], dim: usize, k: usize) -> TopK {
    let query_count = queries.len() / dim;
    let row_count = matrix.len() / dim;
    let k = k.min(row_count);
    if k == 0 || query_count == 0 {
        return TopK { indices: Vec::new(), scores: Vec::new() };
    }
    let mut lists = vec![0u64; query_count * k];
    let block = rows_per_block(dim, MR).min(query_count.div_ceil(MR) * MR);
    let slice = depth_per_slice(NR);
    let mut query_block = PanelBuffer::new(block * dim);
    let mut panel = PanelBuffer::new(dim * NR);
    let mut tiles = vec![[[0f32; NR]; MR]; block / MR];
    let mut masks = [0u32; MR];

    for block_start in (0..query_count).step_by(block) {
        let block_end = (block_start + block).min(query_count);
        let groups = pack_block::<MR>(queries, dim, block_start, block_end, &mut query_block);
        for panel_start in (0..row_count).step_by(NR) {
            pack_panel::<NR>(matrix, dim, panel_start, panel.as_mut_slice());
            let columns = (row_count - panel_start).min(NR);
            let column_mask = u32::MAX >> (32 - columns);
            for slice_start in (0..dim).step_by(slice) {
                let depth = (dim - slice_start).min(slice);
                let last_slice = slice_start + depth == dim;
                for (group, tile) in tiles.iter_mut().enumerate().take(groups) {
                    let tile_start = block_start + group * MR;
                    let rows = (block_end - tile_start).min(MR);
                    // A full list takes only scores at least its k-th best, so the kernel's per-row
                    // threshold test leaves most tiles with nothing to scan. A list still filling
                    // takes anything, NaN included, so it scans every column.
                    let mut thresholds = [f32::INFINITY; MR];
                    let mut filling = 0u32;
                    if last_slice {
                        for r in 0..rows {
                            let worst = lists[(tile_start + r) * k + k - 1];
                            if worst == 0 {
                                filling |= 1 << r;
                            } else {
                                let score = key_score(worst);
                                thresholds[r] = if score.is_nan() { f32::NEG_INFINITY } else { score };
                            }
                        }
                    }
                    // SAFETY: the packed group holds dim * MR floats and the panel dim * NR floats
                    // aligned to 64 bytes (slices start at multiples of 16 KiB), and `with_kernel!`
                    // only picks a kernel the CPU supports.
                    unsafe {
                        let a = query_block.as_ptr().add(group * MR * dim + slice_start * MR);
                        K::tile(
                            a,
                            panel.as_ptr().add(slice_start * NR),
                            depth,
                            slice_start > 0,
                            tile,
                            &thresholds,
                            &mut masks,
                        )
                    };
                    if !last_slice {
                        continue;
                    }
                    for r in 0..rows {
                        let candidates = if filling & (1 << r) != 0 {
                            column_mask
                        } else {
                            masks[r] & column_mask
                        };
                        if candidates == 0 {
                            continue;
                        }
                        let q = tile_start + r;
                        let list = &mut lists[q * k..(q + 1) * k];
                        for c in set_bits(candidates) {
                            offer(list, rank_key(tile[r][c], panel_start + c));
                        }
                    }
                }
            }
        }
    }
    TopK {
        indices: lists.iter().map(|&key| key_index(key)).collect(),
        scores: lists.iter().map(|&key| key_score(key)).collect(),
    }
}

/// The smallest f32 that is `>= threshold`: for an f32 score `s`, `s >= threshold` exactly when
/// `s >= ceil_to_f32(threshold)`, so the kernels can compare in f32 without changing the answer.
pub fn ceil_to_f32(threshold: f64) -> f32 {
    let nearest = threshold as f32;
    if (nearest as f64) < threshold {
        nearest.next_up()
    } else {
        nearest
    }
}

fn all_pairs_blocked<const MR: usize, const NR: usize, K: TileKernel<MR, NR>>(matrix: &[f32], dim: usize, threshold: f64) -> Pairs {
    let row_count = matrix.len() / dim;
    let thresholds = [ceil_to_f32(threshold); MR];
    let block = rows_per_block(dim, MR).min(row_count.div_ceil(MR) * MR).max(MR);
    let slice = depth_per_slice(NR);
    let mut row_block = PanelBuffer::new(block * dim);
    let mut panel = PanelBuffer::new(dim * NR);
    let mut tiles = vec![[[0f32; NR]; MR]; block / MR];
    let mut masks = [0u32; MR];
    // (a << 32 | b, score): one u64 key sorts by (a, b).
    let mut found: Vec<(u64, f32)> = Vec::new();

    for block_start in (0..row_count).step_by(block) {
        let block_end = (block_start + block).min(row_count);
        let groups = pack_block::<MR>(matrix, dim, block_start, block_end, &mut row_block);
        // Only panels holding some column j > block_start can contribute pairs i < j.
        let first_panel = (block_start / NR) * NR;
        for panel_start in (first_panel..row_count).step_by(NR) {
            pack_panel::<NR>(matrix, dim, panel_start, panel.as_mut_slice());
            let panel_end = (panel_start + NR).min(row_count);
            let columns = panel_end - panel_start;
            // Rows i >= panel_end - 1 have no j > i in this panel.
            let rows_end = block_end.min(panel_end - 1);
            let active_groups = groups.min((rows_end.saturating_sub(block_start)).div_ceil(MR));
            for slice_start in (0..dim).step_by(slice) {
                let depth = (dim - slice_start).min(slice);
                let last_slice = slice_start + depth == dim;
                for (group, tile) in tiles.iter_mut().enumerate().take(active_groups) {
                    let tile_start = block_start + group * MR;
                    // SAFETY: as in top_k_blocked.
                    unsafe {
                        let a = row_block.as_ptr().add(group * MR * dim + slice_start * MR);
                        K::tile(
                            a,
                            panel.as_ptr().add(slice_start * NR),
                            depth,
                            slice_start > 0,
                            tile,
                            &thresholds,
                            &mut masks,
                        )
                    };
                    if !last_slice {
                        continue;
                    }
                    for r in 0..(rows_end - tile_start).min(MR) {
                        let i = tile_start + r;
                        // Columns c with panel_start + c > i, and below the panel's real width.
                        let first_column = (i + 1).saturating_sub(panel_start);
                        if first_column >= columns {
                            continue;
                        }
                        let wanted = (u32::MAX >> (32 - columns)) & !((1u32 << first_column) - 1);
                        for c in set_bits(masks[r] & wanted) {
                            found.push((((i as u64) << 32) | (panel_start + c) as u64, tile[r][c]));
                        }
                    }
                }
            }
        }
    }

    found.sort_unstable_by_key(|&(key, _)| key);
    let mut pairs = Pairs {
        a: Vec::with_capacity(found.len()),
        b: Vec::with_capacity(found.len()),
        score: Vec::with_capacity(found.len()),
    };
    for (key, score) in found {
        pairs.a.push((key >> 32) as u32);
        pairs.b.push(key as u32);
        pairs.score.push(score);
    }
    pairs
}
