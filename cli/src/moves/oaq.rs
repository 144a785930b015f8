//! `retro moves oaq`.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::oaq::{game, position, state_json};
use crate::output;

/// `retro moves oaq`.
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
    let mut list = Vec::new();
    g.moves(&p, &mut list);
    if list.is_empty() {
        println!("No legal moves.");
    }
    for (m, t) in &list {
        println!(
            "  {:<4} captures {:>3}{}  -> {}",
            g.format_move(m),
            t.captured,
            if t.refilled {
                " (after refilling, -5)"
            } else {
                ""
            },
            g.format_position(&t.position)
        );
    }
    Ok(())
}
