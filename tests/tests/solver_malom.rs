//! Nine Men's Morris moving-phase sectors 3v3, 3v4 and 4v3 against the published Malom tables:
//! every raw position's value and distance (counts.tsv) and 900 sample positions (samples.tsv).

use retro_engine::mill::{Mill, Profile};
use retro_solver::mill::Db;
use retro_solver::sectors::index::{spread, unrank_set, BINOM};
use retro_solver::sectors::solve::solve;
use retro_solver::sectors::{folded::Folded, sector::SectorKey};
use retro_tables::value::Value;
use retro_tests::reference;

#[test]
fn malom_sectors_agree_position_by_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(Mill::new(Profile::default()), dir.path());
    let targets = [
        SectorKey {
            w: 3,
            b: 4,
            wf: 0,
            bf: 0,
        },
        SectorKey {
            w: 4,
            b: 3,
            wf: 0,
            bf: 0,
        },
    ];
    solve(&db, &targets, &()).unwrap();
    let geo = db.game().geo;

    // Every raw position: counts and the longest win and loss.
    for line in reference("malom/counts.tsv").lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let key = SectorKey::parse(f[0]).unwrap();
        let (w, b) = (key.w as usize, key.b as usize);
        let (mut wins, mut draws, mut losses, mut max_win, mut max_loss) =
            (0u64, 0u64, 0u64, 0u16, 0u16);
        for r in 0..BINOM[24][w] {
            let own = unrank_set(r, w);
            for q in 0..BINOM[24 - w][b] {
                let opp = spread(unrank_set(q, b), geo.all & !own);
                let v = db
                    .value_folded(&Folded {
                        own,
                        opp,
                        own_hand: 0,
                        opp_hand: 0,
                    })
                    .unwrap();
                match v {
                    Value::Win(d) => {
                        wins += 1;
                        max_win = max_win.max(d)
                    }
                    Value::Draw => draws += 1,
                    Value::Loss(d) => {
                        losses += 1;
                        max_loss = max_loss.max(d)
                    }
                }
            }
        }
        assert_eq!(
            wins + draws + losses,
            f[1].parse::<u64>().unwrap(),
            "{key} positions"
        );
        assert_eq!(
            (wins, draws, losses),
            (
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap()
            ),
            "{key} W/D/L"
        );
        assert_eq!(max_win, f[5].parse::<u16>().unwrap(), "{key} longest win");
        if f[6] != "-" {
            assert_eq!(max_loss, f[6].parse::<u16>().unwrap(), "{key} longest loss");
        }
    }

    // The sample positions, value and distance.
    let point = |n: &str| 1u32 << geo.point(n).unwrap_or_else(|| panic!("point {n}"));
    let set = |s: &str| s.split(',').map(point).fold(0, |a, b| a | b);
    let mut n = 0;
    for line in reference("malom/samples.tsv").lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let pos = Folded {
            own: set(f[1]),
            opp: set(f[2]),
            own_hand: f[3].parse().unwrap(),
            opp_hand: f[4].parse().unwrap(),
        };
        let v = db.value_folded(&pos).unwrap();
        let want = match (f[5], f[6]) {
            ("W", d) => Value::Win(d.parse().unwrap()),
            ("L", d) => Value::Loss(d.parse().unwrap()),
            ("D", _) => Value::Draw,
            other => panic!("bad row {other:?}"),
        };
        assert_eq!(v, want, "{line}");
        n += 1;
    }
    assert_eq!(n, 900);
}
