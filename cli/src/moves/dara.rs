//! `retro moves dara`.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::dara::{game, position, sorted_moves, state_json};
use crate::output;

/// `retro moves dara`.
pub fn moves(
    rules: &RuleArgs,
    fen: Option<&str>,
    as_json: bool,
    batch: Option<&str>,
) -> Result<(), CliError> {
    let g = game(rules)?;
    if let Some(path) = batch {
        return output::batch(path, |i, line| match g.parse_position(line) {
            Ok(p) => state_json(&g, &p),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let p = position(&g, fen)?;
    if as_json {
        println!("{}", state_json(&g, &p));
        return Ok(());
    }
    print!("{}", g.diagram(&p));
    println!("Position: {}", g.format_position(&p));
    let list: Vec<String> = sorted_moves(&g, &p).into_iter().map(|(m, _)| m).collect();
    if list.is_empty() {
        println!("No legal moves.");
    } else {
        println!("{} legal moves:", list.len());
        for chunk in list.chunks(10) {
            println!("  {}", chunk.join(" "));
        }
    }
    Ok(())
}
