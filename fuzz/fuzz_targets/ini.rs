//! The INI-style reader of .MAP/.MOD/.SUB and the model layers over it, on arbitrary bytes:
//! no panic, every span inside the file, lines in order, and what the models read points
//! at bytes that say so.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::pods::world::ini::{latin1, IniFile};
use relicview::formats::pods::world::map::MapFile;
use relicview::formats::pods::world::objects::{GameObject, SubsystemFile};

fuzz_target!(|data: &[u8]| {
    let Ok(f) = IniFile::parse(data) else { return };
    let n = data.len();
    let mut last_line = 0;
    for s in &f.sections {
        assert!(
            s.name.end() <= n && (s.start as usize) < n && s.end as usize <= n && s.start <= s.end
        );
        assert!(s.line > last_line && s.line <= f.lines);
        last_line = s.line;
        for e in f.entries_of(s) {
            assert!(e.key.end() <= n && e.value.end() <= e.end as usize && e.end as usize <= n);
            assert!(e.line >= s.line && e.line <= f.lines);
        }
    }
    let map = MapFile::read(&f);
    for s in &map.sections {
        for i in s.instances() {
            assert!(i
                .pose
                .translation
                .iter()
                .chain(&i.pose.rotation)
                .all(|x| x.is_finite()));
            assert!(i.at.value_span.end() <= n);
            assert!(i.pose.matrix().is_finite());
        }
    }
    assert!(map.diagnostics.iter().all(|d| d.offset <= n));
    let object = GameObject::read(&f);
    for v in object.video.iter().chain(&object.twins) {
        assert_eq!(latin1(&data[v.at.value_span.range()]), v.file);
    }
    let subs = SubsystemFile::read(&f);
    for d in subs.doors().filter_map(|s| s.door()) {
        assert!(d.period() > 0.0 && d.keys().windows(2).all(|k| k[0].0 <= k[1].0));
    }
});
