//! The Mill engine against the reference app's published data: split-form perft of every preset
//! and the 33 reference games replayed move by move.

use retro_engine::mill::{Mill, Profile};
use retro_engine::Color;
use retro_tests::{reference, REFERENCE_PRESETS};

fn game(preset: usize) -> Mill {
    Mill::new(Profile::preset(REFERENCE_PRESETS[preset]).unwrap())
}

#[test]
fn split_perft_matches_reference_app() {
    let data = reference("sanmill-perft.tsv");
    let mut checked = 0;
    for line in data.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (preset, depth, nodes): (usize, u32, u64) = (
            f[0].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let m = game(preset);
        assert_eq!(
            m.perft_split(&m.start(), depth),
            nodes,
            "{} depth {depth}",
            f[1]
        );
        checked += 1;
    }
    assert_eq!(checked, 38);
}

#[test]
fn nine_mens_morris_depth_five() {
    let m = game(0);
    assert_eq!(m.perft_split(&m.start(), 5), 5_100_480);
}

/// Compares FEN fields 1-15 and the extension tokens (16 and 17 are never advanced by the
/// reference app's driver, see sanmill-format.md).
fn same_fen(ours: &str, theirs: &str) -> bool {
    let a: Vec<&str> = ours.split_whitespace().collect();
    let b: Vec<&str> = theirs.split_whitespace().collect();
    a.len() == b.len() && a[..15] == b[..15] && a[17..] == b[17..]
}

#[test]
fn reference_games_replay() {
    let data = reference("sanmill-games.tsv");
    let mut games = 0;
    let mut plies = 0;
    for line in data.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let preset: usize = f[0].parse().unwrap();
        let moves: Vec<&str> = f[5].split_whitespace().collect();
        assert_eq!(moves.len(), f[4].parse::<usize>().unwrap());
        let m = game(preset);
        let label = format!("{} game {}", REFERENCE_PRESETS[preset], f[1]);
        let mut pos = m.start();
        for (i, mv) in moves.iter().enumerate() {
            if i + 1 == moves.len() {
                let fen = m.format_fen(&pos);
                assert!(
                    same_fen(&fen, f[6]),
                    "{label}: before the last move\n ours   {fen}\n theirs {}",
                    f[6]
                );
                // Our reader must accept the reference FEN and give the same position back.
                let back = m.parse_fen(f[6]).unwrap_or_else(|e| panic!("{label}: {e}"));
                assert!(
                    same_fen(&m.format_fen(&back), f[6]),
                    "{label}: FEN round trip"
                );
            }
            let step = m.parse_step(&pos, mv).unwrap_or_else(|e| {
                panic!("{label}: ply {} '{mv}': {e}\n{}", i + 1, m.format_fen(&pos))
            });
            pos = m.play_step(&pos, step);
            plies += 1;
        }
        let over = m.outcome(&pos);
        match f[7] {
            "4" => assert!(
                over.is_some(),
                "{label}: should be over: {}",
                m.format_fen(&pos)
            ),
            "3" => assert!(over.is_none(), "{label}: should go on: {over:?}"),
            t => panic!("unknown phase tag {t}"),
        }
        let side = if f[8] == "1" {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(pos.side, side, "{label}: side to move at the end");
        games += 1;
    }
    assert_eq!(games, 33);
    eprintln!("replayed {games} games, {plies} plies");
}
