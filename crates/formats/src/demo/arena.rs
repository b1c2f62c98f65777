//! The demo's world: an arena in the pods' layout (docs/formats/worlds.md). ARENA1.MAP
//! places a hall, a block of buildings (a nested map from an included BLOCKS.MAP) four
//! times, crates, a sliding door (DRW.MOD with DRW.SUB), a smoke stack whose plume scrolls,
//! a wellhead with a laser drill, four dropzones and one LAB_ONLY crate. CRATE.BGF exists
//! in this game tree and in OTHER/ with different geometry. CITY.MAP places thousands of
//! buildings and crates, for streaming and draw calls.

use super::{geometry, object, write_file, WriteOptions};
use crate::pods::biz2::{
    Biz2File, Connectivity, FileKind, Lod, MaterialDef, Patch, Primitive, PrimitiveKind,
    TextureDef, TextureRef, VertexBlock,
};
use std::f32::consts::{FRAC_PI_2, TAU};

fn patch(name: &str, material: &str, primitives: Vec<Primitive>) -> Patch {
    super::patch_in("arena", name, material, primitives)
}

fn mesh(positions: Vec<[f32; 3]>, uvs: Option<Vec<[f32; 2]>>, quads: Vec<i32>) -> Primitive {
    Primitive {
        kind: PrimitiveKind::PMesh,
        record: [0, 0],
        vertices: VertexBlock {
            format: if uvs.is_some() { 0x088 } else { 0x080 },
            positions,
            uvs,
            ..Default::default()
        },
        connectivity: vec![Connectivity::Faces {
            points_per_face: 4,
            indices: quads,
        }],
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
        bounds: None,
    }
}

/// An axis-aligned box from `min` to `max`, six quads.
fn block(min: [f32; 3], max: [f32; 3]) -> Primitive {
    let p: Vec<[f32; 3]> = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { min[0] } else { max[0] },
                if i & 2 == 0 { min[1] } else { max[1] },
                if i & 4 == 0 { min[2] } else { max[2] },
            ]
        })
        .collect();
    mesh(
        p,
        None,
        vec![
            0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5,
        ],
    )
}

/// A tube of `sides` quads around the Y axis, `r0` at the bottom and `r1` at `height`.
fn tube(sides: usize, r0: f32, r1: f32, height: f32) -> Primitive {
    let mut p = Vec::new();
    for i in 0..sides {
        let a = i as f32 / sides as f32 * TAU;
        p.push([r0 * a.cos(), 0.0, r0 * a.sin()]);
        p.push([r1 * a.cos(), height, r1 * a.sin()]);
    }
    let n = sides as i32;
    let quads = (0..n)
        .flat_map(|i| [2 * i, 2 * ((i + 1) % n), 2 * ((i + 1) % n) + 1, 2 * i + 1])
        .collect();
    mesh(p, None, quads)
}

fn model(name: &str, patches: Vec<Patch>) -> Biz2File {
    geometry(vec![object(
        name,
        vec![Lod {
            record: None,
            distance: None,
            transition: None,
            patches,
        }],
    )])
}

/// The hall: a 60 × 60 floor and four walls 5 high.
fn hall() -> Biz2File {
    let floor = mesh(
        vec![
            [-30.0, 0.0, -30.0],
            [30.0, 0.0, -30.0],
            [30.0, 0.0, 30.0],
            [-30.0, 0.0, 30.0],
        ],
        None,
        vec![0, 1, 2, 3],
    );
    let walls = vec![
        block([-30.0, 0.0, -30.5], [30.0, 5.0, -30.0]),
        block([-30.0, 0.0, 30.0], [30.0, 5.0, 30.5]),
        block([-30.5, 0.0, -30.0], [-30.0, 5.0, 30.0]),
        block([30.0, 0.0, -30.0], [30.5, 5.0, 30.0]),
    ];
    model(
        "hall",
        vec![
            patch("floor", "floor_mtl", vec![floor]),
            patch("walls", "wall_mtl", walls),
        ],
    )
}

