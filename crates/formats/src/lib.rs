//! Relicview's file formats, by family, and the seam every format plugs into: the
//! [`registry`] of kinds and the [`Document`] interface. The page, the web glue, `info`,
//! `census` and the renderer only ever talk to these; adding a format is a folder in its
//! family, a line in the family's `FORMATS`, and its tests (see docs/adding-a-format.md).
//!
//! The families are the units that lean on each other: the pods' DIV-BIZ2 and worlds
//! ([`pods`]), FF7's PlayStation files ([`ff7`]) and what any archive holds ([`common`]).
//! A format may use another of its own family; families use only the seam and the common
//! formats. The pods and FF7 are features (both on by default), as the `object` crate's
//! file formats are, so each can be built alone (docs/architecture.md).

// The neutral types below, under the names the formats have always used for them.
pub use relicview_model::{findings, gallery, inspect, scene, texture, words};

// The seam: what formats stand on. None of these names a format.
pub mod assets;
pub mod charset;
pub mod info;
pub mod kind;
pub mod misnamed;
pub mod records;
pub mod registry;

// The families.
pub mod common;
#[cfg(feature = "ff7")]
pub mod ff7;
#[cfg(feature = "pods")]
pub mod pods;

/// Every family's rows; the registry asks them by tier, so the order here decides nothing.
const FAMILIES: &[&[&[kind::Format]]] = &[
    common::FORMATS,
    #[cfg(feature = "ff7")]
    ff7::FORMATS,
    #[cfg(feature = "pods")]
    pods::FORMATS,
];

// Files written by the formats' writers from the format notes: the demo archive, the
// benchmarks' inputs and the tests' fixtures. Not a format; it writes both games' files.
#[cfg(all(feature = "pods", feature = "ff7"))]
pub mod demo;

pub use crate::findings::{Diagnostic, ParseError, Severity};
use crate::inspect::InspectorView;
use crate::scene::Scene;
use crate::texture::Texels;
pub use assets::{
    base_name, extension, file_name, stem, Assets, GameVariable, NoAssets, Resolution,
};
pub(crate) use info::summary_json;
pub use info::{Info, InfoRow, Summary};
pub use kind::{Capabilities, Kind};
pub use relicview_model::placement::Placement;
use serde::Serialize;
use std::any::Any;
use std::borrow::Cow;

/// Another file a document refers to, as written in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// What the reference is, for people: "material", "model", "texture map".
    pub role: &'static str,
    /// The reference as written ("demo:hull_mtl", "hexpod.bgf").
    pub written: String,
    /// File names that would satisfy it, in order of preference, matched without case.
    pub names: Vec<String>,
    /// The item inside the target file it names (a material), if any.
    pub item: Option<String>,
}

/// What `census` counts of a file, in neutral terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DocStats {
    /// Records by name ("0x0046 PMESH").
    pub records: Vec<(String, usize)>,
    /// Names of records no table knows.
    pub unknown_records: Vec<String>,
    /// Records by the width of their length field ("1", "2", "4").
    pub length_widths: Vec<(&'static str, usize)>,
    /// The file was read record by record (`records` counts them): what `census` counts as
    /// a file whose records were read.
    pub records_read: bool,
    /// The file ends exactly where its trailer says it does.
    pub closes_exactly: bool,
    pub mesh_objects: usize,
    pub point_only_objects: usize,
    /// Triangles drawn by default.
    pub triangles: usize,
    pub diagnostics: usize,
    /// Worlds: model placements, and the assets that could not be found or were found
    /// more than once.
    pub placements: usize,
    pub missing: Vec<String>,
    pub ambiguous: usize,
    /// Damage zones (lower case) and behaviour words (upper case) of the file's models, each
    /// with the LOD-0 patches that carry it (docs/formats/biz2.md, "SPECIAL words").
    pub zones: Vec<(String, usize)>,
    pub behaviours: Vec<(String, usize)>,
}

/// What building a document's scene found that the file alone does not say (a world's
/// assembly, the references a model resolved, the lighting it was given): handed back with
/// the scene, and read by the describe stage (the inspector, the info, the stats) beside the
/// document, which building never changes.
#[derive(Default)]
pub struct Found {
    /// The error that kept the scene from being built, where the file itself had none (a
    /// world whose includes do not assemble).
    pub error: Option<ParseError>,
    /// The file's findings with those of the build added, where it added any.
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// The format's own findings, read back only by that format.
    own: Option<Box<dyn Any>>,
}

