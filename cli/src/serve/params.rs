//! A request's query: `fen`, `variant`, `rule` (repeatable), `pv`, `search`, `depth`, `time`,
//! each checked, and refused by name when it is wrong or unknown.

use super::api_error::ApiError;

/// Longest query string a request may carry (bytes, before decoding).
pub const MAX_QUERY: usize = 4096;
/// Longest position text.
pub const MAX_FEN: usize = 512;
/// Most `rule=` settings in one request.
pub const MAX_RULES: usize = 32;

/// The parameters of an analysis request.
#[derive(Debug, Default, Clone)]
pub struct Params {
    /// The position (default: the game's start).
    pub fen: Option<String>,
    /// The Mill preset.
    pub variant: Option<String>,
    /// Rule field overrides, `FIELD=VALUE`.
    pub rule: Vec<String>,
    /// Add a principal variation.
    pub pv: bool,
    /// Mill: answer by search where no table holds the position (instead of 503).
    pub search: bool,
    /// Search depth limit in plies (positions without tables).
    pub depth: Option<u32>,
    /// Search time limit in seconds (positions without tables).
    pub time: Option<f64>,
}

fn flag(name: &str, v: &str) -> Result<bool, ApiError> {
    match v {
        "" | "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ApiError::bad(name, format!("'{v}' is not true or false"))),
    }
}

impl Params {
    /// Reads a query string (`None`: no query).
    pub fn from_query(query: Option<&str>) -> Result<Params, ApiError> {
        let q = query.unwrap_or("");
        if q.len() > MAX_QUERY {
            return Err(ApiError::bad(
                "query",
                format!("longer than {MAX_QUERY} bytes"),
            ));
        }
        let mut p = Params::default();
        let mut seen: Vec<String> = Vec::new();
        for (k, v) in form_urlencoded::parse(q.as_bytes()) {
            let (k, v) = (k.into_owned(), v.into_owned());
            if k != "rule" && k != "rules" {
                if seen.contains(&k) {
                    return Err(ApiError::bad(&k, "given twice"));
                }
                seen.push(k.clone());
            }
            match k.as_str() {
                "fen" => p.fen = Some(v),
                "variant" => p.variant = Some(v),
                "rule" | "rules" => p.rule.push(v),
                "pv" => p.pv = flag(&k, &v)?,
                "search" => p.search = flag(&k, &v)?,
                "depth" => {
                    p.depth = Some(
                        v.parse::<u32>()
                            .ok()
                            .filter(|d| (1..=200).contains(d))
                            .ok_or_else(|| ApiError::bad("depth", "not a number from 1 to 200"))?,
                    )
                }
                "time" => {
                    p.time = Some(
                        v.parse::<f64>()
                            .ok()
                            .filter(|t| *t > 0.0 && t.is_finite())
                            .ok_or_else(|| {
                                ApiError::bad("time", "not a positive number of seconds")
                            })?,
                    )
                }
                other => {
                    return Err(ApiError::bad(
                        other,
                        "unknown parameter (known: fen, variant, rule, pv, search, depth, time)",
                    ))
                }
            }
        }
        p.check()?;
        Ok(p)
    }

    /// The size limits, for queries and batch bodies alike.
    pub fn check(&self) -> Result<(), ApiError> {
        if let Some(f) = &self.fen {
            if f.len() > MAX_FEN {
                return Err(ApiError::bad("fen", format!("longer than {MAX_FEN} bytes")));
            }
        }
        if self.rule.len() > MAX_RULES {
            return Err(ApiError::bad(
                "rule",
                format!("more than {MAX_RULES} settings"),
            ));
        }
        if self.rule.iter().any(|r| r.len() > 128) {
            return Err(ApiError::bad("rule", "a setting longer than 128 bytes"));
        }
        if self.variant.as_ref().is_some_and(|v| v.len() > 64) {
            return Err(ApiError::bad("variant", "longer than 64 bytes"));
        }
        Ok(())
    }

    /// The rules as the CLI takes them.
    pub fn rule_args(&self) -> crate::args::RuleArgs {
        crate::args::RuleArgs {
            variant: self.variant.clone(),
            rules: self.rule.clone(),
        }
    }
}
