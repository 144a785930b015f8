//! Sectors (positions with the same material, seen from the side to move) and the order in
//! which to solve them: units of a sector and its colour-swapped twin, dependencies first.

use crate::sectors::rules::SectorRules;
pub use retro_tables::SectorKey;
use std::collections::{BTreeSet, HashMap};

/// A set of sectors solved together: a sector and its colour-swapped twin (moves lead from
/// one to the other), or a single sector.
pub type Unit = Vec<SectorKey>;

/// Every sector needed to solve `targets`, grouped into units in an order where each unit
/// comes after every unit it depends on.
pub fn plan<R: SectorRules + ?Sized>(rules: &R, targets: &[SectorKey]) -> Vec<Unit> {
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

/// For each sector that another unit reads, the index (in `units`) of the last unit that
/// reads it: after that unit is solved its table is read no more while solving.
pub fn last_uses<R: SectorRules + ?Sized>(rules: &R, units: &[Unit]) -> HashMap<SectorKey, usize> {
    let mut last = HashMap::new();
    for (i, unit) in units.iter().enumerate() {
        for &k in unit {
            for c in rules.successors(k) {
                if !unit.contains(&c) {
                    last.insert(c, i);
                }
            }
        }
    }
    last
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
    let last = last_uses(rules, units);
    // The tables compressed after each unit: those whose last reader (or own unit) it is.
    let mut retired: Vec<Vec<SectorKey>> = vec![Vec::new(); units.len()];
    for (i, unit) in units.iter().enumerate() {
        for &k in unit {
            retired[last.get(&k).map_or(i, |&j| j.max(i))].push(k);
        }
    }
    let (mut disk, mut peak) = (0u64, 0u64);
    for (i, unit) in units.iter().enumerate() {
        disk += unit.iter().map(|&k| raw_bytes(k)).sum::<u64>();
        peak = peak.max(disk);
        for &k in &retired[i] {
            disk = disk - raw_bytes(k) + packed_bytes(k);
        }
    }
    peak
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
        for name in ["six-mens-morris", "nine-mens-morris", "lasker-morris"] {
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
