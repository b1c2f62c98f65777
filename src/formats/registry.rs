//! The registry of kinds: one row per kind with its words, what it can do, its sniffer and
//! the format that opens it. `Kind::sniff` asks the rows in order (content first, then
//! name); each format's module says what its content looks like, this table says in which
//! order they are asked.

pub use super::kind::{Capabilities, Head, Kind, Purpose};
use super::{biz2, bsx, bytes, image, lzs, misnamed, text, world, Document};

/// What a kind can do: nothing, to be built up by name (`Capabilities { scene: true, ..NOTHING }`).
const NOTHING: Capabilities = Capabilities { scene: false, text: false, image: false, used_by: false, primary: false, assembles: false, own_textures: false };

const NONE: &[Kind] = &[];
const NONE_NAMED: &[&str] = &[];

/// One row per kind: its words, what it can do, and the format that opens it.
struct Format {
    kind: Kind,
    caps: Capabilities,
    /// Does the file's head (first bytes), name and size say it is this kind?
    sniff: fn(&Head) -> bool,
    /// Extensions that name this kind: a file so named is typed by its name in a listing
    /// (its content confirms it, or says otherwise, when it is opened).
    named: &'static [&'static str],
    /// The kinds its references lead to (for "used by" and the reference scan).
    refers_to: &'static [Kind],
    open: fn(&str, Vec<u8>, Kind, Purpose) -> Box<dyn Document>,
}


// In sniffing order: magic numbers first, then structure, then names.
const FORMATS: &[Format] = &[
    Format { kind: Kind::Biz2Geometry, caps: Capabilities { scene: true, used_by: true, primary: true, ..NOTHING }, sniff: biz2::sniff_geometry, named: &["bgf", "b2z"], refers_to: &[Kind::Biz2Materials], open: biz2::open },
    Format { kind: Kind::Biz2Materials, caps: Capabilities { used_by: true, ..NOTHING }, sniff: biz2::sniff_materials, named: &["bmf"], refers_to: &[Kind::Image], open: biz2::open },
    Format { kind: Kind::Viz2Text, caps: Capabilities { text: true, ..NOTHING }, sniff: text::sniff_viz2, named: &["vgf"], refers_to: NONE, open: text::open },
    Format { kind: Kind::Vmf2Text, caps: Capabilities { text: true, ..NOTHING }, sniff: text::sniff_vmf2, named: &["vmf"], refers_to: NONE, open: text::open },
    Format { kind: Kind::Bsx, caps: Capabilities { scene: true, primary: true, own_textures: true, ..NOTHING }, sniff: bsx::sniff, named: &["bsx"], refers_to: &[Kind::Bcx, Kind::Tdb, Kind::FieldBin], open: bsx::open },
    Format { kind: Kind::Bcx, caps: Capabilities { scene: true, used_by: true, own_textures: true, ..NOTHING }, sniff: bsx::sniff_bcx, named: &["bcx"], refers_to: &[Kind::Tdb, Kind::FieldBin], open: bsx::open },
    Format { kind: Kind::Tdb, caps: Capabilities { image: true, used_by: true, ..NOTHING }, sniff: bsx::sniff_tdb, named: &["tdb"], refers_to: NONE, open: bsx::open_tdb },
    Format { kind: Kind::FieldBin, caps: Capabilities { scene: true, used_by: true, ..NOTHING }, sniff: bsx::sniff_field_bin, named: NONE_NAMED, refers_to: NONE, open: bsx::open_field_bin },
    Format { kind: Kind::Lzs, caps: NOTHING, sniff: lzs::sniff_lzs, named: NONE_NAMED, refers_to: NONE, open: lzs::open },
    Format { kind: Kind::Image, caps: Capabilities { scene: true, image: true, used_by: true, ..NOTHING }, sniff: image::sniff, named: &["tga", "png", "bmp", "rgb", "rgba", "sgi", "bw", "int", "inta"], refers_to: NONE, open: image::open },
    Format { kind: Kind::Map, caps: Capabilities { assembles: true, scene: true, text: true, used_by: true, primary: true, ..NOTHING }, sniff: world::sniff_map, named: &["map"], refers_to: &[Kind::Mod, Kind::Map], open: world::open },
    Format { kind: Kind::Mod, caps: Capabilities { scene: true, text: true, used_by: true, ..NOTHING }, sniff: world::sniff_mod, named: &["mod"], refers_to: &[Kind::Biz2Geometry, Kind::Sub], open: world::open },
    Format { kind: Kind::Sub, caps: Capabilities { text: true, used_by: true, ..NOTHING }, sniff: world::sniff_sub, named: &["sub"], refers_to: NONE, open: world::open },
    Format { kind: Kind::Biz2Unreadable, caps: NOTHING, sniff: biz2::sniff_unreadable, named: NONE_NAMED, refers_to: NONE, open: biz2::open },
    Format { kind: Kind::Misnamed, caps: NOTHING, sniff: misnamed::sniff, named: NONE_NAMED, refers_to: NONE, open: misnamed::open },
    Format { kind: Kind::Unknown, caps: NOTHING, sniff: |_| true, named: NONE_NAMED, refers_to: NONE, open: bytes::open },
];

fn format(kind: Kind) -> &'static Format {
    FORMATS.iter().find(|f| f.kind == kind).expect("every kind has a row")
}

impl Kind {
    /// What a file is, by its content first and its name second, from its first bytes (16
    /// are enough) and its size.
    pub fn sniff(path: &str, head: &[u8], size: u64) -> Kind {
        let ext = super::extension(path);
        let head = Head { path, ext, bytes: head, size };
        FORMATS.iter().find(|f| (f.sniff)(&head)).map_or(Kind::Unknown, |f| f.kind)
    }

    /// The kind a file's name says it is, where the name says (a known extension); the
    /// listing types it so without reading it.
    pub fn by_name(path: &str) -> Option<Kind> {
        let ext = super::extension(path);
        FORMATS.iter().find(|f| f.named.contains(&ext.as_str())).map(|f| f.kind)
    }

    pub fn all() -> impl Iterator<Item = Kind> {
        FORMATS.iter().map(|f| f.kind)
    }

    pub fn parse(word: &str) -> Option<Kind> {
        Kind::all().find(|k| k.as_str() == word)
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

/// Open a file as the kind its content says it is.
pub fn open(path: &str, bytes: Vec<u8>, purpose: Purpose) -> Box<dyn Document> {
    let kind = Kind::sniff(path, &bytes[..bytes.len().min(16)], bytes.len() as u64);
    (format(kind).open)(path, bytes, kind, purpose)
}

#[cfg(test)]
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
        assert_eq!(Kind::by_name("A.BIN"), None, "a name that says nothing is typed by content");
        assert_eq!(Kind::by_name("NOEXT"), None);
        assert_eq!(Kind::by_name("x/field.tdb"), Some(Kind::Tdb));
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
        assert!(open("CLOUD.BSX", vec![95, 0, 0, 0, 1, 2], Purpose::Asset).error().is_some());
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

    #[test]
    fn every_kind_has_one_row_and_round_trips_its_word() {
        let kinds: Vec<Kind> = Kind::all().collect();
        for k in &kinds {
            assert_eq!(kinds.iter().filter(|x| *x == k).count(), 1);
            assert_eq!(Kind::parse(k.as_str()), Some(*k));
            assert_eq!(serde_json::to_value(k).unwrap(), serde_json::Value::String(k.as_str().into()));
        }
        assert_eq!(*kinds.last().unwrap(), Kind::Unknown, "the catch-all sniffs last");
    }
}
