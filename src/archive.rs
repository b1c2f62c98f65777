//! The archive as a list of paths: case-insensitive look-up (the DOS-era discs ignore case)
//! and "nearest first" resolution of names that files refer to, such as material libraries.

use crate::formats::biz2::{Biz2File, MaterialDef};
use std::collections::HashMap;

/// Every path of an archive, indexed by lower-case path and lower-case file name.
#[derive(Debug, Clone, Default)]
pub struct ArchiveIndex {
    paths: Vec<String>,
    by_path: HashMap<String, usize>,
    by_name: HashMap<String, Vec<usize>>,
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn dir_parts(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split(['/', '\\']).map(str::to_ascii_lowercase).collect();
    parts.pop();
    parts
}

impl ArchiveIndex {
    pub fn new<S: Into<String>>(paths: impl IntoIterator<Item = S>) -> ArchiveIndex {
        let mut index = ArchiveIndex::default();
        for p in paths {
            let p: String = p.into();
            let i = index.paths.len();
            index.by_path.entry(p.to_ascii_lowercase()).or_insert(i);
            index.by_name.entry(file_name(&p).to_ascii_lowercase()).or_default().push(i);
            index.paths.push(p);
        }
        index
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The archive's spelling of `path`, matched without regard to case.
    pub fn find(&self, path: &str) -> Option<&str> {
        self.by_path.get(&path.to_ascii_lowercase()).map(|&i| self.paths[i].as_str())
    }

    /// Every file called `name` (any case), nearest to `from` first: the file sharing the
    /// most leading folders with `from` is in the same game tree; ties are ordered by path.
    pub fn nearest(&self, from: &str, name: &str) -> Vec<&str> {
        let from = dir_parts(from);
        let mut found: Vec<(usize, &str)> = self
            .by_name
            .get(&name.to_ascii_lowercase())
            .into_iter()
            .flatten()
            .map(|&i| {
                let dirs = dir_parts(&self.paths[i]);
                let shared = from.iter().zip(&dirs).take_while(|(a, b)| a == b).count();
                (shared, self.paths[i].as_str())
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        found.into_iter().map(|(_, p)| p).collect()
    }
}

/// Split "lib:material" at its first colon.
pub fn split_material_ref(r: &str) -> Option<(&str, &str)> {
    r.split_once(':')
}

/// The library files a "lib:…" reference may live in, in order of preference.
pub fn library_file_names(lib: &str) -> [String; 2] {
    [format!("{lib}.BMF"), format!("{lib}.VMF")]
}

/// How one material reference of a model resolved.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MaterialResolution {
    /// The reference, verbatim ("lib:name").
    pub reference: String,
    /// The library file chosen (nearest to the model), if any exists.
    pub library: Option<String>,
    /// Other files of the same name, farther away.
    pub also: Vec<String>,
    pub found: bool,
}

/// Material libraries that have been read, by archive path.
#[derive(Debug, Default)]
pub struct Libraries {
    files: HashMap<String, Biz2File>,
}

impl Libraries {
    pub fn insert(&mut self, path: &str, file: Biz2File) {
        self.files.insert(path.to_ascii_lowercase(), file);
    }
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(&path.to_ascii_lowercase())
    }

    /// The library paths a model at `model_path` needs for `references`, nearest first.
    pub fn wanted(index: &ArchiveIndex, model_path: &str, references: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in references {
            let Some((lib, _)) = split_material_ref(r) else { continue };
            if let Some(p) = library_file_names(lib).iter().find_map(|n| index.nearest(model_path, n).first().copied()) {
                if !out.iter().any(|o| o.eq_ignore_ascii_case(p)) {
                    out.push(p.to_string());
                }
            }
        }
        out
    }

    /// Resolve "lib:name" for a model at `model_path`: the nearest LIB.BMF (or LIB.VMF),
    /// then the material by name without regard to case.
    pub fn resolve(&self, index: &ArchiveIndex, model_path: &str, reference: &str) -> (MaterialResolution, Option<&MaterialDef>) {
        let mut res = MaterialResolution { reference: reference.to_string(), library: None, also: Vec::new(), found: false };
        let Some((lib, name)) = split_material_ref(reference) else { return (res, None) };
        let candidates: Vec<&str> = library_file_names(lib).iter().flat_map(|n| index.nearest(model_path, n)).collect();
        let Some((&chosen, rest)) = candidates.split_first() else { return (res, None) };
        res.library = Some(chosen.to_string());
        res.also = rest.iter().map(|s| s.to_string()).collect();
        let def = self
            .files
            .get(&chosen.to_ascii_lowercase())
            .and_then(|f| f.materials.iter().find(|m| m.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(name))));
        res.found = def.is_some();
        (res, def)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_ignores_case_and_prefers_the_same_game_tree() {
        let index = ArchiveIndex::new([
            "CONTENT/BTLIVE/MATERIAL/BASEV.BMF",
            "CONTENT/BTDAVE/MATERIAL/basev.bmf",
            "CONTENT/BTDAVE/VIDEO/MECH/MAD.BGF",
            "OTHER/BASEV.BMF",
        ]);
        assert_eq!(index.find("content/btdave/video/mech/mad.bgf"), Some("CONTENT/BTDAVE/VIDEO/MECH/MAD.BGF"));
        assert_eq!(
            index.nearest("CONTENT/BTDAVE/VIDEO/MECH/MAD.BGF", "BASEV.BMF"),
            vec!["CONTENT/BTDAVE/MATERIAL/basev.bmf", "CONTENT/BTLIVE/MATERIAL/BASEV.BMF", "OTHER/BASEV.BMF"]
        );
        // From elsewhere every candidate is equally far: ordered by path.
        assert_eq!(index.nearest("X/Y.BGF", "basev.bmf")[0], "CONTENT/BTDAVE/MATERIAL/basev.bmf");
        assert!(index.nearest("X/Y.BGF", "none.bmf").is_empty());
    }

    #[test]
    fn materials_resolve_by_library_then_name_without_case() {
        let index = ArchiveIndex::new(["G/MATERIAL/DEMO.BMF", "G/VIDEO/A.BGF"]);
        let mut lib = Biz2File::new(crate::formats::biz2::FileKind::Materials, Default::default());
        lib.materials.push(MaterialDef { diffuse: Some([1.0, 0.0, 0.0]), ..MaterialDef::new("Red_Mtl") });
        let mut libs = Libraries::default();
        assert_eq!(Libraries::wanted(&index, "G/VIDEO/A.BGF", &["demo:red_mtl".into(), "nolib:x".into()]), vec!["G/MATERIAL/DEMO.BMF"]);
        let (r, def) = libs.resolve(&index, "G/VIDEO/A.BGF", "demo:red_mtl");
        assert_eq!((r.library.as_deref(), r.found, def), (Some("G/MATERIAL/DEMO.BMF"), false, None));
        libs.insert("g/material/demo.bmf", lib);
        let (r, def) = libs.resolve(&index, "G/VIDEO/A.BGF", "DEMO:RED_MTL");
        assert!(r.found);
        assert_eq!(def.unwrap().diffuse, Some([1.0, 0.0, 0.0]));
        let (r, _) = libs.resolve(&index, "G/VIDEO/A.BGF", "demo:blue_mtl");
        assert!(!r.found && r.library.is_some());
        let (r, _) = libs.resolve(&index, "G/VIDEO/A.BGF", "nolib:x");
        assert_eq!(r.library, None);
    }
}
