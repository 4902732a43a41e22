//! Node bindings for the vector kernels. Typed arrays are borrowed, never copied: the synchronous
//! functions read the JS memory for the duration of the call, the async ones hold a reference to
//! each typed array (so it cannot be collected) until their promise settles. Callers must not
//! transfer or detach those buffers while a promise is pending.
//!
//! The TS facade (src/native/index.ts) validates arguments first and throws TypeError/RangeError;
//! the checks here repeat the ones memory safety depends on, so calling the addon directly with
//! bad arguments throws instead of crashing the process.

// Kernels index rows and lanes explicitly: the loops mirror the register layout they fill.
#![allow(clippy::needless_range_loop)]

mod gemm;
mod normalize;
mod peak;
mod search;
mod simd;
mod union_find;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use simd::SimdLevel;

fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

/// Row counts and indices travel as i32/u32, so every size stays below 2^31.
const MAX_COUNT: f64 = i32::MAX as f64;

fn whole_number(value: f64, name: &str, min: f64) -> Result<usize> {
    if !value.is_finite() || value.fract() != 0.0 || value < min || value > MAX_COUNT {
        return Err(invalid(format!("{name} must be an integer in [{min}, {MAX_COUNT}], got {value}")));
    }
    Ok(value as usize)
}

fn row_count(values: usize, dim: usize, name: &str) -> Result<usize> {
    if !values.is_multiple_of(dim) {
        return Err(invalid(format!("{name} has {values} values, not a multiple of dim {dim}")));
    }
    let rows = values / dim;
    if rows as f64 > MAX_COUNT {
        return Err(invalid(format!("{name} has {rows} rows, more than {MAX_COUNT}")));
    }
    Ok(rows)
}

fn finite_threshold(threshold: f64) -> Result<f64> {
    if !threshold.is_finite() {
        return Err(invalid(format!("threshold must be a finite number, got {threshold}")));
    }
    Ok(threshold)
}

#[napi(object, object_from_js = false)]
pub struct TopKResult {
    pub indices: Int32Array,
    pub scores: Float32Array,
}

#[napi(object, object_from_js = false)]
pub struct PairsResult {
    pub a: Uint32Array,
    pub b: Uint32Array,
    pub score: Float32Array,
}

impl From<search::TopK> for TopKResult {
    fn from(top: search::TopK) -> Self {
        // Float32Array::new hands the Vec's memory to JS as an external buffer: no copy.
        TopKResult {
            indices: Int32Array::new(top.indices),
            scores: Float32Array::new(top.scores),
        }
    }
}

impl From<search::Pairs> for PairsResult {
    fn from(pairs: search::Pairs) -> Self {
        PairsResult {
            a: Uint32Array::new(pairs.a),
            b: Uint32Array::new(pairs.b),
            score: Float32Array::new(pairs.score),
        }
    }
}

#[napi(js_name = "normalizeRows", catch_unwind)]
pub fn normalize_rows(mut matrix: Float32ArraySlice, dim: f64) -> Result<()> {
    let dim = whole_number(dim, "dim", 1.0)?;
    row_count(matrix.len(), dim, "matrix")?;
    // SAFETY: the slice is the typed array's own memory, valid for this synchronous call; JS cannot
    // run (and so cannot touch it) until we return.
    normalize::normalize_rows(unsafe { matrix.as_mut() }, dim);
    Ok(())
}

fn check_top_k(queries: &[f32], matrix: &[f32], dim: f64, k: f64) -> Result<(usize, usize)> {
    let dim = whole_number(dim, "dim", 1.0)?;
    row_count(queries.len(), dim, "queries")?;
    row_count(matrix.len(), dim, "matrix")?;
    if !k.is_finite() {
        return Err(invalid(format!("k must be a finite integer >= 1, got {k}")));
    }
    // A k above the row count is clamped later; clamp absurd ones here so they pass the range check.
    Ok((dim, whole_number(k.min(MAX_COUNT), "k", 1.0)?))
}

#[napi(js_name = "cosineTopK", catch_unwind)]
pub fn cosine_top_k(queries: Float32ArraySlice, matrix: Float32ArraySlice, dim: f64, k: f64) -> Result<TopKResult> {
    let (dim, k) = check_top_k(&queries, &matrix, dim, k)?;
    Ok(search::cosine_top_k(&queries, &matrix, dim, k, simd::current_level()).into())
}

