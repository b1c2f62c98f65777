//! Texture map decoding (TGA, SGI/RGB, PNG, BMP through the image crates, behind our size
//! limits) on arbitrary bytes under every name the archive may give: no panic, no runaway
//! allocation, and whatever decodes has exactly width × height RGBA texels.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for name in ["MAP.TGA", "MAP.RGB", "MAP.PNG", "MAP.BMP", "MAP.SVT"] {
        if let Ok(t) = relicview::texture::decode(name, data) {
            assert!(
                t.width <= relicview::texture::MAX_SIDE && t.height <= relicview::texture::MAX_SIDE
            );
            assert_eq!(t.rgba.len(), t.width as usize * t.height as usize * 4);
        }
    }
});
