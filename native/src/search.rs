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

/// Ranking order: higher score first, NaN after every number, equal scores (and NaNs among
/// themselves) by lower index.
#[inline]
fn ranks_before(score: f32, index: i32, other_score: f32, other_index: i32) -> bool {
    match (score.is_nan(), other_score.is_nan()) {
        (false, true) => true,
        (true, false) => false,
        (true, true) => index < other_index,
        (false, false) => score > other_score || (score == other_score && index < other_index),
    }
}

/// Inserts a candidate into one query's sorted best-k list (`filled` of `k` slots used).
#[inline]
fn offer(indices: &mut [i32], scores: &mut [f32], filled: &mut usize, index: i32, score: f32) {
    let k = indices.len();
    let mut pos = if *filled < k {
        *filled += 1;
        *filled - 1
    } else if ranks_before(score, index, scores[k - 1], indices[k - 1]) {
        k - 1
    } else {
        return;
    };
    while pos > 0 && ranks_before(score, index, scores[pos - 1], indices[pos - 1]) {
        scores[pos] = scores[pos - 1];
        indices[pos] = indices[pos - 1];
        pos -= 1;
    }
    scores[pos] = score;
    indices[pos] = index;
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
    let mut indices = vec![0i32; query_count * k];
    let mut scores = vec![0f32; query_count * k];
    if k == 0 || query_count == 0 {
        return TopK { indices, scores };
    }
    let mut filled = vec![0usize; query_count];
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
                            let q = tile_start + r;
                            if filled[q] < k {
                                filling |= 1 << r;
                            } else {
                                let worst = scores[q * k + k - 1];
                                thresholds[r] = if worst.is_nan() { f32::NEG_INFINITY } else { worst };
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
                        let list = q * k..(q + 1) * k;
                        for c in set_bits(candidates) {
                            offer(
                                &mut indices[list.clone()],
                                &mut scores[list.clone()],
                                &mut filled[q],
                                (panel_start + c) as i32,
                                tile[r][c],
                            );
                        }
                    }
                }
            }
        }
    }
    TopK { indices, scores }
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
