//! A file name for a fuzz input, from the names the registry reads (so that every format,
//! a new one too, is reached): the input starts ".EXT." (how the seeds keep their names
//! however the registry grows), or else a byte picks one of the extensions, FIELD.BIN (known
//! by its name) or .BIN (which says nothing).

use relicview::formats::Kind;

pub fn split_name(data: &[u8]) -> Option<(String, &[u8])> {
    if let Some(rest) = data.strip_prefix(b".") {
        let end = rest.iter().take(9).position(|&b| b == b'.')?;
        let ext = std::str::from_utf8(&rest[..end]).ok()?;
        return Some((format!("A.{ext}"), &rest[end + 1..]));
    }
    let (&pick, rest) = data.split_first()?;
    let mut names: Vec<String> = Kind::extensions()
        .iter()
        .map(|e| format!("A.{}", e.to_ascii_uppercase()))
        .collect();
    names.extend(["FIELD.BIN".to_string(), "A.BIN".to_string()]);
    Some((names[pick as usize % names.len()].clone(), rest))
}
