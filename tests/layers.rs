//! What the compiler cannot see of docs/architecture.md's layers. The layers are crates, so
//! the compiler refuses a format naming the archive; this checks the rest on the source:
//! which crate each crate's manifest lets it use, which module names which inside one crate
//! (`crate::…` and `super::…` paths, test modules and comments aside), and how long the glue
//! and the page's modules are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Source with comments, string and char literals blanked and `#[cfg(test)] mod … { … }`
/// blocks removed: what the built library names.
fn code_of(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i + 1 < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            // A path in a string names a module too (`#[serde(with = "crate::pod_serde::…")]`).
            let text = &src[start..i.min(b.len())];
            i += 1;
            if text.starts_with("crate::") || text.starts_with("super::") {
                out.push(' ');
                out.push_str(text);
                out.push(' ');
            } else {
                out.push_str("\"\"");
            }
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('x' or '\n'); a lifetime has no closing quote.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    // Drop test modules: from `#[cfg(test)]` (or `#[cfg(all(test, …))]`, tests that need
    // features) followed by `mod x {` to its closing brace.
    let mut kept = String::with_capacity(out.len());
    let mut rest = out.as_str();
    let test_attribute = |s: &str| {
        ["#[cfg(test)]", "#[cfg(all(test,"]
            .iter()
            .filter_map(|a| s.find(a))
            .min()
    };
    while let Some(at) = test_attribute(rest) {
        kept.push_str(&rest[..at]);
        let attribute_end = rest[at..].find(']').map_or(rest.len(), |e| at + e + 1);
        let after = &rest[attribute_end..];
        let trimmed = after.trim_start();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        match (is_mod, after.find('{')) {
            (true, Some(open)) => {
                let body = &after[open + 1..];
                let mut depth = 1;
                let mut end = body.len();
                for (k, c) in body.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &body[end..];
            }
            _ => rest = after,
        }
    }
    kept.push_str(rest);
    kept
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The module paths a file names, before resolving them to modules: `crate::a::b`,
/// `super::x`, and each item of `crate::a::{b, c::d}`.
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if (i > 0 && is_ident(chars[i - 1])) || !chars[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        // Read a path: idents separated by ::, maybe ending in a { … } group.
        let mut segs: Vec<String> = Vec::new();
        let mut j = i;
        loop {
            let s = j;
            while j < chars.len() && is_ident(chars[j]) {
                j += 1;
            }
            if s == j {
                break;
            }
            segs.push(chars[s..j].iter().collect());
            if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                j += 2;
                if chars.get(j) == Some(&'{') {
                    let close = (j..chars.len())
                        .find(|&k| chars[k] == '}')
                        .unwrap_or(chars.len());
                    let group: String = chars[j + 1..close].iter().collect();
                    for item in group.split(',') {
                        let item = item.trim().split(" as ").next().unwrap_or("").trim();
                        let mut p = segs.clone();
                        p.extend(
                            item.split("::")
                                .map(|x| x.trim().to_string())
                                .filter(|x| !x.is_empty() && x != "self"),
                        );
                        out.push(p);
                    }
                    out.push(segs.clone());
                    j = close;
                    segs.clear();
                    break;
                }
            } else {
                break;
            }
        }
        if segs.len() > 1 || (!segs.is_empty() && (segs[0] == "crate" || segs[0] == "super")) {
            out.push(segs);
        }
        i = j.max(start + 1);
    }
    // Make every path absolute (from the crate root).
    out.into_iter()
        .filter_map(|p| {
            if p.first().map(String::as_str) == Some("crate") {
                Some(p[1..].to_vec())
            } else if p.first().map(String::as_str) == Some("super") {
                let ups = p.iter().take_while(|s| *s == "super").count();
                let base = module.len().checked_sub(ups)?;
                let mut abs = module[..base].to_vec();
                abs.extend(p[ups..].iter().cloned());
                Some(abs)
            } else {
                None
            }
        })
        .collect()
}

/// One crate of the workspace, read from its source folder.
struct Crate {
    /// Module path → its code.
    modules: BTreeMap<Vec<String>, String>,
}

