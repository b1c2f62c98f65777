//! index.json: what `relicview publish` and `relicview index` write, and the page reads (by
//! [`read_index`], in the core), one set of types for both. Container entries are rows
//! (arrays, not objects) on disk and to the page, which keeps a disc of thousands of files
//! small. docs/publishing.md, "index.json".

use super::{Layout, MAX_PIECES};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest count or offset the index may hold: the page reads numbers as doubles.
const MAX_COUNT: u64 = (1 << 53) - 1;

/// What index.json holds (and `relicview serve`'s archive.json, which lists files alone).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct HostedIndex {
    /// What the archive is called (its folder's or its container's name).
    #[serde(default)]
    pub root: String,
    /// Where the files are, relative to the index's own URL (or an absolute URL).
    #[serde(default)]
    pub base: String,
    /// Files served whole: loose files, and containers that could not be opened (with why).
    pub files: Vec<HostedFile>,
    /// Containers whose entries are listed and read by range.
    #[serde(default)]
    pub containers: Vec<HostedContainer>,
}

/// A file served whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct HostedFile {
    pub path: String,
    pub size: u64,
    /// What the file is by its content, so the page need not fetch it to type it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub kind: Option<String>,
    /// A container that could not be opened (listed as the file it is): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub failure: Option<String>,
    /// What opening it reads besides it (its libraries, textures, a world's models): the
    /// page fetches them with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub refs: Vec<String>,
}

/// A container in the index: its entries are listed under `path`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct HostedContainer {
    /// Its name in the listing (a cue sheet's, for the disc it names).
    pub path: String,
    /// The file its bytes are in, relative to the base (a cue sheet's .bin).
    pub file: String,
    /// That file's size: a host that serves another size holds another file.
    pub size: u64,
    /// (Named as a type of its own, so that the TypeScript is an intersection: an interface
    /// cannot extend a union.)
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Layout"))]
    pub layout: Layout,
    /// Ranges every entry's read needs first (a CHD's header and map).
    pub meta: Vec<[u64; 2]>,
    /// One row an entry (see [`HostedEntry`]).
    #[cfg_attr(
        target_arch = "wasm32",
        tsify(
            type = "[path: string, size: number, kind: string, at: number, crc32: string, ranges: [number, number][], pieces?: [number, number][]][]"
        )
    )]
    pub entries: Vec<HostedEntry>,
    /// Entries that could not be read when the index was made, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub problems: Vec<String>,
    /// A container inside another (a zip in a zip): its bytes are that container's entry,
    /// read as the page reads any entry, and `size`, `meta` and the rows' ranges are
    /// offsets in those bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub inside: Option<Inside>,
}

/// Where a nested container's bytes are: an entry of another container of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Inside {
    /// The outer container's `path` in the index.
    pub container: String,
    /// The entry's path in it.
    pub entry: String,
}

/// One entry of a hosted container, written as the row `[path, size, kind, at, crc32,
/// ranges]`, with a seventh, `pieces`, for a disc file written in several extents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostedEntry {
    /// Its path inside the container.
    pub path: String,
    pub size: u64,
    /// What it is by its content.
    pub kind: String,
    /// Where it starts in the container (see `Container::located`).
    pub at: u64,
    /// Its bytes' CRC-32, as 8 lowercase hex digits.
    pub crc32: String,
    /// The container's ranges `[offset, length]` it is read from.
    pub ranges: Vec<[u64; 2]>,
    /// A disc file's extents `[first byte, length]` in the disc's sectors, when it has
    /// several.
    pub pieces: Option<Vec<[u64; 2]>>,
}

impl Serialize for HostedEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut row = s.serialize_seq(Some(6 + self.pieces.is_some() as usize))?;
        row.serialize_element(&self.path)?;
        row.serialize_element(&self.size)?;
        row.serialize_element(&self.kind)?;
        row.serialize_element(&self.at)?;
        row.serialize_element(&self.crc32)?;
        row.serialize_element(&self.ranges)?;
        if let Some(p) = &self.pieces {
            row.serialize_element(p)?;
        }
        row.end()
    }
}

