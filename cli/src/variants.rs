//! `retro variants`: the Mill rule presets and every field of their profiles.

use crate::error::CliError;
use retro_engine::mill::{Profile, PRESETS};
use serde_json::{json, Value};

/// The presets and every field of their profiles, as `retro variants --json` prints them.
pub fn json() -> Value {
    let list: Vec<Value> = PRESETS
        .iter()
        .map(|p| {
            let prof = Profile::preset(p.name).expect("preset exists");
            let fields: serde_json::Map<String, Value> = prof
                .describe()
                .into_iter()
                .map(|(k, v)| (k.to_string(), json!(v)))
                .collect();
            json!({"name": p.name, "note": p.note, "fields": fields})
        })
        .collect();
    json!({ "variants": list })
}

/// `retro variants`.
pub fn run(as_json: bool) -> Result<(), CliError> {
    if as_json {
        println!("{}", json());
        return Ok(());
    }
    println!("Mill variants (use --variant NAME; override any field with --rule FIELD=VALUE):\n");
    let default = Profile::default();
    for p in PRESETS {
        let prof = Profile::preset(p.name).expect("preset exists");
        println!("{:<24} {}", p.name, p.note);
        let diff: Vec<String> = prof
            .describe()
            .into_iter()
            .zip(default.describe())
            .filter(|(a, b)| a != b || p.name == "nine-mens-morris")
            .map(|((k, v), _)| format!("{k}={v}"))
            .collect();
        if p.name == "nine-mens-morris" {
            println!("{:<24} {}", "", diff.join(" "));
        } else {
            println!("{:<24} {} (else as nine-mens-morris)", "", diff.join(" "));
        }
    }
    Ok(())
}