impl Crate {
    /// The crate whose source is in `dir` (relative to the workspace: "src", "crates/formats/src").
    fn read(dir: &str) -> Crate {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = Path::new(ROOT).join(dir);
        let mut files = Vec::new();
        walk(&src, &mut files);
        let mut modules = BTreeMap::new();
        for f in files {
            let rel = f.strip_prefix(&src).unwrap().with_extension("");
            let mut path: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if path.last().map(String::as_str) == Some("mod") {
                path.pop();
            }
            if path == ["lib"] || path.first().map(String::as_str) == Some("bin") {
                continue;
            }
            modules.insert(path, code_of(&std::fs::read_to_string(&f).unwrap()));
        }
        Crate { modules }
    }

    /// The formats crate's top-level modules: the families (whose modules give the registry
    /// rows, `pub const FORMATS: &[Format]`), and the rest: the seam they stand on, the
    /// registry among them. And the formats, as (family, format).
    fn families(
        &self,
    ) -> (
        BTreeSet<String>,
        BTreeSet<String>,
        BTreeSet<(String, String)>,
    ) {
        let (mut families, mut all, mut formats) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for (m, code) in &self.modules {
            all.insert(m[0].clone());
            if code.contains("pub const FORMATS: &[Format]") && m.len() >= 2 {
                families.insert(m[0].clone());
                formats.insert((m[0].clone(), m[1].clone()));
            }
        }
        let seam = all.difference(&families).cloned().collect();
        (families, seam, formats)
    }

    /// The module a path names: its longest prefix that is a module.
    fn module_of(&self, path: &[String]) -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].to_vec())
            .find(|p| self.modules.contains_key(p))
    }

    /// Which modules each module names, folded at `depth` below `under` (depth 1 under []: the
    /// top-level modules).
    fn graph(&self, under: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
        let under: Vec<String> = under.iter().map(|s| s.to_string()).collect();
        let n = under.len();
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, code) in &self.modules {
            if m.len() <= n || m[..n] != under[..] {
                continue;
            }
            let from = m[n].clone();
            g.entry(from.clone()).or_default();
            for p in named_paths(m, code) {
                let Some(to) = self.module_of(&p) else {
                    continue;
                };
                if to.len() > n && to[..n] == under[..] && to[n] != from {
                    g.get_mut(&from).unwrap().insert(to[n].clone());
                }
            }
        }
        g
    }
}

/// A cycle of the graph, if there is one, as the modules along it.
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_reader_sees_paths_as_the_compiler_does() {
    let code = code_of(
        "use crate::a::{b, c::D as E};\n// crate::x::y\nfn f() { super::super::z::w(); \"see crate::s::t\"; }\n#[serde(with = \"crate::p::v\")]\n#[cfg(test)]\nmod tests { use crate::q::r; }\n",
    );
    let module = vec!["m".to_string(), "n".to_string(), "o".to_string()];
    let named: BTreeSet<Vec<String>> = named_paths(&module, &code).into_iter().collect();
    let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(
        named.contains(&p(&["a", "b"]))
            && named.contains(&p(&["a", "c", "D"]))
            && named.contains(&p(&["m", "z", "w"])),
        "{named:?}"
    );
    assert!(
        named.contains(&p(&["p", "v"])),
        "a serde path in an attribute names its module: {named:?}"
    );
    assert!(
        !named
            .iter()
            .any(|n| n[0] == "x" || n[0] == "s" || n[0] == "q"),
        "comments, strings and test modules name nothing: {named:?}"
    );
    let g: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"])]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect();
    assert_eq!(cycle(&g), Some(p(&["a", "b", "c", "a"])));
}

/// The workspace's crates: the folder of each one's source, and the workspace crates its
/// manifest lets it use (docs/architecture.md draws the same).
const CRATES: &[(&str, &str, &[&str])] = &[
    ("relicview-model", "crates/model/src", &[]),
    (
        "relicview-formats",
        "crates/formats/src",
        &["relicview-model"],
    ),
    ("relicview-containers", "crates/containers/src", &[]),
    (
        "relicview-services",
        "crates/services/src",
        &[
            "relicview-model",
            "relicview-formats",
            "relicview-containers",
        ],
    ),
    ("relicview-view", "crates/view/src", &["relicview-model"]),
    (
        "relicview-render",
        "crates/render/src",
        &["relicview-model", "relicview-view"],
    ),
    (
        "relicview-web-glue",
        "crates/web-glue/src",
        &["relicview-model"],
    ),
    (
        "relicview-web-containers",
        "crates/web-containers/src",
        &["relicview-containers", "relicview-web-glue"],
    ),
    (
        "relicview-web-tools",
        "crates/web-tools/src",
        &[
            "relicview-model",
            "relicview-formats",
            "relicview-services",
            "relicview-web-glue",
        ],
    ),
    (
        "relicview",
        "src",
        &[
            "relicview-model",
            "relicview-formats",
            "relicview-containers",
            "relicview-services",
            "relicview-view",
            "relicview-render",
            "relicview-web-glue",
        ],
    ),
];

