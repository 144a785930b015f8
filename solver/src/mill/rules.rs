//! Mill for the sector solver: the engine's rules behind the [`SectorRules`] interface.

use crate::mill::gen::Gen;
use crate::sectors::children::Children;
use crate::sectors::folded::Folded;
use crate::sectors::index::Shape;
use crate::sectors::rules::SectorRules;
use retro_engine::mill::{Mill, MillAction};
use retro_tables::{SectorKey, GAME_MILL};

/// Mill rules for the solver.
pub struct MillRules {
    /// The game.
    pub game: Mill,
    gen: Gen,
    /// With one-time mills, how many masks a side can hold after each number of counts.
    masks: Option<Vec<u64>>,
}

impl MillRules {
    /// Wraps a Mill game.
    pub fn new(game: Mill) -> MillRules {
        let gen = Gen::new(&game);
        let masks = game
            .profile
            .one_time_mills
            .then(|| crate::mill::history::masks_after(game.geo, game.profile.stones as usize));
        MillRules { game, gen, masks }
    }
}

impl SectorRules for MillRules {
    fn name(&self) -> &'static str {
        "mill"
    }
    fn game_id(&self) -> u32 {
        GAME_MILL
    }
    fn fingerprint(&self) -> String {
        self.game.profile.fingerprint()
    }
    fn shape(&self) -> Shape {
        Shape::Mill(self.game.geo)
    }
    fn unsupported(&self, k: SectorKey) -> Option<String> {
        crate::mill::sectors::unsupported_sector(&self.game.profile, k).map(str::to_string)
    }
    fn extra_state_slots(&self, k: SectorKey) -> Option<u64> {
        let p = &self.game.profile;
        if let Some(masks) = &self.masks {
            return Some(crate::mill::history::slots_with_masks(p, k, masks));
        }
        None
    }
    fn marked_points(&self, k: SectorKey) -> Option<usize> {
        let p = &self.game.profile;
        (p.mill_action == MillAction::MarkAndDelay && (k.wf > 0 || k.bf > 0))
            .then(|| (2 * p.stones as usize).saturating_sub((k.w + k.wf + k.b + k.bf) as usize))
    }
    fn lost(&self, on_board: u8, in_hand: u8) -> bool {
        crate::mill::sectors::lost(&self.game.profile, on_board, in_hand)
    }
    fn drawn(&self, k: SectorKey) -> bool {
        crate::mill::sectors::drawn(&self.game.profile, k)
    }
    fn successors(&self, k: SectorKey) -> Vec<SectorKey> {
        crate::mill::sectors::successors(&self.game.profile, k)
    }
    fn children(&self, f: &Folded, out: &mut Children) {
        self.gen.children(f, out)
    }
    fn children_counting(&self, f: &Folded, out: &mut Children, count_plain: bool) {
        self.gen.children_counting(f, out, count_plain)
    }
    fn unmoves(&self, child: &Folded, out: &mut Vec<Folded>) {
        crate::mill::unmoves::unmoves(&self.game, child, out)
    }
}
