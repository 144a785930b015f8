//! The one alpha-beta search of the three games ([`alpha_beta`]), over the small [`Searchable`]
//! trait each game's `search` module implements, and its score scale ([`score`]).

pub mod alpha_beta;
pub mod score;

pub use alpha_beta::{Edge, Limits, ScoredMove, SearchResult, Searchable};