/// The workspace crates a manifest names in its dependency tables, dev-dependencies aside.
fn workspace_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line.ends_with("dependencies]")
                && !line.contains("dev-dependencies")
                && !line.starts_with("[workspace");
        } else if in_dependencies && line.starts_with("relicview-") {
            named.insert(line.split(['.', ' ', '=']).next().unwrap().to_string());
        }
    }
    named
}

#[test]
fn each_crate_uses_only_the_layers_below_it() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(Path::new(ROOT).join("crates"))
        .unwrap()
        .map(|e| format!("crates/{}/src", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let listed: BTreeSet<String> = CRATES
        .iter()
        .filter(|c| c.0 != "relicview")
        .map(|c| c.1.to_string())
        .collect();
    assert_eq!(
        on_disk, listed,
        "every crate of the workspace has its row here and in docs/architecture.md"
    );
    let sample = "[dependencies]\nrelicview-model.workspace = true\nserde = \"1\"\n[target.'cfg(x)'.dependencies]\nrelicview-render = { path = \"r\" }\n[dev-dependencies]\nrelicview-services.workspace = true\n";
    assert_eq!(
        workspace_dependencies(sample),
        ["relicview-model", "relicview-render"]
            .map(String::from)
            .into()
    );
    for (name, src, allowed) in CRATES {
        let manifest = std::fs::read_to_string(
            Path::new(ROOT)
                .join(src)
                .parent()
                .unwrap()
                .join("Cargo.toml"),
        )
        .unwrap();
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{src}'s manifest names {name}"
        );
        let used = workspace_dependencies(&manifest);
        let above: Vec<&String> = used
            .iter()
            .filter(|d| !allowed.contains(&d.as_str()))
            .collect();
        assert!(
            above.is_empty(),
            "{name} uses {above:?}, which are not below it"
        );
    }
}

#[test]
fn no_two_modules_of_a_crate_need_each_other() {
    for (name, src, _) in CRATES {
        let c = Crate::read(src);
        let mut under: Vec<Vec<&str>> = vec![vec![]];
        // Inside a folder too: a family's formats, a format's files, the renderer's, the
        // glue's, the viewer's state.
        under.extend(
            c.modules
                .keys()
                .flat_map(|m| (1..m.len()).map(move |k| &m[..k]))
                .map(|m| m.iter().map(String::as_str).collect::<Vec<_>>())
                .collect::<BTreeSet<_>>(),
        );
        for under in &under {
            let g = c.graph(under);
            assert!(
                cycle(&g).is_none(),
                "{name}, under {under:?}: {:?} need each other; the graph: {g:#?}",
                cycle(&g).unwrap()
            );
        }
    }
    let formats = Crate::read("crates/formats/src");
    assert!(
        formats
            .modules
            .keys()
            .filter(|m| m.len() == 3)
            .map(|m| &m[..2])
            .collect::<BTreeSet<_>>()
            .len()
            >= 4,
        "the format folders are found"
    );
}

