//! The words a format module needs to take part, and nothing more: what a file is ([`Kind`]),
//! the row a format gives for each of its kinds ([`Format`]: its words, what it can do, how
//! its files are recognised, how it opens them), what a sniffer sees ([`Head`]) and why a
//! file is opened. This module names no format, so formats depend on it, not on each other.

use serde::Serialize;

/// What a file is: the word the listing, `census` and the page use ("biz2-geometry").
/// Each format module declares its own kinds (`pub const BSX: Kind = Kind::new("bsx")`) and
/// gives each a [`Format`] row; the registry collects the rows. Serialised as the word.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind(&'static str);

impl Kind {
    /// A kind called `word` (lower case, words joined by '-'). Two kinds are the same kind
    /// exactly when their words are; the registry checks that no two rows share one.
    pub const fn new(word: &'static str) -> Kind {
        Kind(word)
    }
    /// Not a format relicview reads: shown as text or bytes. What no row recognises.
    pub const UNKNOWN: Kind = Kind::new("unknown");
    /// Named as a format (.PNG, .MAP …) its content is not: an error that says both.
    pub const MISNAMED: Kind = Kind::new("misnamed");

    /// The word the listing and `census` use ("biz2-geometry").
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

/// What the page can do with a file of a kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// Draws a scene in 3D (and exports it as glTF).
    pub scene: bool,
    /// Is shown as text with line numbers.
    pub text: bool,
    /// Is shown as a picture.
    pub image: bool,
    /// Other files refer to it: "used by" has answers.
    pub used_by: bool,
    /// Opened first when an archive is loaded (a model, not an asset).
    pub primary: bool,
    /// Assembled from other files of the archive (a world): `census` assembles it to count
    /// what it places and what it cannot find.
    pub assembles: bool,
    /// Its scene decodes textures from the file itself (a field model's VRAM pages): the
    /// texture gallery opens it to list them.
    pub own_textures: bool,
}

/// The first bytes of a file (16 are enough), its name and its size.
pub struct Head<'a> {
    pub path: &'a str,
    pub ext: String,
    pub bytes: &'a [u8],
    pub size: u64,
}

/// Why a file is opened, which decides what its open makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Shown to a person: drawn and described (its inspector view, the records it keys).
    Show,
    /// Drawn and nothing more (a thumbnail): its scene or picture, no inspector view.
    Draw,
    /// Another file's asset, or counted (`census`, `info`): neither described nor pictured.
    Asset,
}

impl Purpose {
    /// Its inspector view is made (the describe stage's records).
    pub fn describes(self) -> bool {
        self == Purpose::Show
    }
    /// It is pictured for a person: a picture the format composes (a .MIM's pages, FIELD.TDB's
    /// faces) and a library's own maps are made.
    pub fn pictures(self) -> bool {
        self != Purpose::Asset
    }
}

/// How a row recognises its files. Rows are asked tier by tier in this order; within a tier
/// no two rows claim the same file (the registry's tests check it on every file they hold),
/// so where a row stands in the registry does not matter.
/// One way a kind is recognised: its tier, and the test of a file's head, name and size.
pub type Sniff = (Sniffed, fn(&Head) -> bool);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sniffed {
    /// By what the bytes start with (a magic number, a signature, code), whatever the name.
    Content,
    /// By the file's name (its extension), perhaps with a look at the bytes (text).
    Name,
    /// By a structure other files could also have (an LZS length word): asked after names.
    Structure,
    /// Named as a row claims (see [`Claim`]) with content that did not pass for it.
    Claimed,
    /// What is left.
    Last,
}

/// What a file named with one of `extensions` is, and what its content must start with;
/// a file so named whose content is not recognised is opened as [`Kind::MISNAMED`], with an
/// error that says both.
pub struct Claim {
    pub extensions: &'static [&'static str],
    /// "a PNG image"
    pub what: &'static str,
    /// What the content must start with, in words ("the PNG signature 89 50 4E 47"); None
    /// for text.
    pub starts_with: Option<&'static str>,
}

/// A format's row: everything the rest of relicview needs to know of a kind. A format
/// module exports its rows as `pub const FORMATS: &[Format]`; its line in its family's
/// `FORMATS` (pods/mod.rs, ff7/mod.rs, common/mod.rs) hands them to the registry.
pub struct Format {
    pub kind: Kind,
    /// A short badge ("BGF").
    pub label: &'static str,
    /// What the info panel calls it ("DIV-BIZ2 geometry").
    pub title: &'static str,
    pub caps: Capabilities,
    /// How its files are recognised: each test in its tier, given the head, name and size.
    pub sniffs: &'static [Sniff],
    /// Extensions that name this kind: a file so named is typed by its name in a listing
    /// (its content confirms it, or says otherwise, when it is opened).
    pub named: &'static [&'static str],
    /// Names whose files must be of this format (for the error when they are not).
    pub claims: &'static [Claim],
    /// The kinds its references lead to (for "used by" and the reference scan).
    pub refers_to: &'static [Kind],
    /// Open a file recognised as `kind`.
    pub open: fn(&str, Vec<u8>, Kind, Purpose) -> Box<dyn super::Document>,
}

impl Capabilities {
    /// Nothing: built up by name (`Capabilities { scene: true, ..Capabilities::NONE }`).
    pub const NONE: Capabilities = Capabilities {
        scene: false,
        text: false,
        image: false,
        used_by: false,
        primary: false,
        assembles: false,
        own_textures: false,
    };
}
