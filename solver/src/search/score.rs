//! The score scale of the searches: a won or lost line scores `±(MATE - plies)`, counting plies
//! from the root, and only the end of the game or a table gives such a score; lines cut off by
//! the depth limit score an estimate far from that range (Ô Ăn Quan's seed scores stay there).

use retro_tables::value::Value;

/// Score of a win on the spot; a win in `d` plies scores `MATE - d`.
pub const MATE: i32 = 1_000_000;
/// Scores at least this big (in magnitude) are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 100_000;

/// The score of a table value at `ply` plies from the root.
pub fn score_of(v: Value, ply: u32) -> i32 {
    match v {
        Value::Win(d) => MATE - (ply as i32 + d as i32),
        Value::Loss(d) => -(MATE - (ply as i32 + d as i32)),
        Value::Draw => 0,
    }
}

/// The forced result a score stands for, if it is in the mate range.
pub fn value_of(score: i32) -> Option<Value> {
    if score >= MATE_BOUND {
        Some(Value::Win((MATE - score) as u16))
    } else if score <= -MATE_BOUND {
        Some(Value::Loss((MATE + score) as u16))
    } else {
        None
    }
}

/// The score of a lost position `ply` plies from the root.
pub fn lost_at(ply: u32) -> i32 {
    -(MATE - ply as i32)
}

/// Mate scores are stored relative to the node, so they stay right at any distance from the root.
pub(crate) fn to_node(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`to_node`].
pub(crate) fn from_node(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Estimate for a line cut off by the depth limit, for the side whose stones are `stones[0]`
/// (bitboards; `adjacent` the neighbour sets of the board): material (board and hand), then
/// mobility (steps onto empty neighbouring points).
pub fn material_and_mobility(stones: [u32; 2], hand: [u8; 2], empty: u32, adjacent: &[u32]) -> i32 {
    let mobility = |set: u32| -> i32 {
        let mut n = 0;
        let mut s = set;
        while s != 0 {
            let i = s.trailing_zeros() as usize;
            s &= s - 1;
            n += (adjacent[i] & empty).count_ones() as i32;
        }
        n
    };
    let material = (stones[0].count_ones() as i32 + hand[0] as i32)
        - (stones[1].count_ones() as i32 + hand[1] as i32);
    100 * material + mobility(stones[0]) - mobility(stones[1])
}
