//! The model layers of a .MOD (a game object: the BGF files it draws) and of a .SUB (its
//! subsystems, of which doors move) (docs/formats/worlds.md, "Game objects", "Doors").

use super::ini::{IniFile, Span};
use super::map::Located;
use crate::inspect::Diagnostics;
use crate::Diagnostic;

/// One object of a MOD's `[video] object=` list.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoObject {
    /// The .BGF as written.
    pub file: String,
    /// Its name without the extension, lower case: what a SUB's `Collision=` names.
    pub stem: String,
    /// The node name written after the file, if any.
    pub node: Option<String>,
    pub at: Located<()>,
}

/// The words of `span`, split at blanks, as spans of the file.
fn words(bytes: &[u8], span: Span) -> impl Iterator<Item = Span> + '_ {
    let (mut at, end) = (span.start as usize, span.end());
    std::iter::from_fn(move || {
        while at < end && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while at < end && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        (at > start).then(|| Span {
            start: start as u32,
            len: (at - start) as u32,
        })
    })
}

fn stem(file: &str) -> String {
    crate::stem(file).to_ascii_lowercase()
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameObject {
    /// What is drawn, in list order (the order is significant: frame, then leaves).
    pub video: Vec<VideoObject>,
    /// Low-poly twins (`<name>l.bgf` beside `<name>.bgf`), not drawn.
    pub twins: Vec<VideoObject>,
    /// The .SUB its `Subsystems=` names, if it names one.
    pub subsystems: Option<Located<String>>,
    /// `[gamedata] class=`.
    pub class: Option<String>,
}

impl GameObject {
    pub fn read(ini: &IniFile<'_>) -> GameObject {
        let mut all: Vec<VideoObject> = Vec::new();
        for s in ini.sections_named("video") {
            for (k, e) in ini.entries_of(s).iter().enumerate() {
                if !ini.key_is(e, "object") {
                    continue;
                }
                // Each .bgf word is an object; a word after one that is not a file names
                // that object's node.
                for span in words(ini.bytes, e.value) {
                    let word = ini.text(span);
                    if word.to_ascii_lowercase().ends_with(".bgf") {
                        let mut located = Located::at((), e, s.entries.start + k as u32);
                        located.value_span = span;
                        all.push(VideoObject {
                            file: word.to_string(),
                            stem: stem(&word),
                            node: None,
                            at: located,
                        });
                    } else if let Some(last) = all
                        .last_mut()
                        .filter(|o| o.node.is_none() && o.at.entry == s.entries.start + k as u32)
                    {
                        last.node = Some(word.to_string());
                    }
                }
            }
        }
        // A twin is dropped only when what it is the twin of is in the same list.
        let (twins, video): (Vec<VideoObject>, Vec<VideoObject>) =
            all.iter().cloned().partition(|o| {
                o.stem
                    .strip_suffix('l')
                    .is_some_and(|base| all.iter().any(|x| x.stem == base))
            });
        let subsystems = ini.sections.iter().find_map(|s| {
            ini.entries_of(s).iter().enumerate().find_map(|(k, e)| {
                let v = ini.text(e.value);
                let file = v
                    .split_whitespace()
                    .find(|w| w.to_ascii_lowercase().ends_with(".sub"))?;
                (ini.key_is(e, "subsystems") || ini.key_is(e, "subsystem"))
                    .then(|| Located::at(file.to_string(), e, s.entries.start + k as u32))
            })
        });
        let class = ini
            .sections_named("gamedata")
            .find_map(|s| ini.value(s, "class"))
            .map(|(v, _)| v.into_owned());
        GameObject {
            video,
            twins,
            subsystems,
            class,
        }
    }
}

/// One section of a .SUB.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Subsystem {
    pub name: String,
    /// `Type=`, e.g. `DoorClassID`.
    pub kind: Option<String>,
    pub travel_time: Option<f32>,
    pub dead_time: Option<f32>,
    /// The slide, in the object's own axes.
    pub motion_extent: Option<[f32; 3]>,
    /// The video object it moves: `Collision=dr1_cv.sld` names `dr1`.
    pub video_object: Option<String>,
    pub line: u32,
    pub offset: u32,
}

/// A door as it plays: slide over `travel`, dwell `dead`, slide back, dwell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DoorMotion {
    pub travel: f32,
    pub dead: f32,
    pub extent: [f32; 3],
}

impl DoorMotion {
    /// One period: (time, offset) keys of the ping-pong slide.
    pub fn keys(&self) -> [(f32, [f32; 3]); 5] {
        let (t, d) = (self.travel, self.dead);
        [
            (0.0, [0.0; 3]),
            (t, self.extent),
            (t + d, self.extent),
            (2.0 * t + d, [0.0; 3]),
            (2.0 * (t + d), [0.0; 3]),
        ]
    }
    pub fn period(&self) -> f32 {
        2.0 * (self.travel + self.dead)
    }
}

