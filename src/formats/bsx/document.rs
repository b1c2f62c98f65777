//! BSX files through the document interface, LZS-wrapped (as on the disc) or not: the
//! decompressed bytes are what the inspector's rows refer to, the container's own bytes a
//! second byte view; the scene is the models with their skeletons, parts and animations.

use super::inspect;
use super::raw::BsxFile;
use super::scene::{self, Records};
use crate::archive::{file_name, Archive};
use crate::formats::lzs;
use crate::formats::registry::{Head, Kind, Purpose};
use crate::formats::{Diagnostic, DocStats, Document, InfoRow, ParseError};
use crate::inspect::{ByteClass, ByteView, InspectorView};
use crate::scene::Scene;
use serde::Serialize;

/// A .BSX, compressed or not; under that name anything else is opened as BSX too, to say
/// what is wrong with it.
pub fn sniff(h: &Head) -> bool {
    h.ext == "bsx"
}

pub struct BsxDocument {
    kind: Kind,
    path: String,
    /// The file as stored, and (when it is an LZS container) what it decompresses to.
    file: Vec<u8>,
    decoded: Option<Vec<u8>>,
    parsed: Option<BsxFile>,
    records: Records,
    error: Option<ParseError>,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
}

pub fn open(path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let head = Head { path, ext: "bsx".into(), bytes: &file[..file.len().min(16)], size: file.len() as u64 };
    let compressed = lzs::wrapped(&head);
    let (decoded, mut error) = if compressed {
        match lzs::decode(&file, lzs::MAX_OUTPUT) {
            Ok(d) => (Some(d), None),
            Err(e) => (None, Some(ParseError { path: "LZS".into(), ..e })),
        }
    } else {
        (None, None)
    };
    let bytes: &[u8] = decoded.as_deref().unwrap_or(&file);
    let parsed = match error {
        Some(_) => None,
        None => match BsxFile::parse(bytes) {
            Ok(f) => Some(f),
            Err(e) => {
                error = Some(e);
                None
            }
        },
    };
    let diagnostics: Vec<Diagnostic> = parsed.iter().flat_map(|f| &f.warnings).map(|w| Diagnostic { offset: w.offset, path: w.path.clone(), message: w.message.clone() }).collect();
    let container = compressed.then_some(file.len());
    let (inspector, records) = match (&parsed, purpose) {
        (Some(f), _) => {
            let (mut view, records) = inspect::view(f, bytes, bytes.len(), container);
            view.diagnostics = diagnostics.clone();
            ((purpose == Purpose::Show).then_some(view), records)
        }
        (None, Purpose::Show) => {
            let mut view = InspectorView::flat("bsx", bytes.len(), ByteClass::Unclaimed);
            view.views = vec![ByteView { label: if compressed { "decompressed".into() } else { "file".into() }, len: bytes.len() }];
            if let Some(n) = container {
                view.views.push(ByteView { label: "container".into(), len: n });
            }
            view.error = error.clone();
            (Some(view), Records::default())
        }
        (None, Purpose::Asset) => (None, Records::default()),
    };
    Box::new(BsxDocument { kind, path: path.to_string(), file, decoded, parsed, records, error, diagnostics, inspector })
}

#[derive(Serialize)]
struct ModelJson {
    bones: usize,
    parts: usize,
    animations: usize,
    triangles: usize,
    vertices: usize,
    scale: u16,
    /// 1..9: a playable character whose skeleton and parts are in its BCX.
    character: u8,
}

impl BsxDocument {
    fn decompressed(&self) -> &[u8] {
        self.decoded.as_deref().unwrap_or(&self.file)
    }
}

impl Document for BsxDocument {
    crate::formats::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        match (view, &self.decoded) {
            (0, _) => Some(self.decompressed()),
            (1, Some(_)) => Some(&self.file),
            _ => None,
        }
    }
    fn info_rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![InfoRow::new("format", self.kind.title())];
        rows.push(InfoRow::new("bytes", match &self.decoded {
            Some(d) => format!("{} compressed (LZS) · {} decompressed", self.file.len(), d.len()),
            None => format!("{} (not compressed)", self.file.len()),
        }));
        if let Some(f) = &self.parsed {
            for (k, m) in f.models.iter().enumerate() {
                let own = format!("{} bones · {} parts · {} animations · {} triangles", m.bones.len(), m.parts.len(), m.animations.len(), f.triangles(m));
                let value = if m.global_id > 0 { format!("character {} (its skeleton and parts are in its BCX, not read) · {own}", m.global_id) } else { own };
                rows.push(InfoRow::new(format!("model {k}"), value));
            }
            if let Some(t) = &f.textures {
                rows.push(InfoRow::new("textures", format!("{} VRAM rectangles", t.rects.len())));
            }
            if f.models.iter().flat_map(|m| &m.parts).filter_map(|p| f.parts.get(&p.block)).flat_map(|d| &d.flags).any(|&w| w & 0x3F < 2) {
                rows.push(InfoRow::warning("eyes and mouths", "they come from FIELD.TDB, not read yet: drawn grey"));
            }
        }
        rows.extend(self.diagnostics.iter().map(|d| InfoRow::warning(format!("warning @{}", d.offset), format!("{}: {}", d.path, d.message))));
        rows
    }
    fn info_json(&self) -> String {
        let models: Vec<ModelJson> = self
            .parsed
            .iter()
            .flat_map(|f| f.models.iter().map(move |m| ModelJson { bones: m.bones.len(), parts: m.parts.len(), animations: m.animations.len(), triangles: f.triangles(m), vertices: f.vertices(m), scale: m.scale, character: m.global_id }))
            .collect();
        let triangles: usize = models.iter().map(|m| m.triangles).sum();
        let error = self.error.as_ref().map(|e| serde_json::json!({ "message": e.to_string(), "offset": e.offset, "path": e.path }));
        serde_json::json!({
            "format": "bsx",
            "compressed": self.decoded.is_some(),
            "models": models,
            "triangles": triangles,
            "bytes": self.file.len(),
            "decompressed_bytes": self.decompressed().len(),
            "textures": self.parsed.as_ref().and_then(|f| f.textures.as_ref()).map_or(0, |t| t.rects.len()),
            "diagnostics": self.diagnostics,
            "error": error,
        })
        .to_string()
    }
    fn build_scene(&mut self, _archive: &Archive) -> Option<Scene> {
        let f = self.parsed.as_ref()?;
        let built = scene::build(file_name(&self.path), f, self.decompressed(), &self.records);
        if let Some(message) = built.refused {
            let d = Diagnostic { offset: f.offset_models as usize, path: "models".into(), message };
            if let Some(view) = self.inspector.as_mut() {
                view.diagnostics.push(d.clone());
            }
            self.diagnostics.push(d);
        }
        Some(built.scene)
    }
    fn stats(&self) -> DocStats {
        let Some(f) = &self.parsed else { return DocStats::default() };
        DocStats { triangles: f.models.iter().map(|m| f.triangles(m)).sum(), diagnostics: self.diagnostics.len(), ..Default::default() }
    }
}
