//! Big buffers asked for huge pages (Linux `madvise`): a hint, ignored where not supported.

/// Asks the kernel to back the whole 2 MiB pages of `v`'s memory with huge pages. Call it before
/// the memory is first written (a fresh `vec![0; n]` is untouched until then): each huge page
/// is then one fault instead of 512, and random accesses miss the TLB less. Pages touched
/// before the request stay small until the kernel's background merging gets to them. The
/// contents are not changed.
pub fn advise<T>(v: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + std::mem::size_of_val(v);
        let first = start.div_ceil(HUGE) * HUGE;
        if end >= first + HUGE {
            let len = (end - first) / HUGE * HUGE;
            // SAFETY: the range lies inside `v`'s memory, which is live for the call;
            // MADV_HUGEPAGE only changes how the kernel backs the pages, not their contents,
            // and touches nothing. An error (no huge page support) is harmless and ignored.
            unsafe {
                libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}
