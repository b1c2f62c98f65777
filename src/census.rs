//! `relicview census`: what BT411's census reported over a whole archive, and more.

use crate::formats::biz2::{raw, Biz2File, ChunkTree};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a file is, by its content first and its extension second, from its first bytes
/// (16 are enough) and its size.
pub fn kind_of(path: &str, head: &[u8], size: u64) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match head.get(..8) {
        Some(m) if m == raw::MAGIC_GEOMETRY => return "biz2-geometry",
        Some(m) if m == raw::MAGIC_MATERIALS => return "biz2-materials",
        Some(b"DIV-VIZ2") => return "viz2-text",
        Some(b"DIV-VMF2") => return "vmf2-text",
        _ => {}
    }
    // LZS container: a u32 compressed length that is exactly the rest of the file.
    if let Some(len) = head.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64) {
        if size >= 8 && len == size - 4 {
            return if ext == "bsx" { "bsx" } else { "lzs" };
        }
    }
    // Texture maps the viewer decodes.
    if crate::texture::format_of(path, head).is_ok() {
        return "image";
    }
    // The pods' worlds, objects and subsystems are INI-style text: typed by extension once
    // the first bytes look like text.
    let text = !head.is_empty() && head.iter().all(|&b| b == b'\t' || b == b'\r' || b == b'\n' || (0x20..0x7f).contains(&b));
    match ext.as_str() {
        "map" | "mod" | "sub" if text => match ext.as_str() {
            "map" => "map",
            "mod" => "mod",
            _ => "sub",
        },
        "bgf" | "bmf" | "b2z" => "biz2-unreadable",
        _ => "unknown",
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FailedFile {
    pub path: String,
    pub offset: usize,
    pub message: String,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct Census {
    pub files: usize,
    pub bytes: u64,
    /// Files per kind (see [`kind_of`]).
    pub kinds: BTreeMap<String, usize>,
    pub biz2_files: usize,
    pub closes_exactly: usize,
    /// Chunks by width of their length field.
    pub length_widths: BTreeMap<String, usize>,
    /// Chunks per resolved tag id, as "0x0046 PMESH".
    pub tags: BTreeMap<String, usize>,
    /// Unknown tag ids with up to ten of the files they occur in.
    pub unknown_tags: BTreeMap<String, Vec<String>>,
    /// Objects with triangles, and objects with only light points.
    pub mesh_objects: usize,
    pub point_only_objects: usize,
    pub triangles: usize,
    /// Files with at least one diagnostic.
    pub files_with_diagnostics: usize,
    pub failed: Vec<FailedFile>,
}

impl Census {
    pub fn add(&mut self, path: &str, bytes: &[u8]) {
        self.files += 1;
        self.bytes += bytes.len() as u64;
        let kind = kind_of(path, bytes, bytes.len() as u64);
        *self.kinds.entry(kind.to_string()).or_default() += 1;
        if !kind.starts_with("biz2") {
            return;
        }
        self.biz2_files += 1;
        let tree = ChunkTree::parse(bytes);
        let [w1, w2, w4] = tree.length_widths();
        for (w, n) in [("1", w1), ("2", w2), ("4", w4)] {
            *self.length_widths.entry(w.to_string()).or_default() += n;
        }
        for c in &tree.chunks {
            *self.tags.entry(format!("{:#06x} {}", c.id, c.name())).or_default() += 1;
            if !c.known {
                let files = self.unknown_tags.entry(format!("{:#06x}", c.id)).or_default();
                if files.len() < 10 && files.last().map(String::as_str) != Some(path) {
                    files.push(path.to_string());
                }
            }
        }
        if tree.closes_exactly {
            self.closes_exactly += 1;
        }
        match Biz2File::parse(bytes) {
            Ok((_, file)) => {
                for o in &file.objects {
                    let tris: usize = o.lods.iter().map(|l| l.triangle_count()).sum();
                    if tris > 0 {
                        self.mesh_objects += 1;
                    } else if !o.points.is_empty() {
                        self.point_only_objects += 1;
                    }
                }
                self.triangles += file.triangle_count();
                if !file.diagnostics.is_empty() {
                    self.files_with_diagnostics += 1;
                }
            }
            Err(e) => self.failed.push(FailedFile { path: path.to_string(), offset: e.offset, message: e.to_string() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_typed_by_content_then_extension() {
        assert_eq!(kind_of("A.BGF", b"DIV-BIZ2\x03\x40", 100), "biz2-geometry");
        assert_eq!(kind_of("a.txt", b"DIV-BMF2", 8), "biz2-materials");
        assert_eq!(kind_of("A.VGF", b"DIV-VIZ2\nHEADER", 50), "viz2-text");
        // LZS: the first u32 is the length of the rest of the file.
        assert_eq!(kind_of("CLOUD.BSX", &[96, 0, 0, 0, 1, 2], 100), "bsx");
        assert_eq!(kind_of("X.LZS", &[96, 0, 0, 0, 1, 2], 100), "lzs");
        assert_eq!(kind_of("CLOUD.BSX", &[95, 0, 0, 0, 1, 2], 100), "unknown");
        assert_eq!(kind_of("ARENA1.MAP", b"[arena1]\ntype=m", 300), "map");
        assert_eq!(kind_of("MECH.MOD", b"; a mech\n[video]", 300), "mod");
        assert_eq!(kind_of("DOOR.SUB", b"[door]\r\nTravel", 300), "sub");
        assert_eq!(kind_of("BIN.MAP", &[0, 1, 2, 3, 200], 300), "unknown");
        assert_eq!(kind_of("BROKEN.BGF", b"DIV-BIZ", 7), "biz2-unreadable");
        assert_eq!(kind_of("WATER.TGA", &[0, 0, 2, 0], 300), "image");
        assert_eq!(kind_of("x.bin", &[0x89, b'P', b'N', b'G'], 300), "image");
    }

    #[test]
    fn census_of_the_demo_archive_plus_a_broken_file() {
        let mut c = Census::default();
        let files = crate::demo::demo_files();
        for (p, b) in &files {
            c.add(p, b);
        }
        let cube = &files[0].1;
        c.add("BAD.BGF", &cube[..cube.len() - 3]);
        c.add("NOTES.TXT", b"hello");
        // The demo: 5 models, 1 library, a TGA and an SGI image, a MOD and a MAP; plus
        // BAD.BGF and NOTES.TXT.
        assert_eq!(c.files, 12);
        assert_eq!((c.kinds["mod"], c.kinds["map"]), (1, 1));
        assert_eq!(c.kinds["biz2-geometry"], 6);
        assert_eq!(c.kinds["biz2-materials"], 1);
        assert_eq!(c.kinds["image"], 2);
        assert_eq!(c.kinds["unknown"], 1);
        assert_eq!(c.closes_exactly, 6);
        assert_eq!(c.failed.len(), 1);
        assert_eq!(c.failed[0].path, "BAD.BGF");
        assert_eq!(c.mesh_objects, 5);
        assert_eq!(c.point_only_objects, 1);
        // CUBE 1, HEXPOD 2 (one per LOD), POOL 6, FORMATS 14, and the broken copy of CUBE,
        // cut in its trailer.
        assert_eq!(c.tags["0x0046 PMESH"], 1 + 2 + 6 + 14 + 1);
        assert_eq!(c.tags["0x0044 TRISTRIP"], 1);
        assert!(c.unknown_tags.is_empty());
    }
}
