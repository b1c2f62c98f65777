//! What the page's Parts view reads of the scene on show: its damage zones (layers that
//! hide the parts a destroyed zone takes with it) with their patches, triangles and colours,
//! and every part's words (docs/formats/biz2.md, "SPECIAL words").

use crate::scene::{row_of, RecordBytes, Scene};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The colour of parts of no zone when each zone is drawn in its own (sRGB).
pub const ZONELESS: [f32; 4] = [0.45, 0.45, 0.47, 1.0];

/// The colour of the `k`-th damage zone of a scene (sRGB): hues a golden angle apart, so
/// neighbours in the list differ however many zones there are.
pub fn zone_colour(k: usize) -> [f32; 4] {
    let hue = (k as f32 * 0.381_966).fract() * 6.0;
    let (s, v) = (0.65, 0.95);
    let f = hue.fract();
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let [r, g, b] = match hue as u32 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    };
    [r, g, b, 1.0]
}

/// A damage zone as the Parts view lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ZoneState {
    pub name: String,
    /// Its layer: what hiding it hides.
    pub layer: u32,
    /// Parts (patches) of it and their triangles at the LOD on show, every placement counted.
    pub patches: usize,
    pub triangles: usize,
    /// Hidden: destroyed, as the game hides it.
    pub hidden: bool,
    /// Its colour when each zone is drawn in its own, as CSS `rgb(…)`.
    pub colour: String,
}

/// A part with words, as the Parts view lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct PartState {
    pub name: Option<String>,
    /// Its inspector record, when it came from the file on show and the file has an
    /// inspector (a world's placed models' parts have none of their own).
    pub record: Option<u32>,
    /// That record's bytes, `[start, end)` in the bytes the inspector's rows refer to.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "[number, number] | null"))]
    pub bytes: Option<RecordBytes>,
    pub zones: Vec<String>,
    pub words: Vec<String>,
    pub triangles: usize,
    /// Where it is placed in a world (the placement above it), else None.
    pub placed_in: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Parts {
    pub zones: Vec<ZoneState>,
    /// Parts with words, at most [`MAX_PARTS`] (a world may place a model thousands of times).
    pub parts: Vec<PartState>,
    /// Parts with words at the LOD on show, all of them.
    pub parts_total: usize,
    /// Each word (zones lower case, behaviour words upper case, others verbatim) and the
    /// parts that carry it at the LOD on show.
    pub words: BTreeMap<String, usize>,
}

/// Parts listed at most.
pub const MAX_PARTS: usize = 2_000;

/// The CSS colour of sRGB floats.
pub fn css(c: [f32; 4]) -> String {
    let b = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    format!("rgb({}, {}, {})", b(c[0]), b(c[1]), b(c[2]))
}

/// The zones and parts of `scene` at LOD `lod` with the layers in `hidden` hidden; `rows`
/// the file's inspector rows (`[offset, end)` each), which the parts' records are found in.
pub fn parts(scene: &Scene, lod: usize, hidden: &[u32], rows: &[(usize, usize)]) -> Parts {
    // Counted as shown at the LOD whatever is hidden: a destroyed zone still lists its parts.
    let zone_mask = scene.layer_mask(&scene.zones);
    let unhidden: Vec<u32> = hidden
        .iter()
        .copied()
        .filter(|&l| !zone_mask.get(l as usize).copied().unwrap_or(false))
        .collect();
    let hidden_mask = scene.layer_mask(hidden);
    let visible = scene.visible_in(lod, &unhidden);
    let mut out = Parts::default();
    let mut counts: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for (i, n) in scene.nodes.iter().enumerate() {
        let Some(part) = n.part.as_ref().filter(|_| visible[i]) else {
            continue;
        };
        let triangles = n
            .mesh
            .and_then(|m| scene.meshes.get(m as usize))
            .map_or(0, |m| m.triangle_count());
        for &z in &part.zones {
            let c = counts.entry(z).or_default();
            c.0 += 1;
            c.1 += triangles;
        }
        for w in &part.words {
            *out.words
                .entry(w.split(' ').next().unwrap_or(w).to_string())
                .or_default() += 1;
        }
        out.parts_total += 1;
        if out.parts.len() < MAX_PARTS {
            let placed_in = (n.record.is_none())
                .then(|| placement_of(scene, i))
                .flatten();
            out.parts.push(PartState {
                name: n.name.clone(),
                record: n.record.and_then(|b| row_of(rows, b)),
                bytes: n.record,
                zones: part
                    .zones
                    .iter()
                    .filter_map(|&z| scene.layers.get(z as usize).cloned())
                    .collect(),
                words: part.words.clone(),
                triangles,
                placed_in,
            });
        }
    }
    out.zones = scene
        .zones
        .iter()
        .enumerate()
        .map(|(k, &layer)| {
            let (patches, triangles) = counts.get(&layer).copied().unwrap_or_default();
            let hidden = hidden_mask.get(layer as usize).copied().unwrap_or(false);
            ZoneState {
                name: scene
                    .layers
                    .get(layer as usize)
                    .cloned()
                    .unwrap_or_default(),
                layer,
                patches,
                triangles,
                hidden,
                colour: css(zone_colour(k)),
            }
        })
        .collect();
    out
}

