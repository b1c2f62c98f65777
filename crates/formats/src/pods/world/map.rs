//! The model layer of a .MAP: its sections typed (`model`, `dropzone`, `map`, `include`),
//! the `instance=` lines of its map sections parsed into poses, and the transform rule
//! (docs/formats/worlds.md, "Maps").

use super::ini::{Entry, IniFile, Section, Span};
use crate::inspect::Diagnostics;
use crate::Diagnostic;
use glam::{EulerRot, Mat4, Quat, Vec3};

/// Where a value was written: its line, its bytes and the entry it is the value of.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub line: u32,
    /// Offset of the line, and of the value's bytes.
    pub offset: u32,
    pub value_span: Span,
    /// Index into the file's entries.
    pub entry: u32,
}

impl<T> Located<T> {
    pub fn at(value: T, e: &Entry, entry: u32) -> Located<T> {
        Located {
            value,
            line: e.line,
            offset: e.start,
            value_span: e.value,
            entry,
        }
    }
}

/// Position and rotation of a placement: `x y z rx ry rz`, angles in radians.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pose {
    pub translation: [f32; 3],
    pub rotation: [f32; 3],
}

impl Pose {
    /// The rotation: with row vectors R = Rz·Rx·Ry (z first, then x, then y), which for
    /// the column vectors of the scene graph is Ry·Rx·Rz.
    pub fn quat(&self) -> Quat {
        let [rx, ry, rz] = self.rotation;
        Quat::from_euler(EulerRot::YXZ, ry, rx, rz)
    }
    /// R then translation; a nested placement's world matrix is parent · child here
    /// (child · parent with row vectors).
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_rotation_translation(self.quat(), Vec3::from(self.translation))
    }
}

/// Six numbers `x y z rx ry rz` from `words`; fewer are zero-filled (and reported), a word
/// that is not a finite number fails.
fn pose_of(words: &[&str]) -> Result<(Pose, bool), String> {
    let mut v = [0.0f32; 6];
    for (k, w) in words.iter().take(6).enumerate() {
        v[k] = w
            .parse::<f32>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{w:?} is not a number"))?;
    }
    Ok((
        Pose {
            translation: [v[0], v[1], v[2]],
            rotation: [v[3], v[4], v[5]],
        },
        words.len() < 6,
    ))
}

