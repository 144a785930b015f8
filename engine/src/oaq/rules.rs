//! The Ô Ăn Quan rule knobs: `seeds=K,M`, `big-mandarin=V`, `quan-non=K`.

use crate::RuleError;

/// The rules of an Ô Ăn Quan game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OaqProfile {
    /// Seeds in each citizen cell at the start.
    pub citizen_seeds: u8,
    /// Small seeds in each mandarin cell at the start, when set by `seeds=K,M`; otherwise 10,
    /// or 0 with a big piece (which replaces them). See [`OaqProfile::mandarin_start`].
    pub mandarin_seeds: Option<u8>,
    /// With `Some(v)`, each mandarin cell also holds a big piece worth `v` that is never sown.
    pub big_mandarin: Option<u8>,
    /// A mandarin cell with its big piece and fewer than this many small seeds cannot be
    /// captured (0: no such rule).
    pub quan_non: u8,
}

impl Default for OaqProfile {
    fn default() -> Self {
        OaqProfile {
            citizen_seeds: 5,
            mandarin_seeds: None,
            big_mandarin: None,
            quan_non: 0,
        }
    }
}

/// The settable fields.
pub const FIELDS: &[&str] = &["seeds", "big-mandarin", "quan-non"];

impl OaqProfile {
    /// Sets one field from `name=value` (`seeds=2,2`, `big-mandarin=10` or `off`, `quan-non=5`).
    pub fn set(&mut self, setting: &str) -> Result<(), RuleError> {
        let (name, value) = setting.split_once('=').ok_or_else(|| {
            RuleError(format!(
                "rule setting '{setting}' is not of the form field=value"
            ))
        })?;
        let (name, value) = (name.trim().replace('_', "-"), value.trim());
        let bad = |expected: &str| {
            RuleError(format!(
                "rule field '{name}': expected {expected}, found '{value}'"
            ))
        };
        match name.as_str() {
            "seeds" => {
                let parts: Vec<Option<u8>> =
                    value.split(',').map(|x| x.trim().parse().ok()).collect();
                match parts[..] {
                    [Some(k), Some(m)] if (1..=10).contains(&k) && m <= 20 => {
                        self.citizen_seeds = k;
                        self.mandarin_seeds = Some(m);
                    }
                    _ => return Err(bad("K,M with K from 1 to 10 and M from 0 to 20")),
                }
            }
            "big-mandarin" => {
                self.big_mandarin = match value {
                    "off" | "0" | "none" => None,
                    v => Some(
                        v.parse()
                            .ok()
                            .filter(|v| (1..=50).contains(v))
                            .ok_or_else(|| bad("off (or 0) or a value from 1 to 50"))?,
                    ),
                };
            }
            "quan-non" => {
                self.quan_non = value
                    .parse()
                    .ok()
                    .filter(|v| *v <= 50)
                    .ok_or_else(|| bad("a number from 0 to 50"))?
            }
            _ => {
                return Err(RuleError(format!(
                    "unknown rule field '{name}' for oaq; fields: {}",
                    FIELDS.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Every field as `(name, value)`.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "seeds",
                format!("{},{}", self.citizen_seeds, self.mandarin_start()),
            ),
            (
                "big-mandarin",
                self.big_mandarin
                    .map_or("off".to_string(), |v| v.to_string()),
            ),
            ("quan-non", self.quan_non.to_string()),
        ]
    }

    /// The rule fingerprint (every field, canonical order).
    pub fn fingerprint(&self) -> String {
        self.describe()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Small seeds in the game (on the board or off it).
    pub fn total_seeds(&self) -> u32 {
        10 * self.citizen_seeds as u32 + 2 * self.mandarin_start() as u32
    }

    /// The number of small seeds a position of this game must hold (board and stores), when
    /// `seeds=K,M` fixes it; `None` otherwise (a position text then brings its own total).
    pub fn fixed_total(&self) -> Option<u32> {
        self.mandarin_seeds.map(|_| self.total_seeds())
    }

    /// Small seeds in each mandarin cell at the start: as set by `seeds=K,M`, else 10, or 0
    /// when a big piece takes their place (RULES.md 3.2: "instead").
    pub fn mandarin_start(&self) -> u8 {
        self.mandarin_seeds
            .unwrap_or(if self.big_mandarin.is_some() { 0 } else { 10 })
    }
}
