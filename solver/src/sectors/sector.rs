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