fn building() -> Biz2File {
    model(
        "bldg",
        vec![
            patch(
                "walls",
                "bldg_mtl",
                vec![block([-2.0, 0.0, -2.0], [2.0, 6.0, 2.0])],
            ),
            patch(
                "roof",
                "roof_mtl",
                vec![block([-2.3, 6.0, -2.3], [2.3, 6.4, 2.3])],
            ),
        ],
    )
}

fn crate_box(size: f32, name: &str) -> Biz2File {
    model(
        name,
        vec![patch(
            "box",
            "crate_mtl",
            vec![block([-size, 0.0, -size], [size, 2.0 * size, size])],
        )],
    )
}

/// Door frame: two posts and a lintel around a 6-wide opening.
fn door_frame(low_poly: bool) -> Biz2File {
    let parts = if low_poly {
        vec![block([-3.5, 0.0, -0.3], [3.5, 4.5, 0.3])]
    } else {
        vec![
            block([-3.5, 0.0, -0.3], [-3.0, 4.0, 0.3]),
            block([3.0, 0.0, -0.3], [3.5, 4.0, 0.3]),
            block([-3.5, 4.0, -0.3], [3.5, 4.5, 0.3]),
        ]
    };
    model("drw", vec![patch("frame", "wall_mtl", parts)])
}

/// One door leaf, 3 wide, closed over its half of the opening.
fn door_leaf(left: bool) -> Biz2File {
    let x = if left { [-3.0, 0.0] } else { [0.0, 3.0] };
    model(
        if left { "dr1" } else { "dr2" },
        vec![patch(
            "leaf",
            "door_mtl",
            vec![block([x[0], 0.0, -0.1], [x[1], 4.0, 0.1])],
        )],
    )
}

/// A smoke stack with a plume of two crossed quads whose texture drifts upwards.
fn smoke_stack() -> Biz2File {
    let uv = |s: f32| Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, s], [0.0, s]]);
    let plume = vec![
        mesh(
            vec![
                [-1.5, 10.0, 0.0],
                [1.5, 10.0, 0.0],
                [1.5, 18.0, 0.0],
                [-1.5, 18.0, 0.0],
            ],
            uv(2.0),
            vec![0, 1, 2, 3],
        ),
        mesh(
            vec![
                [0.0, 10.0, -1.5],
                [0.0, 10.0, 1.5],
                [0.0, 18.0, 1.5],
                [0.0, 18.0, -1.5],
            ],
            uv(2.0),
            vec![0, 1, 2, 3],
        ),
    ];
    model(
        "stack",
        vec![
            patch("chimney", "bldg_mtl", vec![tube(10, 1.4, 0.9, 10.0)]),
            patch("smoke", "smoke_mtl", plume),
        ],
    )
}

/// A wellhead and its laser drill beam.
fn wellhead() -> Biz2File {
    model(
        "wh1",
        vec![patch(
            "head",
            "roof_mtl",
            vec![
                tube(8, 2.0, 1.2, 3.0),
                block([-0.4, 3.0, -0.4], [0.4, 6.0, 0.4]),
            ],
        )],
    )
}
fn laser() -> Biz2File {
    model(
        "lazdril",
        vec![patch("beam", "laser_mtl", vec![tube(6, 0.25, 0.25, 20.0)])],
    )
}

fn library() -> Biz2File {
    let mat = |name: &str, diffuse: [f32; 3]| MaterialDef {
        diffuse: Some(diffuse),
        ambient: Some([0.2, 0.2, 0.2]),
        ..MaterialDef::new(name)
    };
    Biz2File {
        materials: vec![
            mat("floor_mtl", [0.35, 0.38, 0.33]),
            mat("wall_mtl", [0.62, 0.6, 0.55]),
            mat("bldg_mtl", [0.55, 0.5, 0.62]),
            mat("roof_mtl", [0.7, 0.28, 0.2]),
            mat("crate_mtl", [0.82, 0.6, 0.25]),
            mat("door_mtl", [0.3, 0.62, 0.8]),
            mat("laser_mtl", [0.95, 0.2, 0.15]),
            MaterialDef {
                texture: Some(TextureRef {
                    mode: 2,
                    name: Some("smoke_tex".into()),
                }),
                ..mat("smoke_mtl", [0.8, 0.8, 0.8])
            },
        ],
        textures: vec![TextureDef {
            map: Some("SMOKE.TGA".into()),
            wrap_u: Some(1),
            wrap_v: Some(1),
            specials: vec![" SCROLL 0 0 0 0.2 ".into()],
            ..TextureDef::new("smoke_tex")
        }],
        ..Biz2File::new(FileKind::Materials, super::header(1))
    }
}

