//! In-place L2 normalisation of the rows of a row-major matrix.

/// Squares are summed in f64 into eight interleaved partial sums (element k goes to sum k % 8),
/// combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)). The JS reference uses the same association
/// order, so both give bit-identical rows, and eight independent sums keep this from being bound
/// by add latency. Zero rows stay zero; a row holding NaN has a NaN norm and becomes all NaN.
pub fn normalize_rows(matrix: &mut [f32], dim: usize) {
    for row in matrix.chunks_exact_mut(dim) {
        let mut partial = [0f64; 8];
        let mut groups = row.chunks_exact(8);
        for group in &mut groups {
            for lane in 0..8 {
                let value = group[lane] as f64;
                partial[lane] += value * value;
            }
        }
        for (lane, &value) in groups.remainder().iter().enumerate() {
            let value = value as f64;
            partial[lane] += value * value;
        }
        let sum_of_squares =
            ((partial[0] + partial[1]) + (partial[2] + partial[3])) + ((partial[4] + partial[5]) + (partial[6] + partial[7]));
        if sum_of_squares == 0.0 {
            continue;
        }
        let scale = 1.0 / sum_of_squares.sqrt();
        for value in row.iter_mut() {
            *value = (*value as f64 * scale) as f32;
        }
    }
}
