//! Mixtures of static models for the rANS coders' second versions ([`crate::wdl_rans`] and
//! [`crate::dtm_rans`] under block coders 4 and 5): a file's sub-blocks are sorted into up to
//! [`MAX_MODELS`] kinds, each coded with a model fitted to its kind, and each stream names its
//! model. Measured on nine-mens-morris tables in `databases/README.md` ("Mixtures of models").
//!
//! The kinds are found by k-means over a sample of sub-blocks: each sub-block goes to the model
//! that codes it in the fewest bits, each model is refitted to its sub-blocks, four times over;
//! the number of models is doubled from 1 (up to 64) as long as that makes the file smaller,
//! models and model numbers counted. Nothing here needs to be exact for a reader: the chosen models
//! are written in the file, and each stream says which one codes it.

/// The most models a file may hold (a power of two: a stream's model number is coded with
/// frequency `TOTAL / models`).
pub const MAX_MODELS: usize = 64;
/// Sub-blocks the clustering looks at, at most (spread over the file).
const SAMPLE: usize = 4096;
/// Rounds of k-means.
const ROUNDS: usize = 4;

/// A sub-block's symbols as `(bin, count)`, `bin = context * symbols + symbol`.
pub type Counts = Vec<(u32, u32)>;

/// The counts of a sub-block's `(context, symbol)` pairs, gathered in a scratch array of
/// `bins` zeros (left zero again).
pub fn gather(pairs: impl Iterator<Item = u32>, scratch: &mut [u32]) -> Counts {
    let mut out: Counts = Vec::new();
    for b in pairs {
        if scratch[b as usize] == 0 {
            out.push((b, 0));
        }
        scratch[b as usize] += 1;
    }
    for (b, n) in out.iter_mut() {
        *n = scratch[*b as usize];
        scratch[*b as usize] = 0;
    }
    out
}

/// Bits of each bin under a model of counts `counts` (`bins / symbols` contexts), smoothed so
/// that nothing costs infinitely many.
pub fn costs(counts: &[u64], symbols: usize) -> Vec<f32> {
    let mut out = vec![0f32; counts.len()];
    for (c, o) in counts.chunks(symbols).zip(out.chunks_mut(symbols)) {
        let total: u64 = c.iter().sum();
        let denom = total as f64 + 0.25 * symbols as f64;
        for (x, &k) in o.iter_mut().zip(c) {
            *x = -((k as f64 + 0.25) / denom).log2() as f32;
        }
    }
    out
}

/// Bits of sub-block `s` under the cost table `cost`.
#[inline]
pub fn bits(s: &Counts, cost: &[f32]) -> f32 {
    s.iter().map(|&(b, n)| n as f32 * cost[b as usize]).sum()
}

/// The model (of `costs`) that codes `s` in the fewest bits, one model at a time: the plain
/// reference [`Chooser::best`] is tested against (writers use the chooser).
#[cfg(test)]
fn best(s: &Counts, costs: &[Vec<f32>]) -> usize {
    let mut best = (0, f32::INFINITY);
    for (m, c) in costs.iter().enumerate() {
        let b = bits(s, c);
        if b < best.1 {
            best = (m, b);
        }
    }
    best.0
}

/// The cost tables of several models laid out by bin (each bin's cost under every model in
/// turn), so that a sub-block's bits under all the models are summed in one pass over its
/// counts, the models side by side (vector lanes), instead of one pass a model: picking each
/// sub-block's model is most of what a mixture costs a writer.
#[derive(Clone, Debug, PartialEq)]
pub struct Chooser {
    models: usize,
    by_bin: Vec<f32>,
}

impl Chooser {
    /// The chooser among the models of cost tables `costs` (at most [`MAX_MODELS`], each of
    /// the same bins).
    pub fn new(costs: &[Vec<f32>]) -> Chooser {
        assert!((1..=MAX_MODELS).contains(&costs.len()), "1 to 64 models");
        let (models, bins) = (costs.len(), costs[0].len());
        let mut by_bin = vec![0f32; bins * models];
        for (m, c) in costs.iter().enumerate() {
            for (b, &x) in c.iter().enumerate() {
                by_bin[b * models + m] = x;
            }
        }
        Chooser { models, by_bin }
    }

    /// The model that codes `s` in the fewest bits, the first of equals: what the tests' plain
    /// `best` gives (each model's bits are the same sums, added in the same order).
    pub fn best(&self, s: &Counts) -> usize {
        let mut acc = [0f32; MAX_MODELS];
        let acc = &mut acc[..self.models];
        for &(b, n) in s {
            let row = &self.by_bin[b as usize * self.models..][..self.models];
            let n = n as f32;
            for (a, &c) in acc.iter_mut().zip(row) {
                *a += n * c;
            }
        }
        let mut best = (0, f32::INFINITY);
        for (m, &b) in acc.iter().enumerate() {
            if b < best.1 {
                best = (m, b);
            }
        }
        best.0
    }
}

/// The sub-blocks `subs` (of `bins` bins, `symbols` a context) sorted into kinds: the cost
/// tables of the models chosen, as many as make the file smallest given `model_bytes` bytes
/// a model, for a file of `all` such sub-blocks (of which `subs` is a sample).
fn cluster(
    subs: &[Counts],
    bins: usize,
    symbols: usize,
    model_bytes: usize,
    all: usize,
) -> Vec<Vec<f32>> {
    let scale = all as f64 / subs.len().max(1) as f64;
    let mut best: Option<(f64, Vec<Vec<f32>>)> = None;
    let mut k = 1;
    while k <= MAX_MODELS && k <= subs.len().max(1) {
        let (bits_k, costs_k) = kmeans(subs, bins, symbols, k);
        let total = scale * (bits_k + subs.len() as f64 * (k as f64).log2())
            + 8.0 * (model_bytes * k) as f64;
        if best.as_ref().is_some_and(|(b, _)| total >= *b) {
            // Twice the models no longer pay for themselves: more will not either, as a rule.
            break;
        }
        best = Some((total, costs_k));
        k *= 2;
    }
    best.map_or_else(|| vec![vec![0.0; bins]], |(_, c)| c)
}

