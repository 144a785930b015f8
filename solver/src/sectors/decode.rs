//! A compressed table decoded whole, in parallel, into its raw table's value codes.

use rayon::prelude::*;
use retro_tables::compressed_table::{BlockScratch, CompressedTable};
use retro_tables::TableError;

/// Every block of compressed table `c` decoded, the codes put back in slot order (the files may
/// store them in another): a searched win is `Win(0)`, a wasted slot whatever its block gives.
pub fn slot_codes(c: &CompressedTable) -> Result<Vec<u16>, TableError> {
    let per = c.block_slots();
    let mut codes = vec![0u16; c.header.slots as usize];
    let map = c.slot_map();
    let group = 1024;
    for first in (0..c.blocks()).step_by(group) {
        let decoded: Vec<Vec<u16>> = (first..(first + group as u64).min(c.blocks()))
            .into_par_iter()
            .map_init(BlockScratch::default, |scratch, b| {
                let mut out = Vec::new();
                c.block_codes_into(b, &mut out, scratch).map(|()| out)
            })
            .collect::<Result<_, TableError>>()?;
        for (j, block) in decoded.into_iter().enumerate() {
            let lo = (first + j as u64) * per;
            for (code, slot) in block.into_iter().zip(map.from(lo)) {
                codes[slot as usize] = code;
            }
        }
    }
    Ok(codes)
}
