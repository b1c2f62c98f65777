//! The words of SV_SPECIAL strings: damage zones (`dz_larm`) and behaviour words (`BLINK`,
//! `GEOMETRIZE 0x8000001a` …), read once here for the scene, the summary, the census and
//! the export. The grammar, and what is known and what is guessed of each word:
//! docs/formats/biz2.md, "SPECIAL words".

use serde::Serialize;

/// A behaviour word the pods' files use, with its argument where it takes one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Behaviour {
    Punch,
    Blink,
    Wireframe,
    Additive,
    AdditiveLods,
    /// The number after the word (hex `0x…` or decimal), when one follows.
    Geometrize(Option<u32>),
    /// `u0 v0 du dv`, when four numbers follow (a texture's UV drift).
    Scroll(Option<[f32; 4]>),
}

/// Every behaviour word, as the files spell it (upper case); matched case-insensitively.
const BEHAVIOUR_WORDS: [&str; 7] = [
    "PUNCH",
    "BLINK",
    "WIREFRAME",
    "ADDITIVE",
    "ADDITIVE_LODS",
    "GEOMETRIZE",
    "SCROLL",
];

/// Words that name a damage zone start with this (matched case-insensitively).
pub const ZONE_PREFIX: &str = "dz_";

impl Behaviour {
    /// The word, in upper case: the key `info --json` and the census count it under.
    pub fn word(&self) -> &'static str {
        match self {
            Behaviour::Punch => "PUNCH",
            Behaviour::Blink => "BLINK",
            Behaviour::Wireframe => "WIREFRAME",
            Behaviour::Additive => "ADDITIVE",
            Behaviour::AdditiveLods => "ADDITIVE_LODS",
            Behaviour::Geometrize(_) => "GEOMETRIZE",
            Behaviour::Scroll(_) => "SCROLL",
        }
    }

    /// The word with its argument, as the info pane and the export show it.
    pub fn spelled(&self) -> String {
        match self {
            Behaviour::Geometrize(Some(v)) => format!("GEOMETRIZE 0x{v:08x}"),
            Behaviour::Scroll(Some([a, b, c, d])) => format!("SCROLL {a} {b} {c} {d}"),
            b => b.word().to_string(),
        }
    }

    /// Drawn blended additively (ADDITIVE and ADDITIVE_LODS: a guess, see the docs).
    pub fn is_additive(&self) -> bool {
        matches!(self, Behaviour::Additive | Behaviour::AdditiveLods)
    }
}

/// What a patch's SPECIAL words (its object's and its own) say about it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Words {
    /// Damage zones, lower case, each once, in the order first written.
    pub zones: Vec<String>,
    /// Behaviour words, each word once (the first spelling's argument kept), in order.
    pub behaviours: Vec<Behaviour>,
    /// Every other word, verbatim, each once.
    pub unknown: Vec<String>,
}

/// A number as the files write arguments: `0x…` hex or decimal.
fn number(word: &str) -> Option<u32> {
    match word.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("0x") => u32::from_str_radix(&word[2..], 16).ok(),
        _ => word.parse().ok(),
    }
}

/// What one word of a SPECIAL string is.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// A damage zone, lower case.
    Zone(String),
    Behaviour(Behaviour),
    /// The argument of the behaviour word before it.
    Argument,
    /// A word neither a zone nor a behaviour, verbatim.
    Unknown(String),
}

impl Role {
    /// What the inspector calls a word of this role.
    pub fn what(&self) -> &'static str {
        match self {
            Role::Zone(_) => "zone",
            Role::Behaviour(_) => "behaviour word",
            Role::Argument => "argument",
            Role::Unknown(_) => "unknown word",
        }
    }
}

/// The role of each word of `special` (split at ASCII white space), in order.
pub fn roles(special: &str) -> Vec<Role> {
    let words: Vec<&str> = special.split_ascii_whitespace().collect();
    let mut out = Vec::with_capacity(words.len());
    while out.len() < words.len() {
        let word = words[out.len()];
        let is_zone = word.len() > ZONE_PREFIX.len()
            && word
                .get(..ZONE_PREFIX.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(ZONE_PREFIX));
        if is_zone {
            out.push(Role::Zone(word.to_lowercase()));
            continue;
        }
        let Some(known) = BEHAVIOUR_WORDS
            .iter()
            .find(|w| w.eq_ignore_ascii_case(word))
        else {
            out.push(Role::Unknown(word.to_string()));
            continue;
        };
        let next = out.len() + 1;
        let (behaviour, arguments) = match *known {
            "PUNCH" => (Behaviour::Punch, 0),
            "BLINK" => (Behaviour::Blink, 0),
            "WIREFRAME" => (Behaviour::Wireframe, 0),
            "ADDITIVE" => (Behaviour::Additive, 0),
            "ADDITIVE_LODS" => (Behaviour::AdditiveLods, 0),
            "GEOMETRIZE" => {
                let value = words.get(next).and_then(|w| number(w));
                (Behaviour::Geometrize(value), usize::from(value.is_some()))
            }
            _ => {
                let args: Option<Vec<f32>> = words.get(next..next + 4).map(|a| {
                    a.iter()
                        .filter_map(|w| w.parse::<f32>().ok().filter(|x| x.is_finite()))
                        .collect()
                });
                let args = args
                    .filter(|a| a.len() == 4)
                    .map(|a| [a[0], a[1], a[2], a[3]]);
                (Behaviour::Scroll(args), if args.is_some() { 4 } else { 0 })
            }
        };
        out.push(Role::Behaviour(behaviour));
        out.extend(std::iter::repeat_n(Role::Argument, arguments));
    }
    out
}

