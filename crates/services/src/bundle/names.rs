//! Names for what an archive's files export to, as paths under one output folder (or zip):
//! whatever an entry's name holds (`..`, an absolute path, a drive letter, characters a file
//! system refuses, a device name, names that differ only in case, a file and a folder of
//! one name), the name given stays inside and takes nothing another name took. Every name
//! given that is not the one asked for is listed, with why.

use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The longest a step of a name may be, in bytes (file systems allow 255).
const MAX_STEP: usize = 200;

/// Names device files have on Windows, whatever their extension.
const DEVICES: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    pub from: String,
    pub to: String,
    pub why: String,
}

/// The names given so far (without regard to case, as on the file systems that ignore it).
#[derive(Debug, Default)]
pub struct SafeNames {
    files: HashSet<String>,
    dirs: HashSet<String>,
    /// Folders renamed (for a file of their name), by their name as asked for: everything
    /// under one goes under its new name.
    moved_dirs: HashMap<String, String>,
    pub renamed: Vec<Renamed>,
}

/// One step of a name made safe, and why it changed.
fn clean_step(step: &str, why: &mut Vec<&'static str>) -> String {
    if step == ".." {
        why.push("a step up (..)");
        return "__".into();
    }
    let mut out: String = step
        .chars()
        .map(|c| {
            if c.is_control() || "<>:\"|?*\\".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    if out != step {
        why.push(if step.len() == 2 && step.ends_with(':') {
            "a drive letter"
        } else {
            "characters a file system refuses"
        });
    }
    // Windows drops trailing dots and spaces: "A." would be "A".
    if out.ends_with('.') || out.ends_with(' ') {
        let trimmed = out.trim_end_matches(['.', ' ']).len();
        out = format!("{}{}", &out[..trimmed], "_".repeat(out.len() - trimmed));
        why.push("a trailing dot or space");
    }
    let stem = out.split('.').next().unwrap_or("").to_ascii_lowercase();
    if DEVICES.contains(&stem.as_str()) {
        out.insert(0, '_');
        why.push("a device's name on Windows");
    }
    if out.len() > MAX_STEP {
        let mut end = MAX_STEP;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        why.push("longer than 200 bytes");
    }
    out
}

/// `name` with `~k` before its extension.
fn numbered(name: &str, k: usize) -> String {
    match name.rfind('.').filter(|&i| i > 0) {
        Some(i) => format!("{}~{k}{}", &name[..i], &name[i..]),
        None => format!("{name}~{k}"),
    }
}

impl SafeNames {
    /// Take `name` before any file asks for it (the report's own name).
    pub fn reserve(&mut self, name: &str) {
        self.files.insert(name.to_lowercase());
    }

    /// The name `wanted` (an archive path and what its output adds, `/`-separated) is
    /// written under.
    pub fn claim(&mut self, wanted: &str) -> String {
        let (mut steps, mut why) = clean_steps(wanted);
        // Folders: where a file already has a folder's name, the folder takes another.
        for i in 0..steps.len() - 1 {
            let asked = steps[..=i].join("/").to_lowercase();
            if let Some(moved) = self.moved_dirs.get(&asked) {
                let moved: Vec<String> = moved.split('/').map(String::from).collect();
                steps.splice(..=i, moved);
                continue;
            }
            if self.files.contains(&asked) {
                let step = self.free_folder_name(&steps[..i].join("/"), &steps[i]);
                steps[i] = step;
                self.moved_dirs.insert(asked, steps[..=i].join("/"));
                why.push("a folder of the same name as a file");
            }
        }
        let mut name = steps.join("/");
        if self.files.contains(&name.to_lowercase()) || self.dirs.contains(&name.to_lowercase()) {
            let mut k = 2;
            while self.files.contains(&numbered(&name, k).to_lowercase())
                || self.dirs.contains(&numbered(&name, k).to_lowercase())
            {
                k += 1;
            }
            why.push(if self.dirs.contains(&name.to_lowercase()) {
                "a folder of the same name"
            } else {
                "another name the same but for case"
            });
            name = numbered(&name, k);
        }
        self.files.insert(name.to_lowercase());
        let parts: Vec<&str> = name.split('/').collect();
        for i in 1..parts.len() {
            self.dirs.insert(parts[..i].join("/").to_lowercase());
        }
        if name != wanted {
            self.renamed.push(Renamed {
                from: wanted.to_string(),
                to: name.clone(),
                why: why.join("; "),
            });
        }
        name
    }

    /// The first of `step` numbered 2, 3 … that no file or folder in `prefix` has.
    fn free_folder_name(&self, prefix: &str, step: &str) -> String {
        let mut k = 2;
        loop {
            let candidate = numbered(step, k);
            let full = if prefix.is_empty() {
                candidate.clone()
            } else {
                format!("{prefix}/{candidate}")
            };
            if !self.files.contains(&full.to_lowercase())
                && !self.dirs.contains(&full.to_lowercase())
            {
                return candidate;
            }
            k += 1;
        }
    }
}

/// `wanted`'s path steps, each made a name a file system takes (at least one), and why any
/// was changed.
fn clean_steps(wanted: &str) -> (Vec<String>, Vec<&'static str>) {
    let mut why: Vec<&'static str> = Vec::new();
    if wanted.starts_with('/') || wanted.starts_with('\\') {
        why.push("an absolute path");
    }
    let mut steps: Vec<String> = Vec::new();
    for step in wanted.split(['/', '\\']) {
        if step.is_empty() || step == "." {
            if !step.is_empty() && !why.contains(&"a '.' step") {
                why.push("a '.' step");
            }
            continue;
        }
        steps.push(clean_step(step, &mut why));
    }
    if steps.is_empty() {
        steps.push("_".into());
        why.push("no name");
    }
    (steps, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_stay_inside_and_say_why() {
        let mut n = SafeNames::default();
        for (wanted, given) in [
            ("../../etc/passwd.png", "__/__/etc/passwd.png"),
            ("/abs/X.glb", "abs/X.glb"),
            ("C:/win/Y.png", "C_/win/Y.png"),
            ("a/./b\\c.png", "a/b/c.png"),
            ("dev/CON.TGA.png", "dev/_CON.TGA.png"),
            ("tail. /z.png", "tail__/z.png"),
            ("q?<>.png", "q___.png"),
            ("", "_"),
        ] {
            let got = n.claim(wanted);
            assert_eq!(got, given, "{wanted}");
            assert!(
                !got.split('/')
                    .any(|s| s == ".." || s.is_empty() || s == "."),
                "{got}"
            );
        }
        assert_eq!(n.renamed.len(), 8, "each renaming listed: {:?}", n.renamed);
        assert!(n.renamed.iter().any(|r| r.why.contains("drive letter")));
        assert!(n.renamed.iter().any(|r| r.why.contains("step up")));
    }

    #[test]
    fn names_that_differ_only_in_case_and_files_named_as_folders_take_other_names() {
        let mut n = SafeNames::default();
        n.reserve("report.json");
        assert_eq!(n.claim("Report.json"), "Report~2.json");
        assert_eq!(n.claim("A/CRATE.BGF.glb"), "A/CRATE.BGF.glb");
        assert_eq!(n.claim("a/crate.bgf.glb"), "a/crate.bgf~2.glb");
        // A file named as a folder already holding files, and files under a folder named as
        // a file: each keeps apart, and what is under a renamed folder follows it.
        assert_eq!(n.claim("a"), "a~2");
        assert_eq!(n.claim("x.png"), "x.png");
        assert_eq!(n.claim("x.png/y.png"), "x~2.png/y.png");
        assert_eq!(n.claim("X.PNG/z.png"), "x~2.png/z.png");
        assert_eq!(n.renamed.len(), 5);
    }
}
