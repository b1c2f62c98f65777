//! A field as a scene (docs/formats/field-dat.md, "The field scene"): the walkmesh filled
//! and outlined, the triangles the init pass locked marked, and each gateway as its exit line
//! with an arrow pointing out of the field. In the field's units, turned so that its z (up)
//! is the viewer's y.

use super::init::InitPass;
use super::raw::{DatFile, Walkmesh, TRIANGLE};
use crate::scene::{Material, Mesh, Node, Primitive, Scene, SourceRun, Surface, Transform};

/// The layers a field scene's parts are on, so each can be hidden.
pub const LAYERS: [&str; 3] = ["walkmesh", "walkmesh outline", "gateways"];

const FLOOR: [f32; 4] = [0.55, 0.62, 0.72, 1.0];
const LOCKED: [f32; 4] = [0.85, 0.3, 0.25, 1.0];
const OUTLINE: [f32; 4] = [0.12, 0.14, 0.18, 1.0];
const GATEWAY: [f32; 4] = [0.2, 0.85, 0.35, 1.0];
/// How far above the floor the lines are drawn, so they do not fight it for depth.
const LIFT: f32 = 2.0;

/// The scene of a field: `triangle_rows[t]` is triangle `t`'s inspector record.
pub fn build(name: &str, d: &DatFile, pass: Option<&InitPass>, triangle_rows: &[u32]) -> Option<Scene> {
    let w = d.walkmesh.as_ref().ok()?;
    let mut scene = Scene {
        name: format!("{name} walkmesh"),
        layers: LAYERS.iter().map(|l| l.to_string()).collect(),
        ..Default::default()
    };
    let material = |scene: &mut Scene, name: &str, colour: [f32; 4], surface: Surface| {
        scene.materials.push(Material {
            name: Some(name.into()),
            base_color: colour,
            double_sided: true,
            surface,
            ..Default::default()
        });
        Some(scene.materials.len() as u32 - 1)
    };
    let floor = material(&mut scene, "walkmesh", [1.0; 4], Surface::Filled);
    let outline = material(&mut scene, "walkmesh outline", OUTLINE, Surface::Lines);
    let gateway = material(&mut scene, "gateways", GATEWAY, Surface::Lines);
    let locked: Vec<u16> = pass.map_or(Vec::new(), |p| p.locked_triangles.clone());
    let turn = Transform {
        // The field's z is up: a quarter turn about x makes it the viewer's y.
        rotation: glam::Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2).to_array(),
        ..Default::default()
    };
    let root = scene.add_node(None, Node { name: Some(name.into()), transform: turn, ..Default::default() });
    let parts = [
        (floor_primitive(w, &locked, triangle_rows, floor), 0),
        (outline_primitive(w, outline), 1),
    ];
    for (prim, layer) in parts {
        let mesh = scene.add_mesh(Mesh { name: Some(LAYERS[layer].into()), primitives: vec![prim] });
        scene.add_node(Some(root), Node { name: Some(LAYERS[layer].into()), mesh: Some(mesh), layer: Some(layer as u32), ..Default::default() });
    }
    if let Ok(t) = &d.triggers {
        let centre = centre_of(w);
        let mut prim = Primitive { material: gateway, ..Default::default() };
        for g in &t.gateways {
            line_with_arrow(&mut prim, g.line.map(|p| p.map(|c| c as f32)), centre);
        }
        if !prim.indices.is_empty() {
            let mesh = scene.add_mesh(Mesh { name: Some("gateways".into()), primitives: vec![prim] });
            scene.add_node(Some(root), Node { name: Some("gateways".into()), mesh: Some(mesh), layer: Some(2), ..Default::default() });
        }
    }
    Some(scene)
}

fn vertex(v: [i16; 3]) -> [f32; 3] {
    v.map(|c| c as f32)
}

/// The floor: each triangle its own three vertices (so a locked one takes its own colour),
/// each picking its record.
fn floor_primitive(w: &Walkmesh, locked: &[u16], rows: &[u32], material: Option<u32>) -> Primitive {
    let mut prim = Primitive { material, colors: Some(Vec::new()), ..Default::default() };
    for (t, tri) in w.triangles.iter().enumerate() {
        let first = prim.positions.len() as u32;
        prim.positions.extend(tri.map(vertex));
        let colour = if locked.contains(&(t as u16)) { LOCKED } else { FLOOR };
        let rgba = colour.map(|c| (c * 255.0) as u8);
        prim.colors.as_mut().expect("made with colours").extend([rgba; 3]);
        prim.indices.extend([first, first + 1, first + 2]);
        if let Some(&record) = rows.get(t) {
            prim.sources.push(SourceRun { first: t as u32, record, start: w.triangle_at(t), face_len: TRIANGLE as u32, tris_per_face: 1 });
        }
    }
    prim
}

/// The triangles' edges, lifted a little above the floor.
fn outline_primitive(w: &Walkmesh, material: Option<u32>) -> Primitive {
    let mut prim = Primitive { material, ..Default::default() };
    for tri in &w.triangles {
        let first = prim.positions.len() as u32;
        prim.positions.extend(tri.map(|v| {
            let mut p = vertex(v);
            p[2] += LIFT;
            p
        }));
        prim.indices.extend([first, first + 1, first + 2]);
    }
    prim
}

/// The walkmesh's middle in x and y.
fn centre_of(w: &Walkmesh) -> [f32; 2] {
    let n = (w.triangles.len() * 3).max(1) as f32;
    let sum = w.triangles.iter().flatten().fold([0.0f32; 2], |s, v| [s[0] + v[0] as f32, s[1] + v[1] as f32]);
    [sum[0] / n, sum[1] / n]
}

/// A line (drawn as a flat triangle's edges) and at its middle an arrow pointing away from
/// `centre`: out of the field.
fn line_with_arrow(prim: &mut Primitive, line: [[f32; 3]; 2], centre: [f32; 2]) {
    let [a, b] = line.map(|mut p| {
        p[2] += LIFT;
        p
    });
    let first = prim.positions.len() as u32;
    prim.positions.extend([a, b, b]);
    prim.indices.extend([first, first + 1, first + 2]);
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0, (a[2] + b[2]) / 2.0];
    let along = glam::Vec2::new(b[0] - a[0], b[1] - a[1]);
    let length = along.length();
    if length < 1.0 {
        return;
    }
    let mut out = glam::Vec2::new(-along.y, along.x) / length;
    if out.dot(glam::Vec2::new(mid[0] - centre[0], mid[1] - centre[1])) < 0.0 {
        out = -out;
    }
    let size = (length * 0.25).clamp(10.0, 120.0);
    let side = along / length * size * 0.5;
    let tip = [mid[0] + out.x * size, mid[1] + out.y * size, mid[2]];
    let left = [mid[0] - side.x, mid[1] - side.y, mid[2]];
    let right = [mid[0] + side.x, mid[1] + side.y, mid[2]];
    let first = prim.positions.len() as u32;
    prim.positions.extend([left, tip, right]);
    prim.indices.extend([first, first + 1, first + 2]);
}
