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

/// One of the game's save variables set by hand: `BANK:ADDRESS=VALUE`, as `--set` takes it
/// (FF7's banks: 1–4, 11–15 and 7 the save game's, 5 and 6 the field's own scratch memory;
/// docs/formats/field-dat.md, "Game state").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct GameVariable {
    pub bank: u8,
    pub address: u8,
    pub value: i32,
}

impl GameVariable {
    /// `BANK:ADDRESS=VALUE`, decimal (or hexadecimal with 0x); a bank the game has, an
    /// address below 256, a value of 16 bits (signed or not).
    pub fn parse(text: &str) -> Result<GameVariable, String> {
        let expected = || {
            format!("{text:?}: expected BANK:ADDRESS=VALUE (as 2:0=5), a bank of 1 to 7 or 11 to 15, an address below 256 and a 16-bit value")
        };
        let number = |t: &str| -> Option<i64> {
            let t = t.trim();
            match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => i64::from_str_radix(hex, 16).ok(),
                None => t.parse().ok(),
            }
        };
        let (place, value) = text.split_once('=').ok_or_else(expected)?;
        let (bank, address) = place.split_once(':').ok_or_else(expected)?;
        let (bank, address, value) = (
            number(bank).ok_or_else(expected)?,
            number(address).ok_or_else(expected)?,
            number(value).ok_or_else(expected)?,
        );
        let bank_known = matches!(bank, 1..=7 | 11..=15);
        if !bank_known || !(0..256).contains(&address) || !(-32768..65536).contains(&value) {
            return Err(expected());
        }
        Ok(GameVariable {
            bank: bank as u8,
            address: address as u8,
            value: value as i32,
        })
    }
    /// Variables separated by commas or spaces (a link's `state`); a later one of the same
    /// bank and address replaces an earlier one. At most 256.
    pub fn parse_list(text: &str) -> Result<Vec<GameVariable>, String> {
        let mut out: Vec<GameVariable> = Vec::new();
        for word in text.split([',', ' ']).filter(|w| !w.is_empty()) {
            let v = GameVariable::parse(word)?;
            out.retain(|o| (o.bank, o.address) != (v.bank, v.address));
            out.push(v);
            if out.len() > 256 {
                return Err("more than 256 game variables".into());
            }
        }
        Ok(out)
    }
    /// `parse_list`'s text for `state`.
    pub fn list_text(state: &[GameVariable]) -> String {
        state
            .iter()
            .map(|v| format!("{}:{}={}", v.bank, v.address, v.value))
            .collect::<Vec<_>>()
            .join(",")
    }
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
    fn a_game_variable_is_bank_address_and_value() {
        assert_eq!(
            GameVariable::parse("2:0=5"),
            Ok(GameVariable {
                bank: 2,
                address: 0,
                value: 5
            })
        );
        assert_eq!(
            GameVariable::parse("0xB:0x10=-1"),
            Ok(GameVariable {
                bank: 11,
                address: 16,
                value: -1
            })
        );
        for bad in ["2:0", "0:1=1", "8:1=1", "2:256=1", "2:1=70000", "x:1=1", ""] {
            assert!(GameVariable::parse(bad).is_err(), "{bad}");
        }
        let list = GameVariable::parse_list("2:0=5, 3:1=1 2:0=7").unwrap();
        assert_eq!(GameVariable::list_text(&list), "3:1=1,2:0=7");
        assert_eq!(GameVariable::parse_list("").unwrap(), []);
        assert!(GameVariable::parse_list("2:0=5,oops").is_err());
    }

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
