//! Ô Ăn Quan in the solver: the dense index, canonical (mirror-reduced) slots, the two score
//! solvers (`solve`, the reference; `big`, what `retro solve oaq` runs), their checkpoints, the
//! compact table writer, probing a table by position, and the search.

pub mod big;
pub mod big_checkpoint;
pub mod canon;
pub mod checkpoint;
pub mod compact;
pub mod huge;
pub mod index;
pub mod ranked_bits;
pub mod reach;
pub mod search;
pub mod solve;
pub mod table;
pub mod values;