impl Found {
    /// Nothing found: a document described without a scene built.
    pub const NOTHING: &'static Found = &Found {
        error: None,
        diagnostics: None,
        own: None,
    };
    /// The format's own findings `own`.
    pub fn of<T: Any>(own: T) -> Found {
        Found {
            own: Some(Box::new(own)),
            ..Found::default()
        }
    }
    /// The format's own findings, when they are a `T`.
    pub fn own<T: Any>(&self) -> Option<&T> {
        self.own.as_ref()?.downcast_ref()
    }
}

/// A document's scene and what building it found.
#[derive(Default)]
pub struct Built {
    pub scene: Option<Scene>,
    pub found: Found,
}

impl Built {
    /// A scene whose build found nothing the file did not say.
    pub fn scene(scene: Option<Scene>) -> Built {
        Built {
            scene,
            found: Found::default(),
        }
    }
}

/// A document and what its scene's build found: the describe stage, which whoever shows a
/// file (the info pane, the inspector, `info`, `inspect`, `census`, a comparison) asks.
#[derive(Clone, Copy)]
pub struct Described<'a> {
    pub document: &'a dyn Document,
    pub found: &'a Found,
}

impl<'a> Described<'a> {
    /// A document whose scene was not built.
    pub fn alone(document: &'a dyn Document) -> Described<'a> {
        Described {
            document,
            found: Found::NOTHING,
        }
    }
    pub fn kind(&self) -> Kind {
        self.document.kind()
    }
    pub fn damaged(&self) -> bool {
        self.document.damaged()
    }
    /// The error that keeps the file from being shown: the file's own, else the build's.
    pub fn error(&self) -> Option<&'a ParseError> {
        self.document.error().or(self.found.error.as_ref())
    }
    /// The findings: the file's, with the build's where it added any.
    pub fn diagnostics(&self) -> &'a [Diagnostic] {
        match &self.found.diagnostics {
            Some(d) => d,
            None => self.document.diagnostics(),
        }
    }
    pub fn inspector(&self) -> Option<Cow<'a, InspectorView>> {
        self.document.inspector(self.found)
    }
    pub fn info_rows(&self) -> Vec<InfoRow> {
        self.document.info(self.found).rows()
    }
    /// `info --json`'s text: the summary, with the error that keeps the file from being shown.
    pub fn info_json(&self) -> String {
        self.document.info(self.found).json(self.error())
    }
    pub fn stats(&self) -> DocStats {
        self.document.stats(self.found)
    }
    pub fn placements(&self) -> &'a [Placement] {
        self.document.placements(self.found)
    }
    pub fn gallery(&self) -> Option<&'a [crate::gallery::MaterialCard]> {
        self.document.gallery(self.found)
    }
    pub fn texel_source(&self, texture: usize, x: u32, y: u32) -> Vec<(String, String)> {
        self.document.texel_source(self.found, texture, x, y)
    }
}

/// The accessors of a document that keeps `kind`, `error` and `diagnostics` fields: written
/// once here rather than in every format.
macro_rules! common_accessors {
    () => {
        fn kind(&self) -> $crate::Kind {
            self.kind
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
        fn error(&self) -> Option<&$crate::ParseError> {
            self.error.as_ref()
        }
        fn diagnostics(&self) -> &[$crate::Diagnostic] {
            &self.diagnostics
        }
    };
}
pub(crate) use common_accessors;

/// The inspector of a document that keeps it in an `inspector` field, unchanged by what its
/// scene's build found.
macro_rules! stored_inspector {
    () => {
        fn inspector(
            &self,
            _found: &$crate::Found,
        ) -> Option<std::borrow::Cow<'_, $crate::inspect::InspectorView>> {
            self.inspector.as_ref().map(std::borrow::Cow::Borrowed)
        }
    };
}
pub(crate) use stored_inspector;

/// An opened file. Every format implements this; nothing outside `formats/` needs to know
/// which format a document is.
///
/// Two stages read it. Drawing asks what every consumer needs (its kind, bytes, findings,
/// references, what it needs read, its scene, its text or picture: this trait); building
/// the scene takes `&self` and hands back what it found ([`Built`]). Describing (the
/// inspector, the info, the stats, the read-outs: [`Describe`]) is asked with those
/// findings, and only by who shows it.
pub trait Document: Describe + Any {
    fn kind(&self) -> Kind;
    fn as_any(&self) -> &dyn Any;

