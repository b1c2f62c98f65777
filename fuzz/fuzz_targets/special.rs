//! The SPECIAL word reader (docs/formats/biz2.md, "SPECIAL words") on arbitrary bytes: no
//! panic; every word has a role and a span inside the bytes, in order; the words read are
//! each kept once, zones in lower case, and an unknown word is a word of the string.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::pods::biz2::special::{roles, word_spans, Role, Words, ZONE_PREFIX};

fuzz_target!(|data: &[u8]| {
    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let text = String::from_utf8_lossy(&data[..end]).into_owned();
    let roles = roles(&text);
    let spans = word_spans(data);
    assert_eq!(roles.len(), spans.len(), "a role per word");
    let mut last = 0;
    for &(start, stop) in &spans {
        assert!(last <= start && start < stop && stop <= end);
        assert!(data[start..stop].iter().all(|b| !b.is_ascii_whitespace()));
        last = stop;
    }
    for role in &roles {
        if let Role::Zone(z) = role {
            assert!(
                z.len() > ZONE_PREFIX.len() && z.starts_with(ZONE_PREFIX) && *z == z.to_lowercase()
            );
        }
    }
    let words = Words::read([text.as_str(), text.as_str()]);
    let mut zones = words.zones.clone();
    zones.dedup();
    assert_eq!(zones.len(), words.zones.len());
    for u in &words.unknown {
        assert!(text.split_ascii_whitespace().any(|w| w == u));
    }
    assert!(words.spelled().len() <= spans.len() + words.behaviours.len());
});
