//! The demo archive: a small, deterministic game tree written with the project's own
//! DIV-BIZ2 writer. It is what a newcomer sees first and what the browser tests load.

use crate::pods::biz2::writer::{write_file, WriteOptions};
use crate::pods::biz2::{
    Biz2File, Connectivity, DeclaredBounds, FileKind, Header, LightPoint, Lod, MaterialDef,
    MaterialRef, Object, Patch, Primitive, PrimitiveKind, TextureDef, TextureRef, VertexBlock,
};
use std::f32::consts::TAU;

mod arena;
mod field;
pub use arena::{city_files, city_map};
pub use field::{faces_tdb, hero, party_spec, robot_bsx, robot_spec};

/// Relative path and bytes of every file in the demo archive.
pub fn demo_files() -> Vec<(String, Vec<u8>)> {
    let mut files = models();
    files.extend(arena::arena_files());
    files.push(("DEMO/FIELD/ROBOT.BSX".into(), field::robot_bsx()));
    files.extend(field::party_files());
    files
}

/// The models, their library and textures, and the small world that uses the pod.
fn models() -> Vec<(String, Vec<u8>)> {
    let opts = WriteOptions::default();
    vec![
        ("DEMO/VIDEO/CUBE.BGF".into(), write_file(&cube(), opts)),
        ("DEMO/VIDEO/HEXPOD.BGF".into(), write_file(&hexpod(), opts)),
        ("DEMO/VIDEO/TOWER.BGF".into(), write_file(&tower(), opts)),
        ("DEMO/VIDEO/POOL.BGF".into(), write_file(&pool(), opts)),
        ("DEMO/VIDEO/FORMATS.BGF".into(), write_file(&vertex_formats(), opts)),
        ("DEMO/VIDEO/WALKER.BGF".into(), write_file(&walker(), opts)),
        ("DEMO/MATERIAL/DEMO.BMF".into(), write_file(&library(), opts)),
        ("DEMO/TEXTURE/WATER.TGA".into(), water_tga()),
        ("DEMO/TEXTURE/SIGN.RGB".into(), sign_sgi()),
        // A game object and a world that use the pod, so "used by" has something to find.
        ("DEMO/MODELS/HEXPOD.MOD".into(), b"; the demo pod as a game object\r\n[video]\r\nobject=hexpod.bgf\r\n[gamedata]\r\nclass=UnscalableTerrainClassID\r\n".to_vec()),
        ("DEMO/MAPS/DEMO.MAP".into(), b"[pod]\r\ntype=model\r\nmodelfile=hexpod.mod\r\n[demo]\r\ntype=map\r\ninstance=pod 0 0 0 0 0 0\r\ninstance=pod 6 0 0 0 0.5 0\r\n".to_vec()),
    ]
}

/// A large model for benchmarks: `patches` PATCHes, each a 32×32-quad height field
/// (1,089 XYZ_N_UV vertices, 2,048 triangles) in one PMESH with a PCONN quad list, laid
/// out side by side: about 51 KB a patch, so every PATCH fits a 2-byte length as in the
/// pods' files (only OBJECT and LOD need 4-byte lengths at this size).
pub fn large_model(patches: usize) -> Biz2File {
    const N: usize = 32;
    let side = (patches as f32).sqrt().ceil() as usize;
    let patch_list = (0..patches)
        .map(|k| {
            let (ox, oz) = ((k % side * N) as f32, (k / side * N) as f32);
            let mut positions = Vec::with_capacity((N + 1) * (N + 1));
            let mut normals = Vec::with_capacity(positions.capacity());
            let mut uvs = Vec::with_capacity(positions.capacity());
            for z in 0..=N {
                for x in 0..=N {
                    let (wx, wz) = (ox + x as f32, oz + z as f32);
                    positions.push([wx, (wx * 0.3).sin() * (wz * 0.2).cos() * 2.0, wz]);
                    normals.push([0.0, 1.0, 0.0]);
                    uvs.push([x as f32 / N as f32, z as f32 / N as f32]);
                }
            }
            let at = |x: usize, z: usize| (z * (N + 1) + x) as i32;
            let indices = (0..N)
                .flat_map(|z| {
                    (0..N)
                        .flat_map(move |x| [at(x, z), at(x + 1, z), at(x + 1, z + 1), at(x, z + 1)])
                })
                .collect();
            let mesh = Primitive {
                kind: PrimitiveKind::PMesh,
                record: [0, 0],
                vertices: VertexBlock {
                    format: 0x089,
                    positions,
                    normals: Some(normals),
                    uvs: Some(uvs),
                    ..Default::default()
                },
                connectivity: vec![Connectivity::Faces {
                    points_per_face: 4,
                    indices,
                }],
                triangles: Vec::new(),
                triangle_sources: Vec::new(),
                bounds: None,
            };
            patch(&format!("tile{k}"), "hull_mtl", vec![mesh])
        })
        .collect();
    let lod = Lod {
        record: Some([0, 0]),
        distance: Some([0.0, 1.0e6]),
        transition: None,
        patches: patch_list,
    };
    geometry(vec![object("terrain", vec![lod])])
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
    patch_in("demo", name, material, primitives)
}

