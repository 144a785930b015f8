//! Sectors (positions with the same material, seen from the side to move) and the order in
//! which to solve them: units of a sector and its colour-swapped twin, dependencies first.

use crate::sectors::derive::derivable;
use crate::sectors::rules::SectorRules;
pub use retro_tables::SectorKey;
use std::collections::{BTreeSet, HashMap};

/// A set of sectors solved together: a sector and its colour-swapped twin (moves lead from
/// one to the other), or a single sector.
pub type Unit = Vec<SectorKey>;

/// Every sector needed to solve `targets`, grouped into units in an order where each unit
/// comes after every unit it depends on, chosen to keep few raw tables on disk at once under
/// `--compress` (`order_for_disk`).
pub fn plan<R: SectorRules + ?Sized>(rules: &R, targets: &[SectorKey]) -> Vec<Unit> {
    order_for_disk(rules, components(rules, targets))
}

/// The units of [`plan`] in the order Tarjan's algorithm finds them (each after the units it
/// reads).
fn components<R: SectorRules + ?Sized>(rules: &R, targets: &[SectorKey]) -> Vec<Unit> {
    // Collect the closure.
    let mut seen: BTreeSet<SectorKey> = BTreeSet::new();
    let mut stack: Vec<SectorKey> = targets.to_vec();
    while let Some(k) = stack.pop() {
        if rules.lost(k.w, k.wf) || rules.lost(k.b, k.bf) || !seen.insert(k) {
            continue;
        }
        stack.extend(rules.successors(k));
    }
    // Tarjan's strongly connected components, emitted children first.
    let keys: Vec<SectorKey> = seen.into_iter().collect();
    let id: HashMap<SectorKey, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let edges: Vec<Vec<usize>> = keys
        .iter()
        .map(|k| {
            rules
                .successors(*k)
                .iter()
                .filter_map(|c| id.get(c).copied())
                .collect()
        })
        .collect();
    let n = keys.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut st = Vec::new();
    let mut units = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative DFS: (node, next edge).
        let mut work = vec![(root, 0usize)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        st.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if *e < edges[v].len() {
                let w = edges[v][*e];
                *e += 1;
                if index[w] == usize::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    st.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(u, _)) = work.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut unit = Vec::new();
                    loop {
                        let w = st.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        unit.push(keys[w]);
                        if w == v {
                            break;
                        }
                    }
                    unit.sort();
                    units.push(unit);
                }
            }
        }
    }
    units
}

/// `units` (in an order where each comes after the units it reads) put in another such order
/// that keeps fewer raw tables on disk at once under `retro solve --compress`, where a table
/// is compressed as soon as no unit left to solve reads it: greedily, the next unit is the
/// ready one (every unit it reads solved) after which the raw tables on disk grow least (its
/// own tables, less those it was the last to read), ties going to the earlier in `units`.
/// Sizes are the tables' slots. Compressed tables pile up meanwhile, so the order kept is
/// whichever of that one and `units` has the smaller peak of raw and compressed tables
/// together, by `--dry-run`'s estimate ([`packed`]).
fn order_for_disk<R: SectorRules + ?Sized>(rules: &R, units: Vec<Unit>) -> Vec<Unit> {
    let n = units.len();
    let at: HashMap<SectorKey, usize> = units
        .iter()
        .enumerate()
        .flat_map(|(i, u)| u.iter().map(move |&k| (k, i)))
        .collect();
    // The units each unit reads, and how many units not yet solved read each sector.
    let mut reads: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut readers: HashMap<SectorKey, usize> = HashMap::new();
    let mut read_sectors: Vec<BTreeSet<SectorKey>> = vec![BTreeSet::new(); n];
    for (i, unit) in units.iter().enumerate() {
        for &k in unit {
            for c in rules.successors(k) {
                if let Some(&j) = at.get(&c).filter(|&&j| j != i) {
                    reads[i].insert(j);
                    if read_sectors[i].insert(c) {
                        *readers.entry(c).or_default() += 1;
                    }
                }
            }
        }
    }
    let size = |u: &Unit| u.iter().map(|&k| rules.slots(k)).sum::<u64>() as i128;
    let mut waiting: Vec<usize> = reads.iter().map(BTreeSet::len).collect();
    let mut read_by: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, r) in reads.iter().enumerate() {
        for &j in r {
            read_by[j].push(i);
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let growth = |i: usize| {
            let read_later = units[i]
                .iter()
                .any(|k| readers.get(k).is_some_and(|&r| r > 0));
            let own = if read_later { size(&units[i]) } else { 0 };
            let freed: i128 = read_sectors[i]
                .iter()
                .filter(|c| readers[*c] == 1)
                .map(|&c| rules.slots(c) as i128)
                .sum();
            own - freed
        };
        let next = *ready
            .iter()
            .min_by_key(|&&i| (growth(i), i))
            .expect("not empty");
        ready.remove(&next);
        for c in &read_sectors[next] {
            *readers.get_mut(c).expect("counted") -= 1;
        }
        for &i in &read_by[next] {
            waiting[i] -= 1;
            if waiting[i] == 0 {
                ready.insert(i);
            }
        }
        order.push(next);
    }
    debug_assert_eq!(order.len(), n, "the units read each other in a cycle");
    let greedy: Vec<Unit> = order.into_iter().map(|i| units[i].clone()).collect();
    let peak = |us: &[Unit]| disk_peak(rules, us, |k| rules.slots(k) * 5, |k| packed(rules, k));
    if peak(&greedy) <= peak(&units) {
        greedy
    } else {
        units
    }
}

