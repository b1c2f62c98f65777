//! The demo's FF7-style field model, written with the project's own BSX writer and wrapped in
//! LZS as on the disc: a five-bone figure (hips, spine, head, two arms) with a polygon of
//! each of the eight kinds, a 4-bit texture with its CLUT, two animations (a wave, a nod),
//! and a one-bone crate as a second model.

use crate::ff7::bsx::raw::{Channel, PolyKind};
use crate::ff7::bsx::writer::{
    write, write_bcx, write_tdb, AnimSpec, BsxSpec, ModelSpec, PartSpec, PolySpec, RectSpec,
};

/// A box from `a` to `b` (bone-local units) as quads of `kind` (and the rest of its faces).
fn box_part(bone: u8, a: [i16; 3], b: [i16; 3], color: [u8; 3], kinds: &[PolyKind]) -> PartSpec {
    let vertices: Vec<[i16; 3]> = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { a[0] } else { b[0] },
                if i & 2 == 0 { a[1] } else { b[1] },
                if i & 4 == 0 { a[2] } else { b[2] },
            ]
        })
        .collect();
    // Faces in the console's Z order (v0 v1 / v2 v3).
    let faces: [[u8; 4]; 6] = [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [0, 1, 4, 5],
        [2, 3, 6, 7],
        [0, 2, 4, 6],
        [1, 3, 5, 7],
    ];
    let shade = |k: usize| {
        let f = 0.7 + 0.05 * k as f32;
        [
            (color[0] as f32 * f) as u8,
            (color[1] as f32 * f) as u8,
            (color[2] as f32 * f) as u8,
            0,
        ]
    };
    let mut polygons = Vec::new();
    for (k, face) in faces.iter().enumerate() {
        let kind = kinds.get(k).copied().unwrap_or(PolyKind::QuadMono);
        let c = shade(k);
        let colors = [c, shade(k + 1), shade(k + 2), shade(k + 3)];
        if kind.corners() == 3 {
            // A face as two triangles of this kind.
            for tri in [
                [face[0], face[1], face[2], 0],
                [face[1], face[3], face[2], 0],
            ] {
                polygons.push(PolySpec {
                    kind: Some(kind),
                    vertices: tri,
                    colors,
                    texcoords: [0, 1, 2, 0],
                    control: 0,
                });
            }
        } else {
            polygons.push(PolySpec {
                kind: Some(kind),
                vertices: *face,
                colors,
                texcoords: [0, 1, 2, 3],
                control: 0,
            });
        }
    }
    let textured = polygons
        .iter()
        .any(|p| p.kind.is_some_and(PolyKind::textured));
    PartSpec {
        bone,
        vertices,
        polygons,
        // Type 2 (the model's own), 4 bpp, page (640, 256), CLUT (0, 500).
        flags: if textured {
            vec![0x7D00_1A02]
        } else {
            Vec::new()
        },
        texcoords: if textured {
            vec![[0, 0], [15, 0], [0, 15], [15, 15]]
        } else {
            Vec::new()
        },
    }
}

/// A 16 × 16 face at 4 bits a texel: a border, two eyes and a smile (CLUT indices).
fn face_texels() -> RectSpec {
    let index = |u: usize, v: usize| -> u16 {
        if u == 0 || v == 0 || u == 15 || v == 15 {
            1
        } else if (v == 5 || v == 6) && (u == 4 || u == 5 || u == 10 || u == 11) {
            2
        } else if v == 11 && (4..12).contains(&u) || v == 10 && (u == 3 || u == 12) {
            3
        } else {
            4
        }
    };
    let halfwords = (0..16)
        .flat_map(|v| {
            (0..4).map(move |h| (0..4).map(|k| index(4 * h + k, v) << (4 * k)).sum::<u16>())
        })
        .collect();
    RectSpec {
        x: 640,
        y: 256,
        width: 4,
        height: 16,
        halfwords,
    }
}

/// The palette: 0 transparent, then dark, eye blue, mouth red, skin.
fn clut() -> RectSpec {
    let c = |r: u16, g: u16, b: u16| r | g << 5 | b << 10;
    let mut halfwords = vec![0, c(4, 4, 6), c(6, 12, 28), c(26, 6, 6), c(28, 22, 17)];
    halfwords.resize(16, c(31, 0, 31));
    RectSpec {
        x: 0,
        y: 500,
        width: 16,
        height: 1,
        halfwords,
    }
}

/// Rotation channel values: a channel's frames.
fn wave(frames: usize, center: u8, swing: f32) -> Vec<u8> {
    (0..frames)
        .map(|f| {
            (center as f32 + swing * (f as f32 / frames as f32 * std::f32::consts::TAU).sin())
                .rem_euclid(256.0) as u8
        })
        .collect()
}

