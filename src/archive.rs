//! The archive as a list of paths: case-insensitive look-up (the DOS-era discs ignore case)
//! and "nearest first" resolution of names that files refer to, such as material libraries.

use crate::formats::biz2::{Biz2File, MaterialDef, MaterialRef, TextureDef};
use crate::scene::{SceneModel, SceneTexture, Surface};
use crate::texture::Texels;
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
    /// Why the library could not be used, when it was read and failed to parse.
    pub library_error: Option<String>,
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
        let mut res = MaterialResolution { reference: reference.to_string(), library: None, also: Vec::new(), found: false, library_error: None };
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

/// How a textured material's map resolved, for the inspector: decoded, or drawn as a tinted
/// checker and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TextureStatus {
    pub material: String,
    pub texture: String,
    /// TEXTURE_MAP as written in the library.
    pub map: Option<String>,
    /// The archive file it resolved to.
    pub file: Option<String>,
    pub decoded: bool,
    /// Why the checker stands in, when it does.
    pub reason: Option<String>,
    pub scroll: Option<[f32; 4]>,
}

/// Everything one model needs from the rest of the archive: its material libraries and
/// their texture maps, read on demand. The browser asks `needs()`, reads those files and
/// hands them to `provide()`; the CLI reads them from disk the same way.
#[derive(Debug, Default)]
pub struct AssetSet {
    pub index: ArchiveIndex,
    pub libraries: Libraries,
    images: HashMap<String, Result<Texels, String>>,
    /// Files that were provided but could not be used, with the reason.
    failed: HashMap<String, String>,
}

fn is_library(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".bmf") || lower.ends_with(".vmf")
}

impl AssetSet {
    pub fn new(index: ArchiveIndex) -> AssetSet {
        AssetSet { index, ..Default::default() }
    }

    fn known(&self, path: &str) -> bool {
        let key = path.to_ascii_lowercase();
        self.libraries.contains(path) || self.images.contains_key(&key) || self.failed.contains_key(&key)
    }