#[test]
fn the_seam_names_no_format_and_the_leaves_name_nothing() {
    // The seam the formats stand on (the registry too) names none of them: the families list
    // them, and the crate's lib.rs the families, so a format is added by its folder and a
    // line in its family.
    let c = Crate::read("crates/formats/src");
    let f = c.graph(&[]);
    let (families, mut seam, formats) = c.families();
    // The demo files are written by the formats' writers: above them, in their crate only so
    // that the formats' tests can read them; no format's code (tests aside) names them.
    assert!(seam.remove("demo"), "the demo files are beside the formats");
    assert_eq!(
        families,
        ["common", "ff7", "pods"].map(String::from).into(),
        "the families (formats {formats:?}, seam {seam:?})"
    );
    assert!(
        formats.len() >= 9 && seam.contains("kind") && seam.contains("registry"),
        "formats {formats:?}, seam {seam:?}"
    );
    for module in &seam {
        let named: Vec<&String> = f[module].iter().filter(|m| families.contains(*m)).collect();
        // The registry's last word, what no row recognises, is the common bytes view.
        let allowed = |m: &&String| module == "registry" && m.as_str() == "common";
        let named: Vec<&String> = named.into_iter().filter(|m| !allowed(m)).collect();
        assert!(
            named.is_empty(),
            "the formats crate's {module} is not a format (it gives no rows), yet names {named:?}"
        );
    }
    // A family leans on the seam and the common formats, never on another family: each
    // builds alone (the crate's features).
    for family in &families {
        let others: Vec<&String> = f[family]
            .iter()
            .filter(|m| families.contains(*m) && *m != "common")
            .collect();
        assert!(others.is_empty(), "the {family} family names {others:?}");
        assert!(
            family != "common" || !f[family].iter().any(|m| families.contains(m)),
            "the common formats name {:?}",
            f[family]
        );
    }
    for module in families.iter().chain(&seam) {
        assert!(
            !f[module].contains("demo"),
            "{module} names the demo files outside its tests"
        );
    }
    // Inside the neutral crate: the leaves every layer uses name nothing of it.
    let g = Crate::read("crates/model/src").graph(&[]);
    for leaf in ["findings", "pod_serde", "words"] {
        assert!(
            g[leaf].is_empty(),
            "{leaf} is a leaf, but names {:?}",
            g[leaf]
        );
    }
}

#[test]
fn the_glue_and_the_page_are_split_into_files_a_reader_can_hold() {
    for dir in [
        "src/web",
        "crates/web-glue/src",
        "crates/web-containers/src",
        "crates/web-tools/src",
        "www",
    ] {
        let mut folders = vec![Path::new(ROOT).join(dir)];
        while let Some(folder) = folders.pop() {
            for e in std::fs::read_dir(folder).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    folders.push(p);
                } else if p.extension().is_some_and(|x| x == "rs" || x == "js") {
                    let lines = std::fs::read_to_string(&p).unwrap().lines().count();
                    assert!(lines <= 700, "{} has {lines} lines", p.display());
                }
            }
        }
    }
}

/// The page's scripts: every .js file in www/'s tier folders (www/ground/state.js …).
fn page_files() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for folder in std::fs::read_dir(Path::new(ROOT).join("www")).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&folder).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "js") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_page_state_is_defined_in_one_place() {
    // `state.x = …` only for fields the state module defines.
    let defined = std::fs::read_to_string(Path::new(ROOT).join("www/ground/state.js")).unwrap();
    let start = defined
        .find("export const state = {")
        .expect("state.js defines the state");
    let body = &defined[start
        ..defined[start..]
            .find("\n};")
            .map_or(defined.len(), |e| start + e)];
    let fields: BTreeSet<&str> = body
        .lines()
        .filter_map(|l| l.trim().split_once(':').map(|(k, _)| k.trim()))
        .filter(|k| k.chars().all(|c| c.is_ascii_alphanumeric()))
        .collect();
    for p in page_files() {
        let text = std::fs::read_to_string(&p).unwrap();
        for (at, _) in text.match_indices("state.") {
            if at > 0
                && (text.as_bytes()[at - 1].is_ascii_alphanumeric()
                    || text.as_bytes()[at - 1] == b'.')
            {
                continue;
            }
            let name: String = text[at + 6..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let after = text[at + 6 + name.len()..].trim_start();
            let assigned = after.starts_with('=') && !after.starts_with("==")
                || after.starts_with("||=")
                || after.starts_with("??=");
            assert!(
                !assigned || fields.contains(name.as_str()),
                "{} sets state.{name}, which state.js does not define",
                p.display()
            );
        }
    }
}

/// The page's modules (www/<folder>/*.js): each one's name (without `.js`) and its code, its
/// comment lines left out.
fn page_modules() -> Vec<(String, String)> {
    page_modules_in_folders()
        .into_iter()
        .map(|(name, _, code)| (name, code))
        .collect()
}

/// [`page_modules`] with the folder each is in.
fn page_modules_in_folders() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for p in page_files() {
        let folder = p
            .parent()
            .and_then(Path::file_name)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let code: String = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        out.push((
            p.file_stem().unwrap().to_string_lossy().into_owned(),
            folder,
            code,
        ));
    }
    out
}

