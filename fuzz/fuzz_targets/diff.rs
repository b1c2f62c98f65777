//! Two files of one kind compared as the page compares them: both opened through the
//! registry with their scenes, aligned (docs/diff.md), and the difference view built. Nothing
//! may panic or hang; every row and marked byte lies inside its file, the marked bytes are
//! sorted and apart, and the difference view's indices point at its vertices.
//! Input: the files' name (common/named.rs), a u16 (little-endian) length of A, A, then B.
#![no_main]

#[path = "common/named.rs"]
mod named;

use libfuzzer_sys::fuzz_target;
use relicview::archive::Archive;
use relicview::formats::registry::{self, Purpose};

fuzz_target!(|data: &[u8]| {
    let Some((name, data)) = named::split_name(data) else {
        return;
    };
    let [l0, l1, rest @ ..] = data else { return };
    let split = (u16::from_le_bytes([*l0, *l1]) as usize).min(rest.len());
    let (bytes_a, bytes_b) = rest.split_at(split);
    let a = registry::open(&name, bytes_a.to_vec(), Purpose::Show);
    let b = registry::open(&name, bytes_b.to_vec(), Purpose::Show);
    let detached = Archive::detached();
    let (built_a, built_b) = (a.build_scene(&detached), b.build_scene(&detached));
    let described = |document, found| relicview::formats::Described { document, found };
    let side_a = relicview::diff::Side::of(described(&*a, &built_a.found), built_a.scene.as_ref());
    let side_b = relicview::diff::Side::of(described(&*b, &built_b.found), built_b.scene.as_ref());
    let (comparison, alignment) = relicview::diff::compare_in_full(&side_a, &side_b);
    let (len_a, len_b) = (
        a.bytes(0).map_or(0, <[u8]>::len),
        b.bytes(0).map_or(0, <[u8]>::len),
    );
    for row in &alignment.rows {
        assert!(
            row.range.a.is_none_or(|[s, e]| s <= e && e <= len_a),
            "{row:?}"
        );
        assert!(
            row.range.b.is_none_or(|[s, e]| s <= e && e <= len_b),
            "{row:?}"
        );
        assert!(row.a.is_some() || row.b.is_some());
    }
    for (ranges, len) in [(&alignment.bytes.a, len_a), (&alignment.bytes.b, len_b)] {
        assert!(
            ranges.windows(2).all(|w| w[0][1] < w[1][0]),
            "sorted and apart: {ranges:?}"
        );
        assert!(
            ranges.iter().all(|&[s, e]| s < e && e <= len),
            "{ranges:?} in {len}"
        );
    }
    // The same file on both sides is the same, and marks nothing.
    if bytes_a == bytes_b {
        assert!(comparison.same, "{comparison:?}");
        assert!(alignment.bytes.a.is_empty() && alignment.bytes.b.is_empty());
    }
    if let Some(d) =
        relicview::diff::difference_scene(&side_a, &side_b, &alignment).map(|d| d.scene)
    {
        for p in d.meshes.iter().flat_map(|m| &m.primitives) {
            assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()));
            assert_eq!(p.colors.as_ref().map(Vec::len), Some(p.positions.len()));
        }
        assert!(d
            .nodes
            .iter()
            .all(|n| n.mesh.is_none_or(|m| (m as usize) < d.meshes.len())));
        let _ = d.draw_plan(0);
    }
});
