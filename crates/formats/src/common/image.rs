//! Image files (TGA, SGI/RGB, PNG, BMP), decoded by the image crates: shown as a picture,
//! on a quad in 3D, and used as texture maps by material libraries.

use crate::inspect::{ByteClass, InspectorView, Row};
use crate::kind::{Capabilities, Claim, Format, Head, Kind, Purpose, Sniffed};
use crate::scene::{Material, Mesh, Node, Primitive, Scene, Texture};
use crate::texture::{self, Texels};
use crate::{Document, InfoRow, ParseError};
use std::any::Any;

pub const IMAGE: Kind = Kind::new("image");

pub const FORMATS: &[Format] = &[Format {
    kind: IMAGE,
    label: "IMG",
    title: "image (TGA, SGI, PNG, BMP)",
    caps: Capabilities {
        scene: true,
        image: true,
        used_by: true,
        ..Capabilities::NONE
    },
    sniffs: &[(Sniffed::Content, by_signature), (Sniffed::Name, by_name)],
    named: &[
        "tga", "png", "bmp", "rgb", "rgba", "sgi", "bw", "int", "inta",
    ],
    claims: &[
        Claim {
            extensions: &["png"],
            what: "a PNG image",
            starts_with: Some("the PNG signature 89 50 4E 47"),
        },
        Claim {
            extensions: &["bmp"],
            what: "a BMP image",
            starts_with: Some("the BMP magic \"BM\""),
        },
        Claim {
            extensions: &["rgb", "rgba", "sgi", "bw", "int", "inta"],
            what: "an SGI image",
            starts_with: Some("the SGI magic 01 DA"),
        },
    ],
    refers_to: &[],
    open,
}];

/// PNG, BMP and SGI by their signatures, whatever the name.
fn by_signature(h: &Head) -> bool {
    texture::format_of("", h.bytes).is_ok()
}
/// TGA, which has no signature, by its name (given no bytes, only a name can pass).
fn by_name(h: &Head) -> bool {
    texture::format_of(h.path, &[]).is_ok()
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
    let (texels, error) = match tga_cut_short(decoder, &bytes).map_or_else(
        || texture::decode(path, &bytes).map_err(|e| ParseError::new(0, "", e)),
        Err,
    ) {
        Ok(t) => (Some(t), None),
        Err(e) => (None, Some(e)),
    };
    let inspector = purpose.describes().then(|| {
        let mut view = InspectorView::flat(
            "image",
            bytes.len(),
            if texels.is_some() {
                ByteClass::Decoded
            } else {
                ByteClass::Unclaimed
            },
        );
        let summary = texels.as_ref().map_or("not decoded".to_string(), |t| {
            format!("{} × {} texels", t.width, t.height)
        });
        view.chunks.push(Row {
            index: 0,
            offset: 0,
            payload_offset: 0,
            end: bytes.len(),
            depth: 0,
            parent: None,
            container: false,
            name: decoder.to_ascii_uppercase(),
            label: format!(
                "{} image, {} bytes",
                decoder.to_ascii_uppercase(),
                bytes.len()
            ),
            detail: format!("read whole by the {decoder} decoder"),
            summary,
            flags: Vec::new(),
            ff7_polygon: None,
            entry: None,
        });
        view.rows_total = 1;
        view.error = error.clone();
        view
    });
    Box::new(ImageDocument {
        path: path.to_string(),
        bytes,
        decoder,
        texels,
        error,
        inspector,
    })
}

/// An uncompressed TGA (types 1, 2, 3) holds its texels whole after its 18-byte header,
/// its id and its colour map: one cut short is said so, with what its header promised
/// (the decoder would say only that its buffer was not filled).
fn tga_cut_short(decoder: &str, b: &[u8]) -> Option<ParseError> {
    if decoder != "tga" || b.len() < 18 || !matches!(b[2], 1..=3) {
        return None;
    }
    let u16_at = |at: usize| u16::from_le_bytes([b[at], b[at + 1]]) as u64;
    let (width, height, depth) = (u16_at(12), u16_at(14), b[16] as u64);
    let map = if b[1] == 1 {
        u16_at(5) * (b[7] as u64).div_ceil(8)
    } else {
        0
    };
    let texels = width * height * depth.div_ceil(8);
    let needed = 18 + b[0] as u64 + map + texels;
    (needed > b.len() as u64).then(|| {
        ParseError::new(b.len(), "", format!("TGA cut short: its header promises {width} × {height} texels at {depth} bits, {needed} bytes in all; the file has {}", b.len()))
    })
}