fn figure() -> ModelSpec {
    // Bone 0 turns Z to the console's up (−Y); bones hang off it along +Z.
    let bones = vec![(0, -1), (0, 0), (116, 1), (100, 1), (100, 1)];
    ModelSpec {
        face_id: 0x21,
        global_id: 0,
        scale: 4096,
        ambient: [64, 64, 64],
        bones,
        parts: figure_parts(),
        animations: figure_animations(),
        starts: [0; 3],
    }
}

/// The figure's torso, head and arms, a box each, showing every kind of polygon between them.
fn figure_parts() -> Vec<PartSpec> {
    use PolyKind::*;
    let skin = [200, 160, 130];
    vec![
        // Torso: gouraud quads and gouraud triangles.
        box_part(
            1,
            [-30, -18, 0],
            [30, 18, 110],
            [60, 90, 170],
            &[
                QuadColor, QuadColor, TriColor, TriColor, QuadColor, QuadColor,
            ],
        ),
        // Head: the face is a gouraud textured quad; flat textured quad and triangles beside it.
        box_part(
            2,
            [-22, -22, 0],
            [22, 22, 44],
            skin,
            &[
                QuadColorTex,
                QuadMonoTex,
                TriColorTex,
                TriMonoTex,
                QuadMono,
                TriMono,
            ],
        ),
        // Arms: flat quads, flat triangles.
        box_part(
            3,
            [-8, -8, 0],
            [8, 8, 70],
            skin,
            &[QuadMono, QuadMono, TriMono, TriMono, QuadMono, QuadMono],
        ),
        box_part(
            4,
            [-8, -8, 0],
            [8, 8, 70],
            skin,
            &[QuadMono, QuadMono, TriMono, TriMono, QuadMono, QuadMono],
        ),
    ]
}

/// The figure's wave (the right arm about its X, the left about Y) and nod (the head tips,
/// the root bobs on a static translation).
fn figure_animations() -> Vec<AnimSpec> {
    let channel = |mask: u8, rotation: [u8; 3]| Channel {
        mask,
        rotation,
        translation: [0xFF; 3],
    };
    let frames = 24usize;
    // The wave: the right arm swings about its X (rotation channel 0), the left about Y.
    let waving = AnimSpec {
        frames: frames as u16,
        channels: vec![
            channel(0, [64, 0, 0]),
            channel(0, [0, 0, 0]),
            channel(0, [0, 0, 0]),
            channel(1, [0, 64, 0]),
            channel(2, [0, 1, 0]),
        ],
        rotations: [wave(frames, 96, 40.0), wave(frames, 192, 16.0)].concat(),
        ..Default::default()
    };
    // The nod: the head tips about X; the root bobs on a static Y translation.
    let nodding = AnimSpec {
        frames: 16,
        channels: vec![
            Channel {
                mask: 0,
                rotation: [64, 0, 0],
                translation: [0xFF, 0, 0xFF],
            },
            channel(0, [0, 0, 0]),
            channel(1, [0, 0, 0]),
            channel(0, [0, 64, 0]),
            channel(0, [0, 192, 0]),
        ],
        statics: vec![-10],
        rotations: wave(16, 0, 20.0),
        ..Default::default()
    };
    vec![waving, nodding]
}

fn crate_model() -> ModelSpec {
    use PolyKind::*;
    let part = box_part(
        0,
        [-40, -40, -40],
        [40, 40, 40],
        [170, 120, 60],
        &[QuadColor, QuadColor, QuadMono, QuadMono, TriColor, TriMono],
    );
    let still = AnimSpec {
        frames: 1,
        channels: vec![Channel {
            mask: 0,
            rotation: [0; 3],
            translation: [0xFF; 3],
        }],
        ..Default::default()
    };
    ModelSpec {
        face_id: 0x21,
        global_id: 0,
        scale: 2048,
        ambient: [64, 64, 64],
        bones: vec![(0, -1)],
        parts: vec![part],
        animations: vec![still],
        starts: [0; 3],
    }
}

pub fn robot_spec() -> BsxSpec {
    BsxSpec {
        models: vec![figure(), crate_model()],
        rects: vec![face_texels(), clut()],
    }
}

/// ROBOT.BSX as the disc would hold it: LZS-wrapped.
pub fn robot_bsx() -> Vec<u8> {
    crate::ff7::lzs::encode(&write(&robot_spec()))
}

/// Flag words of eye and mouth polygons: page (768, 256), 4 bpp, CLUT (320, 480), as a
/// file stores them (slot 0's); the engine moves them to the model's slot.
const EYE: u32 = 0x7814_1C00;
const MOUTH: u32 = 0x7814_1C01;