/// The page modules a module's code imports statically. An import names its module after
/// `from` (on the import's last line, when the formatter breaks a long one) or, for its
/// effects alone, right after `import`, by a path to its own folder (`./state.js`) or to a
/// sibling folder (`../ground/state.js`); the wasm modules' glue (`../../pkg/…`) is not a
/// page module.
fn page_imports(code: &str) -> Vec<String> {
    page_import_paths(code)
        .into_iter()
        .map(|path| path.rsplit('/').next().unwrap_or(&path).to_string())
        .collect()
}

/// The paths of [`page_imports`], as written, without `.js`.
fn page_import_paths(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            l.split_once(" from '")
                .or_else(|| l.split_once("import '"))
                .map(|(_, rest)| rest)
        })
        .filter(|rest| {
            rest.starts_with("./") || rest.starts_with("../") && !rest.starts_with("../../")
        })
        .filter_map(|rest| rest.split(".js'").next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_page_modules_import_downward_only() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in page_modules() {
        let imports = page_imports(&code);
        g.entry(name).or_default().extend(imports);
    }
    assert!(
        g["main"].contains("state"),
        "the reader finds the imports: {g:?}"
    );
    assert!(
        cycle(&g).is_none(),
        "www/ modules import each other: {:?}",
        cycle(&g).unwrap()
    );
}

#[test]
fn no_page_module_calls_up_through_the_api_or_an_event_and_the_viewpoint_has_one_writer() {
    // window.relicview is for scripts: a module that called through it would reach above
    // itself where its imports cannot show it. Nor does a module ask one above it through an
    // event of ours: it asks through requests.js, whose answers main.js alone gives; the only
    // event the page sends is `relicview:frame`, outward, for scripts (docs/api.md). And
    // state.viewpoint, which fly mode reads, is written by controls.js alone (the others ask
    // it to leave the viewpoint).
    let mut writers = BTreeSet::new();
    let mut answering = BTreeSet::new();
    for p in page_files() {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let code: String = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            name == "api.js" || !code.contains("window.relicview."),
            "{name} calls through window.relicview"
        );
        for event in code
            .match_indices("new CustomEvent('")
            .map(|(at, _)| &code[at + 17..])
        {
            let event = &event[..event.find('\'').unwrap_or(0)];
            assert!(
                event == "relicview:frame" || !event.starts_with("relicview:"),
                "{name} sends {event}: a request goes through requests.js"
            );
        }
        if code.contains("answerRequests(") && name != "requests.js" {
            answering.insert(name.clone());
        }
        if code.contains("state.viewpoint = ") {
            writers.insert(name);
        }
    }
    assert_eq!(
        answering,
        BTreeSet::from(["main.js".to_string()]),
        "the requests are answered by main.js alone"
    );
    assert_eq!(
        writers,
        BTreeSet::from(["controls.js".to_string()]),
        "state.viewpoint is written by controls.js alone"
    );
}

/// The fields of `state` (www/ground/state.js) a piece of page code writes: `state.f = …`,
/// `state.f.g = …` (a part of it), `state.f += …`, `state.f++`, `++state.f` and the like.
fn state_fields_written(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("state.") {
        if code[..at].ends_with(|c: char| is_ident(c) || c == '.') {
            continue;
        }
        let rest = &code[at + 6..];
        let field: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        let mut after = &rest[field.len()..];
        if let Some(sub) = after.strip_prefix('.') {
            let part: String = sub.chars().take_while(|&c| is_ident(c)).collect();
            after = &sub[part.len()..];
            if after.trim_start().starts_with('(') {
                continue; // a method call asks the field's object: not a write
            }
        }
        let after = after.trim_start();
        let assigns = ["=", "+=", "-=", "||=", "??=", "&&=", "++", "--"]
            .iter()
            .any(|op| after.starts_with(op))
            && !after.starts_with("==");
        if !field.is_empty()
            && (assigns || code[..at].ends_with("++") || code[..at].ends_with("--"))
        {
            out.insert(field);
        }
    }
    out
}

