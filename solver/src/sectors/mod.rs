//! The generic sector solver: positions indexed by material, retrograde analysis, the driver.

pub mod children;
pub mod db;
pub mod decode;
pub mod derive;
pub mod folded;
pub mod forward;
pub mod index;
pub mod marked_points;
pub mod marks;
pub mod prefetch;
pub mod probe_error;
pub mod resources;
pub mod retro;
pub mod rules;
pub mod saved_marks;
pub mod searched;
pub mod sector;
pub mod solve;
