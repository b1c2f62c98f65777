//! The demo archive: a small, deterministic game tree written with the project's own
//! DIV-BIZ2 writer. It is what a newcomer sees first and what the browser tests load.

use crate::formats::biz2::writer::{write_file, WriteOptions};
use crate::formats::biz2::{Biz2File, Connectivity, FileKind, Header, LightPoint, Lod, MaterialDef, MaterialRef, Object, Patch, Primitive, PrimitiveKind, VertexBlock};
use std::f32::consts::TAU;

/// Relative path and bytes of every file in the demo archive.
pub fn demo_files() -> Vec<(String, Vec<u8>)> {
    let opts = WriteOptions::default();
    vec![
        ("DEMO/VIDEO/CUBE.BGF".into(), write_file(&cube(), opts)),
        ("DEMO/VIDEO/HEXPOD.BGF".into(), write_file(&hexpod(), opts)),
        ("DEMO/VIDEO/TOWER.BGF".into(), write_file(&tower(), opts)),
        ("DEMO/MATERIAL/DEMO.BMF".into(), write_file(&library(), opts)),
    ]
}

/// Write the demo archive under `dir`.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_demo(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut written = Vec::new();
    for (path, bytes) in demo_files() {
        let full = dir.join(&path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&full, bytes)?;
        written.push(path);
    }
    Ok(written)
}

fn header(filetype: u8) -> Header {
    Header {
        version: Some("2.8".into()),
        date: Some("Nov 30 2026".into()),
        time: Some("12:00:00".into()),
        scale: Some(1.0),
        precision: Some(0),
        filetype: Some(filetype),
        unit: Some(1),
    }
}

fn patch(name: &str, material: &str, primitives: Vec<Primitive>) -> Patch {
    Patch {
        chunk: 0,
        name: Some(name.into()),
        front: Some(MaterialRef::Named(format!("demo:{material}"))),
        back: Some(MaterialRef::SameAsFront),
        special: None,
        faceted: Some(1),
        decal: None,
        primitives,
    }
}

fn pmesh(format: u16, positions: Vec<[f32; 3]>, connectivity: Vec<Connectivity>) -> Primitive {
    let uvs = (format == 0x088).then(|| positions.iter().map(|p| [p[0], p[2]]).collect());
    Primitive {
        kind: PrimitiveKind::PMesh,
        chunk: 0,
        vertices: VertexBlock { format, positions, uvs, ..Default::default() },
        connectivity,
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
    }
}

fn object(name: &str, lods: Vec<Lod>) -> Object {
    Object { chunk: 0, name: Some(name.into()), sv_vertex: Some(0x88), lods, points: Vec::new() }
}

fn geometry(objects: Vec<Object>) -> Biz2File {
    Biz2File { objects, ..Biz2File::new(FileKind::Geometry, header(0)) }
}

/// A 1994-style object: one quad PMESH straight under OBJECT (no LOD container).
fn cube() -> Biz2File {
    let p: Vec<[f32; 3]> = (0..8).map(|i| [(i & 1) as f32 * 2.0 - 1.0, (i >> 1 & 1) as f32 * 2.0 - 1.0, (i >> 2 & 1) as f32 * 2.0 - 1.0]).collect();
    let quads = vec![0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5];
    let mesh = pmesh(0x088, p, vec![Connectivity::Faces { points_per_face: 4, indices: quads }]);
    let lod = Lod { chunk: None, distance: None, transition: None, patches: vec![patch("box", "crate_mtl", vec![mesh])] };
    geometry(vec![object("cube", vec![lod])])
}

/// Ring of `n` points at height `y`.
fn ring(n: usize, radius: f32, y: f32) -> impl Iterator<Item = [f32; 3]> {
    (0..n).map(move |i| {
        let a = i as f32 / n as f32 * TAU;
        [radius * a.cos(), y, radius * a.sin()]
    })
}

/// A hexagonal pod with a pointed roof: hexagons and quads in PCONN_LISTs and the roof as a
/// CONNECTION_LIST, all in ONE PMESH, plus a coarser second LOD.
fn hexpod() -> Biz2File {
    let mut p: Vec<[f32; 3]> = ring(6, 1.5, 0.0).chain(ring(6, 1.5, 1.0)).collect();
    p.push([0.0, 1.8, 0.0]);
    let bottom: Vec<i32> = (0..6).rev().collect();
    let top: Vec<i32> = (6..12).collect();
    let sides: Vec<i32> = (0..6).flat_map(|i| [i, (i + 1) % 6, 6 + (i + 1) % 6, 6 + i]).collect();
    let roof: Vec<[i32; 3]> = (0..6).map(|i| [6 + i, 12, 6 + (i + 1) % 6]).collect();
    let fine = pmesh(
        0x088,
        p.clone(),
        vec![
            Connectivity::Faces { points_per_face: 6, indices: [bottom.clone(), top.clone()].concat() },
            Connectivity::Faces { points_per_face: 4, indices: sides.clone() },
            Connectivity::Triangles(roof),
        ],
    );
    let coarse = pmesh(
        0x080,
        p[..12].to_vec(),
        vec![Connectivity::Faces { points_per_face: 6, indices: [bottom, top].concat() }, Connectivity::Faces { points_per_face: 4, indices: sides }],
    );
    let lods = vec![
        Lod { chunk: Some(0), distance: Some([0.0, 60.0]), transition: Some(2.0), patches: vec![patch("hull", "hull_mtl", vec![fine])] },
        Lod { chunk: Some(0), distance: Some([60.0, 400.0]), transition: Some(2.0), patches: vec![patch("hull", "hull_mtl", vec![coarse])] },
    ];
    // Six running lights on the roof rim: a point-only FX object like the pods' *_LP models.
    let lights = Object {
        points: ring(6, 1.55, 1.05).enumerate().map(|(i, position)| LightPoint { chunk: 0, position, radius: Some(0.05 + 0.01 * i as f32) }).collect(),
        lods: Vec::new(),
        ..object("hexpod_lp", Vec::new())
    };
    geometry(vec![object("hexpod", lods), lights])
}