/// The name of the nearest node above `i` that came from a record of the file on show (a
/// world's placement line).
fn placement_of(scene: &Scene, i: usize) -> Option<String> {
    let mut at = scene.nodes[i].parent;
    while let Some(p) = at {
        let n = scene.nodes.get(p as usize)?;
        if n.record.is_some() {
            return n.name.clone();
        }
        at = n.parent.filter(|&q| q < p);
    }
    None
}

/// Per mesh: the colour it is drawn in when each zone has its own (its first node's first
/// zone's, grey for none).
pub fn mesh_zone_colours(scene: &Scene) -> Vec<[f32; 4]> {
    let mut out: Vec<Option<[f32; 4]>> = vec![None; scene.meshes.len()];
    let place: HashMap<u32, usize> = scene
        .zones
        .iter()
        .enumerate()
        .map(|(k, &l)| (l, k))
        .collect();
    for n in &scene.nodes {
        let Some(m) = n.mesh.filter(|&m| (m as usize) < out.len()) else {
            continue;
        };
        if out[m as usize].is_some() {
            continue;
        }
        let first = n
            .part
            .as_ref()
            .and_then(|p| p.zones.first())
            .and_then(|z| place.get(z).copied());
        out[m as usize] = Some(first.map_or(ZONELESS, zone_colour));
    }
    out.into_iter().map(|c| c.unwrap_or(ZONELESS)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, Node, PartWords, Primitive};

    #[test]
    fn zones_count_their_parts_and_triangles_hidden_or_not_and_have_colours_apart() {
        let mut s = Scene::default();
        let (a, b) = (s.layer("dz_a"), s.layer("dz_b"));
        s.zones = vec![a, b];
        let tri = Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: vec![[0.0; 3]; 3],
                indices: vec![0, 1, 2, 0, 2, 1],
                ..Default::default()
            }],
        };
        let m = s.add_mesh(tri.clone());
        let m2 = s.add_mesh(tri);
        let part = |zones: Vec<u32>, words: &[&str]| {
            Some(Box::new(PartWords {
                zones,
                words: words.iter().map(|w| w.to_string()).collect(),
            }))
        };
        s.add_node(
            None,
            Node {
                name: Some("one".into()),
                mesh: Some(m),
                record: Some([40, 52]),
                part: part(vec![a, b], &["dz_a", "dz_b", "GEOMETRIZE 0x1"]),
                ..Default::default()
            },
        );
        s.add_node(
            None,
            Node {
                name: Some("two".into()),
                mesh: Some(m2),
                part: part(vec![], &["BLINK"]),
                ..Default::default()
            },
        );
        // The file's rows: the patch's record is row 1.
        let p = parts(&s, 0, &[b], &[(0, 100), (40, 52), (52, 60)]);
        assert_eq!(
            (p.parts[0].record, p.parts[0].bytes),
            (Some(1), Some([40, 52]))
        );
        assert_eq!(
            parts(&s, 0, &[b], &[]).parts[0].record,
            None,
            "no inspector, no row"
        );
        assert_eq!(
            (p.zones[0].patches, p.zones[0].triangles, p.zones[0].hidden),
            (1, 2, false)
        );
        assert_eq!(
            (p.zones[1].patches, p.zones[1].hidden),
            (1, true),
            "a destroyed zone still lists its parts"
        );
        assert_eq!(p.parts_total, 2);
        assert_eq!(p.words["GEOMETRIZE"], 1);
        assert_eq!(p.words["BLINK"], 1);
        assert_ne!(p.zones[0].colour, p.zones[1].colour);
        assert_eq!(mesh_zone_colours(&s), vec![zone_colour(0), ZONELESS]);
        let colours: std::collections::BTreeSet<String> =
            (0..12).map(|k| css(zone_colour(k))).collect();
        assert_eq!(colours.len(), 12, "twelve zones, twelve colours");
    }
}
