//! Per-game setup shared by the commands.

pub mod dara;
pub mod mill;
pub mod oaq;

/// The points a move text names in order (`a1-a4xg7`: a1, a4, g7), which the web page's clicks
/// pick: Mill and Dara write moves alike.
pub fn click_path(text: &str) -> Vec<&str> {
    text.split(['-', 'x']).filter(|s| !s.is_empty()).collect()
}