/// 16×32 TGA of grey puffs.
fn smoke_tga() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(16, 32, |x, y| {
        let d =
            (((x as f32 - 8.0).powi(2) + ((y % 16) as f32 - 8.0).powi(2)).sqrt() / 8.0).min(1.0);
        let v = (200.0 - 120.0 * d) as u8;
        image::Rgba([v, v, v, 255])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut out, image::ImageFormat::Tga)
        .expect("TGA encodes into memory");
    out.into_inner()
}

fn text(lines: &[&str]) -> Vec<u8> {
    let mut s = lines.join("\r\n");
    s.push_str("\r\n");
    s.into_bytes()
}

fn arena_map() -> Vec<u8> {
    let mut l: Vec<String> = vec!["// ARENA1: the demo arena".into()];
    for (section, file) in [
        ("hall", "hall.mod"),
        ("crate", "crate.mod"),
        ("door", "drw.mod"),
        ("stack", "stack.mod"),
        ("well", "wh1.mod"),
    ] {
        l.extend([
            format!("[{section}]"),
            "type=model".into(),
            format!("modelfile={file}"),
        ]);
    }
    l.extend([
        "[drop]".into(),
        "type=dropzone".into(),
        "dropzone= 0 0 0 0 0 0".into(),
    ]);
    l.extend([
        "[blocks]".into(),
        "type=include".into(),
        "file=blocks.map".into(),
    ]);
    l.extend([
        "[arena1]".into(),
        "type=map".into(),
        "instance=hall 0 0 0 0 0 0".into(),
    ]);
    // The block of buildings, four times around the centre, each turned to face it.
    for k in 0..4 {
        let a = k as f32 * FRAC_PI_2;
        l.push(format!(
            "instance=block {:.3} 0 {:.3} 0 {:.4} 0",
            18.0 * a.sin(),
            18.0 * a.cos(),
            a
        ));
    }
    l.extend([
        "instance=crate 6 0 -6 0 0.3 0".into(),
        "instance=crate -6 0 6 0 1.1 0".into(),
        "instance=door 0 0 -29.5 0 0 0".into(),
        "instance=stack 22 0 -22 0 0 0".into(),
        "instance=well -22 0 22 0 0 0".into(),
    ]);
    for k in 0..4 {
        let a = k as f32 * FRAC_PI_2 + std::f32::consts::FRAC_PI_4;
        // Each dropzone faces the centre: its +Z points inwards.
        l.push(format!(
            "instancedropzone=drop {:.3} 0 {:.3} 0 {:.4} 0",
            24.0 * a.sin(),
            24.0 * a.cos(),
            a + std::f32::consts::PI
        ));
    }
    l.push("[LAB_ONLY] instance=crate 0 0 10 0 0 0".into());
    text(&l.iter().map(String::as_str).collect::<Vec<_>>())
}

fn blocks_map() -> Vec<u8> {
    text(&[
        "// the buildings of a block, placed by ARENA1 and CITY",
        "[bldg]",
        "type=model",
        "modelfile=bldg.mod",
        "[block]",
        "type=map",
        "instance=bldg -5 0 0 0 0 0",
        "instance=bldg 0 0 0 0 0.2 0",
        "instance=bldg 5 0 0 0 -0.2 0",
    ])
}