#[napi(js_name = "allPairsAbove", catch_unwind)]
pub fn all_pairs_above(matrix: Float32ArraySlice, dim: f64, threshold: f64) -> Result<PairsResult> {
    let dim = whole_number(dim, "dim", 1.0)?;
    row_count(matrix.len(), dim, "matrix")?;
    let threshold = finite_threshold(threshold)?;
    Ok(search::all_pairs_above(&matrix, dim, threshold, simd::current_level()).into())
}

/// Top-k on a libuv worker. The level is fixed when the call is made, so a later `setSimdLevel`
/// cannot change a computation already queued.
pub struct CosineTopKTask {
    queries: Float32Array,
    matrix: Float32Array,
    dim: usize,
    k: usize,
    level: SimdLevel,
}

impl Task for CosineTopKTask {
    type Output = search::TopK;
    type JsValue = TopKResult;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(search::cosine_top_k(&self.queries, &self.matrix, self.dim, self.k, self.level))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output.into())
    }
}

#[napi(js_name = "cosineTopKAsync", catch_unwind)]
pub fn cosine_top_k_async(queries: Float32Array, matrix: Float32Array, dim: f64, k: f64) -> Result<AsyncTask<CosineTopKTask>> {
    let (dim, k) = check_top_k(&queries, &matrix, dim, k)?;
    Ok(AsyncTask::new(CosineTopKTask {
        queries,
        matrix,
        dim,
        k,
        level: simd::current_level(),
    }))
}

pub struct AllPairsAboveTask {
    matrix: Float32Array,
    dim: usize,
    threshold: f64,
    level: SimdLevel,
}

impl Task for AllPairsAboveTask {
    type Output = search::Pairs;
    type JsValue = PairsResult;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(search::all_pairs_above(&self.matrix, self.dim, self.threshold, self.level))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output.into())
    }
}

#[napi(js_name = "allPairsAboveAsync", catch_unwind)]
pub fn all_pairs_above_async(matrix: Float32Array, dim: f64, threshold: f64) -> Result<AsyncTask<AllPairsAboveTask>> {
    let dim = whole_number(dim, "dim", 1.0)?;
    row_count(matrix.len(), dim, "matrix")?;
    let threshold = finite_threshold(threshold)?;
    Ok(AsyncTask::new(AllPairsAboveTask {
        matrix,
        dim,
        threshold,
        level: simd::current_level(),
    }))
}

#[napi(js_name = "unionFind", catch_unwind)]
pub fn union_find(node_count: f64, a: Uint32ArraySlice, b: Uint32ArraySlice) -> Result<Int32Array> {
    let node_count = whole_number(node_count, "n", 0.0)?;
    if a.len() != b.len() {
        return Err(invalid(format!(
            "edge lists differ in length: a has {}, b has {}",
            a.len(),
            b.len()
        )));
    }
    if let Some(&node) = a.iter().chain(b.iter()).find(|&&node| node as usize >= node_count) {
        return Err(invalid(format!("edge endpoint {node} is not below n = {node_count}")));
    }
    Ok(Int32Array::new(union_find::component_labels(node_count, &a, &b)))
}

#[napi(js_name = "simdLevel")]
pub fn simd_level() -> &'static str {
    simd::current_level().name()
}

/// Caps the instruction set for later calls ('avx512' | 'avx2' | 'scalar'); returns the level in
/// effect, which is lower than asked when the CPU lacks it. For tests and benchmarks.
#[napi(js_name = "setSimdLevel")]
pub fn set_simd_level(level: String) -> Result<&'static str> {
    let wanted = SimdLevel::parse(&level).ok_or_else(|| invalid(format!("unknown SIMD level {level:?}; use avx512, avx2 or scalar")))?;
    Ok(simd::limit_level(wanted).name())
}

#[napi(js_name = "peakGflops", catch_unwind)]
pub fn peak_gflops(milliseconds: f64) -> Result<f64> {
    if !(milliseconds.is_finite() && milliseconds > 0.0 && milliseconds <= 60_000.0) {
        return Err(invalid(format!("ms must be in (0, 60000], got {milliseconds}")));
    }
    Ok(peak::peak_gflops(milliseconds, simd::current_level()))
}