/// The page's modules as docs/architecture.md draws them ("The page's modules"): each
/// module's tier (its place in the order the table gives them) and the state fields it owns.
fn page_table() -> BTreeMap<String, (usize, String, BTreeSet<String>)> {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/architecture.md")).unwrap();
    let start = doc
        .find("### The page's modules")
        .expect("docs/architecture.md draws the page's modules");
    let mut tiers: Vec<String> = Vec::new();
    let mut out = BTreeMap::new();
    for line in doc[start..]
        .lines()
        .skip_while(|l| !l.starts_with("| tier"))
        .skip(2)
    {
        let Some(row) = line.strip_prefix('|') else {
            break;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let [tier, module, _, owns, ..] = cells[..] else {
            panic!("a row of four cells: {line}")
        };
        if tiers.last().map(String::as_str) != Some(tier) {
            assert!(
                !tiers.iter().any(|t| t == tier),
                "tier {tier} is split in the table"
            );
            tiers.push(tier.to_string());
        }
        let owned = owns
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        let name = module.trim_end_matches(".js").to_string();
        assert!(
            out.insert(name, (tiers.len() - 1, tier.to_string(), owned))
                .is_none(),
            "{module} is listed twice"
        );
    }
    out
}

#[test]
fn the_page_modules_are_as_the_architecture_draws_them() {
    // Every module in the table and every one of the table a module, in the folder of its
    // tier (www/ground/, www/panes/ …; "apart", the workers, which import only each other:
    // www/workers/); each import to its own tier or one before it, by its folder; the state
    // fields each writes are the ones the table says it owns, and it writes each of them.
    let table = page_table();
    let folder_of = |tier: &str| {
        if tier == "apart" {
            "workers".to_string()
        } else {
            tier.to_string()
        }
    };
    let mut modules = BTreeSet::new();
    let mut wrong = Vec::new();
    for (name, folder, code) in page_modules_in_folders() {
        modules.insert(name.clone());
        let Some((tier, tier_name, owns)) = table.get(&name) else {
            wrong.push(format!("{name}.js is not in docs/architecture.md's table"));
            continue;
        };
        if folder != folder_of(tier_name) {
            wrong.push(format!(
                "{name}.js ({tier_name}) is in www/{folder}/, not www/{}/",
                folder_of(tier_name)
            ));
        }
        for path in page_import_paths(&code) {
            let imported = path.rsplit('/').next().unwrap_or(&path);
            let expected = match table.get(imported) {
                Some((_, t_name, _)) if folder_of(t_name) == folder => format!("./{imported}"),
                Some((_, t_name, _)) => format!("../{}/{imported}", folder_of(t_name)),
                None => continue,
            };
            if path != expected {
                wrong.push(format!("{name}.js imports {path}.js, not {expected}.js"));
            }
        }
        for imported in page_imports(&code) {
            let imported = imported.as_str();
            match table.get(imported) {
                None => wrong.push(format!("{name}.js imports {imported}.js, not in the table")),
                Some((t, t_name, _))
                    if (tier_name == "apart") != (t_name == "apart") || t > tier =>
                {
                    wrong.push(format!(
                        "{name}.js ({tier_name}) imports {imported}.js ({t_name}), a tier after it"
                    ))
                }
                Some(_) => {}
            }
        }
        let writes = if name == "state" {
            BTreeSet::new()
        } else {
            state_fields_written(&code)
        };
        if &writes != owns {
            wrong.push(format!(
                "{name}.js writes {writes:?} of state; the table says it owns {owns:?}"
            ));
        }
    }
    for name in table.keys().filter(|n| !modules.contains(*n)) {
        wrong.push(format!("{name}.js is in the table but not in www/"));
    }
    assert!(table.len() > 40, "the reader finds the table: {table:?}");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn each_page_state_field_is_written_by_one_module() {
    // The others ask the module that owns it (opens.js: what is on show and the opens asked
    // for; compareview.js: the comparison; controls.js: the viewpoint …).
    assert_eq!(
        state_fields_written("state.a = 1; state.b.c = 2; x.state.d = 3; state.e === f; state.g.h(); ++state.i; state.j ||= k; state.l.m(n = 1)"),
        BTreeSet::from(["a", "b", "i", "j"].map(String::from))
    );
    let mut writers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in page_modules().into_iter().filter(|(n, _)| n != "state") {
        for field in state_fields_written(&code) {
            writers
                .entry(field)
                .or_default()
                .insert(format!("{name}.js"));
        }
    }
    assert!(writers.len() > 20, "{writers:?}");
    let shared: BTreeMap<&String, &BTreeSet<String>> =
        writers.iter().filter(|(_, w)| w.len() > 1).collect();
    assert!(
        shared.is_empty(),
        "fields written by more than one module: {shared:?}"
    );
    assert_eq!(writers["current"], BTreeSet::from(["opens.js".to_string()]));
}

#[test]
fn every_page_module_is_type_checked() {
    // ./test.sh runs tsc over www/ (tsconfig.json, www/workers/tsconfig.json) against the
    // core's generated declarations; each module says so at its top, for editors too.
    let mut modules = 0;
    for p in page_files() {
        {
            let code = std::fs::read_to_string(&p).unwrap();
            assert!(
                code.starts_with("// @ts-check\n"),
                "{} does not start with // @ts-check",
                p.display()
            );
            modules += 1;
        }
    }
    assert!(modules > 40, "{modules}");
    let config = std::fs::read_to_string(Path::new(ROOT).join("tsconfig.json")).unwrap();
    assert!(
        config.contains("\"checkJs\": true")
            && config.contains("\"strict\": true")
            && config.contains("pkg/relicview.d.ts"),
        "{config}"
    );
}

/// The DOM type an element of `tag` is (the tags index.html gives an id).
fn element_type(tag: &str) -> &'static str {
    match tag {
        "a" => "HTMLAnchorElement",
        "button" => "HTMLButtonElement",
        "canvas" => "HTMLCanvasElement",
        "details" => "HTMLDetailsElement",
        "dialog" => "HTMLDialogElement",
        "div" => "HTMLDivElement",
        "dl" => "HTMLDListElement",
        "form" => "HTMLFormElement",
        "h1" | "h2" | "h3" | "h4" => "HTMLHeadingElement",
        "input" => "HTMLInputElement",
        "label" => "HTMLLabelElement",
        "li" => "HTMLLIElement",
        "ol" => "HTMLOListElement",
        "p" => "HTMLParagraphElement",
        "pre" => "HTMLPreElement",
        "progress" => "HTMLProgressElement",
        "select" => "HTMLSelectElement",
        "span" => "HTMLSpanElement",
        "svg" => "SVGSVGElement",
        "table" => "HTMLTableElement",
        "textarea" => "HTMLTextAreaElement",
        "ul" => "HTMLUListElement",
        // aside, b, header, main, nav, section …: no type of their own.
        _ => "HTMLElement",
    }
}

#[test]
fn the_page_elements_by_id_are_index_html_s_id_for_id_and_tag_for_tag() {
    // `$(id)` (www/ground/state.js) is typed by www/ground/page-elements.d.ts: an id missing there does not
    // type-check, and one typed as another element than index.html makes would lie to tsc.
    let html = std::fs::read_to_string(Path::new(ROOT).join("index.html")).unwrap();
    let mut from_html = BTreeMap::new();
    for tag in html.split('<').skip(1) {
        let Some(end) = tag.find('>') else { continue };
        let tag = &tag[..end];
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            continue; // a closing tag, a comment, the doctype
        }
        if let Some(at) = tag.find(" id=\"") {
            let id = &tag[at + 5..];
            let id = &id[..id.find('"').unwrap()];
            assert!(
                from_html
                    .insert(id.to_string(), element_type(&name.to_ascii_lowercase()))
                    .is_none(),
                "index.html has id {id} twice"
            );
        }
    }
    assert!(
        from_html.len() > 100,
        "the reader finds the ids: {from_html:?}"
    );
    let typed =
        std::fs::read_to_string(Path::new(ROOT).join("www/ground/page-elements.d.ts")).unwrap();
    let from_types: BTreeMap<String, &str> = typed
        .lines()
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(_, ty)| ty.ends_with(';'))
        .map(|(id, ty)| (id.trim_matches('\'').to_string(), ty.trim_end_matches(';')))
        .collect();
    let differing: Vec<_> = from_html
        .iter()
        .filter(|(id, ty)| from_types.get(*id) != Some(*ty))
        .map(|(id, ty)| {
            format!(
                "{id}: index.html makes {ty}, page-elements.d.ts says {:?}",
                from_types.get(id)
            )
        })
        .chain(
            from_types
                .keys()
                .filter(|id| !from_html.contains_key(*id))
                .map(|id| format!("{id}: in page-elements.d.ts, not in index.html")),
        )
        .collect();
    assert!(differing.is_empty(), "{differing:#?}");
}
