//! Every link form the README, the docs and the tests use still reads as it did: each key
//! they name is one the core's link reads (crates/view/src/link.rs), and each literal link
//! reads back, written again by the core, with the same keys and values.

use relicview::view::ViewLink;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The links written in the repo's prose and tests: `#archive=`, `#folder=`, `#path=` up to
/// the first character that ends one in the text around it.
fn links_in_repo() -> Vec<(String, String)> {
    let mut files = vec![Path::new(ROOT).join("README.md")];
    for dir in ["docs", "tests/e2e", "tests/bench"] {
        for e in std::fs::read_dir(Path::new(ROOT).join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md" || x == "mjs") {
                files.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for start in ["#archive=", "#folder=", "#path="] {
            for (at, _) in text.match_indices(start) {
                let link: String = text[at..]
                    .chars()
                    .take_while(|c| !c.is_whitespace() && !"`'\")<>,;".contains(*c))
                    .collect();
                out.push((f.display().to_string(), link));
            }
        }
    }
    out
}

/// The keys of a fragment, with their values as the browser's URLSearchParams reads them.
fn pairs(fragment: &str) -> BTreeMap<String, String> {
    fragment
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let decode = |s: &str| percent_decode(&s.replace('+', " "));
            (decode(k), decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn every_key_the_repo_writes_in_a_link_is_one_the_core_reads() {
    // Every key a link of every field carries, as the core writes it.
    let full = ViewLink::parse(
        "archive=a&folder=f&path=p&compare=b&cmode=split&split=0.5&row=1&cam=1,2,3,4,5,6,7\
         &lod=1&chunk=2&t=3&paused=1&mode=fly&view=2&hide=doors&choice=1&skeleton=1&wire=1\
         &cull=1&bg=light&light=sun&blink=0&zones=1&grid=1&measure=1,2,3",
    );
    let known: BTreeSet<String> = pairs(&full.fragment()).into_keys().collect();
    assert_eq!(known.len(), 25, "{known:?}");
    let links = links_in_repo();
    assert!(
        links.len() > 20,
        "the reader finds the repo's links: {links:?}"
    );
    let mut unknown = Vec::new();
    for (file, link) in &links {
        for key in pairs(link).keys() {
            // (A template's `${…}` or a `…` stands for a value, not a key.)
            if !known.contains(key)
                && !key.contains('$')
                && !key.contains('…')
                && !key.contains('\\')
            {
                unknown.push(format!("{file}: {link}: {key}"));
            }
        }
    }
    assert!(unknown.is_empty(), "{unknown:#?}");
}

#[test]
fn every_literal_link_in_the_repo_reads_back_the_same() {
    let mut checked = 0;
    for (file, link) in links_in_repo() {
        // Only links written out whole: not a template, a pattern, or one with `…` in it.
        if link.contains('$') || link.contains('…') || link.contains('\\') || link.contains('[') {
            continue;
        }
        let read = ViewLink::parse(&link);
        let written = read.fragment();
        assert_eq!(
            ViewLink::parse(&written),
            read,
            "{file}: {link} → {written}"
        );
        // Written again, the link says what it said: each key with its value (a number as
        // the page writes numbers), none dropped, none added.
        // (A key with no value says nothing, and the page never wrote one back.)
        let mut before = pairs(&link);
        before.retain(|_, v| !v.is_empty());
        let after = pairs(&written);
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "{file}: {link} → {written}"
        );
        for (k, v) in &before {
            let same = after[k] == *v
                || v.parse::<f64>().ok() == after[k].parse::<f64>().ok()
                    && v.parse::<f64>().is_ok();
            assert!(same, "{file}: {link}: {k}={v} came back as {}", after[k]);
        }
        checked += 1;
    }
    assert!(checked >= 8, "{checked} literal links");
}
