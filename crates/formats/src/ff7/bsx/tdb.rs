//! FIELD.TDB, the field engine's eyes and mouths: 32 × 32 four-bit images and 16-colour
//! palettes, a palette per face id. The engine copies a model's eye and mouth images and its
//! palette into VRAM beside the models' own textures; eye and mouth polygons sample them
//! there (docs/formats/bsx.md, "Eyes and mouths").

use super::raw::{field, FieldAt, Reader};
use crate::ff7::psx::rgba;
use crate::findings::ParseError;
use crate::gallery::TexelPlane;
use crate::texture::Texels;

/// Bytes of one image: 32 rows of 16 bytes, two texels a byte, the low nibble first.
pub const IMAGE_BYTES: usize = 512;
/// Bytes of one palette: 16 PSX colours.
pub const PALETTE_BYTES: usize = 32;

/// The 16-byte header.
pub const HEADER: [FieldAt; 5] = [
    (0, 4, "u32 size"),
    (4, 2, "u16 image_count"),
    (6, 2, "u16 palette_count"),
    (8, 4, "u32 image_offset"),
    (12, 4, "u32 palette_offset"),
];

/// Images per row of the overview.
const OVERVIEW_COLUMNS: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdbFile {
    pub size: u32,
    pub image_count: u16,
    pub palette_count: u16,
    pub image_offset: u32,
    pub palette_offset: u32,
}

/// Which of a face's images a polygon shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    Eye,
    Mouth,
}

/// Whether `b` starts as FIELD.TDB does, whole or cut short: a size at least the bytes there
/// are, palettes, and its images and palettes after the 16-byte header within that size.
/// What tells its LZS container whose header disagrees with the file from the table's own
/// bytes (docs/formats/lzs.md, "Lengths").
pub fn starts_like_faces(b: &[u8]) -> bool {
    let word = |at: usize| {
        b.get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let (Some(size), Some(images), Some(palettes)) = (word(0), word(8), word(12)) else {
        return false;
    };
    let palette_count = u16::from_le_bytes([b[6], b[7]]);
    size >= b.len()
        && size < 1 << 24
        && palette_count > 0
        && (16..size).contains(&images)
        && (16..size).contains(&palettes)
}

impl TdbFile {
    /// The header, with the image and palette blocks checked to lie inside the file.
    pub fn parse(bytes: &[u8]) -> Result<TdbFile, ParseError> {
        let r = Reader { bytes };
        let p = "header";
        let h = r.slice(0, 16, p, "the 16-byte header")?;
        let [size, image_count, palette_count, image_offset, palette_offset] =
            HEADER.map(|at| field(h, at));
        let t = TdbFile {
            size,
            image_count: image_count as u16,
            palette_count: palette_count as u16,
            image_offset,
            palette_offset,
        };
        if t.size as usize != bytes.len() {
            return Err(ParseError::new(
                0,
                p,
                format!("size says {} bytes, the file has {}", t.size, bytes.len()),
            ));
        }
        r.slice(
            t.image_offset as usize,
            t.image_count as usize * IMAGE_BYTES,
            "images",
            &format!("{} images of {IMAGE_BYTES} bytes", t.image_count),
        )?;
        r.slice(
            t.palette_offset as usize,
            t.palette_count as usize * PALETTE_BYTES,
            "palettes",
            &format!("{} palettes of {PALETTE_BYTES} bytes", t.palette_count),
        )?;
        if t.palette_count == 0 {
            return Err(ParseError::new(
                6,
                p,
                "palette_count is 0: expected a palette per face",
            ));
        }
        Ok(t)
    }

    pub fn image<'a>(&self, bytes: &'a [u8], i: usize) -> Option<&'a [u8]> {
        (i < self.image_count as usize)
            .then(|| &bytes[self.image_offset as usize + i * IMAGE_BYTES..][..IMAGE_BYTES])
    }

    /// A face's palette (faces past the last palette take the last one).
    pub fn palette<'a>(&self, bytes: &'a [u8], face: u8) -> &'a [u8] {
        let k = (face as usize).min(self.palette_count as usize - 1);
        &bytes[self.palette_offset as usize + k * PALETTE_BYTES..][..PALETTE_BYTES]
    }

    /// The image a face shows for an eye or its mouth when FIELD.BIN is not in the archive:
    /// relicview's guess from how the images are stored (faces 0–9, the playable characters,
    /// have eight each, the open eye first and the closed mouth sixth; later faces two, eye
    /// and mouth). With FIELD.BIN the engine's own tables say (`field_bin::FieldTables`).
    pub fn image_of(&self, face: u8, feature: Feature) -> Option<usize> {
        guessed_image(face, feature)
            .map(usize::from)
            .filter(|&i| i < self.image_count as usize)
    }

    /// The face whose palette an image is drawn with in the overview: the inverse of
    /// [`Self::image_of`]'s layout.
    pub fn face_of_image(i: usize) -> u8 {
        if i < 80 {
            (i / 8) as u8
        } else {
            (10 + (i - 80) / 2).min(255) as u8
        }
    }

    /// Where image `i` sits in the overview (its top-left texel).
    pub fn overview_cell(i: usize) -> (u32, u32) {
        (
            ((i % OVERVIEW_COLUMNS) * 32) as u32,
            ((i / OVERVIEW_COLUMNS) * 32) as u32,
        )
    }

    /// Every image in a grid of 16 columns, each in its face's palette: what the file holds,
    /// at a glance; and what each texel is stored as (its CLUT index, the colour word it
    /// looks up), for the read-out.
    pub fn overview(&self, bytes: &[u8]) -> (Texels, Vec<TexelPlane>) {
        const COLUMNS: usize = OVERVIEW_COLUMNS;
        let rows = (self.image_count as usize).div_ceil(COLUMNS).max(1);
        let (w, h) = (COLUMNS * 32, rows * 32);
        let mut rgba_out = vec![0u8; w * h * 4];
        let (mut indices, mut words) = (vec![0u16; w * h], vec![0u16; w * h]);
        for i in 0..self.image_count as usize {
            let (Some(image), palette) = (
                self.image(bytes, i),
                self.palette(bytes, Self::face_of_image(i)),
            ) else {
                continue;
            };
            let (x0, y0) = Self::overview_cell(i);
            let (x0, y0) = (x0 as usize, y0 as usize);
            for y in 0..32 {
                for x in 0..32 {
                    let byte = image[y * 16 + x / 2];
                    let index = if x % 2 == 0 { byte & 0xF } else { byte >> 4 } as usize;
                    let c = u16::from_le_bytes([palette[2 * index], palette[2 * index + 1]]);
                    let texel = (y0 + y) * w + x0 + x;
                    rgba_out[texel * 4..texel * 4 + 4].copy_from_slice(&rgba(c));
                    (indices[texel], words[texel]) = (index as u16, c);
                }
            }
        }
        let planes = vec![
            TexelPlane {
                name: "CLUT index",
                hex: false,
                values: indices,
            },
            TexelPlane {
                name: "colour word",
                hex: true,
                values: words,
            },
        ];
        (
            Texels {
                width: w as u32,
                height: h as u32,
                rgba: std::sync::Arc::new(rgba_out),
            },
            planes,
        )
    }
}

