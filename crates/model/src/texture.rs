//! Texture map files: decoded with the image crates where they can be (TGA, SGI/RGB, PNG,
//! BMP), and a checker tinted with the material's diffuse colour where they cannot, with the
//! reason kept for the inspector.

use image::{DynamicImage, ImageDecoder, ImageFormat, Limits};
use serde::{Deserialize, Serialize};
use std::io::Cursor;

/// Larger maps are refused: the pods' textures are at most a few hundred texels wide, and a
/// browser tab has little memory to spare for a hostile header.
pub const MAX_SIDE: u32 = 4096;

/// Decoded texels, RGBA, top row first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Texels {
    pub width: u32,
    pub height: u32,
    /// Shared: a map used by many materials (and its scene texture) is one allocation.
    #[serde(with = "crate::pod_serde::shared_bytes")]
    pub rgba: std::sync::Arc<Vec<u8>>,
}

/// Which decoder a map file needs, by content first, then by extension (TGA has no magic).
pub fn format_of(name: &str, bytes: &[u8]) -> Result<&'static str, String> {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    Ok(match bytes {
        [0x89, b'P', b'N', b'G', ..] => "png",
        [b'B', b'M', ..] => "bmp",
        [0x01, 0xDA, ..] => "sgi",
        _ if ext == "tga" => "tga",
        _ if matches!(ext.as_str(), "svt" | "vtx" | "bsl") => {
            return Err(format!(
                ".{ext} is a Division texture format with no decoder yet"
            ));
        }
        _ => return Err(format!("not a TGA, SGI/RGB, PNG or BMP image (.{ext})")),
    })
}

fn limits() -> Limits {
    let mut l = Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(MAX_SIDE as u64 * MAX_SIDE as u64 * 4);
    l
}

/// Decode a map file. The error says why it could not be, for the inspector.
pub fn decode(name: &str, bytes: &[u8]) -> Result<Texels, String> {
    let format = format_of(name, bytes)?;
    let image = match format {
        "sgi" => {
            let mut decoder = image_extras::sgi::SgiDecoder::new(Cursor::new(bytes))
                .map_err(|e| format!("SGI: {e}"))?;
            decoder
                .set_limits(limits())
                .map_err(|e| format!("SGI: {e}"))?;
            DynamicImage::from_decoder(decoder).map_err(|e| format!("SGI: {e}"))?
        }
        f => {
            let fmt = match f {
                "png" => ImageFormat::Png,
                "bmp" => ImageFormat::Bmp,
                _ => ImageFormat::Tga,
            };
            let mut reader = image::ImageReader::with_format(Cursor::new(bytes), fmt);
            reader.limits(limits());
            reader
                .decode()
                .map_err(|e| format!("{}: {e}", f.to_ascii_uppercase()))?
        }
    };
    // Into, not to: an RGBA image keeps its buffer instead of being copied.
    let rgba = image.into_rgba8();
    Ok(Texels {
        width: rgba.width(),
        height: rgba.height(),
        rgba: std::sync::Arc::new(rgba.into_raw()),
    })
}

/// An 8×8 checker of the diffuse colour and a darker shade, so a missing map still shows
/// where the texture goes and which way it scrolls.
pub fn checker(diffuse: [f32; 3]) -> Texels {
    let light = diffuse.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
    let dark = light.map(|c| (c as f32 * 0.55) as u8);
    let mut rgba = Vec::with_capacity(8 * 8 * 4);
    for y in 0..8 {
        for x in 0..8 {
            let c = if (x + y) % 2 == 0 { light } else { dark };
            rgba.extend([c[0], c[1], c[2], 255]);
        }
    }
    Texels {
        width: 8,
        height: 8,
        rgba: std::sync::Arc::new(rgba),
    }
}

/// The texels as a PNG (RGBA, 8 bits a channel).
pub fn encode_png(t: &Texels) -> Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(
            &t.rgba[..],
            t.width,
            t.height,
            image::ExtendedColorType::Rgba8,
        )
        .map_err(|e| e.to_string())?;
    Ok(png)
}

/// The texels of the rectangle at (`x`, `y`), `width` × `height`, held inside the picture.
pub fn crop(t: &Texels, x: u32, y: u32, width: u32, height: u32) -> Texels {
    let (x, y) = (x.min(t.width), y.min(t.height));
    let (width, height) = (width.min(t.width - x), height.min(t.height - y));
    let mut rgba = Vec::with_capacity(width as usize * height as usize * 4);
    for row in y..y + height {
        let start = (row as usize * t.width as usize + x as usize) * 4;
        rgba.extend_from_slice(&t.rgba[start..start + width as usize * 4]);
    }
    Texels {
        width,
        height,
        rgba: std::sync::Arc::new(rgba),
    }
}

