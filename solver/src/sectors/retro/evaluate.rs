//! A position's moves evaluated before the frontier passes: those leaving the unit looked up in
//! their tables (through a cache of the children's own-stone classes), those inside it counted.

use super::*;

/// Per-thread buffers of [`evaluate`].
#[derive(Default)]
pub(super) struct EvalScratch {
    /// Moves of one position.
    pub(super) children: Children,
    /// Moves of one position inside the unit, as (part, slot).
    pub(super) inside: Vec<(usize, u64)>,
    pub(super) cache: ClassCache,
}

/// What the moves of a position say before the frontier passes.
pub(super) struct Eval {
    /// The value code if already known, else `DRAW` (unknown).
    pub(super) code: u16,
    /// Distinct moves inside the unit, plus one if a move out of it draws.
    pub(super) count: usize,
    /// The longest loss among moves out of the unit (plies, counted from this position).
    pub(super) loss_max: u16,
    /// The quickest win among moves into dependencies that keep their values (plies), or
    /// `u16::MAX`.
    pub(super) best_kept: u16,
    /// No move lets the same side move again or forces plies (or the position is decided in
    /// at most one ply, which is never searched either way).
    pub(super) eligible: bool,
}

/// Generates a position's moves, looks up those leaving the unit, and collects those inside it
/// (as (part, slot) pairs, deduplicated) into `inside`.
#[inline]
pub(super) fn evaluate<R: SectorRules>(
    parts: &[Part],
    deps: &[Dep],
    kept: &[bool],
    f: &Folded,
    rules: &R,
    scratch: &mut EvalScratch,
    count_plain: bool,
) -> Result<Eval, ProbeError> {
    let EvalScratch {
        children,
        inside,
        cache,
    } = scratch;
    rules.children_counting(f, children, count_plain);
    inside.clear();
    if children.wins_now {
        return Ok(Eval {
            code: win(1),
            count: 0,
            loss_max: 0,
            best_kept: 1,
            eligible: true,
        });
    }
    if children.list.is_empty()
        && children.plain == 0
        && children.again.is_empty()
        && children.forced.is_empty()
    {
        // No legal move: the side to move loses.
        return Ok(Eval {
            code: loss(0),
            count: 0,
            loss_max: 0,
            best_kept: u16::MAX,
            eligible: true,
        });
    }
    // The children's values are folded in without branching on them (they are unpredictable),
    // so that the processor can look up the next children while a value is still on its way.
    let mut best_win = u16::MAX;
    let mut best_kept = u16::MAX;
    let mut draw_out = false;
    let mut loss_max: u16 = 0;
    // Two moves can only lead to the same position up to symmetry through a symmetry that fixes
    // the opponent's stones (they are the child's own stones, untouched by the move). When none
    // does, moves inside the unit are counted without computing their slots.
    let mut plain_inside = children.plain;
    let mut asymmetric: Option<bool> = None;
    for c in children.list.iter() {
        let ctx = cache.get(parts, deps, f.opp, c.own, c.packed_key())?;
        let (code, i) = match ctx.target {
            Target::Part(u) => {
                let asym = *asymmetric.get_or_insert(ctx.class.stab == 1);
                if asym {
                    plain_inside += 1;
                } else {
                    inside.push((u, parts[u].idx.index_in(&ctx.class, c.opp)));
                }
                continue;
            }
            Target::Dep(i) => (dep_code(deps, i, &ctx.class, c)?, i),
            Target::Missing => unreachable!("`get` reports sectors without a table"),
        };
        // Draw 0, loss 1, win 2 (wasted slots were rejected above).
        let kind = code >> 14;
        let plies = (code & MAX_DISTANCE) + 1;
        best_win = best_win.min(if kind == 1 { plies } else { u16::MAX });
        let keeps = kept.get(i).copied().unwrap_or(false);
        best_kept = best_kept.min(if kind == 1 && keeps { plies } else { u16::MAX });
        loss_max = loss_max.max(if kind == 2 { plies } else { 0 });
        draw_out |= kind == 0;
        if code == loss(0) {
            break;
        }
    }
    // Moves after which the same side moves again lead out of the unit (a stone fewer for the
    // opponent): the child's value is the mover's own, a ply later.
    for c in children.again.iter() {
        let ctx = cache.get(parts, deps, c.own, c.own, c.packed_key())?;
        let Target::Dep(i) = ctx.target else {
            unreachable!("a removal leaves the unit");
        };
        let code = dep_code(deps, i, &ctx.class, c)?;
        let kind = code >> 14;
        let plies = (code & MAX_DISTANCE) + 1;
        best_win = best_win.min(if kind == 2 { plies } else { u16::MAX });
        loss_max = loss_max.max(if kind == 1 { plies } else { 0 });
        draw_out |= kind == 0;
    }
    // Moves followed by forced removals (a full board when placing ends): their trees' leaves
    // lie out of the unit.
    for &root in &children.forced.roots {
        let v = children.forced.edge_value(root, &mut |c: &Folded| {
            let ctx = cache.get(parts, deps, c.own, c.own, c.packed_key())?;
            let Target::Dep(i) = ctx.target else {
                unreachable!("forced removals leave the unit");
            };
            let code = dep_code(deps, i, &ctx.class, c)?;
            Value::decode(code).ok_or(ProbeError::NoValue {
                sector: c.key(),
                slot: 0,
            })
        })?;
        match v {
            Value::Win(d) => best_win = best_win.min(d),
            Value::Loss(d) => loss_max = loss_max.max(d),
            Value::Draw => draw_out = true,
        }
    }
    let eligible = children.again.is_empty() && children.forced.is_empty();
    if best_win != u16::MAX && best_win > MAX_STORED_DISTANCE {
        return Err(too_long(best_win));
    }
    if best_win != u16::MAX {
        // A win never needs its counter: it cannot become a loss.
        return Ok(Eval {
            code: win(best_win),
            count: 0,
            loss_max: 0,
            best_kept,
            eligible,
        });
    }
    if loss_max > MAX_STORED_DISTANCE {
        return Err(too_long(loss_max));
    }
    inside.sort_unstable();
    inside.dedup();
    let count = inside.len() + plain_inside + draw_out as usize;
    let code = if count == 0 { loss(loss_max) } else { DRAW };
    Ok(Eval {
        code,
        count,
        loss_max,
        best_kept,
        eligible,
    })
}

