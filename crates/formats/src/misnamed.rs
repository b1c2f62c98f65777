//! Files whose name claims a format their content is not: a .PNG without the PNG signature,
//! a .MAP that is not text. A file's kind comes from its content and from what its name
//! claims, so such a file is an error that says both, never "unknown bytes"
//! (docs/formats/bytes.md). The DIV-BIZ2 names (.BGF, .BMF, .B2Z) say so through their own
//! reader, which names the magic it wanted; BSX, BCX and TDB likewise.

use super::charset::looks_like_dos_text;
use super::kind::{Claim, Kind, Purpose};
use super::{Document, InfoRow, ParseError};
use crate::inspect::{ByteClass, InspectorView};

/// Bytes of a text file's start that are looked at for a byte that is not text.
const TEXT_PROBE: usize = 4096;

fn why(path: &str, bytes: &[u8], claim: Option<&Claim>) -> ParseError {
    let ext = crate::extension(path);
    let (what, magic) = claim.map_or(("a known format", None), |c| (c.what, c.starts_with));
    let named = format!("named .{}, {what}", ext.to_ascii_uppercase());
    match magic {
        Some(magic) => {
            let head: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02X}")).collect();
            let found = if bytes.is_empty() {
                "the file has 0 bytes".to_string()
            } else {
                format!("its first bytes are {}", head.join(" "))
            };
            ParseError::new(
                0,
                "",
                format!("{named}, but it does not start with {magic}: {found}"),
            )
        }
        None => {
            let probe = &bytes[..bytes.len().min(TEXT_PROBE)];
            match probe.iter().position(|&b| !looks_like_dos_text(&[b])) {
                Some(at) => ParseError::new(
                    at,
                    "",
                    format!(
                        "{named}, but it is not text: byte {at} is 0x{:02X}",
                        probe[at]
                    ),
                ),
                None => ParseError::new(
                    0,
                    "",
                    format!("{named}, but the file has {} bytes", bytes.len()),
                ),
            }
        }
    }
}

pub struct MisnamedDocument {
    kind: Kind,
    bytes: Vec<u8>,
    error: Option<ParseError>,
    inspector: Option<InspectorView>,
    diagnostics: Vec<super::Diagnostic>,
}

/// Open a file whose name made the claim `claim` (the registry's rows say what each name
/// claims) and whose content did not pass for it.
pub fn open(
    path: &str,
    bytes: Vec<u8>,
    kind: Kind,
    purpose: Purpose,
    claim: Option<&Claim>,
) -> Box<dyn Document> {
    let error = Some(why(path, &bytes, claim));
    let inspector = purpose.describes().then(|| InspectorView {
        error: error.clone(),
        ..InspectorView::flat("bytes", bytes.len(), ByteClass::Unclaimed)
    });
    Box::new(MisnamedDocument {
        kind,
        bytes,
        error,
        inspector,
        diagnostics: Vec::new(),
    })
}

impl Document for MisnamedDocument {
    super::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
}

impl crate::Describe for MisnamedDocument {
    super::stored_inspector!();
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(MisnamedInfo {
            format: "misnamed",
            kind: self.kind,
            bytes: self.bytes.len(),
            error: self.error.as_ref(),
        })
    }
}

/// What `info` says of a misnamed file: its claimed kind, its size and why it is not one.
#[derive(serde::Serialize)]
struct MisnamedInfo<'a> {
    format: &'static str,
    kind: Kind,
    bytes: usize,
    #[serde(skip)]
    error: Option<&'a ParseError>,
}

impl crate::Summary for MisnamedInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new("bytes", self.bytes.to_string()),
        ];
        rows.extend(
            self.error
                .iter()
                .map(|e| InfoRow::warning("error", e.to_string())),
        );
        rows
    }
}

// The names of both families are asked.
#[cfg(all(test, feature = "pods", feature = "ff7"))]
mod tests {
    use crate::registry::{self, Kind, Purpose};

    #[test]
    fn a_claimed_name_with_other_content_is_an_error_that_says_both() {
        let open = |p: &str, b: &[u8]| registry::open(p, b.to_vec(), Purpose::Show);
        let png = open("SKY.PNG", b"GIF89a...");
        assert_eq!(png.kind(), Kind::MISNAMED);
        assert_eq!(png.error().unwrap().to_string(), "at byte 0: named .PNG, a PNG image, but it does not start with the PNG signature 89 50 4E 47: its first bytes are 47 49 46 38 39 61 2E 2E");
        let map = open("ARENA.MAP", b"[arena]\r\ntype=map\r\n\x00\x01");
        assert_eq!(
            map.kind(),
            crate::pods::world::MAP,
            "text in its first 16 bytes: read as a world (whose reader reports the rest)"
        );
        let bin = open("ARENA.MAP", b"\x00\x01\x02[a]");
        assert_eq!(bin.error().unwrap().offset, 0);
        assert!(bin.error().unwrap().message.contains(
            "named .MAP, a pod world (INI-style text), but it is not text: byte 0 is 0x00"
        ));
        assert_eq!(
            open("E.SUB", b"").error().unwrap().message,
            "named .SUB, pod subsystems (INI-style text), but the file has 0 bytes"
        );
        // Latin-1 text (a DOS-era accent) is text.
        assert_eq!(
            open("CAFE.MOD", b"; caf\xe9\r\n[video]\r\n").kind(),
            crate::pods::world::MOD
        );
        // Names that claim nothing stay unknown bytes.
        assert_eq!(open("X.BIN", b"\x00\x01").kind(), Kind::UNKNOWN);
        assert!(open("X.BIN", b"\x00\x01").error().is_none());
        let info: serde_json::Value =
            serde_json::from_str(&crate::Described::alone(&*png).info_json()).unwrap();
        assert_eq!(
            (info["format"].as_str(), info["error"]["offset"].as_u64()),
            (Some("misnamed"), Some(0))
        );
    }
}