/// Where each word of the SPECIAL bytes `bytes` (up to a NUL) lies: (start, end), in the
/// order [`roles`] gives them for the same string read as text.
pub fn word_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in bytes[..end].iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, end));
    }
    out
}

impl Words {
    /// Read every word of `specials` in order (object-level strings first, then the patch's).
    pub fn read<'a>(specials: impl IntoIterator<Item = &'a str>) -> Words {
        let mut out = Words::default();
        // Each word once, found by a set: one string may hold 100,000 words.
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for role in specials.into_iter().flat_map(roles) {
            match role {
                Role::Zone(zone) if seen.insert(zone.clone()) => out.zones.push(zone),
                Role::Behaviour(b) if seen.insert(b.word().to_string()) => out.behaviours.push(b),
                Role::Unknown(word) if seen.insert(word.clone()) => out.unknown.push(word),
                _ => {}
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.zones.is_empty() && self.behaviours.is_empty() && self.unknown.is_empty()
    }

    pub fn has(&self, word: &str) -> bool {
        self.behaviours.iter().any(|b| b.word() == word)
    }

    /// Every word as shown: zones, behaviours with their arguments, unknown words verbatim.
    pub fn spelled(&self) -> Vec<String> {
        self.zones
            .iter()
            .cloned()
            .chain(self.behaviours.iter().map(Behaviour::spelled))
            .chain(self.unknown.iter().cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_lower_cased_behaviours_case_insensitive_and_the_rest_kept_verbatim() {
        let w = Words::read([" DZ_LArm  blink ", "dz_larm Punch wobble Wobble\tdz_rgun"]);
        assert_eq!(w.zones, ["dz_larm", "dz_rgun"]);
        assert_eq!(w.behaviours, [Behaviour::Blink, Behaviour::Punch]);
        assert_eq!(w.unknown, ["wobble", "Wobble"]);
        assert_eq!(
            w.spelled(),
            ["dz_larm", "dz_rgun", "BLINK", "PUNCH", "wobble", "Wobble"]
        );
    }

    #[test]
    fn geometrize_and_scroll_take_their_arguments_when_they_are_numbers() {
        let w = Words::read(["GEOMETRIZE 0x8000001a", "scroll 0 0 0.5 -1 dz_hip"]);
        assert_eq!(
            w.behaviours,
            [
                Behaviour::Geometrize(Some(0x8000_001a)),
                Behaviour::Scroll(Some([0.0, 0.0, 0.5, -1.0]))
            ]
        );
        assert_eq!(w.zones, ["dz_hip"]);
        assert_eq!(w.behaviours[0].spelled(), "GEOMETRIZE 0x8000001a");
        // An argument that is not a number is a word of its own.
        let w = Words::read(["GEOMETRIZE dz_hip", "SCROLL 1 2 x 4"]);
        assert_eq!(
            w.behaviours,
            [Behaviour::Geometrize(None), Behaviour::Scroll(None)]
        );
        assert_eq!(w.zones, ["dz_hip"]);
        assert_eq!(w.unknown, ["1", "2", "x", "4"]);
        assert_eq!(
            Words::read(["GEOMETRIZE 26"]).behaviours,
            [Behaviour::Geometrize(Some(26))]
        );
    }

    #[test]
    fn a_bare_prefix_names_no_zone_and_odd_bytes_stay_as_they_are() {
        let w = Words::read(["dz_ DZ_ \u{fffd}\u{1}x ADDITIVE_LODS"]);
        assert!(w.zones.is_empty());
        assert_eq!(w.unknown, ["dz_", "DZ_", "\u{fffd}\u{1}x"]);
        assert!(w.behaviours[0].is_additive());
        assert!(Words::read(["", "   "]).is_empty());
    }

    #[test]
    fn every_word_has_a_role_and_a_span_in_the_bytes() {
        let bytes = b" dz_LArm\tGEOMETRIZE 0x10  \xff?x\0 ignored";
        let text = String::from_utf8_lossy(&bytes[..bytes.iter().position(|&b| b == 0).unwrap()])
            .into_owned();
        let roles = roles(&text);
        let spans = word_spans(bytes);
        assert_eq!(
            roles,
            [
                Role::Zone("dz_larm".into()),
                Role::Behaviour(Behaviour::Geometrize(Some(16))),
                Role::Argument,
                Role::Unknown("\u{fffd}?x".into())
            ]
        );
        assert_eq!(spans, [(1, 8), (9, 19), (20, 24), (26, 29)]);
        assert_eq!(&bytes[spans[0].0..spans[0].1], b"dz_LArm");
    }
}
