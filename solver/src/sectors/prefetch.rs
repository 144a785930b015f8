//! A cache-prefetch hint for the solver's hot loops.

/// Hints the CPU to bring a cache line in (no effect on results).
#[inline]
pub fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is only a hint; it reads no memory architecturally and cannot fault,
    // and the pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            p as *const T as *const i8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