/// The channels of a figure's five bones: hips turned upright, the arms swinging about X
/// from `a` (right) and `b` (left) rotation tables, the rest still.
fn limbs(frames: u16, swing: f32) -> AnimSpec {
    let n = frames as usize;
    let still = |r: [u8; 3]| Channel {
        mask: 0,
        rotation: r,
        translation: [0xFF; 3],
    };
    let animated = |table: u8| Channel {
        mask: 1,
        rotation: [table, 0, 0],
        translation: [0xFF; 3],
    };
    let (channels, rotations) = if n > 1 {
        (
            vec![
                still([64, 0, 0]),
                still([0; 3]),
                still([0; 3]),
                animated(0),
                animated(1),
            ],
            [wave(n, 128, swing), wave(n, 128, -swing)].concat(),
        )
    } else {
        (
            vec![
                still([64, 0, 0]),
                still([0; 3]),
                still([0; 3]),
                still([128, 0, 0]),
                still([128, 0, 0]),
            ],
            Vec::new(),
        )
    };
    AnimSpec {
        frames,
        channels,
        rotations,
        ..Default::default()
    }
}

/// The hero's eyes and mouth just in front of the head's −Y side, texcoords of slot 0.
fn face_features() -> PartSpec {
    use PolyKind::*;
    let y = -23;
    PartSpec {
        bone: 2,
        vertices: vec![
            [-16, y, 36],
            [-4, y, 36],
            [-16, y, 26],
            [-4, y, 26],
            [4, y, 36],
            [16, y, 36],
            [4, y, 26],
            [16, y, 26],
            [-8, y, 16],
            [8, y, 16],
            [0, y, 10],
        ],
        polygons: vec![
            PolySpec {
                kind: Some(QuadMonoTex),
                vertices: [0, 1, 2, 3],
                colors: [[128, 128, 128, 0], [0; 4], [0; 4], [0; 4]],
                texcoords: [0, 1, 2, 3],
                control: 0,
            },
            PolySpec {
                kind: Some(QuadMonoTex),
                vertices: [4, 5, 6, 7],
                colors: [[128, 128, 128, 0], [0; 4], [0; 4], [0; 4]],
                texcoords: [4, 5, 6, 7],
                control: 0,
            },
            PolySpec {
                kind: Some(TriMonoTex),
                vertices: [8, 9, 10, 0],
                colors: [[128, 128, 128, 0], [0; 4], [0; 4], [0; 4]],
                texcoords: [8, 9, 10, 0],
                control: 1,
            },
        ],
        flags: vec![EYE, MOUTH],
        texcoords: vec![
            [0, 0],
            [31, 0],
            [0, 31],
            [31, 31],
            [32, 0],
            [63, 0],
            [32, 31],
            [63, 31],
            [0, 160],
            [31, 160],
            [15, 191],
        ],
    }
}

/// A stand-in for character 1's BCX (the game calls it CLOUD.BCX): a figure whose head has
/// two eyes and a mouth from FIELD.TDB, and the three animations every character has
/// (stand, walk, run).
pub fn hero() -> ModelSpec {
    use PolyKind::*;
    let skin = [210, 170, 140];
    let features = face_features();
    let parts = vec![
        box_part(
            1,
            [-30, -18, 0],
            [30, 18, 110],
            [90, 60, 140],
            &[
                QuadColor, QuadColor, QuadColor, QuadColor, QuadColor, QuadColor,
            ],
        ),
        box_part(2, [-22, -22, 0], [22, 22, 44], skin, &[QuadMono; 6]),
        features,
        box_part(3, [-8, -8, 0], [8, 8, 70], skin, &[QuadMono; 6]),
        box_part(4, [-8, -8, 0], [8, 8, 70], skin, &[QuadMono; 6]),
    ];
    let bones = vec![(0, -1), (0, 0), (116, 1), (100, 1), (100, 1)];
    ModelSpec {
        face_id: 0x21,
        global_id: 0,
        scale: 4096,
        ambient: [0; 3],
        bones,
        parts,
        animations: vec![limbs(1, 0.0), limbs(16, 24.0), limbs(8, 48.0)],
        starts: [0; 3],
    }
}

