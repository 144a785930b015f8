//! Big vectors backed by huge pages (Linux `madvise`), for the score solvers' arrays.

use rayon::prelude::*;

/// A vector of `n` items made by `f` in parallel, its memory asked for huge pages (fewer TLB
/// misses on the random reads of the sweeps; a hint, ignored where not supported) before it is
/// first touched: pages touched before the request stay small until the kernel's background
/// merging gets to them.
pub fn huge_vec<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    let mut v = huge_capacity(n);
    v.par_extend((0..n).into_par_iter().map(f));
    v
}

/// An empty vector with room for `n` items, that room asked for huge pages before any use.
pub fn huge_capacity<T>(n: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    retro_tables::huge::advise(v.spare_capacity_mut());
    v
}
