//! What the core hands the page's tools module (a comparison's sides, an export's input)
//! loses nothing on the way: for every demo file, what the tools make from the decoded wire
//! form is what the CLI makes from the opened file itself.

use crate::archive::{open_file, MemorySource};
use crate::bundle::{open_for_export, outcome_of, outcome_of_input, ExportInput};
use crate::demo::demo_files;
use crate::diff::{self, Side};
use crate::wire;
use std::cell::RefCell;

fn paths() -> Vec<String> {
    let mut paths: Vec<String> = demo_files().into_iter().map(|(p, _)| p).collect();
    paths.sort();
    paths
}

#[test]
fn a_comparison_of_sides_sent_over_the_wire_is_the_comparison_of_the_files() {
    let source = MemorySource::new(demo_files());
    let archive = RefCell::new(source.archive());
    let opened: Vec<_> = paths()
        .iter()
        .map(|p| pollster::block_on(open_file(&archive, &source, p)).unwrap())
        .collect();
    let sent: Vec<Side<'static>> = opened
        .iter()
        .map(|o| {
            let bytes = wire::encode_value(wire::SIDE, &o.side());
            let side: Side<'static> = wire::decode_value(wire::SIDE, "side", &bytes).unwrap();
            assert_eq!(side, o.side(), "{}", o.path);
            side
        })
        .collect();
    let mut compared = 0;
    // Each file with itself, with the next file of its kind, and with the next file.
    for i in 0..opened.len() {
        let same_kind =
            (i + 1..opened.len()).find(|&j| opened[j].side().kind == opened[i].side().kind);
        for j in [Some(i), same_kind, Some((i + 1) % opened.len())]
            .into_iter()
            .flatten()
        {
            let (a, b) = (opened[i].side(), opened[j].side());
            let (c, alignment) = diff::compare_in_full(&a, &b);
            let (c_sent, alignment_sent) = diff::compare_in_full(&sent[i], &sent[j]);
            let what = format!("{} and {}", opened[i].path, opened[j].path);
            assert_eq!(c, c_sent, "{what}");
            assert_eq!(alignment, alignment_sent, "{what}");
            assert_eq!(
                diff::difference_scene(&a, &b, &alignment).map(|d| (d.scene, d.layers_from_b)),
                diff::difference_scene(&sent[i], &sent[j], &alignment_sent)
                    .map(|d| (d.scene, d.layers_from_b)),
                "{what}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 2 * opened.len(), "{compared} comparisons");
}

#[test]
fn an_export_from_its_input_sent_over_the_wire_is_the_export_of_the_file() {
    let source = MemorySource::new(demo_files());
    let mut kinds = std::collections::BTreeSet::new();
    for path in paths() {
        let archive = RefCell::new(source.archive());
        let opened = pollster::block_on(open_for_export(&archive, &source, &path)).unwrap();
        let bytes = wire::encode_value(wire::EXPORT_INPUT, &ExportInput::of(&opened));
        let input: ExportInput<'static> =
            wire::decode_value(wire::EXPORT_INPUT, "export input", &bytes).unwrap();
        for all_scenes in [false, true] {
            assert_eq!(
                outcome_of_input(&input, all_scenes, Default::default()),
                outcome_of(&opened, all_scenes, Default::default()),
                "{path}"
            );
        }
        kinds.insert(input.kind.word);
    }
    assert!(kinds.len() >= 6, "the demo's kinds: {kinds:?}");
}
