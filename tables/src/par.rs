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

/// Calls `f(start, piece)` on pieces of `data` that together cover it, in parallel (one thread
/// per core, a few pieces each), `start` being the piece's first index; every piece but the last
/// is a multiple of `granule` long, so a piece never splits a granule (a class of slots, a
/// 64-slot word of bits).
pub fn for_each_piece_mut<T: Send>(
    data: &mut [T],
    granule: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let granule = granule.max(1);
    let granules = data.len().div_ceil(granule);
    // A few pieces a thread, so that uneven pieces even out.
    let per = granules.div_ceil(4 * threads).max(1) * granule;
    if threads <= 1 || data.len() <= per {
        return f(0, data);
    }
    // A queue of pieces, each taken by the first thread free.
    let queue = std::sync::Mutex::new(
        data.chunks_mut(per)
            .enumerate()
            .map(|(i, p)| (i * per, p))
            .collect::<Vec<_>>(),
    );
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let next = queue.lock().expect("the queue's lock").pop();
                match next {
                    Some((start, piece)) => f(start, piece),
                    None => break,
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn pieces_cover_the_data_in_whole_granules() {
        for (len, granule) in [
            (0usize, 7usize),
            (5, 7),
            (1000, 7),
            (100_003, 64),
            (4096, 1),
        ] {
            let mut data = vec![0usize; len];
            super::for_each_piece_mut(&mut data, granule, |start, piece| {
                assert!(start % granule == 0);
                for (i, x) in piece.iter_mut().enumerate() {
                    *x += start + i + 1;
                }
            });
            assert!(
                data.iter().enumerate().all(|(i, &x)| x == i + 1),
                "{len} {granule}"
            );
        }
    }

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