/// A patch whose material is `material` in library `lib`.
fn patch_in(lib: &str, name: &str, material: &str, primitives: Vec<Primitive>) -> Patch {
    Patch {
        record: [0, 0],
        name: Some(name.into()),
        front: Some(MaterialRef::Named(format!("{lib}:{material}"))),
        back: Some(MaterialRef::SameAsFront),
        specials: Vec::new(),
        faceted: Some(1),
        decal: None,
        primitives,
    }
}

fn pmesh(format: u16, positions: Vec<[f32; 3]>, connectivity: Vec<Connectivity>) -> Primitive {
    let uvs = (format == 0x088).then(|| positions.iter().map(|p| [p[0], p[2]]).collect());
    Primitive {
        kind: PrimitiveKind::PMesh,
        record: [0, 0],
        vertices: VertexBlock {
            format,
            positions,
            uvs,
            ..Default::default()
        },
        connectivity,
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
        bounds: None,
    }
}

fn object(name: &str, lods: Vec<Lod>) -> Object {
    Object {
        record: [0, 0],
        name: Some(name.into()),
        front: None,
        back: None,
        sv_vertex: Some(0x88),
        specials: Vec::new(),
        lods,
        points: Vec::new(),
    }
}

/// A geometry file with a BOUND block declaring the box and sphere around its objects.
fn geometry(objects: Vec<Object>) -> Biz2File {
    let mut file = Biz2File {
        objects,
        ..Biz2File::new(FileKind::Geometry, header(0))
    };
    let vertices = file
        .objects
        .iter()
        .flat_map(|o| o.lods.iter().take(1))
        .flat_map(|l| l.primitives())
        .flat_map(|p| p.vertices.positions.iter().copied());
    let points = file
        .objects
        .iter()
        .flat_map(|o| o.points.iter().map(|p| p.position));
    let all: Vec<[f32; 3]> = vertices.chain(points).collect();
    if let Some(first) = all.first() {
        let (mut min, mut max) = (*first, *first);
        for p in &all {
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        let centre = [0, 1, 2].map(|k| (min[k] + max[k]) * 0.5);
        let radius = all
            .iter()
            .map(|p| {
                (0..3)
                    .map(|k| (p[k] - centre[k]).powi(2))
                    .sum::<f32>()
                    .sqrt()
            })
            .fold(0.0, f32::max);
        file.bounds = Some(DeclaredBounds {
            bbox: Some([min, max]),
            bsphere: Some((centre, radius)),
        });
    }
    file
}

/// A 1994-style object: one quad PMESH straight under OBJECT (no LOD container).
fn cube() -> Biz2File {
    let p: Vec<[f32; 3]> = (0..8)
        .map(|i| {
            [
                (i & 1) as f32 * 2.0 - 1.0,
                (i >> 1 & 1) as f32 * 2.0 - 1.0,
                (i >> 2 & 1) as f32 * 2.0 - 1.0,
            ]
        })
        .collect();
    let quads = vec![
        0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5,
    ];
    let mesh = pmesh(
        0x088,
        p,
        vec![Connectivity::Faces {
            points_per_face: 4,
            indices: quads,
        }],
    );
    let lod = Lod {
        record: None,
        distance: None,
        transition: None,
        patches: vec![patch("box", "crate_mtl", vec![mesh])],
    };
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
    let sides: Vec<i32> = (0..6)
        .flat_map(|i| [i, (i + 1) % 6, 6 + (i + 1) % 6, 6 + i])
        .collect();
    let roof: Vec<[i32; 3]> = (0..6).map(|i| [6 + i, 12, 6 + (i + 1) % 6]).collect();
    let fine = pmesh(
        0x088,
        p.clone(),
        vec![
            Connectivity::Faces {
                points_per_face: 6,
                indices: [bottom.clone(), top.clone()].concat(),
            },
            Connectivity::Faces {
                points_per_face: 4,
                indices: sides.clone(),
            },
            Connectivity::Triangles(roof),
        ],
    );
    let coarse = pmesh(
        0x080,
        p[..12].to_vec(),
        vec![
            Connectivity::Faces {
                points_per_face: 6,
                indices: [bottom, top].concat(),
            },
            Connectivity::Faces {
                points_per_face: 4,
                indices: sides,
            },
        ],
    );
    let lods = vec![
        Lod {
            record: Some([0, 0]),
            distance: Some([0.0, 60.0]),
            transition: Some(2.0),
            patches: vec![patch("hull", "hull_mtl", vec![fine])],
        },
        Lod {
            record: Some([0, 0]),
            distance: Some([60.0, 400.0]),
            transition: Some(2.0),
            patches: vec![patch("hull", "hull_mtl", vec![coarse])],
        },
    ];
    // Six running lights on the roof rim: a point-only FX object like the pods' *_LP models.
    let lights = Object {
        points: ring(6, 1.55, 1.05)
            .enumerate()
            .map(|(i, position)| LightPoint {
                record: [0, 0],
                position,
                radius: Some(0.05 + 0.01 * i as f32),
            })
            .collect(),
        lods: Vec::new(),
        ..object("hexpod_lp", Vec::new())
    };
    geometry(vec![object("hexpod", lods), lights])
}

/// A vertex-coloured tower drawn as one TRISTRIP around a 12-sided tube.
/// A box centred on `c` of sides `size`, as one PMESH of six quads.
fn box_mesh(c: [f32; 3], size: [f32; 3]) -> Primitive {
    let h = size.map(|s| s / 2.0);
    let corners: Vec<[f32; 3]> = (0..8)
        .map(|i| {
            [
                c[0] + if i & 1 == 0 { -h[0] } else { h[0] },
                c[1] + if i & 2 == 0 { -h[1] } else { h[1] },
                c[2] + if i & 4 == 0 { -h[2] } else { h[2] },
            ]
        })
        .collect();
    let quads = vec![
        0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5,
    ];
    pmesh(
        0x080,
        corners,
        vec![Connectivity::Faces {
            points_per_face: 4,
            indices: quads,
        }],
    )
}

/// A part of the walker: name, material, SPECIAL words, centre and size.
type WalkerPart = (&'static str, &'static str, &'static str, [f32; 3], [f32; 3]);

/// The walker's fine parts.
const WALKER_PARTS: [WalkerPart; 11] = [
    (
        "torso",
        "hull_mtl",
        "dz_utorso",
        [0.0, 3.0, 0.0],
        [2.0, 1.2, 1.4],
    ),
    (
        "hip",
        "tower_mtl",
        "dz_hip",
        [0.0, 2.1, 0.0],
        [1.2, 0.6, 1.0],
    ),
    (
        "left arm",
        "hull_mtl",
        "dz_larm PUNCH",
        [-1.4, 3.0, 0.0],
        [0.6, 0.6, 1.6],
    ),
    (
        "right gun",
        "tower_mtl",
        "dz_rarm dz_rgun",
        [1.4, 3.0, 0.4],
        [0.4, 0.4, 2.0],
    ),
    (
        "left leg",
        "crate_mtl",
        "dz_lleg",
        [-0.5, 1.0, 0.0],
        [0.5, 1.6, 0.6],
    ),
    (
        "left foot",
        "crate_mtl",
        "DZ_LFOOT",
        [-0.5, 0.1, 0.2],
        [0.7, 0.2, 1.0],
    ),
    (
        "right leg",
        "crate_mtl",
        "dz_rleg",
        [0.5, 1.0, 0.0],
        [0.5, 1.6, 0.6],
    ),
    (
        "right foot",
        "crate_mtl",
        "dz_rfoot",
        [0.5, 0.1, 0.2],
        [0.7, 0.2, 1.0],
    ),
    (
        "searchlight",
        "lamp_mtl",
        "dz_searchlight ADDITIVE_LODS",
        [0.0, 3.75, 0.6],
        [0.4, 0.3, 0.3],
    ),
    (
        "beacon",
        "crate_mtl",
        "BLINK",
        [0.0, 3.8, -0.5],
        [0.15, 0.4, 0.15],
    ),
    (
        "aerial",
        "tower_mtl",
        "WIREFRAME",
        [0.9, 4.3, -0.5],
        [0.9, 0.9, 0.04],
    ),
];

/// A small walking mech whose parts are named the pods' way, by SPECIAL words
/// (docs/formats/biz2.md, "SPECIAL words"): a damage zone per part (the gun arm in two),
/// a searchlight blended additively, a blinking beacon, a wireframe aerial panel, an arm that
/// punches, and the object's own GEOMETRIZE word on every patch.
fn walker() -> Biz2File {
    let part = |name: &str, material: &str, words: &str, c: [f32; 3], size: [f32; 3]| Patch {
        specials: vec![format!(" {words} ")],
        ..patch(name, material, vec![box_mesh(c, size)])
    };
    let fine = WALKER_PARTS
        .iter()
        .map(|&(name, material, words, c, size)| part(name, material, words, c, size))
        .collect();
    let coarse = vec![part(
        "body",
        "hull_mtl",
        "dz_utorso",
        [0.0, 2.2, 0.0],
        [2.4, 4.4, 1.4],
    )];
    let lods = vec![
        Lod {
            record: Some([0, 0]),
            distance: Some([0.0, 80.0]),
            transition: None,
            patches: fine,
        },
        Lod {
            record: Some([0, 0]),
            distance: Some([80.0, 500.0]),
            transition: None,
            patches: coarse,
        },
    ];
    geometry(vec![Object {
        specials: vec!["GEOMETRIZE 0x8000001a".into()],
        ..object("walker", lods)
    }])
}

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
        record: [0, 0],
        vertices: VertexBlock {
            format: 0x082,
            positions,
            colors: Some(colors),
            ..Default::default()
        },
        connectivity: Vec::new(),
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
        bounds: None,
    };
    let lod = Lod {
        record: Some([0, 0]),
        distance: Some([0.0, 200.0]),
        transition: None,
        patches: vec![patch("shaft", "tower_mtl", vec![strip])],
    };
    geometry(vec![object("tower", vec![lod])])
}