impl<'de> Deserialize<'de> for HostedEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HostedEntry, D::Error> {
        struct Row;
        impl<'de> Visitor<'de> for Row {
            type Value = HostedEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a row [path, size, kind, offset, CRC-32, ranges] (and extents)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HostedEntry, A::Error> {
                fn item<'de, A: SeqAccess<'de>, T: Deserialize<'de>>(
                    seq: &mut A,
                    what: &str,
                ) -> Result<T, A::Error> {
                    seq.next_element::<T>()?
                        .ok_or_else(|| de::Error::custom(format!("a row without its {what}")))
                }
                let entry = HostedEntry {
                    path: item(&mut seq, "path")?,
                    size: item(&mut seq, "size")?,
                    kind: item(&mut seq, "kind")?,
                    at: item(&mut seq, "offset")?,
                    crc32: item(&mut seq, "CRC-32")?,
                    ranges: item(&mut seq, "ranges")?,
                    pieces: seq.next_element()?,
                };
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom("a row of more than 7 items"));
                }
                let counts = [entry.size, entry.at].into_iter().chain(
                    entry
                        .ranges
                        .iter()
                        .chain(entry.pieces.iter().flatten())
                        .flatten()
                        .copied(),
                );
                if let Some(n) = counts.clone().find(|&n| n > MAX_COUNT) {
                    return Err(de::Error::custom(format!("{n}: more than 2^53")));
                }
                for (what, list) in [
                    ("ranges", Some(&entry.ranges)),
                    ("extents", entry.pieces.as_ref()),
                ] {
                    if list.is_some_and(|l| l.len() > MAX_PIECES) {
                        return Err(de::Error::custom(format!("more than {MAX_PIECES} {what}")));
                    }
                }
                if entry.crc32.len() != 8 || !entry.crc32.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(de::Error::custom(format!(
                        "CRC-32 {:?}: expected 8 hex digits",
                        entry.crc32
                    )));
                }
                Ok(entry)
            }
        }
        d.deserialize_seq(Row)
    }
}

/// An index as the page reads it: what could be read of it, and what was left out, with
/// why (the index comes from a host, and is read as hostile as any file: one bad container
/// or row costs that container or row, not the archive).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ReadIndex {
    #[serde(flatten)]
    pub index: HostedIndex,
    /// What was left out, and why.
    pub problems: Vec<String>,
}

