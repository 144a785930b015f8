//! Slots tagged with their unit part, and the buckets of resolved slots waiting for their
//! frontier pass.

/// A slot tagged with the unit part it belongs to.
pub(super) trait Tag: Copy + Default + Send + Sync + 'static {
    /// Slot `slot` of part `part`.
    fn new(part: usize, slot: u64) -> Self;
    /// The part and the slot.
    fn get(self) -> (usize, u64);
}

/// Two parts of at most 2^31 slots: the part in the top bit.
impl Tag for u32 {
    #[inline]
    fn new(part: usize, slot: u64) -> u32 {
        debug_assert!(part < 2 && slot < 1 << 31);
        (part as u32) << 31 | slot as u32
    }

    #[inline]
    fn get(self) -> (usize, u64) {
        ((self >> 31) as usize, (self & ((1 << 31) - 1)) as u64)
    }
}

/// Any unit: the part above 48 bits of slot.
impl Tag for u64 {
    #[inline]
    fn new(part: usize, slot: u64) -> u64 {
        (part as u64) << 48 | slot
    }

    #[inline]
    fn get(self) -> (usize, u64) {
        ((self >> 48) as usize, self & ((1 << 48) - 1))
    }
}

/// Resolved slots waiting for their frontier pass, by distance.
pub(super) struct Buckets<T>(std::sync::Mutex<Vec<Vec<T>>>);

impl<T> Default for Buckets<T> {
    fn default() -> Self {
        Buckets(std::sync::Mutex::new(Vec::new()))
    }
}

impl<T: Tag> Buckets<T> {
    /// Files `(distance, tagged slot)` pairs and empties `found`.
    pub(super) fn add(&self, found: &mut Vec<(u16, T)>) {
        if found.is_empty() {
            return;
        }
        let mut b = self.0.lock().expect("bucket lock");
        for &(d, t) in found.iter() {
            let d = d as usize;
            if b.len() <= d {
                b.resize_with(d + 1, Vec::new);
            }
            b[d].push(t);
        }
        found.clear();
    }

    /// Takes the slots resolved at distance `d`.
    pub(super) fn take(&self, d: u16) -> Vec<T> {
        let mut b = self.0.lock().expect("bucket lock");
        b.get_mut(d as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }
}