fn library() -> Biz2File {
    let mat = |name: &str, diffuse: [f32; 3]| MaterialDef {
        diffuse: Some(diffuse),
        ambient: Some([0.2, 0.2, 0.2]),
        ..MaterialDef::new(name)
    };
    let textured = |name: &str, diffuse: [f32; 3], texture: &str| MaterialDef {
        texture: Some(TextureRef {
            mode: 2,
            name: Some(texture.into()),
        }),
        ..mat(name, diffuse)
    };
    let texture = |name: &str, map: &str, special: Option<&str>| TextureDef {
        map: Some(map.into()),
        wrap_u: Some(1),
        wrap_v: Some(1),
        specials: special.map(str::to_string).into_iter().collect(),
        ..TextureDef::new(name)
    };
    Biz2File {
        materials: vec![
            mat("crate_mtl", [0.8, 0.55, 0.25]),
            mat("hull_mtl", [0.25, 0.55, 0.85]),
            mat("tower_mtl", [0.7, 0.7, 0.7]),
            textured("water_mtl", [0.3, 0.5, 0.8], "water_tex"),
            textured("sign_mtl", [0.9, 0.9, 0.9], "sign_tex"),
            textured("panel_mtl", [0.85, 0.75, 0.3], "panel_tex"),
            // The walker's searchlight: dim, as it adds to what is behind it.
            mat("lamp_mtl", [0.3, 0.25, 0.05]),
        ],
        textures: vec![
            texture("water_tex", "WATER.TGA", Some(" SCROLL 0 0 0.25 0.1 ")),
            texture("sign_tex", "SIGN.RGB", None),
            // Division's own texture format: not in the archive, so a tinted checker shows.
            texture("panel_tex", "PANEL.SVT", None),
        ],
        ..Biz2File::new(FileKind::Materials, header(1))
    }
}