impl Document for ImageDocument {
    fn kind(&self) -> Kind {
        crate::common::image::IMAGE
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn error(&self) -> Option<&ParseError> {
        self.error.as_ref()
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn image(&self) -> Option<&Texels> {
        self.texels.as_ref()
    }
    fn build_scene(&self, _assets: &dyn crate::Assets) -> crate::Built {
        crate::Built::scene(self.quad())
    }
    fn image_format(&self) -> String {
        format!("{} image", self.decoder.to_ascii_uppercase())
    }
}

impl crate::Describe for ImageDocument {
    crate::stored_inspector!();
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(ImageInfo {
            format: "image",
            kind: IMAGE,
            decoder: self.decoder,
            bytes: self.bytes.len(),
            width: self.texels.as_ref().map(|t| t.width),
            height: self.texels.as_ref().map(|t| t.height),
        })
    }
}

impl ImageDocument {
    /// The picture on a quad one unit high, its top row at the top.
    fn quad(&self) -> Option<Scene> {
        let t = self.texels.clone()?;
        let (w, h) = (t.width as f32 / t.height.max(1) as f32 * 0.5, 0.5);
        let mut scene = Scene {
            name: crate::file_name(&self.path).to_string(),
            ..Default::default()
        };
        scene.textures.push(Texture {
            name: Some(scene.name.clone()),
            texels: t,
            file: Some(self.path.clone()),
            nearest: false,
            stand_in: false,
        });
        scene.materials.push(Material {
            name: Some(scene.name.clone()),
            texture: Some(0),
            ..Default::default()
        });
        let quad = Primitive {
            positions: vec![[-w, h, 0.0], [w, h, 0.0], [w, -h, 0.0], [-w, -h, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
            uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
            indices: vec![0, 3, 2, 0, 2, 1],
            material: Some(0),
            // The whole file: the picture's one record.
            record: Some([0, self.bytes.len()]),
            ..Default::default()
        };
        let mesh = scene.add_mesh(Mesh {
            name: Some(scene.name.clone()),
            primitives: vec![quad],
        });
        scene.add_node(
            None,
            Node {
                name: Some(scene.name.clone()),
                mesh: Some(mesh),
                record: Some([0, self.bytes.len()]),
                ..Default::default()
            },
        );
        Some(scene)
    }
}

/// What `info` says of a picture: its decoder, size and dimensions.
#[derive(serde::Serialize)]
struct ImageInfo {
    format: &'static str,
    kind: Kind,
    decoder: &'static str,
    bytes: usize,
    width: Option<u32>,
    height: Option<u32>,
}

impl crate::Summary for ImageInfo {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new(
                "format",
                format!("{} image", self.decoder.to_ascii_uppercase()),
            ),
            InfoRow::new("bytes", self.bytes.to_string()),
        ];
        if let (Some(w), Some(h)) = (self.width, self.height) {
            rows.push(InfoRow::new("size", format!("{w} × {h} texels")));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5 × 3 truecolour TGA with alpha, as the image crate writes it.
    fn tga() -> Vec<u8> {
        let mut out = Vec::new();
        let rgba: Vec<u8> = (0..15u8).flat_map(|i| [i, 2 * i, 3 * i, 255]).collect();
        image::codecs::tga::TgaEncoder::new(&mut out)
            .disable_rle()
            .encode(&rgba, 5, 3, image::ExtendedColorType::Rgba8)
            .unwrap();
        out
    }

    #[test]
    fn a_tga_cut_short_says_what_its_header_promised_and_where_it_ends() {
        let whole = tga();
        let doc = open(
            "A.TGA",
            whole.clone(),
            crate::common::image::IMAGE,
            Purpose::Show,
        );
        assert!(doc.error().is_none(), "{:?}", doc.error());
        assert_eq!(doc.image().map(|t| (t.width, t.height)), Some((5, 3)));
        // The header's own arithmetic: 18 bytes, its id, then 5 × 3 texels of 4 bytes.
        let needed = 18 + whole[0] as usize + 5 * 3 * 4;
        assert!(whole.len() >= needed);
        for cut in [18, 19, needed - 1] {
            let doc = open(
                "A.TGA",
                whole[..cut].to_vec(),
                crate::common::image::IMAGE,
                Purpose::Show,
            );
            let e = doc.error().expect("cut short");
            assert_eq!(e.offset, cut);
            assert_eq!(e.message, format!("TGA cut short: its header promises 5 × 3 texels at 32 bits, {needed} bytes in all; the file has {cut}"));
        }
    }
}