/// The code of child `c` in dependency `i`, whose own-stone class is `class`; an error for a
/// slot that holds no position.
#[inline(always)]
pub(super) fn dep_code(
    deps: &[Dep],
    i: usize,
    class: &OwnClass,
    c: &Folded,
) -> Result<u16, ProbeError> {
    let t = &deps[i].1;
    let slot = t.1.index_in(class, c.opp);
    let code = t.0.code(slot)?;
    if code == WASTED {
        return Err(ProbeError::NoValue {
            sector: c.key(),
            slot,
        });
    }
    Ok(code)
}

/// The error of a distance the table format cannot store.
pub(super) fn too_long(plies: u16) -> ProbeError {
    ProbeError::TooLong { plies }
}

/// Where a child's value lives: a part of the unit or an opened dependency.
#[derive(Clone, Copy)]
pub(super) enum Target {
    Part(usize),
    Dep(usize),
    /// No table was opened for the sector.
    Missing,
}

/// A child sector and own-stone set with what its slots need ([`OwnClass`]).
#[derive(Clone, Copy)]
pub(super) struct CachedClass {
    pub(super) own: Bits,
    pub(super) key: u32,
    pub(super) target: Target,
    pub(super) class: OwnClass,
}

/// The own classes of recent children. A child's own stones are the parent's opponent stones,
/// minus any removed: the cache is indexed by the lowest removed point (two ways each), so the
/// children of one position, and of all the positions sharing its opponent stones, hit.
pub(super) struct ClassCache(Vec<[CachedClass; 2]>);

impl Default for ClassCache {
    fn default() -> Self {
        let empty = CachedClass {
            own: 0,
            // No sector has this key (it would have 255 stones a side).
            key: u32::MAX,
            target: Target::Dep(0),
            class: OwnClass {
                base: 0,
                free: 0,
                g: 0,
                stab: 1,
            },
        };
        ClassCache(vec![[empty; 2]; 33])
    }
}

impl ClassCache {
    /// The class of a child with stones `own` in the sector of packed key `key`, whose parent's
    /// opponent has `parent_opp`; an error if no table was opened for that sector.
    #[inline]
    pub(super) fn get(
        &mut self,
        parts: &[Part],
        deps: &[Dep],
        parent_opp: Bits,
        own: Bits,
        key: u32,
    ) -> Result<&CachedClass, ProbeError> {
        let c = self.lookup(parts, deps, parent_opp, own, key);
        if let Target::Missing = c.target {
            return Err(missing(key));
        }
        Ok(c)
    }

    /// [`ClassCache::get`], with [`Target::Missing`] for a sector without a table.
    #[inline]
    pub(super) fn lookup(
        &mut self,
        parts: &[Part],
        deps: &[Dep],
        parent_opp: Bits,
        own: Bits,
        key: u32,
    ) -> &CachedClass {
        let removed = parent_opp ^ own;
        let h = if removed == 0 {
            0
        } else {
            1 + removed.trailing_zeros() as usize
        };
        let ways = &self.0[h];
        if ways[0].own == own && ways[0].key == key {
            return &self.0[h][0];
        }
        if ways[1].own == own && ways[1].key == key {
            return &self.0[h][1];
        }
        self.fill(parts, deps, h, own, key)
    }

    #[cold]
    #[inline(never)]
    fn fill(
        &mut self,
        parts: &[Part],
        deps: &[Dep],
        h: usize,
        own: Bits,
        key: u32,
    ) -> &CachedClass {
        let (target, class) = if let Some(u) = find_packed(parts, key) {
            (Target::Part(u), parts[u].idx.own_class(own))
        } else if let Some(i) = deps.iter().position(|d| d.0 == key) {
            (Target::Dep(i), deps[i].1 .1.own_class(own))
        } else {
            let none = OwnClass {
                base: 0,
                free: 0,
                g: 0,
                stab: 1,
            };
            (Target::Missing, none)
        };
        let ways = &mut self.0[h];
        ways[1] = ways[0];
        ways[0] = CachedClass {
            own,
            key,
            target,
            class,
        };
        &ways[0]
    }
}

/// The error for a move into a sector whose table was not opened.
#[cold]
pub(super) fn missing(key: u32) -> ProbeError {
    ProbeError::NotOpened {
        sector: SectorKey::unpacked(key),
    }
}