/// A vertex-coloured tower drawn as one TRISTRIP around a 12-sided tube.
fn tower() -> Biz2File {
    let sides = 12;
    let mut positions = Vec::new();
    let mut colors = Vec::new();
    for i in 0..=sides {
        let a = i as f32 / sides as f32 * TAU;
        let (x, z) = (0.6 * a.cos(), 0.6 * a.sin());
        positions.push([x, 0.0, z]);
        positions.push([x * 0.7, 4.0, z * 0.7]);
        let t = i as f32 / sides as f32;
        colors.push([0.9, 0.3 + 0.5 * t, 0.1, 1.0]);
        colors.push([0.2, 0.4, 0.9 - 0.5 * t, 1.0]);
    }
    let strip = Primitive {
        kind: PrimitiveKind::TriStrip,
        chunk: 0,
        vertices: VertexBlock { format: 0x082, positions, colors: Some(colors), ..Default::default() },
        connectivity: Vec::new(),
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
    };
    let lod = Lod { chunk: Some(0), distance: Some([0.0, 200.0]), transition: None, patches: vec![patch("shaft", "tower_mtl", vec![strip])] };
    geometry(vec![object("tower", vec![lod])])
}

fn library() -> Biz2File {
    let mat = |name: &str, diffuse: [f32; 3]| MaterialDef { diffuse: Some(diffuse), ambient: Some([0.2, 0.2, 0.2]), ..MaterialDef::new(name) };
    Biz2File {
        materials: vec![mat("crate_mtl", [0.8, 0.55, 0.25]), mat("hull_mtl", [0.25, 0.55, 0.85]), mat("tower_mtl", [0.7, 0.7, 0.7])],
        ..Biz2File::new(FileKind::Materials, header(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_demo_file_parses_cleanly_and_closes_exactly() {
        for (path, bytes) in demo_files() {
            let (tree, file) = Biz2File::parse(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(tree.closes_exactly, "{path}");
            assert!(file.diagnostics.is_empty(), "{path}: {:?}", file.diagnostics);
            // The writer writes nothing the reader does not explain.
            let cov = tree.coverage();
            assert_eq!((cov.opaque, cov.unclaimed), (0, 0), "{path}: {cov:?}");
            assert_eq!(cov.framing + cov.decoded, bytes.len(), "{path}");
        }
    }

    #[test]
    fn hexpod_mixes_pconn_hexagons_quads_and_conn_triangles_in_one_pmesh() {
        let bytes = write_file(&hexpod(), WriteOptions::default());
        let (tree, file) = Biz2File::parse(&bytes).unwrap();
        let pmesh = tree.chunks.iter().position(|c| c.id == 0x0046).unwrap() as u32;
        let kids: Vec<u16> = tree.children(Some(pmesh)).map(|i| tree.chunks[i as usize].id).collect();
        assert_eq!(kids, vec![0x0088, 0x004D, 0x004D, 0x0047]);
        let o = &file.objects[0];
        assert_eq!(o.lods.len(), 2);
        // 2 hexagons × 4 + 6 quads × 2 + 6 roof triangles.
        assert_eq!(o.lods[0].triangle_count(), 8 + 12 + 6);
        assert_eq!(o.lods[1].triangle_count(), 8 + 12);
        assert_eq!(o.lods[1].distance, Some([60.0, 400.0]));
        assert_eq!(file.triangle_count(), 26);
        assert_eq!(file.objects[1].points.len(), 6);
        assert!((file.objects[1].points[5].radius.unwrap() - 0.1).abs() < 1e-6);
    }

    #[test]
    fn library_has_diffuse_colours() {
        let bytes = write_file(&library(), WriteOptions::default());
        assert_eq!(&bytes[..8], b"DIV-BMF2");
        let (_, file) = Biz2File::parse(&bytes).unwrap();
        assert_eq!(file.kind, FileKind::Materials);
        assert_eq!(file.materials[1].name.as_deref(), Some("hull_mtl"));
        assert_eq!(file.materials[1].diffuse, Some([0.25, 0.55, 0.85]));
    }
}
