//! The rule profile of the Mill family: one struct with every knob, and the named presets.

use super::geometry::Board;

/// What a mill closed by a *placement* does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MillAction {
    /// Remove an opponent stone from the board (the standard rule).
    RemoveFromBoard,
    /// Take a stone from the opponent's hand and pass the turn (board if the hand is empty).
    RemoveFromHand,
    /// The removed stone leaves a marked point that nobody may place on until placing ends.
    MarkAndDelay,
    /// No removal while placing; when placing ends both sides remove according to mill counts.
    MillCounts,
}

impl MillAction {
    /// The removals White and Black owe when placing ends under `mill-counts`, from their
    /// complete mills: a positive count removes the opponent's stones, `-1` one of its own.
    /// Neither has a mill: each removes one of its own; only one has: it removes 2 and the other
    /// 1; as many each: that many each; otherwise the side with fewer (`s`) removes `s` and the
    /// other `s + 1`. White acts first.
    pub const fn mill_count_removals(white_mills: u32, black_mills: u32) -> [i8; 2] {
        let (w, b) = (white_mills as i8, black_mills as i8);
        match (w, b) {
            (0, 0) => [-1, -1],
            (_, 0) => [2, 1],
            (0, _) => [1, 2],
            _ if w == b => [w, b],
            _ if w > b => [b + 1, b],
            _ => [w, w + 1],
        }
    }
}

/// What happens when the board is full at the end of placing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardFull {
    /// The first player (White) loses.
    FirstPlayerLoses,
    /// White removes a stone, then Black, then play goes on.
    FirstThenSecondRemove,
    /// Black removes a stone, then White, then play goes on.
    SecondThenFirstRemove,
    /// The game is drawn (Malom's Morabaraba).
    Draw,
}

impl BoardFull {
    /// Whether both sides remove a stone (and play goes on).
    pub const fn removes(self) -> bool {
        matches!(
            self,
            BoardFull::FirstThenSecondRemove | BoardFull::SecondThenFirstRemove
        )
    }
}

/// What happens to a side that has no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stalemate {
    /// It loses.
    Loss,
    /// It removes an opponent stone next to one of its own, then moves.
    RemoveAndMove,
}

/// Every rule of a Mill game. A named variant is a preset of this struct.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    /// The board.
    pub board: Board,
    /// Stones per side.
    pub stones: u8,
    /// Whether a side may fly.
    pub flying: bool,
    /// A side with no stones in hand and at most this many on the board flies.
    pub fly_at: u8,
    /// A side with fewer stones than this (board plus hand) loses.
    pub min_stones: u8,
    /// What a mill closed by a placement does.
    pub mill_action: MillAction,
    /// Stones in mills may always be removed (no protection).
    pub remove_from_mills: bool,
    /// Closing several mills at once removes that many stones.
    pub remove_per_mill: bool,
    /// The same mill scores only once per side (the reference app's formed-mills mask).
    pub one_time_mills: bool,
    /// What a full board at the end of placing does.
    pub board_full: BoardFull,
    /// What a side with no legal move suffers.
    pub stalemate: Stalemate,
    /// Black moves first in the moving phase.
    pub defender_first: bool,
    /// A side may move a stone instead of placing one.
    pub move_in_placing: bool,
    /// Plies without a removal before a draw (a play rule, 0 = off); not part of solved values.
    pub n_move_rule: u32,
}

/// A rule preset with its name and a one-line description.
pub struct Preset {
    /// The name used on the command line.
    pub name: &'static str,
    /// What sets it apart.
    pub note: &'static str,
}

