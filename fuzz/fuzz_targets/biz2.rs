//! The DIV-BIZ2 chunk walker, the model and scene builders, the inspector and the info
//! summary on arbitrary bytes: nothing may panic, hang or allocate beyond the input's size.
//! Whatever parses must survive a write and a second read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
use relicview::formats::pods::biz2::{inspect, Biz2File, ChunkTree};

fuzz_target!(|data: &[u8]| {
    // Let the fuzzer skip the magic: most inputs then reach the walker.
    let mut bytes = b"DIV-BIZ2".to_vec();
    bytes.extend_from_slice(data);
    for input in [data, &bytes[..]] {
        // The inspector works on broken files too: its runs must tile the input.
        let view = inspect::inspect(input);
        assert_eq!(view.runs.iter().map(|r| r.len).sum::<usize>(), input.len());
        assert!(view.diagnostics.len() <= relicview::inspect::MAX_DIAGNOSTICS);
        let tree = ChunkTree::parse(input);
        // Leaves are read again from the bytes: found from a mark, a parent's children and a
        // walk must agree.
        for (i, c) in tree.iter().enumerate() {
            assert!(c.payload_end() <= input.len());
            // Only the end of the file cuts a chunk short, and only a file that errs.
            assert!(!c.truncated || (c.payload_end() == input.len() && tree.error.is_some()));
            assert_eq!(c.index, i as u32);
            if i < 64 || i % 97 == 0 {
                assert_eq!(tree.chunk(i as u32), Some(c));
                let _ = tree.path(i as u32);
            }
        }
        assert_eq!(
            tree.iter().filter(|c| c.parent.is_none()).count(),
            tree.children(None).count()
        );
        if let Ok((tree, file)) = Biz2File::parse(input) {
            let c = tree.coverage();
            assert_eq!(
                c.framing + c.decoded + c.opaque + c.unclaimed,
                input.len(),
                "every byte accounted for once"
            );
            let rewritten = write_file(&file, WriteOptions::default());
            let (_, again) = Biz2File::parse(&rewritten).expect("the writer's output parses");
            assert_eq!(again.triangle_count(), file.triangle_count());
            let _ = relicview::formats::pods::biz2::summary::summarize(&tree, &file);
        }
    }
});
