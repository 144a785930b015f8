//! A parallel map over chunks of a byte slice with scoped standard threads (one per core), for
//! the passes that read a whole table when it is opened. No thread-pool crate: this crate stays
//! light for programs that embed it.

/// `f` of each `chunk`-byte piece of `data` (the last may be shorter), in order.
pub fn map_chunks<R: Send>(data: &[u8], chunk: usize, f: impl Fn(&[u8]) -> R + Sync) -> Vec<R> {
    let pieces: Vec<&[u8]> = data.chunks(chunk.max(1)).collect();
    map_items(&pieces, |p| f(p))
}

/// `f` of each item, in order, the items split evenly over one thread per core.
pub fn map_items<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(per)
            .map(|group| s.spawn(|| group.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a table pass does not panic"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn chunks_are_mapped_in_order() {
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let sums = super::map_chunks(&data, 333, |c| c.iter().map(|&b| b as u64).sum::<u64>());
        let want: Vec<u64> = data
            .chunks(333)
            .map(|c| c.iter().map(|&b| b as u64).sum())
            .collect();
        assert_eq!(sums, want);
        assert!(super::map_chunks(&[], 8, |c| c.len()).is_empty());
    }
}