/// The sRGB transfer curve: a stored colour channel (0–1) to linear light.
pub fn srgb_to_linear(c: f32) -> f32 {
    // In f64, rounded once to f32: wasm's and the native powf differ in the last bit of an
    // f32, and an export made in the page must be the bytes the CLI writes.
    let c = c as f64;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

/// Texels as the renderer hands them to the GPU library, which samples texture bytes as
/// linear: each colour channel through the sRGB curve and back to a byte, truncated, and
/// alpha through a float and back, as that library's own per-texel conversion does — here
/// worked once per byte value (that conversion took several milliseconds a 256 × 256 page in
/// the page's wasm).
pub fn linear_texel_bytes(rgba: &[u8]) -> Vec<[u8; 4]> {
    static LUT: std::sync::OnceLock<[[u8; 256]; 2]> = std::sync::OnceLock::new();
    let [colour, alpha] = LUT.get_or_init(|| {
        let byte = |x: f32| (x * 255.0) as u8;
        [
            std::array::from_fn(|c| byte(srgb_to_linear(c as f32 / 255.0))),
            std::array::from_fn(|a| byte(a as f32 / 255.0)),
        ]
    });
    rgba.chunks_exact(4)
        .map(|p| {
            [
                colour[p[0] as usize],
                colour[p[1] as usize],
                colour[p[2] as usize],
                alpha[p[3] as usize],
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texels_for_the_gpu_follow_the_srgb_curve_a_byte_at_a_time() {
        let out = linear_texel_bytes(&[0, 10, 128, 255, 255, 188, 55, 128]);
        // 128/255 → ((0.502 + 0.055) / 1.055)^2.4 = 0.2158 → 55.04 → 55; 188 → 0.5029 → 128;
        // 10 at the linear foot: 10/255/12.92 = 0.00304 → 0; 55 → 0.0382 → 9; alpha as it is.
        assert_eq!(out, [[0, 0, 55, 255], [255, 128, 9, 128]]);
    }

    #[test]
    fn a_crop_takes_its_rectangle_and_stays_inside_the_picture() {
        let t = Texels {
            width: 3,
            height: 2,
            rgba: std::sync::Arc::new((0u8..24).collect()),
        };
        let c = crop(&t, 1, 1, 5, 5);
        assert_eq!((c.width, c.height), (2, 1));
        assert_eq!(*c.rgba, (16u8..24).collect::<Vec<_>>());
        let png = encode_png(&c).unwrap();
        let back = decode("C.PNG", &png).unwrap();
        assert_eq!((back.width, back.height, back.rgba), (2, 1, c.rgba));
    }

    fn encode(format: ImageFormat) -> Vec<u8> {
        let mut img = image::RgbaImage::new(4, 2);
        img.put_pixel(0, 0, image::Rgba([255, 0, 0, 255]));
        img.put_pixel(3, 1, image::Rgba([0, 0, 255, 255]));
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgba8(img)
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn png_bmp_and_tga_decode_top_row_first() {
        for (name, format) in [
            ("A.PNG", ImageFormat::Png),
            ("A.BMP", ImageFormat::Bmp),
            ("A.TGA", ImageFormat::Tga),
        ] {
            let t = decode(name, &encode(format)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((t.width, t.height), (4, 2), "{name}");
            assert_eq!(&t.rgba[..4], &[255, 0, 0, 255], "{name}");
            assert_eq!(&t.rgba[(7 * 4)..], &[0, 0, 255, 255], "{name}");
        }
    }

    #[test]
    fn sgi_rgb_decodes() {
        let t = decode("WATER.RGB", &sgi_fixture()).unwrap();
        assert_eq!((t.width, t.height), (2, 2));
        // SGI stores the bottom row first; the decoder hands back the top row first.
        assert_eq!(&t.rgba[..4], &[0, 0, 200, 255]);
        assert_eq!(&t.rgba[12..], &[10, 20, 30, 255]);
    }

    /// A 2×2 uncompressed 3-channel SGI image: planes of rows, bottom row first.
    pub fn sgi_fixture() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0..2].copy_from_slice(&474u16.to_be_bytes());
        b[2] = 0; // verbatim
        b[3] = 1; // 1 byte per channel
        b[4..6].copy_from_slice(&3u16.to_be_bytes());
        b[6..8].copy_from_slice(&2u16.to_be_bytes());
        b[8..10].copy_from_slice(&2u16.to_be_bytes());
        b[10..12].copy_from_slice(&3u16.to_be_bytes());
        b[16..20].copy_from_slice(&255u32.to_be_bytes());
        // bottom row: (200,0,0) (10,20,30); top row: (0,0,200) (0,200,0)
        let rows = [[[200, 0, 0], [10, 20, 30]], [[0, 0, 200], [0, 200, 0]]];
        for ch in 0..3 {
            for row in rows {
                b.extend(row.map(|px| px[ch]));
            }
        }
        b
    }

    #[test]
    fn undecodable_maps_say_why_and_never_panic() {
        assert!(decode("PANEL.SVT", b"whatever")
            .unwrap_err()
            .contains("Division texture format"));
        assert!(decode("X.TGA", &[0u8; 5]).unwrap_err().starts_with("TGA"));
        assert!(decode("X.PNG", b"\x89PNG\r\n\x1a\n").is_err());
        let mut huge = sgi_fixture();
        huge[6..8].copy_from_slice(&60000u16.to_be_bytes());
        huge[8..10].copy_from_slice(&60000u16.to_be_bytes());
        assert!(decode("HUGE.RGB", &huge).is_err());
    }

    #[test]
    fn checker_is_tinted_by_the_diffuse_colour() {
        let t = checker([1.0, 0.5, 0.0]);
        assert_eq!((t.width, t.height, t.rgba.len()), (8, 8, 256));
        assert_eq!(&t.rgba[..4], &[255, 128, 0, 255]);
        assert_eq!(&t.rgba[4..8], &[140, 70, 0, 255]);
    }
}
