//! Mill un-moves: the parents of a solver position by the moves that stay inside its unit.

use crate::sectors::folded::Folded;
use retro_engine::mill::{Bits, Mill};

/// The parents of a position by non-capturing moves inside its unit (un-slides, un-flies).
pub fn unmoves(game: &Mill, child: &Folded, out: &mut Vec<Folded>) {
    let prof = &game.profile;
    let geo = game.geo;
    let mover = child.opp;
    let mover_hand = child.opp_hand;
    if mover_hand > 0 && !prof.move_in_placing {
        return;
    }
    if crate::mill::sectors::placing_ended(prof, child.key()) {
        // Where placing ends under mill counts, nobody slides: the side to act removes (and a
        // parent there has the child's material).
        return;
    }
    let fly = prof.flying && mover_hand == 0 && mover.count_ones() <= prof.fly_at as u32;
    let empty = geo.all & !(child.own | child.opp);
    let victim_has_stones = child.own != 0;
    let mut set = mover;
    while set != 0 {
        let to = set.trailing_zeros() as usize;
        set &= set - 1;
        let closes = geo.mills_through[to]
            .iter()
            .any(|&m| m != 0 && mover & m == m);
        if closes && victim_has_stones {
            continue;
        }
        let mut froms: Bits = if fly { empty } else { geo.adjacent[to] & empty };
        while froms != 0 {
            let from = froms.trailing_zeros();
            froms &= froms - 1;
            out.push(Folded {
                own: mover ^ (1 << to) ^ (1 << from),
                opp: child.own,
                own_hand: mover_hand,
                opp_hand: child.own_hand,
            });
        }
    }
}
