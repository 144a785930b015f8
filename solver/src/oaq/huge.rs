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
    let v: Vec<T> = Vec::with_capacity(n);
    advise_huge(v.as_ptr() as usize, n * std::mem::size_of::<T>());
    v
}

fn advise_huge(start: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let end = start + bytes;
        let first = start.div_ceil(HUGE) * HUGE;
        if end > first + HUGE {
            let len = (end - first) / HUGE * HUGE;
            // SAFETY: the range lies inside one live allocation (a vector's buffer, which
            // outlives the call); MADV_HUGEPAGE only changes how the kernel backs the pages,
            // not their contents, and touches nothing.
            unsafe {
                libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}
