//! The summary of a DIV-BIZ2 file behind `relicview info --json`, and the info panel's rows
//! made from it. Its field names are a contract that scripts rely on: add fields, never
//! rename.

use super::materials::{MaterialResolution, TextureStatus};
use super::scene::BLINK_PERIOD;
use super::special::Words;
use super::{Biz2File, ChunkTree, DeclaredBounds, FileKind, MaterialRef, Object};
use crate::inspect::Coverage;
use crate::words::{count_as, count_len};
use crate::{Diagnostic, InfoRow};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LodInfo {
    pub distance: Option<[f32; 2]>,
    pub vertices: usize,
    pub triangles: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ObjectInfo {
    pub name: Option<String>,
    pub lods: Vec<LodInfo>,
    pub points: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BoundsInfo {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MaterialInfo {
    pub name: String,
    pub diffuse: Option<[f32; 3]>,
    pub texture: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TextureInfo {
    pub name: String,
    pub map: Option<String>,
    /// [u0, v0, du, dv] from SPECIAL " SCROLL u0 v0 du dv ".
    pub scroll: Option<[f32; 4]>,
    /// Every SPECIAL of the texture.
    pub specials: Vec<String>,
}

/// A damage zone's share of LOD 0.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ZoneInfo {
    /// LOD-0 patches that name the zone (their own word or their object's).
    pub patches: usize,
    /// Their triangles.
    pub triangles: usize,
}

/// The SPECIAL words of a file's LOD-0 patches, counted (a patch counts once per word; an
/// object's words count for each of its patches).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartCounts {
    pub zones: BTreeMap<String, ZoneInfo>,
    pub behaviours: BTreeMap<&'static str, usize>,
    pub unknown_words: BTreeMap<String, usize>,
}

impl PartCounts {
    pub fn of(file: &Biz2File) -> PartCounts {
        let mut out = PartCounts::default();
        for o in &file.objects {
            for p in o.lods.first().into_iter().flat_map(|l| &l.patches) {
                let words = Words::read(o.specials.iter().chain(&p.specials).map(String::as_str));
                let triangles = p.triangle_count();
                for z in words.zones {
                    let zone = out.zones.entry(z).or_default();
                    zone.patches += 1;
                    zone.triangles += triangles;
                }
                for b in &words.behaviours {
                    *out.behaviours.entry(b.word()).or_default() += 1;
                }
                for u in words.unknown {
                    *out.unknown_words.entry(u).or_default() += 1;
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Info {
    pub format: &'static str,
    pub kind: FileKind,
    pub bytes: usize,
    pub closes_exactly: bool,
    pub chunks: usize,
    pub length_widths: BTreeMap<&'static str, usize>,
    pub unknown_tags: Vec<u16>,
    pub unit: Option<u8>,
    pub scale: Option<f32>,
    pub objects: Vec<ObjectInfo>,
    pub triangles: usize,
    pub vertices: usize,
    pub bounds: Option<BoundsInfo>,
    /// The BOUND block's BBOX and BSPHERE, as the file declares them.
    pub declared_bounds: Option<DeclaredBounds>,
    pub materials: Vec<String>,
    pub specials: Vec<String>,
    /// Damage zones (lower case) over LOD 0: docs/formats/biz2.md, "SPECIAL words".
    pub zones: BTreeMap<String, ZoneInfo>,
    /// Behaviour words (upper case): the LOD-0 patches that carry each.
    pub behaviours: BTreeMap<&'static str, usize>,
    /// Words neither a zone nor a behaviour, verbatim: the LOD-0 patches that carry each.
    pub unknown_words: BTreeMap<String, usize>,
    pub material_defs: Vec<MaterialInfo>,
    pub textures: Vec<TextureInfo>,
    /// With an archive root: how each named material resolved (None without a root).
    pub material_resolution: Option<Vec<MaterialResolution>>,
    /// With an archive root: the named materials that could not be found.
    pub missing_materials: Option<Vec<String>>,
    /// With an archive root: each textured material's map, decoded or drawn as a checker.
    pub texture_status: Option<Vec<TextureStatus>>,
    /// Bytes by how they were accounted for.
    pub coverage: Coverage,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics beyond the first few hundred, counted but not listed.
    pub diagnostics_dropped: usize,
}

/// Summarise an already parsed file.
pub fn summarize(tree: &ChunkTree<'_>, file: &Biz2File) -> Info {
    let bytes = tree.bytes;
    let [w1, w2, w4] = tree.length_widths();
    let bounds = lod0_bounds(file);
    let (materials, specials) = named_materials_and_specials(file);
    let PartCounts {
        zones,
        behaviours,
        unknown_words,
    } = PartCounts::of(file);
    Info {
        format: "biz2",
        kind: file.kind,
        bytes: bytes.len(),
        closes_exactly: tree.closes_exactly,
        chunks: tree.len(),
        length_widths: BTreeMap::from([("1", w1), ("2", w2), ("4", w4)]),
        unknown_tags: tree.unknown_tags(),
        unit: file.header.unit,
        scale: file.header.scale,
        objects: file.objects.iter().map(ObjectInfo::of).collect(),
        triangles: file.triangle_count(),
        vertices: file.vertex_count(),
        bounds,
        declared_bounds: file.bounds.clone(),
        materials,
        specials,
        zones,
        behaviours,
        unknown_words,
        material_defs: file
            .materials
            .iter()
            .map(|m| MaterialInfo {
                name: m.name.clone().unwrap_or_default(),
                diffuse: m.diffuse,
                texture: m.texture_name().map(str::to_string),
            })
            .collect(),
        textures: file
            .textures
            .iter()
            .map(|t| TextureInfo {
                name: t.name.clone().unwrap_or_default(),
                map: t.map.clone(),
                scroll: t.scroll(),
                specials: t.specials.clone(),
            })
            .collect(),
        material_resolution: None,
        missing_materials: None,
        texture_status: None,
        coverage: tree.coverage(),
        diagnostics: file.diagnostics.clone(),
        diagnostics_dropped: file.diagnostics_dropped,
    }
}

/// The box around LOD 0 of every object, from each primitive's box taken while it was
/// decoded (a big model's positions would otherwise all be read again).
fn lod0_bounds(file: &Biz2File) -> Option<BoundsInfo> {
    let bounds = file
        .objects
        .iter()
        .filter_map(|o| o.lods.first())
        .flat_map(|l| l.primitives())
        .filter_map(|p| p.bounds)
        .reduce(|a, b| {
            let (lo, hi) = (
                glam::Vec3::from(a[0]).min(b[0].into()),
                glam::Vec3::from(a[1]).max(b[1].into()),
            );
            [lo.into(), hi.into()]
        });
    bounds.map(|[min, max]| BoundsInfo { min, max })
}

/// The material names the patches and objects refer to, and the SPECIAL words they carry,
/// each sorted and once.
fn named_materials_and_specials(file: &Biz2File) -> (Vec<String>, Vec<String>) {
    let patches = || {
        file.objects
            .iter()
            .flat_map(|o| o.lods.iter())
            .flat_map(|l| l.patches.iter())
    };
    let object_refs = file.objects.iter().flat_map(|o| [&o.front, &o.back]);
    let mut materials: Vec<String> = patches()
        .flat_map(|p| [&p.front, &p.back])
        .chain(object_refs)
        .filter_map(|m| match m {
            Some(MaterialRef::Named(n)) => Some(n.clone()),
            _ => None,
        })
        .collect();
    materials.sort();
    materials.dedup();
    let mut specials: Vec<String> = patches()
        .flat_map(|p| p.specials.iter().cloned())
        .chain(file.objects.iter().flat_map(|o| o.specials.iter().cloned()))
        .collect();
    specials.sort();
    specials.dedup();
    (materials, specials)
}

impl ObjectInfo {
    /// An object's name, its LODs' distances and sizes, and its points.
    fn of(o: &Object) -> ObjectInfo {
        ObjectInfo {
            name: o.name.clone(),
            lods: o
                .lods
                .iter()
                .map(|l| LodInfo {
                    distance: l.distance,
                    vertices: l.vertex_count(),
                    triangles: l.triangle_count(),
                })
                .collect(),
            points: o.points.len(),
        }
    }
}

/// What relicview does with each behaviour word present, and how sure that is.
fn behaviour_note<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words
        .map(|w| match w {
            "BLINK" => format!("BLINK blinks on the timeline ({} s shown, {} s hidden: the cadence is relicview's own)", BLINK_PERIOD / 2.0, BLINK_PERIOD / 2.0),
            "WIREFRAME" => "WIREFRAME draws as lines (a guess from the word)".to_string(),
            "ADDITIVE" | "ADDITIVE_LODS" => format!("{w} blends additively (a guess from the word)"),
            "SCROLL" => "SCROLL drifts a texture".to_string(),
            other => format!("{other} is shown, not drawn differently (what it does is unknown)"),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A float as it was written: f32 values print in their shortest round-trip form.
fn num(x: f32) -> String {
    x.to_string()
}

fn join(values: &[f32], sep: &str, f: impl Fn(f32) -> String) -> String {
    values.iter().map(|&v| f(v)).collect::<Vec<_>>().join(sep)
}

impl Info {
    /// The info panel's rows.
    pub fn rows(&self) -> Vec<InfoRow> {
        let mut rows = self.file_rows();
        self.object_rows(&mut rows);
        self.resolution_rows(&mut rows);
        self.word_rows(&mut rows);
        self.definition_rows(&mut rows);
        self.finding_rows(&mut rows);
        rows
    }

    /// What the file is: its kind, bytes, length fields, unit and scale.
    fn file_rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new(
                "format",
                format!(
                    "DIV-BIZ2 {}",
                    if self.kind == FileKind::Geometry {
                        "geometry"
                    } else {
                        "materials"
                    }
                ),
            ),
            InfoRow::new(
                "bytes",
                format!(
                    "{} · {} chunks · {}",
                    self.bytes,
                    self.chunks,
                    if self.closes_exactly {
                        "closes exactly"
                    } else {
                        "does not close"
                    }
                ),
            ),
        ];
        let w = |k: &str| self.length_widths.get(k).copied().unwrap_or(0);
        rows.push(InfoRow::new(
            "lengths",
            format!("1-byte {} · 2-byte {} · 4-byte {}", w("1"), w("2"), w("4")),
        ));
        if let Some(u) = self.unit {
            let (bgf, b2z) = if u == 1 {
                ("metres", "inches")
            } else {
                ("model units", "model units")
            };
            rows.push(InfoRow::new(
                "unit",
                format!("{u} (bgf notes: {bgf}; b2z notes: {b2z})"),
            ));
        }
        if let Some(s) = self.scale {
            rows.push(InfoRow::new("scale", num(s)));
        }
        rows
    }

    /// Each object's levels of detail and light points, what LOD 0 draws, and its bounds.
    fn object_rows(&self, rows: &mut Vec<InfoRow>) {
        for o in &self.objects {
            let lods: Vec<String> = o
                .lods
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    format!(
                        "LOD {i}{}: {} tris",
                        l.distance
                            .map_or(String::new(), |d| format!(" [{}]", join(&d, "–", num))),
                        l.triangles
                    )
                })
                .collect();
            let mut parts = vec![lods.join(" · ")];
            if o.points > 0 {
                parts.push(format!("{} light points", o.points));
            }
            parts.retain(|p| !p.is_empty());
            let value = if parts.is_empty() {
                "empty".to_string()
            } else {
                parts.join(" · ")
            };
            rows.push(InfoRow::new(
                format!("object {}", o.name.as_deref().unwrap_or("(unnamed)")),
                value,
            ));
        }
        if self.kind == FileKind::Geometry {
            rows.push(InfoRow::new(
                "drawn (LOD 0)",
                format!("{} triangles · {} vertices", self.triangles, self.vertices),
            ));
        }
        if let Some(b) = &self.bounds {
            let f = |v: &[f32; 3]| join(v, ", ", |x| format!("{x:.2}"));
            rows.push(InfoRow::new(
                "bounds",
                format!("min ({}) max ({})", f(&b.min), f(&b.max)),
            ));
        }
    }

    /// How each named material and texture map resolved, where the scene's build said.
    fn resolution_rows(&self, rows: &mut Vec<InfoRow>) {
        for r in self.material_resolution.iter().flatten() {
            let label = format!("material {}", r.reference);
            rows.push(match (&r.library, r.found, &r.library_error) {
                (Some(l), true, _) if r.also.is_empty() => {
                    InfoRow::new(label, format!("from {l}")).with_links(vec![l.clone()])
                }
                (Some(l), true, _) => {
                    InfoRow::new(label, format!("from {l}; also {}", r.also.join(", ")))
                        .with_candidates(l, &r.also)
                }
                (_, _, Some(e)) => {
                    InfoRow::warning(label, format!("library unusable: {e} (drawn grey)"))
                }
                (Some(l), false, None) => {
                    InfoRow::warning(label, format!("not in {l} (drawn grey)"))
                        .with_links(vec![l.clone()])
                }
                (None, ..) => InfoRow::warning(label, "no library in the archive (drawn grey)"),
            });
        }
        for t in self.texture_status.iter().flatten() {
            let label = format!("texture {}", t.texture);
            rows.push(match &t.reason {
                None => InfoRow::new(
                    label,
                    format!(
                        "{}{}",
                        t.file.as_deref().unwrap_or(""),
                        t.scroll.map_or(String::new(), |s| format!(
                            " · scrolls {}",
                            join(&s, " ", num)
                        ))
                    ),
                )
                .with_links(t.file.iter().cloned().collect()),
                Some(why) => InfoRow::warning(label, format!("checker: {why}")),
            });
        }
    }

    /// The SPECIAL words: verbatim, as damage zones, behaviours and unknown words.
    fn word_rows(&self, rows: &mut Vec<InfoRow>) {
        if !self.specials.is_empty() {
            rows.push(InfoRow::new("specials", self.specials.join(" · ")));
        }
        if !self.zones.is_empty() {
            let zones: Vec<String> = self
                .zones
                .iter()
                .map(|(z, i)| {
                    format!(
                        "{z} ({}, {})",
                        count_as(i.patches as u64, "patch", "patches"),
                        count_len(i.triangles, "tri")
                    )
                })
                .collect();
            rows.push(InfoRow::new(
                format!("damage zones (LOD 0): {}", self.zones.len()),
                zones.join(" · "),
            ));
        }
        if !self.behaviours.is_empty() {
            let words: Vec<String> = self
                .behaviours
                .iter()
                .map(|(w, n)| format!("{w} on {}", count_as(*n as u64, "patch", "patches")))
                .collect();
            rows.push(InfoRow::new("behaviour words", words.join(" · ")));
            rows.push(InfoRow::new(
                "what they do",
                behaviour_note(self.behaviours.keys().copied()),
            ));
        }
        if !self.unknown_words.is_empty() {
            let words: Vec<String> = self
                .unknown_words
                .iter()
                .map(|(w, n)| format!("{w} on {}", count_as(*n as u64, "patch", "patches")))
                .collect();
            rows.push(InfoRow::new("unknown words", words.join(" · ")));
        }
    }

    /// The textures and materials the file defines, and the tags no table knows.
    fn definition_rows(&self, rows: &mut Vec<InfoRow>) {
        for t in &self.textures {
            let scroll = t.scroll.map_or(String::new(), |s| {
                format!(" · scroll {}", join(&s, " ", num))
            });
            rows.push(InfoRow::new(
                format!("texture {}", t.name),
                format!("{}{scroll}", t.map.as_deref().unwrap_or("no map")),
            ));
        }
        for m in &self.material_defs {
            let row = InfoRow::new(
                format!("material {}", m.name),
                m.diffuse.map_or("—".to_string(), |d| {
                    format!("diffuse {}", join(&d, ", ", |x| format!("{x:.2}")))
                }),
            );
            rows.push(
                match m.diffuse.filter(|d| d.iter().all(|x| x.is_finite())) {
                    Some(d) => row.with_swatch(d),
                    None => row,
                },
            );
        }
        if !self.unknown_tags.is_empty() {
            rows.push(InfoRow::new(
                "unknown tags",
                self.unknown_tags
                    .iter()
                    .map(|t| format!("0x{t:04x}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
    }

    /// The findings, and how many were not listed.
    fn finding_rows(&self, rows: &mut Vec<InfoRow>) {
        for d in &self.diagnostics {
            rows.push(InfoRow::warning(
                format!("warning @{}", d.offset),
                format!("{}: {}", d.path, d.message),
            ));
        }
        if self.diagnostics_dropped > 0 {
            rows.push(InfoRow::warning(
                "more warnings",
                format!("{} not listed", self.diagnostics_dropped),
            ));
        }
    }
}