impl Subsystem {
    pub fn is_door(&self) -> bool {
        self.kind
            .as_deref()
            .is_some_and(|k| k.eq_ignore_ascii_case("DoorClassID"))
    }
    /// The motion, when the door has what it needs to move.
    pub fn door(&self) -> Option<DoorMotion> {
        let travel = self.travel_time.filter(|t| *t > 0.0)?;
        Some(DoorMotion {
            travel,
            dead: self.dead_time.unwrap_or(0.0).max(0.0),
            extent: self.motion_extent?,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SubsystemFile {
    pub subsystems: Vec<Subsystem>,
    pub diagnostics: Vec<Diagnostic>,
    pub diagnostics_dropped: usize,
}

impl SubsystemFile {
    pub fn read(ini: &IniFile<'_>) -> SubsystemFile {
        let mut diags = Diagnostics::default();
        let mut subsystems = Vec::new();
        for s in &ini.sections {
            let mut sub = Subsystem {
                name: ini.name(s).into_owned(),
                line: s.line,
                offset: s.start,
                ..Default::default()
            };
            for e in ini.entries_of(s) {
                let v = ini.text(e.value);
                let mut bad = |what: &str| {
                    diags.add(
                        e.value.start as usize,
                        || format!("line {}", e.line),
                        || format!("{} expected {what}, found {v:?}", ini.text(e.key)),
                    )
                };
                let number = |w: &str| w.parse::<f32>().ok().filter(|x| x.is_finite());
                if ini.key_is(e, "type") {
                    sub.kind = Some(v.trim().to_string());
                } else if ini.key_is(e, "traveltime") {
                    sub.travel_time = number(v.trim()).or_else(|| {
                        bad("seconds");
                        None
                    });
                } else if ini.key_is(e, "deadtime") {
                    sub.dead_time = number(v.trim()).or_else(|| {
                        bad("seconds");
                        None
                    });
                } else if ini.key_is(e, "motionextent") {
                    let w: Vec<f32> = v.split_whitespace().filter_map(number).collect();
                    if w.len() == 3 {
                        sub.motion_extent = Some([w[0], w[1], w[2]]);
                    } else {
                        bad("three numbers `x y z`");
                    }
                } else if ini.key_is(e, "collision") {
                    // dr1_cv.sld → dr1
                    let base = stem(v.trim());
                    sub.video_object = Some(base.strip_suffix("_cv").unwrap_or(&base).to_string());
                }
            }
            if sub.is_door() && sub.door().is_none() {
                diags.add(
                    s.start as usize,
                    || format!("line {}", s.line),
                    || {
                        format!(
                            "door {} needs TravelTime > 0 and MotionExtent to move; it stays shut",
                            sub.name
                        )
                    },
                );
            }
            subsystems.push(sub);
        }
        SubsystemFile {
            subsystems,
            diagnostics: diags.kept,
            diagnostics_dropped: diags.dropped,
        }
    }

    pub fn doors(&self) -> impl Iterator<Item = &Subsystem> {
        self.subsystems.iter().filter(|s| s.is_door())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_objects_drop_twins_only_beside_their_originals() {
        let text = b"[video]\r\nobject=drw.bgf dr1.bgf leaf1 dr2.bgf\r\nobject=drwl.bgf\r\nobject=lazdril.bgf barrel.bgf\r\n[gamedata]\r\nclass=DoorClass\r\nSubsystems= drw.sub\r\n";
        let ini = IniFile::parse(text).unwrap();
        let m = GameObject::read(&ini);
        let files: Vec<&str> = m.video.iter().map(|o| o.file.as_str()).collect();
        assert_eq!(
            files,
            ["drw.bgf", "dr1.bgf", "dr2.bgf", "lazdril.bgf", "barrel.bgf"],
            "lazdril and barrel are no twins"
        );
        assert_eq!(
            m.twins.iter().map(|o| o.file.as_str()).collect::<Vec<_>>(),
            ["drwl.bgf"]
        );
        assert_eq!(m.video[1].node.as_deref(), Some("leaf1"));
        assert_eq!(&text[m.video[2].at.value_span.range()], b"dr2.bgf");
        assert_eq!(
            m.subsystems.as_ref().map(|s| s.value.as_str()),
            Some("drw.sub")
        );
        assert_eq!(m.class.as_deref(), Some("DoorClass"));
    }

    #[test]
    fn doors_slide_ping_pong() {
        let text = b"[door1]\nType=DoorClassID\nTravelTime=13.0\nDeadTime=3.0\nMotionExtent=-25.0 0.0 0.0\nCollision=dr1_cv.sld\n[light]\nType=LightClassID\n[door2]\nType=doorclassid\nTravelTime=x\n";
        let ini = IniFile::parse(text).unwrap();
        let f = SubsystemFile::read(&ini);
        let doors: Vec<&Subsystem> = f.doors().collect();
        assert_eq!(doors.len(), 2);
        assert_eq!(doors[0].video_object.as_deref(), Some("dr1"));
        let m = doors[0].door().unwrap();
        assert_eq!(m.period(), 32.0);
        assert_eq!(m.keys()[2], (16.0, [-25.0, 0.0, 0.0]));
        assert_eq!(m.keys()[3], (29.0, [0.0; 3]));
        assert!(doors[1].door().is_none());
        assert_eq!(f.diagnostics.len(), 2, "{:?}", f.diagnostics);
        assert_eq!(f.diagnostics[0].path, "line 11");
    }
}
