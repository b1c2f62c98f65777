//! `relicview census`: what every file of an archive is and what its records hold, counted
//! over the whole archive. Each file is opened through the registry; the figures come from
//! the documents, so census knows no format.

use crate::formats::registry::{self, Kind, Purpose};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a file is, by its content first and its extension second (see [`Kind::sniff`]).
pub fn kind_of(path: &str, head: &[u8], size: u64) -> &'static str {
    Kind::sniff(path, head, size).as_str()
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FailedFile {
    pub path: String,
    pub offset: usize,
    pub message: String,
}

/// A note on one container (see [`Census::notes`]).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ContainerNote {
    pub container: String,
    pub note: String,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct Census {
    pub files: usize,
    pub bytes: u64,
    /// Files per kind (see [`Kind::as_str`]).
    pub kinds: BTreeMap<String, usize>,
    /// Files whose format has records (chunks) and was read.
    pub parsed_files: usize,
    pub closes_exactly: usize,
    /// Records by width of their length field.
    pub length_widths: BTreeMap<String, usize>,
    /// Records per name, as "0x0046 PMESH".
    pub tags: BTreeMap<String, usize>,
    /// Unknown records with up to ten of the files they occur in.
    pub unknown_tags: BTreeMap<String, Vec<String>>,
    /// Objects with triangles, and objects with only light points.
    pub mesh_objects: usize,
    pub point_only_objects: usize,
    pub triangles: usize,
    /// Files with at least one diagnostic.
    pub files_with_diagnostics: usize,
    pub failed: Vec<FailedFile>,
    /// What is said of a container that is not wrong (a self-extracting program before the
    /// archive): the container's path (its file name when it is the archive), and what.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ContainerNote>,
    /// Worlds assembled from other files (see [`Census::add_world`]): how many, their
    /// placements, and each asset they could not find with up to ten of the worlds that
    /// name it.
    pub worlds: usize,
    pub placements: usize,
    pub missing_assets: BTreeMap<String, Vec<String>>,
    /// Names that several files of the archive answer to (the nearest is taken).
    pub ambiguous_assets: usize,
    /// Damage zones across the archive's models (which models have `dz_searchlight`?).
    pub zones: BTreeMap<String, WordUse>,
    /// Behaviour words across the archive's models.
    pub behaviours: BTreeMap<String, WordUse>,
}

/// Where a SPECIAL word is used: in how many files and patches, and up to ten of the files.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct WordUse {
    pub files: usize,
    /// LOD-0 patches that carry it.
    pub patches: usize,
    pub in_files: Vec<String>,
}

impl WordUse {
    fn add(&mut self, path: &str, patches: usize) {
        self.files += 1;
        self.patches += patches;
        if self.in_files.len() < 10 {
            self.in_files.push(path.to_string());
        }
    }
}

impl Census {
    /// Count a world once it has been assembled in the archive (the open sequence ran):
    /// its placements and what it could not find.
    pub fn add_world(&mut self, path: &str, stats: &crate::formats::DocStats) {
        self.worlds += 1;
        self.placements += stats.placements;
        self.ambiguous_assets += stats.ambiguous;
        for m in &stats.missing {
            let maps = self.missing_assets.entry(m.clone()).or_default();
            if maps.len() < 10 {
                maps.push(path.to_string());
            }
        }
    }

    pub fn add(&mut self, path: &str, bytes: Vec<u8>) {
        self.files += 1;
        self.bytes += bytes.len() as u64;
        let doc = registry::open(path, bytes, Purpose::Asset);
        *self
            .kinds
            .entry(doc.kind().as_str().to_string())
            .or_default() += 1;
        let stats = crate::formats::Described::alone(&*doc).stats();
        if stats.records_read {
            self.parsed_files += 1;
        }
        for (w, n) in &stats.length_widths {
            *self.length_widths.entry(w.to_string()).or_default() += n;
        }
        for (name, n) in stats.records {
            *self.tags.entry(name).or_default() += n;
        }
        for name in stats.unknown_records {
            let files = self.unknown_tags.entry(name).or_default();
            if files.len() < 10 {
                files.push(path.to_string());
            }
        }
        self.closes_exactly += stats.closes_exactly as usize;
        match doc.error() {
            Some(e) => self.failed.push(FailedFile {
                path: path.to_string(),
                offset: e.offset,
                message: e.to_string(),
            }),
            None => {
                self.mesh_objects += stats.mesh_objects;
                self.point_only_objects += stats.point_only_objects;
                self.triangles += stats.triangles;
                for (zone, patches) in &stats.zones {
                    self.zones
                        .entry(zone.clone())
                        .or_default()
                        .add(path, *patches);
                }
                for (word, patches) in &stats.behaviours {
                    self.behaviours
                        .entry(word.clone())
                        .or_default()
                        .add(path, *patches);
                }
                if stats.diagnostics > 0 {
                    self.files_with_diagnostics += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn census_of_the_demo_archive_plus_a_broken_file() {
        let mut c = Census::default();
        let files = crate::demo::demo_files();
        for (p, b) in &files {
            c.add(p, b.clone());
        }
        let cube = &files[0].1;
        c.add("BAD.BGF", cube[..cube.len() - 3].to_vec());
        c.add("NOTES.TXT", b"hello".to_vec());
        // The demo: 6 models and the arena's 11, 2 libraries, 3 images, 7 MODs, a SUB, 4 MAPs,
        // two field models, a character and the field's eyes and mouths; plus BAD.BGF and
        // NOTES.TXT.
        assert_eq!(c.files, 40);
        assert_eq!(
            (
                c.kinds["mod"],
                c.kinds["sub"],
                c.kinds["map"],
                c.kinds["bsx"],
                c.kinds["bcx"],
                c.kinds["tdb"]
            ),
            (7, 1, 4, 2, 1, 1)
        );
        assert_eq!(c.kinds["biz2-geometry"], 18);
        assert_eq!(c.kinds["biz2-materials"], 2);
        assert_eq!(c.kinds["image"], 3);
        assert_eq!(c.kinds["plain-text"], 1, "NOTES.TXT");
        assert_eq!(c.parsed_files, 20);
        assert_eq!(c.closes_exactly, 19);
        assert_eq!(c.failed.len(), 1);
        assert_eq!(c.failed[0].path, "BAD.BGF");
        assert_eq!(c.mesh_objects, 17);
        assert_eq!(c.point_only_objects, 1);
        // CUBE 1, HEXPOD 2 (one per LOD), POOL 6, FORMATS 14, WALKER 12 (11 parts, 1 coarse), the arena's 21 (hall 5,
        // building 2, two crates, door frame 3 and its twin 1, leaves 2, stack 3, wellhead
        // 2, laser 1) and the broken copy of CUBE, cut in its trailer.
        assert_eq!(c.tags["0x0046 PMESH"], 1 + 2 + 6 + 14 + 12 + 21 + 1);
        // The walker's parts: a zone each (the gun arm two), counted by file and patch.
        assert_eq!(c.zones.len(), 10);
        assert_eq!(
            c.zones["dz_lfoot"],
            WordUse {
                files: 1,
                patches: 1,
                in_files: vec!["DEMO/VIDEO/WALKER.BGF".into()]
            }
        );
        assert_eq!(
            (
                c.behaviours["GEOMETRIZE"].patches,
                c.behaviours["BLINK"].patches
            ),
            (11, 1),
            "the object's word counts for each of its patches"
        );
        assert_eq!(c.tags["0x0044 TRISTRIP"], 1);
        assert!(c.unknown_tags.is_empty());
    }
}
