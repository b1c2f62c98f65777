//! The INI-style text reader (.MAP/.MOD/.SUB) on arbitrary bytes: no panic, every line
//! number within the text, and the lookups never invent lines.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::ini::IniFile;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = IniFile::parse(data) {
        let lines = data.split(|&b| b == b'\n').count();
        for s in &f.sections {
            assert!(s.line >= 1 && s.line <= lines);
            assert!(s.entries.iter().all(|e| e.line >= s.line && e.line <= lines));
        }
        for (_, line) in f.mod_video_objects().into_iter().chain(f.map_model_files()) {
            assert!(line >= 1 && line <= lines);
        }
    }
});