    /// The error that keeps the file from being shown as what it claims to be.
    fn error(&self) -> Option<&ParseError> {
        None
    }
    /// The error is damage where the file ends (cut short, or bytes after its end): what
    /// comes before it was read and is shown, with the error as a warning. The CLI still
    /// reports the error.
    fn damaged(&self) -> bool {
        false
    }
    /// Non-fatal findings of the file alone ([`Found::diagnostics`] has the build's too).
    fn diagnostics(&self) -> &[Diagnostic] {
        &[]
    }
    /// The bytes of byte view `view` (see [`InspectorView::views`]): 0 is what the rows
    /// refer to (decoded bytes for a container); the last is the file as stored.
    fn bytes(&self, view: usize) -> Option<&[u8]>;
    /// Files this one refers to.
    fn references(&self) -> Vec<Reference> {
        Vec::new()
    }
    /// Named items other files can refer to (a library's materials).
    fn exports(&self) -> Vec<String> {
        Vec::new()
    }
    /// Archive paths still to read before [`Self::build_scene`] (libraries, then the maps
    /// they name …); empty when everything available is in.
    fn needs(&self, assets: &dyn Assets) -> Vec<String> {
        let _ = assets;
        Vec::new()
    }
    /// The scene to draw, with references resolved as far as `assets` allows, and what the
    /// build found.
    fn build_scene(&self, assets: &dyn Assets) -> Built {
        let _ = assets;
        Built::default()
    }
    /// The scene of this file placed inside another's (a model in a world), built without
    /// consuming the document (it may be placed by several).
    fn scene_as_asset(&self, assets: &dyn Assets) -> Option<Scene> {
        let _ = assets;
        None
    }
    /// The file as text, for files shown as text.
    fn text(&self) -> Option<&str> {
        None
    }
    /// The picture, for files shown as pictures.
    fn image(&self) -> Option<&Texels> {
        None
    }
    /// Labelled parts of the picture (a sheet's images, with their numbers and palettes).
    fn image_regions(&self) -> Vec<crate::gallery::ImageRegion> {
        Vec::new()
    }
    /// The file's items as cards (a library's materials), for files shown as a grid, made
    /// by the scene's build.
    fn gallery<'a>(&'a self, found: &'a Found) -> Option<&'a [crate::gallery::MaterialCard]> {
        let _ = found;
        None
    }
    /// What a comparison calls this file's kind (`diff --json`'s `kind_a`): the listing's
    /// word, or a finer one where the format has its own (a DIV-BIZ2 file's "geometry").
    fn kind_word(&self) -> String {
        self.kind().as_str().to_string()
    }
    /// What the texture gallery says the picture is ("PNG", "TIM, 4 bits a texel"): by
    /// default the kind's title.
    fn image_format(&self) -> String {
        self.kind().title().to_string()
    }
}

/// The describe stage of a document: what a person or `inspect`, `info`, `census` and a
/// comparison look at, each given what the scene's build `found` ([`Found::NOTHING`]
/// before a build). Asked through [`Described`], and only by who shows it.
pub trait Describe {
    /// The inspector's view, with what the scene's build `found` (absent for files opened
    /// only as another file's asset).
    fn inspector(&self, found: &Found) -> Option<Cow<'_, InspectorView>>;
    /// What `info` says of the file, with what the scene's build `found`: one value, shown as
    /// the info pane's rows and printed by `relicview info --json`.
    fn info<'a>(&'a self, found: &'a Found) -> Box<dyn Info + 'a>;
    /// What texel (x, y) of the scene's texture `texture` is made of, in the format's words
    /// (a console page's halfword, its CLUT index and colour word), for the texture view's
    /// readout; empty where the texels are all there is. Asked with what `build_scene` found.
    fn texel_source(
        &self,
        _found: &Found,
        _texture: usize,
        _x: u32,
        _y: u32,
    ) -> Vec<(String, String)> {
        Vec::new()
    }
    /// What the picture's texels are stored as, one plane a number (a CLUT index, a colour
    /// word), for the read-out under the pointer; empty where the colours are all there is.
    fn image_planes(&self) -> Vec<crate::gallery::TexelPlane> {
        Vec::new()
    }
    /// What `census` counts, with what the scene's build `found`.
    fn stats(&self, found: &Found) -> DocStats {
        let _ = found;
        DocStats::default()
    }
    /// What the file places, as its scene's build `found` (a world's placements), in file
    /// order.
    fn placements<'a>(&'a self, found: &'a Found) -> &'a [Placement] {
        let _ = found;
        &[]
    }
    /// How many of this file's records use each entry of the table called `table` that it
    /// indexes by number (a field model's polygons, FIELD.BIN's normals): what the records
    /// are ("polygon"), and (entry, records) for each entry used. The table's own file marks
    /// its entries' rows (`inspect::Row::entry`).
    fn table_uses(&self, table: &str) -> (&'static str, Vec<(u32, u32)>) {
        let _ = table;
        ("record", Vec::new())
    }
}