fn quad(format: u16, corners: [[f32; 3]; 4], uv_scale: f32) -> Primitive {
    let uvs = [
        [0.0, 0.0],
        [uv_scale, 0.0],
        [uv_scale, uv_scale],
        [0.0, uv_scale],
    ];
    Primitive {
        kind: PrimitiveKind::PMesh,
        record: [0, 0],
        vertices: VertexBlock {
            format,
            positions: corners.to_vec(),
            uvs: Some(uvs.to_vec()),
            ..Default::default()
        },
        connectivity: vec![Connectivity::Faces {
            points_per_face: 4,
            indices: vec![0, 1, 2, 3],
        }],
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
        bounds: None,
    }
}

/// One quad tile per vertex format 0x080–0x094, in a 5-wide grid, each with the attributes
/// its format carries: tilted normals, red/green/blue/yellow corners, a luminance ramp,
/// UVs and UVWs. A tour of every layout the reader knows.
pub fn vertex_formats() -> Biz2File {
    let patches = crate::pods::biz2::tags::VERTEX_LAYOUTS
        .iter()
        .enumerate()
        .map(|(k, layout)| {
            let (x, y) = ((k % 5) as f32 * 1.3, -((k / 5) as f32) * 1.3);
            let positions = vec![
                [x, y, 0.0],
                [x + 1.0, y, 0.0],
                [x + 1.0, y + 1.0, 0.0],
                [x, y + 1.0, 0.0],
            ];
            let n = |dx: f32, dy: f32| {
                let l = (dx * dx + dy * dy + 1.0).sqrt();
                [dx / l, dy / l, 1.0 / l]
            };
            let vertices = VertexBlock {
                format: layout.id,
                normals: layout
                    .normal
                    .map(|_| vec![n(-0.4, -0.4), n(0.4, -0.4), n(0.4, 0.4), n(-0.4, 0.4)]),
                colors: layout.rgba.map(|_| {
                    vec![
                        [0.9, 0.1, 0.1, 1.0],
                        [0.1, 0.8, 0.1, 1.0],
                        [0.1, 0.2, 0.9, 1.0],
                        [0.9, 0.85, 0.1, 1.0],
                    ]
                }),
                lum: layout
                    .lum
                    .map(|_| vec![[0.25, 1.0], [0.5, 1.0], [0.75, 1.0], [1.0, 1.0]]),
                uvs: layout
                    .uv
                    .map(|_| vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
                uvws: layout.uvw.map(|_| {
                    vec![
                        [0.0, 0.0, 0.5],
                        [1.0, 0.0, 0.5],
                        [1.0, 1.0, 0.5],
                        [0.0, 1.0, 0.5],
                    ]
                }),
                positions,
            };
            let quad = Primitive {
                kind: PrimitiveKind::PMesh,
                record: [0, 0],
                vertices,
                connectivity: vec![Connectivity::Faces {
                    points_per_face: 4,
                    indices: vec![0, 1, 2, 3],
                }],
                triangles: Vec::new(),
                triangle_sources: Vec::new(),
                bounds: None,
            };
            patch(
                &format!("format_{:03x}", layout.id),
                "tower_mtl",
                vec![quad],
            )
        })
        .collect();
    let lod = Lod {
        record: None,
        distance: None,
        transition: None,
        patches,
    };
    geometry(vec![object("formats", vec![lod])])
}

/// A scrolling-water pool with a rim of checker panels (their map is missing) and an SGI sign.
fn pool() -> Biz2File {
    let water = quad(
        0x088,
        [
            [-2.0, 0.0, -2.0],
            [2.0, 0.0, -2.0],
            [2.0, 0.0, 2.0],
            [-2.0, 0.0, 2.0],
        ],
        3.0,
    );
    let rim: Vec<Primitive> = (0..4)
        .map(|side| {
            let a = side as f32 * std::f32::consts::FRAC_PI_2;
            let (c, s) = (a.cos(), a.sin());
            let at = |x: f32, y: f32| [2.0 * c - x * s, y, 2.0 * s + x * c];
            quad(
                0x088,
                [at(-2.0, -0.4), at(2.0, -0.4), at(2.0, 0.3), at(-2.0, 0.3)],
                2.0,
            )
        })
        .collect();
    let sign = quad(
        0x088,
        [
            [-1.0, 0.6, -2.05],
            [1.0, 0.6, -2.05],
            [1.0, 1.6, -2.05],
            [-1.0, 1.6, -2.05],
        ],
        1.0,
    );
    let lod = Lod {
        record: Some([0, 0]),
        distance: Some([0.0, 300.0]),
        transition: None,
        patches: vec![
            patch("water", "water_mtl", vec![water]),
            patch("rim", "panel_mtl", rim),
            patch("sign", "sign_mtl", vec![sign]),
        ],
    };
    geometry(vec![object("pool", vec![lod])])
}

/// 32×32 TGA of soft diagonal waves.
fn water_tga() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(32, 32, |x, y| {
        let w =
            (((x + y) as f32 / 32.0 * std::f32::consts::TAU * 2.0).sin() * 0.5 + 0.5) * 0.6 + 0.4;
        image::Rgba([(40.0 * w) as u8, (120.0 * w) as u8, (230.0 * w) as u8, 255])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut out, image::ImageFormat::Tga)
        .expect("TGA encodes into memory");
    out.into_inner()
}

/// 16×16 uncompressed SGI (IRIS .RGB) image: a red-and-white sign with a dark border.
/// SGI is big-endian, planar, bottom row first.
fn sign_sgi() -> Vec<u8> {
    let (w, h) = (16u16, 16u16);
    let mut b = vec![0u8; 512];
    b[0..2].copy_from_slice(&474u16.to_be_bytes());
    b[3] = 1;
    b[4..6].copy_from_slice(&3u16.to_be_bytes());
    b[6..8].copy_from_slice(&w.to_be_bytes());
    b[8..10].copy_from_slice(&h.to_be_bytes());
    b[10..12].copy_from_slice(&3u16.to_be_bytes());
    b[16..20].copy_from_slice(&255u32.to_be_bytes());
    b[24..28].copy_from_slice(b"SIGN");
    let pixel = |x: u16, y: u16| -> [u8; 3] {
        if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            [30, 30, 30]
        } else if (x / 4 + y / 4) % 2 == 0 {
            [220, 40, 40]
        } else {
            [240, 240, 240]
        }
    };
    for ch in 0..3 {
        for y in 0..h {
            for x in 0..w {
                b.push(pixel(x, y)[ch]);
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_demo_file_parses_cleanly_and_closes_exactly() {
        for (path, bytes) in demo_files()
            .into_iter()
            .filter(|(p, _)| p.ends_with(".BGF") || p.ends_with(".BMF"))
        {
            let (tree, file) = Biz2File::parse(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(tree.closes_exactly, "{path}");
            assert!(
                file.diagnostics.is_empty(),
                "{path}: {:?}",
                file.diagnostics
            );
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
        let pmesh = tree.iter().find(|c| c.id == 0x0046).unwrap().index;
        let kids: Vec<u16> = tree.children(Some(pmesh)).map(|c| c.id).collect();
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
    fn large_model_has_the_promised_size() {
        let bytes = write_file(&large_model(3), WriteOptions::default());
        let (tree, file) = Biz2File::parse(&bytes).unwrap();
        assert_eq!(file.triangle_count(), 3 * 2048);
        let wide: Vec<&str> = tree
            .iter()
            .filter(|c| c.len_width == 4)
            .map(|c| c.name())
            .collect();
        assert_eq!(wide, vec!["OBJECT", "LOD"]);
        assert!(
            (48_000..54_000).contains(&(bytes.len() / 3)),
            "{} bytes a patch",
            bytes.len() / 3
        );
    }

    #[test]
    fn every_vertex_format_reads_back_and_colours_the_mesh() {
        let bytes = write_file(&vertex_formats(), WriteOptions::default());
        let (tree, file) = Biz2File::parse(&bytes).unwrap();
        assert!(file.diagnostics.is_empty());
        let ids: Vec<u16> = tree
            .iter()
            .filter(|c| crate::pods::biz2::tags::vertex_layout(c.id).is_some())
            .map(|c| c.id)
            .collect();
        assert_eq!(ids.len(), 14);
        let prims: Vec<_> = file.objects[0].lods[0].primitives().collect();
        for (p, layout) in prims.iter().zip(crate::pods::biz2::tags::VERTEX_LAYOUTS) {
            let v = &p.vertices;
            assert_eq!(v.format, layout.id);
            assert_eq!(
                (
                    v.normals.is_some(),
                    v.colors.is_some(),
                    v.lum.is_some(),
                    v.uvs.is_some(),
                    v.uvws.is_some()
                ),
                (
                    layout.normal.is_some(),
                    layout.rgba.is_some(),
                    layout.lum.is_some(),
                    layout.uv.is_some(),
                    layout.uvw.is_some()
                ),
                "{:#x}",
                layout.id
            );
            assert_eq!(p.triangles.len(), 2);
        }
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