/// Every preset, in the order `retro variants` lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "nine-mens-morris",
        note: "the standard game (Gasser 1996, Malom)",
    },
    Preset {
        name: "twelve-mens-morris",
        note: "diagonals; board full after placing: White loses",
    },
    Preset {
        name: "morabaraba",
        note: "closing two mills at once removes two stones",
    },
    Preset {
        name: "morabaraba-malom",
        note: "Malom's Morabaraba: diagonals, 12 stones; board full after placing: a draw",
    },
    Preset {
        name: "lasker-morris",
        note: "10 stones; a side may move instead of placing",
    },
    Preset {
        name: "russian-mill",
        note: "one-time mills: the same mill cannot score twice",
    },
    Preset {
        name: "cheng-san-qi",
        note: "no flying",
    },
    Preset {
        name: "da-san-qi",
        note: "placing mills mark the point; marks leave when placing ends; Black moves first",
    },
    Preset {
        name: "dooz",
        note: "a placing mill takes a stone from the opponent's hand",
    },
    Preset {
        name: "zhi-qi",
        note: "board full: both remove; a blocked side removes a neighbour and moves",
    },
    Preset {
        name: "el-filja",
        note: "no removals while placing; then removals by mill counts",
    },
    Preset {
        name: "experimental",
        note: "board full: Black then White remove; Black moves first",
    },
    Preset {
        name: "six-mens-morris",
        note: "16-point board, 6 stones, no flying (a draw)",
    },
    Preset {
        name: "six-mens-morris-flying",
        note: "16-point board, 6 stones, flying at 3",
    },
];

/// The rule error of every game family (kept here under its old path too).
pub use crate::RuleError;

impl Default for Profile {
    fn default() -> Self {
        Profile::preset("nine-mens-morris").expect("the default preset exists")
    }
}

/// The names of the settable fields, in the order `describe` lists them.
pub const FIELDS: &[&str] = &[
    "board",
    "stones",
    "flying",
    "fly-at",
    "min-stones",
    "mill-action",
    "remove-from-mills",
    "remove-per-mill",
    "one-time-mills",
    "board-full",
    "stalemate",
    "defender-first",
    "move-in-placing",
    "n-move-rule",
];

impl Profile {
    /// Whether a position with this material (stones on the board and in hand of the side to
    /// act, then of the other) is where placing ends under `mill-counts`: every stone placed,
    /// none removed (mills remove nothing while placing); White then owes the removals its
    /// mill count gives. Nothing else has that material: the removals come before any move.
    pub fn mill_counts_due(&self, own: u8, opp: u8, own_hand: u8, opp_hand: u8) -> bool {
        self.mill_action == MillAction::MillCounts
            && own_hand == 0
            && opp_hand == 0
            && own == self.stones
            && opp == self.stones
    }

    /// The preset of the given name.
    pub fn preset(name: &str) -> Result<Profile, RuleError> {
        let base = Profile {
            board: Board::Morris24,
            stones: 9,
            flying: true,
            fly_at: 3,
            min_stones: 3,
            mill_action: MillAction::RemoveFromBoard,
            remove_from_mills: false,
            remove_per_mill: false,
            one_time_mills: false,
            board_full: BoardFull::FirstPlayerLoses,
            stalemate: Stalemate::Loss,
            defender_first: false,
            move_in_placing: false,
            n_move_rule: 100,
        };
        let twelve = Profile {
            board: Board::Morris24D,
            stones: 12,
            ..base.clone()
        };
        Ok(match name {
            "nine-mens-morris" => base,
            "twelve-mens-morris" => twelve,
            "morabaraba" => Profile {
                remove_per_mill: true,
                ..twelve
            },
            "morabaraba-malom" => Profile {
                board_full: BoardFull::Draw,
                ..twelve
            },
            "lasker-morris" => Profile {
                stones: 10,
                move_in_placing: true,
                ..base
            },
            "russian-mill" => Profile {
                one_time_mills: true,
                ..base
            },
            "cheng-san-qi" => Profile {
                flying: false,
                ..base
            },
            "da-san-qi" => Profile {
                flying: false,
                mill_action: MillAction::MarkAndDelay,
                remove_from_mills: true,
                defender_first: true,
                ..twelve
            },
            "dooz" => Profile {
                mill_action: MillAction::RemoveFromHand,
                ..twelve
            },
            "zhi-qi" => Profile {
                board_full: BoardFull::FirstThenSecondRemove,
                stalemate: Stalemate::RemoveAndMove,
                ..twelve
            },
            "el-filja" => Profile {
                board: Board::Morris24,
                flying: false,
                mill_action: MillAction::MillCounts,
                remove_from_mills: true,
                board_full: BoardFull::FirstThenSecondRemove,
                ..twelve
            },
            "experimental" => Profile {
                flying: false,
                remove_from_mills: true,
                board_full: BoardFull::SecondThenFirstRemove,
                defender_first: true,
                ..twelve
            },
            "six-mens-morris" => Profile {
                board: Board::Morris16,
                stones: 6,
                flying: false,
                ..base
            },
            "six-mens-morris-flying" => Profile {
                board: Board::Morris16,
                stones: 6,
                ..base
            },
            _ => {
                let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
                return Err(RuleError(format!(
                    "unknown variant '{}'; known variants: {}",
                    crate::Excerpt(name, 100),
                    names.join(", ")
                )));
            }
        })
    }