/// relicview's guess at the image a face shows for an eye or its mouth (faces below 0x21,
/// the ones the engine shows), from how FIELD.TDB stores them: see [`TdbFile::image_of`].
pub fn guessed_image(face: u8, feature: Feature) -> Option<u8> {
    let f = face as usize;
    let i = match (f < 10, feature) {
        _ if face >= 0x21 => return None,
        (true, Feature::Eye) => 8 * f,
        (true, Feature::Mouth) => 8 * f + 5,
        (false, Feature::Eye) => 80 + 2 * (f - 10),
        (false, Feature::Mouth) => 80 + 2 * (f - 10) + 1,
    };
    u8::try_from(i).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_field_tdb_holds_127_images_and_34_palettes() {
        let bytes = crate::ff7::bsx::tests::shared("FIELD.TDB_u");
        let t = TdbFile::parse(&bytes).unwrap();
        assert_eq!((t.image_count, t.palette_count), (127, 34));
        // Images then palettes, back to back, to the end of the file.
        assert_eq!(
            t.image_offset as usize + 127 * IMAGE_BYTES,
            t.palette_offset as usize
        );
        assert_eq!(t.palette_offset as usize + 34 * PALETTE_BYTES, bytes.len());
        assert_eq!(t.image_of(13, Feature::Eye), Some(86));
        assert_eq!(t.image_of(13, Feature::Mouth), Some(87));
        assert_eq!(t.image_of(0, Feature::Mouth), Some(5));
        assert_eq!(t.image_of(60, Feature::Eye), None, "past the last image");
        // An eye has colour: most texels are not transparent.
        let (eye, planes) = t.overview(&bytes);
        let (x0, y0) = ((86 % 16) * 32, (86 / 16) * 32);
        let opaque = (0..32 * 32)
            .filter(|k| eye.rgba[(((y0 + k / 32) * 512 + x0 + k % 32) * 4) + 3] > 0)
            .count();
        assert!(opaque > 200, "{opaque} texels of the eye are drawn");
        // What the read-out says of a texel, from the layout in the notes: image 86 starts
        // at u32[8] + 86 · 0x200, a texel is a nibble of its row's 16 bytes (low first), and
        // it looks up its face's palette at u32[0xC] + face · 0x20 (image 86 is face 13's).
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        for (x, y) in [(0, 0), (5, 17), (31, 31), (12, 9)] {
            let byte = bytes[u32_at(8) + 86 * 0x200 + y * 16 + x / 2];
            let index = if x % 2 == 0 { byte & 0xF } else { byte >> 4 } as usize;
            let colour = u16::from_le_bytes(
                bytes[u32_at(0xC) + 13 * 0x20 + 2 * index..][..2]
                    .try_into()
                    .unwrap(),
            );
            let texel = (y0 + y) * 512 + x0 + x;
            assert_eq!(
                (planes[0].name, planes[0].values[texel]),
                ("CLUT index", index as u16),
                "({x}, {y})"
            );
            assert_eq!(
                (planes[1].name, planes[1].values[texel]),
                ("colour word", colour),
                "({x}, {y})"
            );
        }
    }

    #[test]
    fn a_short_or_inconsistent_tdb_is_an_error_with_its_offset() {
        let bytes = crate::ff7::bsx::tests::shared("FIELD.TDB_u");
        assert!(TdbFile::parse(&bytes[..10])
            .unwrap_err()
            .message
            .contains("expected"));
        let mut bad = bytes.clone();
        bad[4] = 200; // 200 images do not fit
        let e = TdbFile::parse(&bad).unwrap_err();
        assert_eq!(e.path, "images");
        assert!(e.message.contains("200 images"), "{e}");
        let mut bad = bytes;
        bad[0] ^= 1;
        assert_eq!(TdbFile::parse(&bad).unwrap_err().offset, 0);
    }
}
