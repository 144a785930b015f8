//! `retro moves mill`.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::mill::{game, position, state_json};
use crate::output;

/// `retro moves mill`.
pub fn moves(
    rules: &RuleArgs,
    fen: Option<&str>,
    split: bool,
    as_json: bool,
    batch: Option<&str>,
) -> Result<(), CliError> {
    let m = game(rules)?;
    if let Some(path) = batch {
        return output::batch(path, |i, line| match m.parse_fen(line) {
            Ok(p) => state_json(&m, &p, split),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let p = position(&m, fen)?;
    if as_json {
        println!("{}", state_json(&m, &p, split));
        return Ok(());
    }
    print!("{}", m.diagram(&p));
    println!("FEN: {}", m.format_fen(&p));
    let list: Vec<String> = m.children(&p, split).into_iter().map(|(s, _)| s).collect();
    if list.is_empty() {
        println!("No legal moves.");
    } else {
        println!(
            "{} legal moves ({} form):",
            list.len(),
            if split { "split" } else { "compound" }
        );
        for chunk in list.chunks(10) {
            println!("  {}", chunk.join(" "));
        }
    }
    Ok(())
}