    /// Sets one field from its `name=value` text form, e.g. `flying=false`; refused (the
    /// profile unchanged) when the stones then do not fit on the board.
    pub fn set(&mut self, setting: &str) -> Result<(), RuleError> {
        self.set_all([setting])
    }

    /// Sets several fields, then checks that the stones fit on the board: the order of the
    /// settings does not matter (`board=morris16` then `stones=6`, or the other way round).
    /// On an error the profile is unchanged.
    pub fn set_all<'a>(
        &mut self,
        settings: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), RuleError> {
        let before = self.clone();
        let mut result = settings.into_iter().try_for_each(|s| self.set_field(s));
        if result.is_ok() {
            let points = self.board.geometry().points as u32;
            if 2 * self.stones as u32 > points {
                result = Err(RuleError(format!(
                    "{} stones a side do not fit on {} ({points} points)",
                    self.stones,
                    self.board.name()
                )));
            }
        }
        if result.is_err() {
            *self = before;
        }
        result
    }

    /// Sets one field, without the check that the stones fit.
    fn set_field(&mut self, setting: &str) -> Result<(), RuleError> {
        let (name, value) = setting.split_once('=').ok_or_else(|| {
            RuleError(format!(
                "rule setting '{setting}' is not of the form field=value"
            ))
        })?;
        let name = name.trim().replace('_', "-");
        let value = value.trim();
        let bad = |expected: &str| {
            RuleError(format!(
                "rule field '{name}': expected {expected}, found '{value}'"
            ))
        };
        let boolean = || match value {
            "true" | "on" | "yes" | "1" => Ok(true),
            "false" | "off" | "no" | "0" => Ok(false),
            _ => Err(bad("true or false")),
        };
        let small = |lo: u32, hi: u32| {
            value
                .parse::<u32>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(|| bad(&format!("a number from {lo} to {hi}")))
        };
        match name.as_str() {
            "board" => {
                self.board =
                    Board::from_name(value).ok_or_else(|| bad("morris24, morris24d or morris16"))?
            }
            "stones" => self.stones = small(3, 12)? as u8,
            "flying" => self.flying = boolean()?,
            "fly-at" => self.fly_at = small(3, 12)? as u8,
            "min-stones" => self.min_stones = small(1, 3)? as u8,
            "mill-action" => {
                self.mill_action =
                    match value {
                        "remove-from-board" => MillAction::RemoveFromBoard,
                        "remove-from-hand" => MillAction::RemoveFromHand,
                        "mark-and-delay" => MillAction::MarkAndDelay,
                        "mill-counts" => MillAction::MillCounts,
                        _ => return Err(bad(
                            "remove-from-board, remove-from-hand, mark-and-delay or mill-counts",
                        )),
                    }
            }
            "remove-from-mills" => self.remove_from_mills = boolean()?,
            "remove-per-mill" => self.remove_per_mill = boolean()?,
            "one-time-mills" => self.one_time_mills = boolean()?,
            "board-full" => {
                self.board_full = match value {
                    "first-player-loses" => BoardFull::FirstPlayerLoses,
                    "first-then-second-remove" => BoardFull::FirstThenSecondRemove,
                    "second-then-first-remove" => BoardFull::SecondThenFirstRemove,
                    "draw" => BoardFull::Draw,
                    _ => return Err(bad(
                        "first-player-loses, first-then-second-remove, second-then-first-remove or draw",
                    )),
                }
            }
            "stalemate" => {
                self.stalemate = match value {
                    "loss" => Stalemate::Loss,
                    "remove-and-move" => Stalemate::RemoveAndMove,
                    _ => return Err(bad("loss or remove-and-move")),
                }
            }
            "defender-first" => self.defender_first = boolean()?,
            "move-in-placing" => self.move_in_placing = boolean()?,
            "n-move-rule" => self.n_move_rule = small(0, 10_000)?,
            _ => {
                return Err(RuleError(format!(
                    "unknown rule field '{name}'; fields: {}",
                    FIELDS.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// The value of every field as `(name, value)` pairs, in `FIELDS` order.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let b = |v: bool| if v { "true" } else { "false" }.to_string();
        vec![
            ("board", self.board.name().to_string()),
            ("stones", self.stones.to_string()),
            ("flying", b(self.flying)),
            ("fly-at", self.fly_at.to_string()),
            ("min-stones", self.min_stones.to_string()),
            (
                "mill-action",
                match self.mill_action {
                    MillAction::RemoveFromBoard => "remove-from-board",
                    MillAction::RemoveFromHand => "remove-from-hand",
                    MillAction::MarkAndDelay => "mark-and-delay",
                    MillAction::MillCounts => "mill-counts",
                }
                .to_string(),
            ),
            ("remove-from-mills", b(self.remove_from_mills)),
            ("remove-per-mill", b(self.remove_per_mill)),
            ("one-time-mills", b(self.one_time_mills)),
            (
                "board-full",
                match self.board_full {
                    BoardFull::FirstPlayerLoses => "first-player-loses",
                    BoardFull::FirstThenSecondRemove => "first-then-second-remove",
                    BoardFull::SecondThenFirstRemove => "second-then-first-remove",
                    BoardFull::Draw => "draw",
                }
                .to_string(),
            ),
            (
                "stalemate",
                match self.stalemate {
                    Stalemate::Loss => "loss",
                    Stalemate::RemoveAndMove => "remove-and-move",
                }
                .to_string(),
            ),
            ("defender-first", b(self.defender_first)),
            ("move-in-placing", b(self.move_in_placing)),
            ("n-move-rule", self.n_move_rule.to_string()),
        ]
    }

    /// The full rule fingerprint: every field that changes the game, as one canonical string.
    /// The N-move rule is a play rule and not part of it.
    pub fn fingerprint(&self) -> String {
        self.describe()
            .into_iter()
            .filter(|(k, _)| *k != "n-move-rule")
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_builds_and_describes() {
        for p in PRESETS {
            let prof = Profile::preset(p.name).unwrap();
            assert_eq!(prof.describe().len(), FIELDS.len());
            // Setting every field to its own value is a no-op.
            let mut copy = prof.clone();
            for (k, v) in prof.describe() {
                copy.set(&format!("{k}={v}")).unwrap();
            }
            assert_eq!(copy, prof);
        }
    }

    #[test]
    fn bad_settings_are_errors() {
        let mut p = Profile::default();
        assert!(p.set("flying").is_err());
        assert!(p.set("flying=maybe").is_err());
        assert!(p.set("colour=red").is_err());
        assert!(p.set("stones=99").is_err());
        assert!(p.set("board=hex").is_err());
        assert!(Profile::preset("chess").is_err());
        let mut six = Profile::preset("six-mens-morris").unwrap();
        assert!(six.set("stones=9").is_err());
        p.set("flying=false").unwrap();
        assert!(!p.flying);
        assert_ne!(p.fingerprint(), Profile::default().fingerprint());
    }
}