/// index.json (or archive.json) as the page reads it; none where `bytes` is not a listing
/// at all (not JSON, or no list of files). At most `max_listed` files and container entries
/// are kept, in the index's order (the rest are counted among the problems). Each file,
/// container and row is read on its own, so that one that is wrong costs only itself.
pub fn read_index(bytes: &[u8], max_listed: usize) -> Option<ReadIndex> {
    let Value::Object(mut top) = serde_json::from_slice::<Value>(bytes).ok()? else {
        return None;
    };
    let Some(Value::Array(file_rows)) = top.remove("files") else {
        return None;
    };
    let mut problems = Vec::new();
    let word = |v: Option<Value>| match v {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    let mut index = HostedIndex {
        root: word(top.remove("root")),
        base: word(top.remove("base")),
        ..HostedIndex::default()
    };
    let mut left = max_listed;
    let mut cut = false;
    for (i, row) in file_rows.into_iter().enumerate() {
        match HostedFile::deserialize(row) {
            Ok(_) if left == 0 => cut = true,
            Ok(f) if f.size <= MAX_COUNT => {
                index.files.push(f);
                left -= 1;
            }
            Ok(f) => problems.push(format!("{}: size {}: too large", f.path, f.size)),
            Err(e) => problems.push(format!("file {i}: {e}")),
        }
    }
    let containers = match top.remove("containers") {
        Some(Value::Array(c)) => c,
        _ => Vec::new(),
    };
    for (i, c) in containers.into_iter().enumerate() {
        match read_container(c, &mut left, &mut cut, &mut problems) {
            Ok(c) => index.containers.push(c),
            Err(why) => problems.push(format!("container {i}: {why}")),
        }
    }
    let kept = index.files.len()
        + index
            .containers
            .iter()
            .map(|c| c.entries.len())
            .sum::<usize>();
    if cut {
        problems.push(format!(
            "listed: the first {kept} files; the rest are left out"
        ));
    }
    Some(ReadIndex { index, problems })
}

/// One container of the index, its rows read one by one (a bad row is a problem, not the
/// end of the container).
fn read_container(
    c: Value,
    left: &mut usize,
    cut: &mut bool,
    problems: &mut Vec<String>,
) -> Result<HostedContainer, String> {
    let Value::Object(mut c) = c else {
        return Err("not an object".into());
    };
    // The rows are taken out and read one by one; the container is read with none yet.
    let rows = match c.insert("entries".into(), Value::Array(Vec::new())) {
        Some(Value::Array(rows)) => rows,
        _ => return Err("no list of entries".into()),
    };
    let mut container =
        HostedContainer::deserialize(Value::Object(c)).map_err(|e| e.to_string())?;
    if container.size > MAX_COUNT {
        return Err(format!(
            "{}: size {}: too large",
            container.path, container.size
        ));
    }
    if container.meta.len() > MAX_PIECES {
        return Err(format!(
            "{}: more than {MAX_PIECES} meta ranges",
            container.path
        ));
    }
    let start = match container.layout {
        Layout::Disc { start, .. } => start,
        _ => 0,
    };
    if let Some(n) = container
        .meta
        .iter()
        .flatten()
        .chain([&start])
        .find(|&&n| n > MAX_COUNT)
    {
        return Err(format!("{}: {n}: more than 2^53", container.path));
    }
    for (i, row) in rows.into_iter().enumerate() {
        if *left == 0 {
            *cut = true;
            break;
        }
        match HostedEntry::deserialize(row) {
            Ok(e) => {
                container.entries.push(e);
                *left -= 1;
            }
            Err(e) => problems.push(format!("{}: entry {i}: {e}", container.path)),
        }
    }
    Ok(container)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pieces: Option<Vec<[u64; 2]>>) -> HostedEntry {
        HostedEntry {
            path: "A/B.BSX".into(),
            size: 10,
            kind: "bsx".into(),
            at: 2048,
            crc32: "0123abcd".into(),
            ranges: vec![[2048, 10]],
            pieces,
        }
    }

    #[test]
    fn an_entry_is_a_row_of_six_or_seven_and_reads_back() {
        for e in [entry(None), entry(Some(vec![[0, 4], [4096, 6]]))] {
            let text = serde_json::to_string(&e).unwrap();
            assert!(text.starts_with("[\"A/B.BSX\",10,\"bsx\",2048,\"0123abcd\",[[2048,10]]"));
            assert_eq!(text.matches("]]").count(), 1 + e.pieces.is_some() as usize);
            assert_eq!(serde_json::from_str::<HostedEntry>(&text).unwrap(), e);
        }
    }

    #[test]
    fn bad_rows_and_containers_are_left_out_with_why_and_the_rest_kept() {
        let text = br#"{"root":"R","base":"archive/","files":[{"path":"a.bgf","size":3,"kind":"bgf"},{"path":7}],
          "containers":[
            {"path":"D.ISO","file":"D.ISO","size":4096,"kind":"disc","mode":"COOKED","start":0,"meta":[],
             "entries":[["X",1,"bytes",0,"00000000",[[0,1]]],["Y",1,"bytes",0,"nothex!!",[[0,1]]],["Z",-1,"bytes",0,"00000000",[]],["W",1,"bytes",0,"00000000",[[0,1]],[[0,1]],9],["V",9007199254740993,"bytes",0,"00000000",[[0,1]]]]},
            {"path":"E.ZIP","file":"E.ZIP","size":10,"kind":"rar","meta":[],"entries":[]},
            {"path":"F.ZIP","file":"F.ZIP","size":10,"kind":"zip","meta":[[0,1,2]],"entries":[]},
            "x"]}"#;
        let read = read_index(text, 100).unwrap();
        assert_eq!(
            (read.index.root.as_str(), read.index.base.as_str()),
            ("R", "archive/")
        );
        assert_eq!(read.index.files.len(), 1);
        assert_eq!(read.index.containers.len(), 1);
        assert_eq!(read.index.containers[0].entries.len(), 1);
        assert_eq!(read.index.containers[0].entries[0].path, "X");
        let problems = read.problems.join("\n");
        for expected in [
            "file 1:",
            "D.ISO: entry 1: CRC-32 \"nothex!!\"",
            "D.ISO: entry 2: invalid value: integer `-1`, expected u64\n",
            "D.ISO: entry 3: a row of more than 7 items",
            "D.ISO: entry 4: 9007199254740993: more than 2^53",
            "container 1:",
            "container 2:",
            "container 3: not an object",
        ] {
            assert!(
                problems.contains(expected),
                "{expected:?} not in\n{problems}"
            );
        }
    }

    #[test]
    fn what_is_not_a_listing_is_none() {
        for text in [
            &b"<html>"[..],
            b"[]",
            b"{}",
            b"{\"files\":3}",
            b"{\"files\":[]",
        ] {
            assert!(
                read_index(text, 10).is_none(),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        assert!(read_index(b"{\"files\":[]}", 10).is_some());
    }

    #[test]
    fn the_listing_is_capped_in_the_index_order() {
        let rows: Vec<String> = (0..5)
            .map(|i| format!("{{\"path\":\"f{i}\",\"size\":1}}"))
            .collect();
        let text = format!("{{\"files\":[{}]}}", rows.join(","));
        let read = read_index(text.as_bytes(), 3).unwrap();
        assert_eq!(read.index.files.len(), 3);
        assert!(read
            .problems
            .iter()
            .any(|p| p.contains("the first 3 files")));
    }
}