/// k-means with `k` models: the bits of the sample under the last models, and their costs.
fn kmeans(subs: &[Counts], bins: usize, symbols: usize, k: usize) -> (f64, Vec<Vec<f32>>) {
    // A spread first assignment: sub-block i to model (i * a prime) mod k.
    let mut assign: Vec<usize> = (0..subs.len()).map(|i| (i * 7919) % k).collect();
    let mut costs_k = Vec::new();
    let mut total = 0.0;
    for round in 0..=ROUNDS {
        let mut counts = vec![vec![0u64; bins]; k];
        for (s, &m) in subs.iter().zip(&assign) {
            for &(b, n) in s {
                counts[m][b as usize] += n as u64;
            }
        }
        costs_k = counts.iter().map(|c| costs(c, symbols)).collect();
        let c = &costs_k;
        let chooser = Chooser::new(c);
        if round == ROUNDS || k == 1 {
            total = crate::par::map_items(subs, |s| bits(s, &c[chooser.best(s)]) as f64)
                .iter()
                .sum();
            break;
        }
        assign = crate::par::map_items(subs, |s| chooser.best(s));
    }
    (total, costs_k)
}

/// Every item's counts (`gather` of it, given a scratch array of `bins` zeros) added to those
/// of the model of `models` that codes it in the fewest bits: the counts of each model, the
/// items split over the cores.
fn counts_by_model<T: Sync>(
    items: &[T],
    bins: usize,
    models: &[Vec<f32>],
    gather: impl Fn(&T, &mut [u32]) -> Counts + Sync,
) -> Vec<Vec<u64>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parts: Vec<&[T]> = items.chunks(items.len().div_ceil(threads).max(1)).collect();
    let chooser = Chooser::new(models);
    let each = crate::par::map_items(&parts, |part| {
        let mut scratch = vec![0u32; bins];
        let mut counts = vec![vec![0u64; bins]; models.len()];
        for item in part.iter() {
            let g = gather(item, &mut scratch);
            let m = chooser.best(&g);
            for (b, n) in g {
                counts[m][b as usize] += n as u64;
            }
        }
        counts
    });
    let mut total = vec![vec![0u64; bins]; models.len()];
    for counts in each {
        for (t, c) in total.iter_mut().zip(counts) {
            t.iter_mut().zip(c).for_each(|(t, c)| *t += c);
        }
    }
    total
}

/// Which sub-blocks to sample among `n`: every `step`-th.
fn sample_step(n: usize) -> usize {
    n.div_ceil(SAMPLE).max(1)
}

/// A mixture fitted to `items` (the sub-blocks that need a stream; `gather` gives an item's
/// counts with a scratch array of `bins` zeros): the items sampled, sorted into kinds
/// (`cluster`, `model_bytes` bytes a model), then every item given to its best model: the
/// counts of each model.
pub fn fit<T: Sync>(
    items: &[T],
    bins: usize,
    symbols: usize,
    model_bytes: usize,
    gather: impl Fn(&T, &mut [u32]) -> Counts + Sync,
) -> Vec<Vec<u64>> {
    let mut scratch = vec![0u32; bins];
    let sample: Vec<Counts> = items
        .iter()
        .step_by(sample_step(items.len()))
        .map(|x| gather(x, &mut scratch))
        .collect();
    let kinds = cluster(&sample, bins, symbols, model_bytes, items.len());
    counts_by_model(items, bins, &kinds, gather)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_kinds_of_sub_blocks_get_two_models_or_more() {
        // Half the sub-blocks mostly symbol 0, half mostly symbol 1, one context.
        let subs: Vec<Counts> = (0..200)
            .map(|i| {
                if i % 2 == 0 {
                    vec![(0, 500), (1, 12)]
                } else {
                    vec![(0, 12), (1, 500)]
                }
            })
            .collect();
        let c = cluster(&subs, 2, 2, 8, 200_000);
        assert!(c.len() >= 2);
        let a = best(&subs[0], &c);
        let b = best(&subs[1], &c);
        assert_ne!(a, b);
        // One kind alone: one model.
        let same: Vec<Counts> = (0..200).map(|_| vec![(0, 500), (1, 12)]).collect();
        assert_eq!(cluster(&same, 2, 2, 8, 200_000).len(), 1);
    }

    #[test]
    fn the_chooser_picks_as_best_does() {
        let mut x = 7u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for models in [1usize, 2, 3, 17, 64] {
            let bins = 40;
            let costs: Vec<Vec<f32>> = (0..models)
                .map(|_| (0..bins).map(|_| (rnd() % 1000) as f32 / 97.0).collect())
                .collect();
            let chooser = Chooser::new(&costs);
            for _ in 0..300 {
                let mut s: Counts = Vec::new();
                for b in 0..bins as u32 {
                    if rnd() % 3 == 0 {
                        s.push((b, (rnd() % 50) as u32 + 1));
                    }
                }
                assert_eq!(chooser.best(&s), best(&s, &costs));
            }
        }
    }

    #[test]
    fn gather_counts_and_leaves_the_scratch_clear() {
        let mut scratch = vec![0u32; 10];
        let mut g = gather([3u32, 1, 3, 3, 9].into_iter(), &mut scratch);
        g.sort();
        assert_eq!(g, vec![(1, 1), (3, 3), (9, 1)]);
        assert!(scratch.iter().all(|&x| x == 0));
    }
}