/// The estimate of a sector's compressed size `--dry-run` uses, in fifths of a slot: a fifth
/// of its raw table (2 bytes a slot) for a sector that keeps its values, nothing for a derived
/// one.
fn packed<R: SectorRules + ?Sized>(rules: &R, k: SectorKey) -> u64 {
    if derivable(rules, k) {
        0
    } else {
        rules.slots(k)
    }
}

/// For each sector that another unit reads, the indices (in `units`, ascending) of the units
/// that read it.
pub fn readers<R: SectorRules + ?Sized>(
    rules: &R,
    units: &[Unit],
) -> HashMap<SectorKey, Vec<usize>> {
    let mut readers: HashMap<SectorKey, Vec<usize>> = HashMap::new();
    for (i, unit) in units.iter().enumerate() {
        for c in unit.iter().flat_map(|&k| rules.successors(k)) {
            let r = readers.entry(c).or_default();
            if !unit.contains(&c) && r.last() != Some(&i) {
                r.push(i);
            }
        }
    }
    readers.retain(|_, r| !r.is_empty());
    readers
}

/// For each sector that another unit reads, the index (in `units`) of the last unit that
/// reads it: after that unit is solved its table is read no more while solving.
pub fn last_uses<R: SectorRules + ?Sized>(rules: &R, units: &[Unit]) -> HashMap<SectorKey, usize> {
    readers(rules, units)
        .into_iter()
        .map(|(k, r)| (k, r[r.len() - 1]))
        .collect()
}

/// The most bytes on disk at once while `units` are solved in order with each table
/// compressed as soon as no later unit reads it (`retro solve --compress`): the raw tables
/// still read by units to come, the unit being written, and the tables compressed so far.
/// `raw_bytes` and `packed_bytes` give a table's raw and compressed sizes (`packed_bytes`
/// returning 0 gives the raw working set alone).
pub fn disk_peak<R: SectorRules + ?Sized>(
    rules: &R,
    units: &[Unit],
    raw_bytes: impl Fn(SectorKey) -> u64,
    packed_bytes: impl Fn(SectorKey) -> u64,
) -> u64 {
    disk_use(rules, units, &raw_bytes, &packed_bytes, &packed_bytes, None).peak
}

/// Where a table stands on disk while a `--compress` solve goes on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The raw table, as solved.
    Raw,
    /// Compressed early, every value kept (`--raw-budget`), no raw copy.
    Early,
    /// Compressed early, with a raw working copy beside it for the units that read it.
    Working,
    /// Its final form (compressed or derived).
    Final,
}

/// The sectors of other units that unit `unit`'s moves lead to.
pub fn reads_of<R: SectorRules + ?Sized>(rules: &R, unit: &[SectorKey]) -> BTreeSet<SectorKey> {
    unit.iter()
        .flat_map(|&k| rules.successors(k))
        .filter(|c| !unit.contains(c))
        .collect()
}

/// Whether a move of unit `unit` leads to one of its own sectors (the unit then has frontier
/// passes: a moving unit, or a placing one where a side may also slide).
pub fn moves_stay_inside<R: SectorRules + ?Sized>(rules: &R, unit: &[SectorKey]) -> bool {
    unit.iter()
        .any(|&k| rules.successors(k).iter().any(|c| unit.contains(c)))
}

