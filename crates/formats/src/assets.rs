//! What a document needs from the archive it lies in, as a small trait: find the file a name
//! refers to (nearest first), an asset read and parsed, why one could not be, whether it was
//! read at all. The archive implements it and a test can fake it in memory; formats never
//! name the archive (docs/architecture.md, "The layers").

use super::Document;
use serde::Serialize;

pub trait Assets {
    /// False for a file opened on its own: nothing it names is looked for.
    fn resolves(&self) -> bool;
    /// The file a reference made by the file at `from` leads to: the first of `names` there
    /// is, nearest first, and the farther files of that name.
    fn resolve(&self, from: &str, names: &[String]) -> Resolution;
    /// The document of an asset that was read and parsed.
    fn get(&self, path: &str) -> Option<&dyn Document>;
    /// Why an asset could not be used, if it could not.
    fn failure(&self, path: &str) -> Option<&str>;
    /// Whether `path` has been read as an asset (successfully or not).
    fn known(&self, path: &str) -> bool;
    /// The game's variables as the person set them (a story moment): what a file's scripts
    /// read where they branch on the save game (an FF7 field's init). Unset ones are 0.
    fn game_state(&self) -> &[GameVariable] {
        &[]
    }
    /// The archive's files whose extension is `extension` (lower case) and whose size as
    /// stored is `size`, where the archive knows their sizes: those in `from`'s folder
    /// first. (An FF7 gateway names the field it leads to by a number that FIELD.BIN's
    /// table gives only the files' sizes of.)
    fn files_sized(&self, _from: &str, _extension: &str, _size: u64) -> Vec<String> {
        Vec::new()
    }
    /// The size of an archive file as stored, where the archive knows it.
    fn size(&self, _path: &str) -> Option<u64> {
        None
    }
}

/// One of a game's save variables set by hand: its bank, its address in the bank and the
/// value put there. Which banks a game has, and how a person writes them, are the game's own
/// (FF7's: `crate::ff7::game_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct GameVariable {
    pub bank: u8,
    pub address: u8,
    pub value: i32,
}

/// Which file a reference leads to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Resolution {
    /// The nearest file of the first name the archive has.
    pub file: Option<String>,
    /// Other files of that name, farther away.
    pub also: Vec<String>,
}

/// A file opened on its own: it resolves nothing and has no assets.
pub struct NoAssets;

impl Assets for NoAssets {
    fn resolves(&self) -> bool {
        false
    }
    fn resolve(&self, _from: &str, _names: &[String]) -> Resolution {
        Resolution::default()
    }
    fn get(&self, _path: &str) -> Option<&dyn Document> {
        None
    }
    fn failure(&self, _path: &str) -> Option<&str> {
        None
    }
    fn known(&self, _path: &str) -> bool {
        false
    }
}

/// The file name of an archive path: what follows its last `/` or `\`.
pub fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The extension of an archive path's file name, lower case ("" when it has none: a dot in a
/// folder's name is not one).
pub fn extension(path: &str) -> String {
    file_name(path)
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// An archive path's file name without its extension.
pub fn stem(path: &str) -> &str {
    let name = file_name(path);
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// The file name a reference written inside a file names: a library may put folders or a
/// DOS drive before it ("C:\\ART\\WATER.TGA" is WATER.TGA).
pub fn base_name(reference: &str) -> &str {
    reference
        .rsplit(['/', '\\', ':'])
        .next()
        .unwrap_or(reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers_read_the_file_name_only() {
        assert_eq!(file_name("A/B\\C.BGF"), "C.BGF");
        assert_eq!(extension("GAME.V2/README"), "");
        assert_eq!(extension("x/MECH.Bgf"), "bgf");
        assert_eq!(stem("WORLD/ARENA.MAP"), "ARENA");
        assert_eq!(stem("v1.0/NOTES"), "NOTES");
        assert_eq!(base_name("C:\\ART\\WATER.TGA"), "WATER.TGA");
        assert_eq!(base_name("C:WATER.TGA"), "WATER.TGA");
    }
    use crate::registry::{self, Purpose};
    use std::collections::HashMap;

    /// Assets held in a map, resolved by file name alone: no archive.
    struct Fake(HashMap<String, Box<dyn Document>>);

    impl Assets for Fake {
        fn resolves(&self) -> bool {
            true
        }
        fn resolve(&self, _from: &str, names: &[String]) -> Resolution {
            let file = names.iter().find_map(|n| {
                self.0
                    .keys()
                    .find(|k| file_name(k).eq_ignore_ascii_case(file_name(n)))
                    .cloned()
            });
            Resolution {
                file,
                also: Vec::new(),
            }
        }
        fn get(&self, path: &str) -> Option<&dyn Document> {
            self.0.get(path).map(|d| &**d)
        }
        fn failure(&self, _path: &str) -> Option<&str> {
            None
        }
        fn known(&self, path: &str) -> bool {
            self.0.contains_key(path)
        }
    }

    #[test]
    fn a_model_takes_its_library_through_the_seam_alone() {
        let files: HashMap<String, Vec<u8>> = crate::demo::demo_files().into_iter().collect();
        let library = "DEMO/MATERIAL/DEMO.BMF";
        let fake = Fake(HashMap::from([(
            library.to_string(),
            registry::open(library, files[library].clone(), Purpose::Asset),
        )]));
        let model = registry::open(
            "HEXPOD.BGF",
            files["DEMO/VIDEO/HEXPOD.BGF"].clone(),
            Purpose::Asset,
        );
        assert!(
            model.needs(&fake).is_empty(),
            "the library is in: nothing more to read"
        );
        assert_eq!(
            model.needs(&NoAssets),
            Vec::<String>::new(),
            "on its own nothing resolves"
        );
        let scene = model.build_scene(&fake).scene.unwrap();
        let hull = scene
            .materials
            .iter()
            .find(|m| m.name.as_deref() == Some("demo:hull_mtl"))
            .unwrap();
        assert_eq!(
            hull.base_color,
            [0.25, 0.55, 0.85, 1.0],
            "the library's diffuse"
        );
        let alone = registry::open(
            "HEXPOD.BGF",
            files["DEMO/VIDEO/HEXPOD.BGF"].clone(),
            Purpose::Asset,
        );
        let grey = alone.build_scene(&NoAssets).scene.unwrap();
        assert_ne!(
            grey.materials
                .iter()
                .find(|m| m.name.as_deref() == Some("demo:hull_mtl"))
                .unwrap()
                .base_color,
            hull.base_color
        );
    }
}
