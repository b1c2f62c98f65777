//! The registry of kinds: every format's rows (each family's `FORMATS`, gathered in the
//! crate's lib.rs). `Kind::sniff` asks the rows tier by tier ([`Sniffed`]: content, then
//! names, then weaker structure); each format says how its files look and which tier each
//! test belongs to, so the order of the rows does not matter (the tests check that no two
//! rows of a tier claim one file).

use super::common::bytes;
pub use super::kind::{Capabilities, Claim, Format, Head, Kind, Purpose, Sniffed};
use super::{misnamed, Document, FAMILIES};
use std::sync::OnceLock;

/// The registry's own rows: what no format recognises.
const LEFT_OVER: &[Format] = &[
    Format {
        kind: Kind::MISNAMED,
        label: "?!",
        title: "named as a format its content is not",
        caps: Capabilities::NONE,
        sniffs: &[(Sniffed::Claimed, |h| claim(&h.ext).is_some())],
        named: &[],
        claims: &[],
        refers_to: &[],
        open: open_misnamed,
    },
    Format {
        kind: Kind::UNKNOWN,
        label: "?",
        title: "unknown",
        caps: Capabilities::NONE,
        sniffs: &[(Sniffed::Last, |_| true)],
        named: &[],
        claims: &[],
        refers_to: &[],
        open: bytes::open,
    },
];

/// Every row, in the order the sniffers are asked: by tier, then as listed.
fn rows() -> &'static [&'static Format] {
    static ROWS: OnceLock<Vec<&'static Format>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut rows: Vec<&'static Format> = FAMILIES
            .iter()
            .flat_map(|family| family.iter().copied().flatten())
            .chain(LEFT_OVER)
            .collect();
        rows.sort_by_key(|f| first_tier(f));
        rows
    })
}

fn first_tier(f: &Format) -> Sniffed {
    f.sniffs.iter().map(|s| s.0).min().unwrap_or(Sniffed::Last)
}

fn format(kind: Kind) -> &'static Format {
    // A kind is only made by a format module, whose rows are all listed; a word that
    // reached here some other way is unknown.
    rows()
        .iter()
        .find(|f| f.kind == kind)
        .copied()
        .unwrap_or(&LEFT_OVER[1])
}

/// What a file so named must be, where a format claims the name.
fn claim(ext: &str) -> Option<&'static Claim> {
    rows()
        .iter()
        .flat_map(|f| f.claims)
        .find(|c| c.extensions.contains(&ext))
}

fn open_misnamed(path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let claim = claim(&super::extension(path));
    misnamed::open(path, bytes, kind, purpose, claim)
}

impl Kind {
    /// What a file is, by its content first and its name second, from its first bytes (16
    /// are enough) and its size.
    pub fn sniff(path: &str, head: &[u8], size: u64) -> Kind {
        let ext = super::extension(path);
        let head = Head {
            path,
            ext,
            bytes: head,
            size,
        };
        let tiers = [
            Sniffed::Content,
            Sniffed::Name,
            Sniffed::Structure,
            Sniffed::Claimed,
            Sniffed::Last,
        ];
        tiers
            .iter()
            .find_map(|tier| {
                rows()
                    .iter()
                    .find(|f| f.sniffs.iter().any(|(t, sniff)| t == tier && sniff(&head)))
            })
            .map_or(Kind::UNKNOWN, |f| f.kind)
    }

    /// The kind a file's name says it is, where the name says (a known extension); the
    /// listing types it so without reading it.
    pub fn by_name(path: &str) -> Option<Kind> {
        let ext = super::extension(path);
        rows()
            .iter()
            .find(|f| f.named.contains(&ext.as_str()))
            .map(|f| f.kind)
    }