/// The demo's FIELD.TDB: the eyes and mouths of faces 0 (the hero's) and 10, in the layout
/// the game stores them (eight images for each of faces 0–9, two for later faces).
pub fn faces_tdb() -> Vec<u8> {
    // An eye: white with a blue iris (indices 1, 2, 3), transparent around it (0).
    let eye: [u8; 512] = std::array::from_fn(|k| {
        let (y, x) = (k / 16, 2 * (k % 16));
        let texel = |x: usize| -> u8 {
            let (dx, dy) = (x as f32 - 15.5, y as f32 - 15.5);
            if dx * dx / 196.0 + dy * dy / 64.0 > 1.0 {
                0
            } else if dx * dx + dy * dy < 30.0 {
                3
            } else if dx * dx + dy * dy < 50.0 {
                2
            } else {
                1
            }
        };
        texel(x) | texel(x + 1) << 4
    });
    // A mouth: a red band.
    let mouth: [u8; 512] = std::array::from_fn(|k| {
        if (12..20).contains(&(k / 16)) {
            0x44
        } else {
            0
        }
    });
    let mut images = vec![[0u8; 512]; 82];
    for face in [0usize, 10] {
        let (e, m) = if face < 10 {
            (8 * face, 8 * face + 5)
        } else {
            (80 + 2 * (face - 10), 81 + 2 * (face - 10))
        };
        images[e] = eye;
        images[m] = mouth;
    }
    let c = |r: u16, g: u16, b: u16| r | g << 5 | b << 10;
    let palette: [u16; 16] = std::array::from_fn(|i| {
        [0, c(31, 31, 30), c(4, 10, 28), c(1, 2, 6), c(28, 4, 4)]
            .get(i)
            .copied()
            .unwrap_or(c(31, 0, 31))
    });
    crate::ff7::lzs::encode(&write_tdb(&images, &[palette; 11]))
}

/// A field with the hero in it: its record adds a sword on the right arm (after the BCX's
/// parts) and a fourth animation (after the BCX's three); beside it a lamp whose glow is
/// semi-transparent and adds to what is behind it.
pub fn party_spec() -> BsxSpec {
    use PolyKind::*;
    let hero = hero();
    let sword = box_part(
        3,
        [-3, -3, 60],
        [3, 3, 150],
        [200, 200, 220],
        &[QuadMono; 6],
    );
    let mut swing = limbs(12, 60.0);
    swing.channels[4] = Channel {
        mask: 0,
        rotation: [128, 0, 0],
        translation: [0xFF; 3],
    };
    let record = ModelSpec {
        face_id: 0,
        global_id: 1,
        scale: 4096,
        ambient: [64, 64, 64],
        bones: Vec::new(),
        parts: vec![sword],
        animations: vec![swing],
        starts: [0, hero.parts.len() as u8, hero.animations.len() as u8],
    };
    let (lamp, rects) = lamp();
    BsxSpec {
        models: vec![record, lamp],
        rects,
    }
}

/// The lamp: a post and a glowing box whose glow is semi-transparent (its texels all have
/// their STP bit set) and adds to what is behind it; with its texels and CLUT in VRAM.
fn lamp() -> (ModelSpec, Vec<RectSpec>) {
    use PolyKind::*;
    let mut glow = box_part(
        0,
        [-20, -20, 90],
        [20, 20, 130],
        [128, 128, 128],
        &[QuadMonoTex; 6],
    );
    // Type 2, 4 bpp, page (704, 256), CLUT (0, 501); control: semi on (bit 4), rule 1 (B + F).
    glow.flags = vec![2 | 11 << 8 | 1 << 12 | 501 << 22];
    for p in &mut glow.polygons {
        p.colors[0] = [128, 128, 128, 0];
        p.control = 0x10 | 1 << 5;
    }
    let post = box_part(0, [-5, -5, 0], [5, 5, 90], [90, 90, 90], &[QuadMono; 6]);
    let lamp = ModelSpec {
        face_id: 0x21,
        global_id: 0,
        scale: 4096,
        ambient: [64, 64, 64],
        bones: vec![(0, -1)],
        parts: vec![post, glow],
        animations: vec![],
        starts: [0; 3],
    };
    let c = |r: u16, g: u16, b: u16| 0x8000 | r | g << 5 | b << 10;
    let mut clut = vec![0, c(12, 9, 2), c(24, 20, 8)];
    clut.resize(16, c(31, 0, 31));
    let glow_texels = (0..16)
        .flat_map(|v: u16| {
            (0..4).map(move |h: u16| {
                (0..4)
                    .map(|k| {
                        (if (4..12).contains(&(4 * h + k)) && (4..12).contains(&v) {
                            2u16
                        } else {
                            1
                        }) << (4 * k)
                    })
                    .sum::<u16>()
            })
        })
        .collect();
    (
        lamp,
        vec![
            RectSpec {
                x: 704,
                y: 256,
                width: 4,
                height: 16,
                halfwords: glow_texels,
            },
            RectSpec {
                x: 0,
                y: 501,
                width: 16,
                height: 1,
                halfwords: clut,
            },
        ],
    )
}

/// PARTY.BSX, CLOUD.BCX and FIELD.TDB as the disc holds them: LZS-wrapped.
pub fn party_files() -> Vec<(String, Vec<u8>)> {
    let lzs = crate::ff7::lzs::encode;
    vec![
        ("DEMO/FIELD/PARTY.BSX".into(), lzs(&write(&party_spec()))),
        ("DEMO/FIELD/CLOUD.BCX".into(), lzs(&write_bcx(&hero()))),
        ("DEMO/FIELD/FIELD.TDB".into(), faces_tdb()),
    ]
}