/// The tables of other units that unit `unit` reads through raw working copies when they are
/// not raw on disk: none for a unit valued forwards (one with marked points reads through
/// probes), and never a table with marked points (it has no working copy).
pub fn copied_reads<R: SectorRules + ?Sized>(rules: &R, unit: &[SectorKey]) -> BTreeSet<SectorKey> {
    if unit.iter().any(|&k| rules.marked_points(k).is_some()) {
        return BTreeSet::new();
    }
    let mut reads = reads_of(rules, unit);
    reads.retain(|c| rules.marked_points(*c).is_none());
    reads
}

/// The policy of `retro solve --raw-budget`, which the solve follows and [`disk_use`]
/// replays: before unit `i + 1`, which needs `need` bytes of raw tables (its own and working
/// copies of the tables compressed early that it reads), returns the raw tables of units
/// `..= i` still on disk (`raw`; `readers` as [`readers`] gives them) to take off the disk
/// (compressed early, or a working copy removed), those read again last first, until the
/// others and `need` fit in `budget` bytes; never one that unit `i + 1` reads.
pub fn tables_to_evict(
    units: &[Unit],
    readers: &HashMap<SectorKey, Vec<usize>>,
    i: usize,
    budget: u64,
    need: u64,
    raw_bytes: &dyn Fn(SectorKey) -> u64,
    raw: &dyn Fn(&SectorKey) -> bool,
) -> Vec<SectorKey> {
    let next_read = |k: SectorKey| {
        readers
            .get(&k)
            .and_then(|r| r.iter().copied().find(|&j| j > i))
            .unwrap_or(usize::MAX)
    };
    let mut alive: Vec<(usize, SectorKey)> = units[..=i]
        .iter()
        .flatten()
        .filter(|k| raw(k))
        .map(|&k| (next_read(k), k))
        .collect();
    alive.sort();
    let mut kept: u64 = alive.iter().map(|&(_, k)| raw_bytes(k)).sum();
    let mut out = Vec::new();
    while kept + need > budget {
        match alive.pop() {
            Some((j, k)) if j > i + 1 => {
                kept -= raw_bytes(k);
                out.push(k);
            }
            _ => break,
        }
    }
    out
}

/// Disk use of a `--compress` solve of `units` in order: [`disk_use`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskUse {
    /// The most bytes on disk at once.
    pub peak: u64,
    /// Tables compressed early to keep within the raw budget.
    pub early: usize,
}

