//! The name of a sector table: the material of its positions, seen from the side to move.

use std::fmt;

/// Material of a sector from the side to move's point of view: stones on the board and in hand
/// for the side to move (`w`, `wf`) and for the opponent (`b`, `bf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SectorKey {
    /// Side to move, on the board.
    pub w: u8,
    /// Opponent, on the board.
    pub b: u8,
    /// Side to move, in hand.
    pub wf: u8,
    /// Opponent, in hand.
    pub bf: u8,
}

impl fmt::Display for SectorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}_{}_{}", self.w, self.b, self.wf, self.bf)
    }
}

impl SectorKey {
    /// The sector the opponent sees (colours swapped).
    pub const fn swapped(self) -> SectorKey {
        SectorKey {
            w: self.b,
            b: self.w,
            wf: self.bf,
            bf: self.wf,
        }
    }

    /// The key packed into one number: `w | b << 8 | wf << 16 | bf << 24`.
    pub const fn packed(self) -> u32 {
        self.w as u32 | (self.b as u32) << 8 | (self.wf as u32) << 16 | (self.bf as u32) << 24
    }

    /// The key [`SectorKey::packed`] packed.
    pub const fn unpacked(p: u32) -> SectorKey {
        SectorKey {
            w: p as u8,
            b: (p >> 8) as u8,
            wf: (p >> 16) as u8,
            bf: (p >> 24) as u8,
        }
    }

    /// Parses `W,B,WF,BF` (or with `_`).
    pub fn parse(s: &str) -> Option<SectorKey> {
        let v: Vec<u8> = s
            .split([',', '_'])
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?;
        match v[..] {
            [w, b, wf, bf] => Some(SectorKey { w, b, wf, bf }),
            _ => None,
        }
    }
}
