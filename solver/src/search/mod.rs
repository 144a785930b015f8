//! The one alpha-beta search of the three games ([`alpha_beta`]), over the small [`Searchable`]
//! trait each game's `search` module implements, and its score scale ([`score`]); the plies to
//! the next reset of the N-move counter in a won game, and a plan that reaches it ([`progress`]).

pub mod alpha_beta;
pub mod progress;
pub mod score;

pub use alpha_beta::{Edge, Limits, ScoredMove, SearchResult, Searchable};