/// The disk a `--compress` solve of `units` (in order) uses, with `--raw-budget` when
/// `budget` is given, following the solver's own policy (`solve.rs`): before each unit the
/// tables it does not read are compressed early, those read again last first, until the raw
/// tables kept and those the unit needs (its own, and working copies of the early-compressed
/// tables it reads) fit the budget; a working copy is removed once the budget needs its room
/// and its table is not read next; a table gets its final form after its last reader.
/// `packed_bytes` is a table's final size, `kept_bytes` its size compressed with every value
/// (derivable sectors are compressed early that way).
pub fn disk_use<R: SectorRules + ?Sized>(
    rules: &R,
    units: &[Unit],
    raw_bytes: &dyn Fn(SectorKey) -> u64,
    packed_bytes: &dyn Fn(SectorKey) -> u64,
    kept_bytes: &dyn Fn(SectorKey) -> u64,
    budget: Option<u64>,
) -> DiskUse {
    let readers = readers(rules, units);
    // The tables given their final form after each unit: those whose last reader (or own
    // unit) it is.
    let mut retired: Vec<Vec<SectorKey>> = vec![Vec::new(); units.len()];
    for (i, unit) in units.iter().enumerate() {
        for &k in unit {
            let last = readers.get(&k).and_then(|r| r.last()).copied();
            retired[last.map_or(i, |j| j.max(i))].push(k);
        }
    }
    let mut form: HashMap<SectorKey, Form> = HashMap::new();
    let (mut disk, mut peak, mut early) = (0u64, 0u64, 0usize);
    for (i, unit) in units.iter().enumerate() {
        // Working copies of the tables compressed early that this unit reads.
        for c in copied_reads(rules, unit) {
            if let Some(f @ Form::Early) = form.get_mut(&c) {
                *f = Form::Working;
                disk += raw_bytes(c);
            }
        }
        disk += unit.iter().map(|&k| raw_bytes(k)).sum::<u64>();
        peak = peak.max(disk);
        for &k in unit {
            form.insert(k, Form::Raw);
        }
        for &k in &retired[i] {
            let f = form
                .insert(k, Form::Final)
                .expect("solved before it is retired");
            disk += packed_bytes(k);
            disk -= match f {
                Form::Raw => raw_bytes(k),
                Form::Working => raw_bytes(k) + kept_bytes(k),
                Form::Early => kept_bytes(k),
                Form::Final => unreachable!("each table is given its final form once"),
            };
        }
        let (Some(budget), Some(next)) = (budget, units.get(i + 1)) else {
            continue;
        };
        let need: u64 = next.iter().map(|&k| raw_bytes(k)).sum::<u64>()
            + reads_of(rules, next)
                .iter()
                .filter(|c| form.get(c) == Some(&Form::Early))
                .map(|&c| raw_bytes(c))
                .sum::<u64>();
        let raw = |k: &SectorKey| matches!(form.get(k), Some(Form::Raw | Form::Working));
        for k in tables_to_evict(units, &readers, i, budget, need, raw_bytes, &raw) {
            let f = form.insert(k, Form::Early).expect("alive");
            disk -= raw_bytes(k);
            if f == Form::Raw {
                disk += kept_bytes(k);
                early += 1;
            }
        }
    }
    DiskUse { peak, early }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mill::rules::MillRules;
    use crate::mill::sectors::start_sector;
    use crate::sectors::index::BoardIndex;
    use retro_engine::mill::{Mill, Profile};

    #[test]
    fn disk_peak_holds_each_table_once() {
        for name in [
            "six-mens-morris",
            "nine-mens-morris",
            "lasker-morris",
            "morabaraba-malom",
        ] {
            let m = Mill::new(Profile::preset(name).unwrap());
            let start = start_sector(&m.profile);
            let rules = MillRules::new(m);
            let units = plan(&rules, &[start]);
            let size = |k: SectorKey| {
                BoardIndex::new(rules.shape(), k.w as usize, k.b as usize).size() * 2
            };
            let total: u64 = units.iter().flatten().map(|&k| size(k)).sum();
            let largest = units
                .iter()
                .map(|u| u.iter().map(|&k| size(k)).sum::<u64>())
                .max()
                .unwrap();
            // Nothing compressed: every table stays, the peak is all of them.
            assert_eq!(disk_peak(&rules, &units, size, size), total, "{name}");
            let raw = disk_peak(&rules, &units, size, |_| 0);
            assert!(
                raw >= largest && raw < total / 2,
                "{name}: {raw} of {total}"
            );
            // Compressed tables count, but never more than the raw ones they replace.
            let packed = disk_peak(&rules, &units, size, |k| size(k) / 5);
            assert!(raw < packed && packed < total, "{name}: {packed}");
            // The order needs no more disk at its peak than the order the components were
            // found in (raw and compressed tables, by `--dry-run`'s estimate).
            let found = components(&rules, &[start]);
            assert_eq!(found.len(), units.len());
            let estimate = |us: &[Unit]| {
                disk_peak(
                    &rules,
                    us,
                    |k| rules.slots(k) * 5,
                    |k| super::packed(&rules, k),
                )
            };
            assert!(estimate(&units) <= estimate(&found), "{name}");
            // Under a raw budget: none needed changes nothing; a small one compresses tables
            // early and lowers the peak (compressed tables a fifth of raw ones).
            let fifth = |k: SectorKey| size(k) / 5;
            let free = disk_use(&rules, &units, &size, &fifth, &fifth, Some(u64::MAX));
            assert_eq!(
                free,
                DiskUse {
                    peak: packed,
                    early: 0
                },
                "{name}"
            );
            let tight = disk_use(&rules, &units, &size, &fifth, &fifth, Some(largest));
            assert!(
                tight.early > 0 && tight.peak < packed && tight.peak >= largest,
                "{name}: {tight:?} against {packed}"
            );
            // A table read by a later unit is still raw when that unit is solved.
            let last = last_uses(&rules, &units);
            for (k, &j) in &last {
                let own = units.iter().position(|u| u.contains(k)).unwrap();
                assert!(
                    own < j,
                    "{name}: {k} read by unit {j}, solved in unit {own}"
                );
            }
        }
    }
}
