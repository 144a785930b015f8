//! Helpers for the end-to-end tests: locating and running the `retro` binary.

pub mod props;
pub mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the `retro` binary built by this `cargo test` run (same profile as the tests).
pub fn retro_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> -> target/<profile>/retro
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target directory");
    let bin = dir.join(format!("retro{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} not found: run the tests with `cargo test --workspace` (which builds the retro binary)",
        bin.display()
    );
    bin
}

/// Runs `retro` with the given arguments and optional stdin.
pub fn retro(args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(retro_bin());
    cmd.args(args);
    cmd.stdin(std::process::Stdio::piped());
    cmd.stdout(std::process::Stdio::piped());
    cmd.stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn retro");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.unwrap_or("").to_string();
    // Written from a thread while the output is read: a big input and a big output would
    // otherwise fill both pipes and wait on each other forever.
    let writer = std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("retro output");
    if let Err(e) = writer.join().expect("stdin writer") {
        // retro may exit before reading its input (a bad argument): a broken pipe is fine.
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    out
}

/// A scratch directory with a Mill variant solved whole (`retro solve mill --variant V -q`).
pub fn solved_mill(variant: &str) -> tempfile::TempDir {
    solved_mill_with(&["--variant", variant])
}

/// A scratch directory where `retro solve mill ARGS --dir D -q` succeeded (`--sector 3,3,0,0`:
/// one nine-mens-morris table).
pub fn solved_mill_with(args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let mut all = vec!["solve", "mill"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--dir", path, "-q"]);
    let out = retro(&all, None);
    assert!(out.status.success(), "{}", stderr(&out));
    dir
}

/// The one game folder (`<game>-<hash>`, one rule profile's tables) a solve made under `dir`.
pub fn game_folder(dir: &Path) -> PathBuf {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders.pop().unwrap()
}

/// `n` plies as the CLI words them: "1 ply", "7 plies".
pub fn plies(n: impl std::fmt::Display) -> String {
    match n.to_string().as_str() {
        "1" => "1 ply".to_string(),
        s => format!("{s} plies"),
    }
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one JSON object a `--json` command printed, after checking that it succeeded (its
/// stderr in the failure message otherwise).
pub fn json_out(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    parse_json(&stdout(o))
}

/// Parses text that must be one JSON value (a command's output, or one line of it), surrounding
/// whitespace ignored; the panic quotes the text.
pub fn parse_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not one JSON value ({e}): {text}"))
}

/// Reads a data file of the tests, `tests/data/<file>` (e.g. `bench.tsv`).
pub fn data(file: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "data", file].iter().collect();
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read test data {}: {e}", path.display()))
}

/// Reads a file of the published reference data carried in `tests/data/reference/` (e.g.
/// `sanmill-perft.tsv`, `malom/counts.tsv`; its README says where each came from).
pub fn reference(file: &str) -> String {
    data(&format!("reference/{file}"))
}

/// The reference Mill app's preset numbers, in its order (sanmill-format.md section 6).
pub const REFERENCE_PRESETS: [&str; 11] = [
    "nine-mens-morris",
    "twelve-mens-morris",
    "dooz",
    "morabaraba",
    "russian-mill",
    "lasker-morris",
    "cheng-san-qi",
    "da-san-qi",
    "zhi-qi",
    "el-filja",
    "experimental",
];

/// Opens a sector table for a test.
pub fn open_table(path: &Path) -> Result<retro_tables::Table, retro_tables::TableError> {
    // SAFETY: tests map files in their own scratch folders and never modify a file in place
    // while it is mapped (they rewrite it whole, then open it again).
    unsafe { retro_tables::Table::open(path) }
}

/// Opens an Ô Ăn Quan table for a test.
pub fn open_oaq_table(path: &Path) -> Result<retro_tables::OaqTable, retro_tables::TableError> {
    // SAFETY: as for `open_table`.
    unsafe { retro_tables::OaqTable::open(path) }
}

/// Bytes in the body of a table file, from its header (sector tables: 2 a slot; Ô Ăn Quan:
/// dense 2 a slot, compact as `oaq_compact::body_len`).
pub fn body_len(file: &[u8]) -> usize {
    use retro_tables::oaq_table::{is_oaq_table, ENCODING_OAQ_COMPACT};
    let slots = u64::from_le_bytes(file[24..32].try_into().unwrap());
    if is_oaq_table(file) {
        let h = retro_tables::OaqHeader::decode(Path::new("t"), file).unwrap();
        if h.encoding == ENCODING_OAQ_COMPACT {
            return retro_tables::oaq_compact::body_len(&h).unwrap() as usize;
        }
    }
    2 * slots as usize
}

/// A table file rebuilt from the header and body of `file` (the first 512 + `body_len` bytes,
/// perhaps edited) with a trailer whose checksums agree with them: a forgery only a reader's
/// checks of meaning can catch.
pub fn reseal(file: &[u8], body_len: usize) -> Vec<u8> {
    use retro_tables::format::{trailer, HEADER_SIZE};
    let core = &file[..HEADER_SIZE + body_len];
    let mut out = core.to_vec();
    out.extend(trailer(&core[..HEADER_SIZE], &core[HEADER_SIZE..]));
    out
}

/// Flips bit `mask` of the first byte of every 4 KiB block of a table file's body (tables are
/// checked a block at a time, when first read: so that any probe of the table fails).
pub fn damage_every_block(file: &mut [u8], mask: u8) {
    use retro_tables::format::{BLOCK_BYTES, HEADER_SIZE};
    for o in (0..body_len(file)).step_by(BLOCK_BYTES) {
        file[HEADER_SIZE + o] ^= mask;
    }
}

/// Opens a compressed sector table for a test (its distance file too, when given).
pub fn open_compressed(
    wdl: &Path,
    dtm: Option<&Path>,
) -> Result<retro_tables::compressed_table::CompressedTable, retro_tables::TableError> {
    // SAFETY: as for `open_table`.
    unsafe { retro_tables::compressed_table::CompressedTable::open(wdl, dtm) }
}

/// The derived table `derived` (`.rtbp`) checked against a raw table's `codes`: every
/// `stride`-th slot's value by the solver's probe (a one-ply search over the tables beside it),
/// and with `stride` 1 also every slot's code as a solve's working copy gets it, wasted slots
/// included. Mill presets and Dara's default rules; returns the slots compared.
pub fn check_derived(derived: &Path, codes: &[u16], stride: usize) -> u64 {
    check_by_position(derived, codes, stride)
}

/// The table whose file is `file` (derived `.rtbp` or compressed `.rtbw`, the distances
/// beside it) checked against a raw table's `codes` as [`check_derived`] does: by the solver's
/// probe of each position, which searches where the table leaves a value to a search.
pub fn check_by_position(file: &Path, codes: &[u16], stride: usize) -> u64 {
    use retro_engine::dara::{Dara, DaraProfile};
    use retro_engine::mill::{Mill, Profile, PRESETS};
    use retro_solver::dara::rules::DaraRules;
    use retro_solver::sectors::db::Db;
    use retro_solver::sectors::rules::SectorRules;
    fn check<R: SectorRules>(
        db: &Db<R>,
        k: retro_tables::SectorKey,
        codes: &[u16],
        stride: usize,
    ) -> u64 {
        use retro_solver::sectors::folded::Folded;
        use retro_solver::sectors::index::BoardIndex;
        let idx = BoardIndex::new(db.rules.shape(), k.w as usize, k.b as usize);
        assert_eq!(idx.size(), codes.len() as u64);
        if stride == 1 && db.table(k).unwrap().0.is_derived() {
            let got = retro_solver::sectors::derive::derived_codes(db, k).unwrap();
            assert!(
                got == codes,
                "sector {k}: the search differs from the raw table"
            );
            return codes.len() as u64;
        }
        let mut n = 0;
        for slot in (0..codes.len()).step_by(stride) {
            let (Some((own, opp)), Some(want)) = (
                idx.unindex(slot as u64),
                retro_tables::Value::decode(codes[slot]),
            ) else {
                continue;
            };
            if !db.rules.valid(own, opp) {
                continue;
            }
            let f = Folded::in_sector(k, own, opp);
            assert_eq!(db.value_folded(&f).unwrap(), want, "sector {k} slot {slot}");
            n += 1;
        }
        n
    }
    // SAFETY: as for `open_table`.
    let t = unsafe { retro_tables::any_table::AnyTable::open(&file.with_extension("rtb")) }
        .unwrap()
        .expect("a table");
    let h = t.header().clone();
    drop(t);
    let root = file.parent().unwrap().parent().unwrap();
    if h.game == retro_tables::GAME_MILL {
        let p = PRESETS
            .iter()
            .map(|p| Profile::preset(p.name).unwrap())
            .find(|p| p.fingerprint() == h.fingerprint)
            .expect("tables of a preset");
        check(&Db::new(Mill::new(p), root), h.sector, codes, stride)
    } else {
        let game = Dara::new(DaraProfile::default());
        check(
            &Db::with_rules(DaraRules { game }, root),
            h.sector,
            codes,
            stride,
        )
    }
}

/// Every file of a table folder (name and bytes), the lock and the solve log (times of the
/// run) left out.
pub fn folder_bytes(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(folder_bytes(&p));
        } else if !["solve.lock", "solve-log.tsv"]
            .contains(&&*p.file_name().unwrap().to_string_lossy())
        {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            out.insert(name, std::fs::read(&p).unwrap());
        }
    }
    out
}