    /// The TEXTURE a material names, looked up in the material's own library.
    fn texture_of(&self, library: &str, material: &MaterialDef) -> Option<&TextureDef> {
        let name = material.texture_name()?;
        let lib = self.libraries.files.get(&library.to_ascii_lowercase())?;
        lib.textures.iter().find(|t| t.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }

    /// The archive path of a texture's map file, nearest to the model first.
    fn map_file(&self, model_path: &str, texture: &TextureDef) -> Option<&str> {
        let map = texture.map.as_deref()?;
        let base = map.rsplit(['/', '\\', ':']).next().unwrap_or(map);
        self.index.nearest(model_path, base).first().copied()
    }

    /// Files still to read for a model: its libraries first, then (once those are in) the
    /// texture maps their materials name. Empty when everything available is in.
    pub fn needs(&self, model_path: &str, references: &[String]) -> Vec<String> {
        let libraries: Vec<String> = Libraries::wanted(&self.index, model_path, references).into_iter().filter(|p| !self.known(p)).collect();
        if !libraries.is_empty() {
            return libraries;
        }
        let mut maps: Vec<String> = Vec::new();
        for r in references {
            let (res, Some(def)) = self.libraries.resolve(&self.index, model_path, r) else { continue };
            let Some(texture) = res.library.as_deref().and_then(|l| self.texture_of(l, def)) else { continue };
            if let Some(file) = self.map_file(model_path, texture) {
                if !self.known(file) && !maps.iter().any(|m| m.eq_ignore_ascii_case(file)) {
                    maps.push(file.to_string());
                }
            }
        }
        maps
    }

    /// Take the bytes of a file `needs()` asked for. A library that does not parse or an
    /// image that does not decode is remembered with the reason, and not asked for again.
    pub fn provide(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let key = path.to_ascii_lowercase();
        if is_library(path) {
            match Biz2File::parse(bytes) {
                Ok((_, file)) => {
                    self.libraries.insert(path, file);
                    Ok(())
                }
                Err(e) => {
                    let why = format!("{path}: {e}");
                    self.failed.insert(key, why.clone());
                    Err(why)
                }
            }
        } else {
            let decoded = crate::texture::decode(path, bytes);
            let result = decoded.as_ref().map(|_| ()).map_err(|e| format!("{path}: {e}"));
            self.images.insert(key, decoded);
            result
        }
    }

    /// Why a file that was asked for could not be used, if it could not.
    pub fn failure(&self, path: &str) -> Option<&str> {
        self.failed.get(&path.to_ascii_lowercase()).map(String::as_str)
    }

    /// Record that a needed file could not be read at all.
    pub fn unreadable(&mut self, path: &str, why: &str) {
        self.failed.insert(path.to_ascii_lowercase(), format!("{path}: {why}"));
    }

    /// Build the drawable model with every material and texture resolved as far as the
    /// archive allows, and say for each textured material what was drawn.
    pub fn scene(&self, model_path: &str, file: Biz2File) -> (SceneModel, Vec<TextureStatus>) {
        let mut textures: Vec<SceneTexture> = Vec::new();
        let mut statuses: Vec<TextureStatus> = Vec::new();
        // Resolve each distinct reference once; the closure below only looks results up.
        let mut surfaces: HashMap<String, Surface> = HashMap::new();
        // Front materials as drawn: the patch's own, else its object's.
        let references = file
            .objects
            .iter()
            .flat_map(|o| o.lods.iter().flat_map(|l| &l.patches).map(move |p| p.front.as_ref().or(o.front.as_ref())))
            .filter_map(|m| match m {
                Some(MaterialRef::Named(n)) => Some(n.clone()),
                _ => None,
            });
        for r in references {
            if surfaces.contains_key(&r) {
                continue;
            }
            let (res, def) = self.libraries.resolve(&self.index, model_path, &r);
            let mut surface = Surface { diffuse: def.and_then(|d| d.diffuse), texture: None };
            if let (Some(def), Some(library)) = (def, res.library.as_deref()) {
                if let Some(name) = def.texture_name() {
                    let tex = self.texture_of(library, def);
                    let file_path = tex.and_then(|t| self.map_file(model_path, t));
                    let decoded = file_path.and_then(|p| self.images.get(&p.to_ascii_lowercase()));
                    let reason = match (tex, tex.and_then(|t| t.map.as_deref()), file_path, decoded) {
                        (None, ..) => Some(format!("texture {name} is not in {library}")),
                        (Some(_), None, ..) => Some(format!("texture {name} names no map file")),
                        (Some(_), Some(map), None, _) => Some(format!("map file {map} is not in the archive")),
                        (.., Some(p), None) => self.failed.get(&p.to_ascii_lowercase()).cloned().or(Some(format!("{p} was not read"))),
                        (.., Some(Err(e))) => Some(e.clone()),
                        (.., Some(Ok(_))) => None,
                    };
                    let texels = match decoded {
                        Some(Ok(t)) => t.clone(),
                        _ => crate::texture::checker(surface.diffuse.unwrap_or([0.72, 0.72, 0.70])),
                    };
                    let scroll = tex.and_then(|t| t.scroll());
                    surface.texture = Some(textures.len() as u32);
                    // The texels carry the colour; the diffuse tint would darken them twice.
                    if reason.is_none() {
                        surface.diffuse = Some([1.0, 1.0, 1.0]);
                    }
                    textures.push(SceneTexture { name: name.to_string(), texels, scroll });
                    statuses.push(TextureStatus {
                        material: r.clone(),
                        texture: name.to_string(),
                        map: tex.and_then(|t| t.map.clone()),
                        file: file_path.map(str::to_string),
                        decoded: reason.is_none(),
                        reason,
                        scroll,
                    });
                }
            }
            surfaces.insert(r, surface);
        }
        let material = |r: &MaterialRef| match r {
            MaterialRef::Named(n) => surfaces.get(n).copied().unwrap_or_default(),
            _ => Surface::default(),
        };
        let mut scene = file.into_scene(&material);
        scene.textures = textures;
        (scene, statuses)
    }
}