    /// Every extension some row reads or claims (lower case, each once): the names a
    /// hostile-input test gives files so that every format is reached.
    pub fn extensions() -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for ext in rows().iter().flat_map(|f| {
            f.named
                .iter()
                .chain(f.claims.iter().flat_map(|c| c.extensions))
        }) {
            if !out.contains(ext) {
                out.push(ext);
            }
        }
        out
    }

    pub fn all() -> impl Iterator<Item = Kind> {
        rows().iter().map(|f| f.kind)
    }

    /// The kind's number: its place in [`Kind::all`], the same in every instance of one
    /// build (how a listing's kinds cross into wasm: one byte a file).
    pub fn number(self) -> u8 {
        rows()
            .iter()
            .position(|f| f.kind == self)
            .map_or(u8::MAX, |n| n as u8)
    }

    /// The kind numbered `n` ([`Kind::number`]), if there is one.
    pub fn numbered(n: u8) -> Option<Kind> {
        rows().get(n as usize).map(|f| f.kind)
    }

    pub fn parse(word: &str) -> Option<Kind> {
        Kind::all().find(|k| k.as_str() == word)
    }

    /// A short badge ("BGF").
    pub fn label(self) -> &'static str {
        format(self).label
    }
    /// What the info panel calls it ("DIV-BIZ2 geometry").
    pub fn title(self) -> &'static str {
        format(self).title
    }
    pub fn capabilities(self) -> Capabilities {
        format(self).caps
    }
    /// The kinds this kind's references lead to.
    pub fn refers_to(self) -> &'static [Kind] {
        format(self).refers_to
    }
    /// The kinds whose references lead to this kind.
    pub fn referred_by(self) -> impl Iterator<Item = Kind> {
        Kind::all().filter(move |k| k.refers_to().contains(&self))
    }
}

impl<'de> serde::Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        let word = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Kind::parse(&word)
            .ok_or_else(|| serde::de::Error::custom(format!("no kind is called {word:?}")))
    }
}

/// Open a file as the kind its content says it is.
pub fn open(path: &str, bytes: Vec<u8>, purpose: Purpose) -> Box<dyn Document> {
    let kind = Kind::sniff(path, &bytes[..bytes.len().min(16)], bytes.len() as u64);
    (format(kind).open)(path, bytes, kind, purpose)
}