/// A city of `side`² blocks of three buildings, with a crate in every block.
pub fn city_map(side: usize) -> Vec<u8> {
    let mut l: Vec<String> = vec![
        "[crate]".into(),
        "type=model".into(),
        "modelfile=crate.mod".into(),
        "[blocks]".into(),
        "type=include".into(),
        "file=blocks.map".into(),
        "[city]".into(),
        "type=map".into(),
    ];
    for i in 0..side {
        for j in 0..side {
            let (x, z) = (
                (i as f32 - side as f32 / 2.0) * 16.0,
                (j as f32 - side as f32 / 2.0) * 12.0,
            );
            l.push(format!("instance=block {x} 0 {z} 0 0 0"));
            l.push(format!("instance=crate {} 0 {} 0 0 0", x + 6.0, z + 4.0));
        }
    }
    text(&l.iter().map(String::as_str).collect::<Vec<_>>())
}

/// CITY.MAP at `side`² blocks and what it draws: the blocks it includes, the game objects,
/// their models and the material library.
pub fn city_files(side: usize) -> Vec<(String, Vec<u8>)> {
    let o = WriteOptions::default();
    vec![
        ("DEMO/VIDEO/BLDG.BGF".into(), write_file(&building(), o)),
        (
            "DEMO/VIDEO/CRATE.BGF".into(),
            write_file(&crate_box(1.0, "crate"), o),
        ),
        ("DEMO/MATERIAL/ARENA.BMF".into(), write_file(&library(), o)),
        (
            "DEMO/MODELS/BLDG.MOD".into(),
            text(&[
                "[video]",
                "object=bldg.bgf",
                "[collision]",
                "name=bldg_cv.sld",
            ]),
        ),
        (
            "DEMO/MODELS/CRATE.MOD".into(),
            text(&["[video]", "object=crate.bgf"]),
        ),
        ("DEMO/MAPS/BLOCKS.MAP".into(), blocks_map()),
        ("DEMO/MAPS/CITY.MAP".into(), city_map(side)),
    ]
}

/// The files of the arena, beside the rest of the demo archive.
pub fn arena_files() -> Vec<(String, Vec<u8>)> {
    let o = WriteOptions::default();
    let bgf = |name: &str, f: Biz2File| (format!("DEMO/VIDEO/{name}.BGF"), write_file(&f, o));
    let mut files = city_files(40);
    files.extend([
        bgf("HALL", hall()),
        bgf("DRW", door_frame(false)),
        bgf("DRWL", door_frame(true)),
        bgf("DR1", door_leaf(true)),
        bgf("DR2", door_leaf(false)),
        bgf("STACK", smoke_stack()),
        bgf("WH1", wellhead()),
        bgf("LAZDRIL", laser()),
        (
            "OTHER/VIDEO/CRATE.BGF".into(),
            write_file(&crate_box(3.0, "big crate"), o),
        ),
        ("DEMO/TEXTURE/SMOKE.TGA".into(), smoke_tga()),
        (
            "DEMO/MODELS/HALL.MOD".into(),
            text(&[
                "[video]",
                "object=hall.bgf",
                "[gamedata]",
                "class=UnscalableTerrainClassID",
            ]),
        ),
        (
            "DEMO/MODELS/DRW.MOD".into(),
            text(&[
                "; number and order of objects is significant!",
                "[video]",
                "object=drw.bgf drwl.bgf",
                "object=dr1.bgf",
                "object=dr2.bgf",
                "[gamedata]",
                "class=DoorClassID",
                "Subsystems=drw.sub",
            ]),
        ),
        (
            "DEMO/MODELS/DRW.SUB".into(),
            text(&[
                "[door1]",
                "Type=DoorClassID",
                "TravelTime=4.0",
                "DeadTime=2.0",
                "MotionExtent=-3.0 0.0 0.0",
                "Collision=dr1_cv.sld",
                "[door2]",
                "Type=DoorClassID",
                "TravelTime=4.0",
                "DeadTime=2.0",
                "MotionExtent=3.0 0.0 0.0",
                "Collision=dr2_cv.sld",
            ]),
        ),
        (
            "DEMO/MODELS/STACK.MOD".into(),
            text(&["[video]", "object=stack.bgf"]),
        ),
        (
            "DEMO/MODELS/WH1.MOD".into(),
            text(&["[video]", "object=wh1.bgf lazdril.bgf"]),
        ),
        ("DEMO/MAPS/ARENA1.MAP".into(), arena_map()),
    ]);
    files
}