/// One `instance=` or `instancedropzone=` line of a map section.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// The section it places, as written.
    pub target: String,
    pub pose: Pose,
    pub dropzone: bool,
    pub lab_only: bool,
    pub at: Located<()>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SectionKind {
    /// `type=model`: a game object, `modelfile=` names its .MOD.
    Model { modelfile: Option<Located<String>> },
    /// `type=dropzone`: a pod's spawn ring, `dropzone=` is its own pose.
    Dropzone { pose: Pose },
    /// `type=map`: places sections.
    Map { instances: Vec<Instance> },
    /// `type=include`: `file=` names a .MAP whose sections join these.
    Include { file: Option<Located<String>> },
    /// Another `type=`, or none.
    Other(Option<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MapSection {
    pub name: String,
    pub kind: SectionKind,
    pub line: u32,
    pub offset: u32,
    pub lab_only: bool,
    /// Index into the file's sections.
    pub index: u32,
}

impl MapSection {
    pub fn key(&self) -> String {
        self.name.to_ascii_lowercase()
    }
    pub fn instances(&self) -> &[Instance] {
        match &self.kind {
            SectionKind::Map { instances } => instances,
            _ => &[],
        }
    }
}

/// A parsed .MAP: its sections as written (includes are resolved by the assembler).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MapFile {
    pub sections: Vec<MapSection>,
    pub diagnostics: Vec<Diagnostic>,
    pub diagnostics_dropped: usize,
}

fn line_diag(d: &mut Diagnostics, e: &Entry, at: usize, message: String) {
    d.add(at, || format!("line {}", e.line), || message);
}

/// A dropzone's own pose from its `dropzone=` entry `e`; where that does not read, a
/// diagnostic and the pose of its instance.
fn dropzone_pose(ini: &IniFile<'_>, e: &Entry, diags: &mut Diagnostics) -> Pose {
    let words: Vec<String> = ini
        .text(e.value)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    match pose_of(&words.iter().map(String::as_str).collect::<Vec<_>>()) {
        Ok((p, _)) => p,
        Err(why) => {
            line_diag(
                diags,
                e,
                e.value.start as usize,
                format!(
                    "dropzone= expected `x y z rx ry rz`: {why}; the dropzone is placed at its instance"
                ),
            );
            Pose::default()
        }
    }
}

/// What a map section `s` places: its `instance=` and `instancedropzone=` entries, each
/// with its pose (a diagnostic for one short of numbers, or left out where they do not read).
fn instances(ini: &IniFile<'_>, s: &Section, diags: &mut Diagnostics) -> Vec<Instance> {
    let mut instances = Vec::new();
    for (k, e) in ini.entries_of(s).iter().enumerate() {
        let dropzone = ini.key_is(e, "instancedropzone");
        if !dropzone && !ini.key_is(e, "instance") {
            continue;
        }
        let text = ini.text(e.value);
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some((target, numbers)) = words.split_first() else {
            line_diag(
                diags,
                e,
                e.start as usize,
                "instance= expected `name x y z rx ry rz`, found nothing".into(),
            );
            continue;
        };
        match pose_of(numbers) {
            Ok((pose, short)) => {
                if short {
                    line_diag(
                        diags,
                        e,
                        e.value.start as usize,
                        format!(
                            "instance of {target} has {} of the 6 numbers `x y z rx ry rz`; the rest are 0",
                            numbers.len()
                        ),
                    );
                }
                instances.push(Instance {
                    target: target.to_string(),
                    pose,
                    dropzone,
                    lab_only: e.lab_only,
                    at: Located::at((), e, s.entries.start + k as u32),
                });
            }
            Err(why) => line_diag(
                diags,
                e,
                e.value.start as usize,
                format!(
                    "instance of {target}: {why}; expected `x y z rx ry rz` in radians, not placed"
                ),
            ),
        }
    }
    instances
}

impl MapFile {
    pub fn read(ini: &IniFile<'_>) -> MapFile {
        let mut diags = Diagnostics::default();
        let mut sections = Vec::with_capacity(ini.sections.len());
        for (index, s) in ini.sections.iter().enumerate() {
            let ty = ini.value(s, "type").map(|(v, _)| v.to_ascii_lowercase());
            let first = |key: &'static str| {
                ini.entries_of(s)
                    .iter()
                    .enumerate()
                    .find(|(_, e)| ini.key_is(e, key))
                    .map(|(k, e)| (e, s.entries.start + k as u32))
            };
            let first_word = |key: &'static str| {
                first(key).and_then(|(e, k)| {
                    ini.text(e.value)
                        .split_whitespace()
                        .next()
                        .map(|t| Located::at(t.to_string(), e, k))
                })
            };
            let kind = match ty.as_deref() {
                Some("model") => SectionKind::Model {
                    modelfile: first_word("modelfile"),
                },
                Some("dropzone") => SectionKind::Dropzone {
                    pose: first("dropzone")
                        .map_or(Pose::default(), |(e, _)| dropzone_pose(ini, e, &mut diags)),
                },
                Some("map") => SectionKind::Map {
                    instances: instances(ini, s, &mut diags),
                },
                Some("include") => SectionKind::Include {
                    file: first_word("file"),
                },
                other => SectionKind::Other(other.map(str::to_string)),
            };
            sections.push(MapSection {
                name: ini.name(s).into_owned(),
                kind,
                line: s.line,
                offset: s.start,
                lab_only: s.lab_only,
                index: index as u32,
            });
        }
        MapFile {
            sections,
            diagnostics: diags.kept,
            diagnostics_dropped: diags.dropped,
        }
    }

    /// The sections named `name` (without regard to case).
    pub fn section(&self, name: &str) -> Option<&MapSection> {
        self.sections
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The map section to show: the one named like the file, else the one with the most
    /// instances (the first of those).
    pub fn root_section(&self, file_stem: &str) -> Option<&MapSection> {
        let maps = || {
            self.sections
                .iter()
                .filter(|s| matches!(s.kind, SectionKind::Map { .. }))
        };
        maps()
            .find(|s| s.name.eq_ignore_ascii_case(file_stem))
            .or_else(|| {
                maps().fold(None, |best: Option<&MapSection>, s| {
                    if best.is_none_or(|b| s.instances().len() > b.instances().len()) {
                        Some(s)
                    } else {
                        best
                    }
                })
            })
    }

    /// `modelfile=` of every model section, and `file=` of every include.
    pub fn model_files(&self) -> impl Iterator<Item = &Located<String>> {
        self.sections.iter().filter_map(|s| {
            if let SectionKind::Model { modelfile: Some(m) } = &s.kind {
                Some(m)
            } else {
                None
            }
        })
    }
    pub fn include_files(&self) -> impl Iterator<Item = &Located<String>> {
        self.sections.iter().filter_map(|s| {
            if let SectionKind::Include { file: Some(f) } = &s.kind {
                Some(f)
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: [f32; 3]) -> bool {
        (a - Vec3::from(b)).length() < 1e-5
    }

    #[test]
    fn rotations_apply_z_then_x_then_y_then_the_translation() {
        use std::f32::consts::FRAC_PI_2;
        // Row vectors: v · Rz(90°) · Rx(90°) · Ry(90°) · T. Worked by hand for v = +X:
        // Rz(90°) takes +X to +Y; Rx(90°) takes +Y to +Z; Ry(90°) takes +Z to +X; then +T.
        let p = Pose {
            translation: [10.0, 20.0, 30.0],
            rotation: [FRAC_PI_2, FRAC_PI_2, FRAC_PI_2],
        };
        assert!(
            close(p.matrix().transform_point3(Vec3::X), [11.0, 20.0, 30.0]),
            "{}",
            p.matrix().transform_point3(Vec3::X)
        );
        // v = +Y: Rz → −X; Rx leaves X; Ry(90°) takes −X to +Z.
        assert!(close(
            p.matrix().transform_point3(Vec3::Y),
            [10.0, 20.0, 31.0]
        ));
        // One axis at a time, the usual right-handed sense: Ry(90°) takes +Z to +X.
        let y = Pose {
            rotation: [0.0, FRAC_PI_2, 0.0],
            ..Default::default()
        };
        assert!(close(y.matrix().transform_point3(Vec3::Z), [1.0, 0.0, 0.0]));
        // Nesting: a child at +5 X inside a parent turned 90° about Y and moved to (0,0,100).
        let parent = Pose {
            translation: [0.0, 0.0, 100.0],
            rotation: [0.0, FRAC_PI_2, 0.0],
        };
        let child = Pose {
            translation: [5.0, 0.0, 0.0],
            ..Default::default()
        };
        assert!(close(
            (parent.matrix() * child.matrix()).transform_point3(Vec3::ZERO),
            [0.0, 0.0, 95.0]
        ));
    }

    #[test]
    fn sections_are_typed_and_instances_parsed() {
        let text = b"[hall2]\ntype=model\nmodelfile=hall2.mod\n[one]\ntype=dropzone\ndropzone= 1 2 3 0 0 0\n[arena1]\ntype=map\ninstance=hall2  0 0 0 0 0 0\ninstancedropzone=one 5 0 5 0 1.5 0\ninstance=tower 1 2\ninstance=bad x 0 0 0 0 0\n[inc]\ntype=include\nfile=other.map\n";
        let ini = IniFile::parse(text).unwrap();
        let f = MapFile::read(&ini);
        assert_eq!(f.sections.len(), 4);
        assert!(
            matches!(&f.sections[0].kind, SectionKind::Model { modelfile: Some(m) } if m.value == "hall2.mod" && m.line == 3)
        );
        assert!(
            matches!(f.sections[1].kind, SectionKind::Dropzone { pose } if pose.translation == [1.0, 2.0, 3.0])
        );
        let root = f.root_section("ARENA1").unwrap();
        let i = root.instances();
        assert_eq!(i.len(), 3, "the bad line is not placed");
        assert_eq!(
            (i[1].target.as_str(), i[1].dropzone, i[1].pose.rotation[1]),
            ("one", true, 1.5)
        );
        assert_eq!(i[2].pose.translation, [1.0, 2.0, 0.0]);
        assert_eq!(f.diagnostics.len(), 2);
        assert_eq!(f.diagnostics[0].path, "line 11");
        assert_eq!(
            &text[f.diagnostics[1].offset..f.diagnostics[1].offset + 5],
            b"bad x"
        );
        assert_eq!(f.include_files().next().unwrap().value, "other.map");
        // Without a section named like the file: the map section with the most instances.
        assert_eq!(f.root_section("elsewhere").unwrap().name, "arena1");
    }
}
