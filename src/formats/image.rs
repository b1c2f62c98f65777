//! Image files (TGA, SGI/RGB, PNG, BMP), decoded by the image crates: shown as a picture,
//! on a quad in 3D, and used as texture maps by material libraries.

use super::kind::{Head, Kind, Purpose};
use super::{Document, InfoRow, ParseError};
use crate::inspect::{ByteClass, InspectorView, Row};
use crate::scene::{Material, Mesh, Node, Primitive, Scene, Texture};
use crate::texture::{self, Texels};
use std::any::Any;

pub fn sniff(h: &Head) -> bool {
    texture::format_of(h.path, h.bytes).is_ok()
}

pub struct ImageDocument {
    path: String,
    bytes: Vec<u8>,
    decoder: &'static str,
    texels: Option<Texels>,
    error: Option<ParseError>,
    inspector: Option<InspectorView>,
}

pub fn open(path: &str, bytes: Vec<u8>, _kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let decoder = texture::format_of(path, &bytes).unwrap_or("?");
    let (texels, error) = match texture::decode(path, &bytes) {
        Ok(t) => (Some(t), None),
        Err(e) => (None, Some(ParseError::new(0, "", e))),
    };
    let inspector = (purpose == Purpose::Show).then(|| {
        let mut view = InspectorView::flat("image", bytes.len(), if texels.is_some() { ByteClass::Decoded } else { ByteClass::Unclaimed });
        let summary = texels.as_ref().map_or("not decoded".to_string(), |t| format!("{} × {} texels", t.width, t.height));
        view.chunks.push(Row {
            index: 0,
            offset: 0,
            payload_offset: 0,
            end: bytes.len(),
            depth: 0,
            parent: None,
            container: false,
            name: decoder.to_ascii_uppercase(),
            label: format!("{} image, {} bytes", decoder.to_ascii_uppercase(), bytes.len()),
            detail: format!("read whole by the {decoder} decoder"),
            summary,
            flags: Vec::new(),
            polygon: None,
            entry: None,
        });
        view.rows_total = 1;
        view.error = error.clone();
        view
    });
    Box::new(ImageDocument { path: path.to_string(), bytes, decoder, texels, error, inspector })
}

impl Document for ImageDocument {
    fn kind(&self) -> Kind {
        Kind::Image
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn error(&self) -> Option<&ParseError> {
        self.error.as_ref()
    }
    fn inspector(&self) -> Option<&InspectorView> {
        self.inspector.as_ref()
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn image(&self) -> Option<&Texels> {
        self.texels.as_ref()
    }
    fn info_rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![InfoRow::new("format", format!("{} image", self.decoder.to_ascii_uppercase())), InfoRow::new("bytes", self.bytes.len().to_string())];
        if let Some(t) = &self.texels {
            rows.push(InfoRow::new("size", format!("{} × {} texels", t.width, t.height)));
        }
        rows
    }
    fn info_json(&self) -> String {
        let fields = serde_json::json!({
            "format": "image",
            "kind": Kind::Image,
            "decoder": self.decoder,
            "bytes": self.bytes.len(),
            "width": self.texels.as_ref().map(|t| t.width),
            "height": self.texels.as_ref().map(|t| t.height),
        });
        crate::formats::summary_json(fields, self.error.as_ref())
    }
    /// The picture on a quad one unit high, its top row at the top.
    fn build_scene(&mut self, _assets: &dyn crate::formats::Assets) -> Option<Scene> {
        let t = self.texels.clone()?;
        let (w, h) = (t.width as f32 / t.height.max(1) as f32 * 0.5, 0.5);
        let mut scene = Scene { name: crate::formats::file_name(&self.path).to_string(), ..Default::default() };
        scene.textures.push(Texture { name: Some(scene.name.clone()), texels: t, file: Some(self.path.clone()), nearest: false, stand_in: false });
        scene.materials.push(Material { name: Some(scene.name.clone()), texture: Some(0), ..Default::default() });
        let quad = Primitive {
            positions: vec![[-w, h, 0.0], [w, h, 0.0], [w, -h, 0.0], [-w, -h, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
            uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
            indices: vec![0, 3, 2, 0, 2, 1],
            material: Some(0),
            record: Some(0),
            ..Default::default()
        };
        let mesh = scene.add_mesh(Mesh { name: Some(scene.name.clone()), primitives: vec![quad] });
        scene.add_node(None, Node { name: Some(scene.name.clone()), mesh: Some(mesh), record: Some(0), ..Default::default() });
        Some(scene)
    }
}