// The tests ask every format at once: they need both families.
#[cfg(all(test, feature = "pods", feature = "ff7"))]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_says_its_kind_is_what_the_content_of_every_demo_file_says() {
        let mut named = 0;
        for (path, bytes) in crate::demo::demo_files() {
            let by_content = Kind::sniff(&path, &bytes[..bytes.len().min(16)], bytes.len() as u64);
            if let Some(k) = Kind::by_name(&path) {
                assert_eq!(k, by_content, "{path}");
                named += 1;
            }
        }
        assert!(named > 30, "{named}");
        assert_eq!(
            Kind::by_name("A.BIN"),
            None,
            "a name that says nothing is typed by content"
        );
        assert_eq!(Kind::by_name("NOEXT"), None);
        assert_eq!(Kind::by_name("x/field.tdb"), Some(crate::ff7::bsx::TDB));
    }

    #[test]
    fn files_are_typed_by_content_then_extension() {
        let kind = |p: &str, h: &[u8], s: u64| Kind::sniff(p, h, s).as_str();
        assert_eq!(kind("A.BGF", b"DIV-BIZ2\x03\x40", 100), "biz2-geometry");
        assert_eq!(kind("a.txt", b"DIV-BMF2", 8), "biz2-materials");
        // A library written with the geometry magic is a library by its name.
        assert_eq!(kind("LIB.BMF", b"DIV-BIZ2\x03\x40", 100), "biz2-materials");
        assert_eq!(kind("lib.bgf", b"DIV-BIZ2\x03\x40", 100), "biz2-geometry");
        assert_eq!(kind("A.VGF", b"DIV-VIZ2\nHEADER", 50), "viz2-text");
        // LZS: the first u32 is the length of the rest of the file.
        assert_eq!(kind("CLOUD.BSX", &[96, 0, 0, 0, 1, 2], 100), "bsx");
        assert_eq!(kind("X.LZS", &[96, 0, 0, 0, 1, 2], 100), "lzs");
        // Under its name a BSX is opened as one whatever it holds, to say what is wrong.
        assert_eq!(kind("CLOUD.BSX", &[95, 0, 0, 0, 1, 2], 100), "bsx");
        assert!(open("CLOUD.BSX", vec![95, 0, 0, 0, 1, 2], Purpose::Asset)
            .error()
            .is_some());
        assert_eq!(kind("CLOUD.BCX", &[96, 0, 0, 0, 1, 2], 100), "bcx");
        assert_eq!(kind("FIELD.TDB", &[96, 0, 0, 0, 1, 2], 100), "tdb");
        assert_eq!(kind("ARENA1.MAP", b"[arena1]\ntype=m", 300), "map");
        assert_eq!(kind("MECH.MOD", b"; a mech\n[video]", 300), "mod");
        assert_eq!(kind("DOOR.SUB", b"[door]\r\nTravel", 300), "sub");
        assert_eq!(kind("BIN.MAP", &[0, 1, 2, 3, 200], 300), "misnamed");
        assert_eq!(kind("BIN.DAT", &[0, 1, 2, 3, 200], 300), "unknown");
        assert_eq!(kind("BROKEN.BGF", b"DIV-BIZ", 7), "biz2-unreadable");
        assert_eq!(kind("WATER.TGA", &[0, 0, 2, 0], 300), "image");
        assert_eq!(kind("x.bin", &[0x89, b'P', b'N', b'G'], 300), "image");
    }

    /// Every (name, head) pair of a cross product: the names every row reads or claims,
    /// names that say nothing, and the heads of every demo file, of the real FF7 files and of
    /// each signature cut to 16 bytes. In no tier do two rows say yes to one pair, so the
    /// order of the lines in `FORMATS` decides nothing.
    #[test]
    fn no_two_rows_of_a_tier_claim_one_file_so_the_lines_may_stand_in_any_order() {
        let mut names: Vec<String> = rows()
            .iter()
            .flat_map(|f| {
                f.named
                    .iter()
                    .chain(f.claims.iter().flat_map(|c| c.extensions))
            })
            .map(|e| format!("X.{}", e.to_ascii_uppercase()))
            .collect();
        names.extend(["FIELD.BIN", "X.BIN", "NOEXT", "X.TXT"].map(String::from));
        let mut heads: Vec<(Vec<u8>, u64)> = crate::demo::demo_files()
            .iter()
            .map(|(_, b)| (b[..b.len().min(16)].to_vec(), b.len() as u64))
            .collect();
        let real = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/testdata/ff7");
        for entry in std::fs::read_dir(real).expect("the real FF7 files beside the repo") {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            heads.push((bytes[..16].to_vec(), bytes.len() as u64));
        }
        for magic in [
            &b"DIV-BIZ2\x03\x40"[..],
            b"DIV-BMF2",
            b"DIV-VIZ2\n",
            b"DIV-VMF2\n",
            b"\x89PNG\r\n",
            b"BM",
            b"\x01\xDA",
            b"[map]\r\n",
            &[0; 16],
            &[],
        ] {
            heads.push((magic.to_vec(), 300));
        }
        let mut pairs = 0;
        for name in &names {
            for (bytes, size) in &heads {
                let head = Head {
                    path: name,
                    ext: crate::extension(name),
                    bytes,
                    size: *size,
                };
                for tier in [
                    Sniffed::Content,
                    Sniffed::Name,
                    Sniffed::Structure,
                    Sniffed::Claimed,
                    Sniffed::Last,
                ] {
                    let yes: Vec<&str> = rows()
                        .iter()
                        .filter(|f| f.sniffs.iter().any(|(t, s)| *t == tier && s(&head)))
                        .map(|f| f.kind.as_str())
                        .collect();
                    assert!(
                        yes.len() <= 1,
                        "{name} with head {bytes:02x?}: {yes:?} all claim it in tier {tier:?}"
                    );
                }
                pairs += 1;
            }
        }
        assert!(pairs > 1000, "{pairs}");
        // Every kind's word is its own.
        let words: std::collections::BTreeSet<&str> = Kind::all().map(Kind::as_str).collect();
        assert_eq!(words.len(), rows().len());
    }

    #[test]
    fn every_kind_has_one_row_and_round_trips_its_word() {
        let kinds: Vec<Kind> = Kind::all().collect();
        for k in &kinds {
            assert_eq!(kinds.iter().filter(|x| *x == k).count(), 1);
            assert_eq!(Kind::parse(k.as_str()), Some(*k));
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::Value::String(k.as_str().into())
            );
        }
        assert_eq!(
            *kinds.last().unwrap(),
            Kind::UNKNOWN,
            "the catch-all sniffs last"
        );
        assert!(
            kinds.len() < u8::MAX as usize,
            "a kind's number is a byte, u8::MAX for none"
        );
        for k in &kinds {
            assert_eq!(Kind::numbered(k.number()), Some(*k));
        }
        assert_eq!(Kind::numbered(u8::MAX), None);
    }
}
