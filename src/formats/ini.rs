//! The pods' INI-style text files (.MAP worlds, .MOD game objects, .SUB subsystems): the raw
//! layer, every section and key with its line, and the few lookups other views need now
//! (which models a MOD draws, which MODs a MAP declares). The scene building of maps and
//! doors comes with their own issue.

use serde::Serialize;

/// Larger text files are refused: the pods' biggest MAP is a few hundred KB.
pub const MAX_BYTES: usize = 16 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub key: String,
    pub value: String,
    /// 1-based line number.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub name: String,
    pub line: usize,
    pub entries: Vec<Entry>,
}

impl Section {
    /// Values of `key` (case-insensitive), in file order.
    pub fn values<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s Entry> + 's {
        self.entries.iter().filter(move |e| e.key.eq_ignore_ascii_case(key))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IniFile {
    pub sections: Vec<Section>,
    /// Lines that are neither a section, a key=value, a comment nor blank: (line, text).
    pub stray_lines: Vec<(usize, String)>,
}

fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")].into_iter().flatten().min();
    cut.map_or(line, |i| &line[..i])
}

impl IniFile {
    /// Parse text (any bytes; non-UTF-8 is read as Latin-1, as DOS-era files are).
    pub fn parse(bytes: &[u8]) -> Result<IniFile, String> {
        if bytes.len() > MAX_BYTES {
            return Err(format!("{} bytes is larger than the {MAX_BYTES}-byte limit for text files", bytes.len()));
        }
        let text: String = match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            Err(_) => bytes.iter().map(|&b| b as char).collect(),
        };
        let mut file = IniFile { sections: Vec::new(), stray_lines: Vec::new() };
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let body = strip_comment(raw).trim();
            if body.is_empty() {
                continue;
            }
            if let Some(name) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
                file.sections.push(Section { name: name.trim().to_string(), line, entries: Vec::new() });
            } else if let Some((key, value)) = body.split_once('=') {
                match file.sections.last_mut() {
                    Some(s) => s.entries.push(Entry { key: key.trim().to_string(), value: value.trim().to_string(), line }),
                    None => file.stray_lines.push((line, raw.to_string())),
                }
            } else {
                file.stray_lines.push((line, raw.to_string()));
            }
        }
        Ok(file)
    }

    pub fn sections_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Section> + 's {
        self.sections.iter().filter(move |s| s.name.eq_ignore_ascii_case(name))
    }

    /// A MOD's render geometry: the `.bgf` tokens of `[video] object=`, with their lines.
    pub fn mod_video_objects(&self) -> Vec<(String, usize)> {
        self.sections_named("video")
            .flat_map(|s| s.values("object"))
            .flat_map(|e| e.value.split_whitespace().filter(|t| t.to_ascii_lowercase().ends_with(".bgf")).map(move |t| (t.to_string(), e.line)))
            .collect()
    }

    /// A MAP's model declarations: `modelfile=` of `type=model` sections, with their lines.
    pub fn map_model_files(&self) -> Vec<(String, usize)> {
        self.sections
            .iter()
            .filter(|s| s.values("type").any(|e| e.value.eq_ignore_ascii_case("model")))
            .flat_map(|s| s.values("modelfile"))
            .filter_map(|e| e.value.split_whitespace().next().map(|t| (t.to_string(), e.line)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_comments_and_lines() {
        let text = b"; a mech\r\n[video]\r\nobject=rb3.bgf rb3l.bgf  // low twin\r\n\r\n[gamedata]\r\nclass = Unscalable ; trailing\r\nstray\r\n";
        let f = IniFile::parse(text).unwrap();
        assert_eq!(f.sections.len(), 2);
        assert_eq!(f.sections[1].entries[0], Entry { key: "class".into(), value: "Unscalable".into(), line: 6 });
        assert_eq!(f.stray_lines, vec![(7, "stray".to_string())]);
        assert_eq!(f.mod_video_objects(), vec![("rb3.bgf".to_string(), 3), ("rb3l.bgf".to_string(), 3)]);
    }

    #[test]
    fn map_models_come_from_type_model_sections() {
        let text = b"[hall2]\ntype=model\nmodelfile=hall2.mod\n[one]\ntype=dropzone\n[arena1]\ntype=map\ninstance=hall2 0 0 0 0 0 0\n[x]\nTYPE=Model\nModelFile=X.MOD extra\n";
        let f = IniFile::parse(text).unwrap();
        assert_eq!(f.map_model_files(), vec![("hall2.mod".to_string(), 3), ("X.MOD".to_string(), 11)]);
    }

    #[test]
    fn latin1_and_oversize() {
        let f = IniFile::parse(b"[caf\xe9]\nk=v\n").unwrap();
        assert_eq!(f.sections[0].name, "caf\u{e9}");
        assert!(IniFile::parse(&vec![b' '; MAX_BYTES + 1]).is_err());
    }
}
