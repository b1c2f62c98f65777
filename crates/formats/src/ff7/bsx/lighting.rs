//! The field engine's lighting, in its own integers. A model is lit once, when it loads: every
//! polygon colour is rewritten by the console's geometry engine (its NCCS operation) from the
//! normal its fourth byte names, the model record's three lights turned by the world rotation
//! of the part's bone in the first animation's first frame, and the record's ambient colour.
//! The game then draws those colours with no light on top (docs/formats/bsx.md, "The game's
//! lighting").

use super::field_bin::FieldTables;
use super::raw::ModelRecord;

/// A 3 × 3 matrix of 4.12 integers, `m[row][column]`, each value an s16 as the geometry
/// engine keeps it.
pub type Mat = [[i32; 3]; 3];

pub const IDENTITY: Mat = [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]];

fn sat16(v: i64) -> i32 {
    v.clamp(i16::MIN as i64, i16::MAX as i64) as i32
}

/// A bone's local rotation Ry · Rx · Rz (Z applied first) for angles of 256 steps a turn,
/// built column by column from the module's sine table as the engine builds it.
pub fn local_rotation(t: &FieldTables, [rx, ry, rz]: [u8; 3]) -> Mat {
    let (sx, cx) = t.sin_cos(rx);
    let (sy, cy) = t.sin_cos(ry);
    let (sz, cz) = t.sin_cos(rz);
    let keep = |v: i32| v as i16 as i32;
    let col2 = [(cx * sy) >> 12, -sx, (cx * cy) >> 12];
    let (t1, t2) = ((sx * sy) >> 12, (sx * cy) >> 12);
    let col0 = [
        (sz * t1 + cz * cy) >> 12,
        (sz * cx) >> 12,
        (sz * t2 - cz * sy) >> 12,
    ];
    let col1 = [
        (cz * t1 - sz * cy) >> 12,
        (cz * cx) >> 12,
        (cz * t2 + sz * sy) >> 12,
    ];
    let mut m = [[0; 3]; 3];
    for (j, col) in [col0, col1, col2].iter().enumerate() {
        for i in 0..3 {
            m[i][j] = keep(col[i]);
        }
    }
    m
}

/// P · Q a column at a time, each value `sat16((P · q) >> 12)` (an arithmetic shift).
pub fn mul(p: &Mat, q: &Mat) -> Mat {
    let mut m = [[0; 3]; 3];
    for j in 0..3 {
        for i in 0..3 {
            let sum: i64 = (0..3).map(|k| p[i][k] as i64 * q[k][j] as i64).sum();
            m[i][j] = sat16(sum >> 12);
        }
    }
    m
}

/// Every bone's world rotation, in index order: its parent's (the identity for the root, or
/// for a bone whose parent is not an earlier bone) times its own. `bones[b]` is the bone's
/// parent, None for an empty slot (its world is None, and its children's parent the
/// identity); `angles(b)` its rotation in the pose.
pub fn bone_worlds(
    t: &FieldTables,
    parents: &[Option<i8>],
    angles: impl Fn(usize) -> [u8; 3],
) -> Vec<Option<Mat>> {
    let mut worlds: Vec<Option<Mat>> = Vec::with_capacity(parents.len());
    for (b, parent) in parents.iter().enumerate() {
        let Some(parent) = *parent else {
            worlds.push(None);
            continue;
        };
        let above = usize::try_from(parent)
            .ok()
            .filter(|&p| p < b)
            .and_then(|p| worlds[p])
            .unwrap_or(IDENTITY);
        worlds.push(Some(mul(&above, &local_rotation(t, angles(b)))));
    }
    worlds
}

/// What a model record's lights give the parts of one bone: the light matrix turned into the
/// bone's frame, the light colours, the ambient colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartLight {
    /// LLM = L · W: the light directions (rows of L) in the bone's frame.
    pub llm: Mat,
    /// LCM: column i is light i's colour (R, G, B) << 4.
    pub lcm: Mat,
    /// The ambient (back) colour << 4.
    pub bk: [i32; 3],
}

impl PartLight {
    pub fn new(record: &ModelRecord, world: &Mat) -> PartLight {
        let l: Mat = record.lights.map(|light| light.direction.map(i32::from));
        let lcm: Mat =
            std::array::from_fn(|c| record.lights.map(|light| (light.color[c] as i32) << 4));
        PartLight {
            llm: mul(&l, world),
            lcm,
            bk: record.ambient.map(|c| (c as i32) << 4),
        }
    }

    /// NCCS (sf = 1, lm = 1) for one colour word: the normal lit by the three lights and the
    /// ambient colour, times the stored colour.
    pub fn colour(&self, normal: [i16; 3], stored: [u8; 3]) -> [u8; 3] {
        let n = normal.map(i64::from);
        let ir: [i64; 3] = std::array::from_fn(|i| {
            ((0..3).map(|j| self.llm[i][j] as i64 * n[j]).sum::<i64>() >> 12).clamp(0, 0x7FFF)
        });
        std::array::from_fn(|c| {
            let light = ((self.bk[c] as i64 * 4096
                + (0..3).map(|i| self.lcm[c][i] as i64 * ir[i]).sum::<i64>())
                >> 12)
                .clamp(0, 0x7FFF);
            (((((stored[c] as i64) << 4) * light) >> 12 >> 4).clamp(0, 255)) as u8
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ff7::bsx::field_bin::FieldTables;
    use crate::ff7::bsx::raw::Light;
    use proptest::prelude::*;

    fn tables() -> FieldTables {
        FieldTables::parse(&crate::ff7::bsx::tests::shared("FIELD.BIN_u")).unwrap()
    }

    fn record(ambient: [u8; 3], lights: [Light; 3]) -> ModelRecord {
        let mut m =
            crate::ff7::bsx::raw::BsxFile::parse(&crate::ff7::bsx::tests::shared("STARTMAP_u.BSX"))
                .unwrap()
                .models
                .remove(0);
        (m.ambient, m.lights) = (ambient, lights);
        m
    }

    #[test]
    fn the_notes_worked_values_hold() {
        let t = tables();
        // Normal 0 of the real table, and a white light straight along it.
        let n = t.normal(0);
        let facing = Light {
            direction: n,
            color: [255; 3],
        };
        let dark = Light::default();
        let full = PartLight::new(&record([0; 3], [facing, dark, dark]), &IDENTITY);
        assert_eq!(
            full.colour(n, [0x80; 3]),
            [127; 3],
            "0x80 under a full light facing the normal"
        );
        let ambient = PartLight::new(&record([0x80; 3], [dark; 3]), &IDENTITY);
        assert_eq!(
            ambient.colour(n, [0x80, 0x40, 0x20]),
            [0x40, 0x20, 0x10],
            "ambient 0x80 alone halves"
        );
        // Facing away: the Lambert term is 0, only the ambient is left.
        let away = PartLight::new(
            &record(
                [0x20; 3],
                [
                    Light {
                        direction: n.map(|c| -c),
                        color: [255; 3],
                    },
                    dark,
                    dark,
                ],
            ),
            &IDENTITY,
        );
        assert_eq!(away.colour(n, [0x80; 3]), [0x10; 3]);
    }

    #[test]
    fn a_rotation_is_built_as_the_engine_builds_it() {
        let t = tables();
        assert_eq!(local_rotation(&t, [0, 0, 0]), IDENTITY);
        // A quarter turn about Y (64 steps): X goes to −Z, Z to +X (the table's exact 4096s).
        assert_eq!(
            local_rotation(&t, [0, 64, 0]),
            [[0, 0, 4096], [0, 4096, 0], [-4096, 0, 0]]
        );
        // About X by a quarter: column 2 is (0, −sx, 0) = (0, −4096, 0).
        let rx = local_rotation(&t, [64, 0, 0]);
        assert_eq!([rx[0][2], rx[1][2], rx[2][2]], [0, -4096, 0]);
        // A child of a bone turned a quarter about Y, turned a quarter about Y again: half a turn.
        let worlds = bone_worlds(&t, &[Some(-1), Some(0), None, Some(2)], |b| {
            if b < 2 {
                [0, 64, 0]
            } else {
                [0; 3]
            }
        });
        assert_eq!(
            worlds[1],
            Some([[-4096, 0, 0], [0, 4096, 0], [0, 0, -4096]])
        );
        assert_eq!(worlds[2], None, "an empty slot");
        assert_eq!(
            worlds[3],
            Some(IDENTITY),
            "its parent is not there: the identity above it"
        );
    }

    /// The float formula the integers approximate: stored · (ambient + Σ colour_i · max(0,
    /// l_i · (W · n))) / 256, with the geometry engine's ceiling on the light (0x7FFF / 16).
    fn float_colour(
        record: &ModelRecord,
        world: &[[f64; 3]; 3],
        n: [i16; 3],
        stored: [u8; 3],
    ) -> [f64; 3] {
        let n = n.map(|c| c as f64 / 4096.0);
        let wn: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|k| world[i][k] * n[k]).sum())
            .collect();
        std::array::from_fn(|c| {
            let diffuse: f64 = record
                .lights
                .iter()
                .map(|l| {
                    let dot: f64 = (0..3).map(|k| l.direction[k] as f64 / 4096.0 * wn[k]).sum();
                    l.color[c] as f64 * dot.max(0.0)
                })
                .sum();
            let light = (record.ambient[c] as f64 + diffuse).min(32767.0 / 16.0);
            (stored[c] as f64 * light / 256.0).min(255.0)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]
        /// The integers stay within 2 of the float formula for any lights, pose, normal and
        /// stored colour of the real tables (a light direction a unit vector, as the files'
        /// are within 0.5 %).
        #[test]
        fn the_integers_stay_near_the_float_formula(
            ambient in prop::array::uniform3(0u8..=255), colours in prop::array::uniform3(prop::array::uniform3(0u8..=255)),
            angles in prop::array::uniform3(prop::array::uniform3(0u8..=255)), directions in prop::array::uniform3(0usize..240),
            normal in 0u8..240, stored in prop::array::uniform3(0u8..=255), pose in prop::array::uniform3(0u8..=255),
        ) {
            let t = tables();
            let lights = [0, 1, 2].map(|i| {
                // A direction: a normal of the table turned by some angles (any unit vector).
                let r = local_rotation(&t, angles[i]);
                let d = t.normal(directions[i] as u8).map(|c| c as i64);
                let dir: [i16; 3] = std::array::from_fn(|k| ((0..3).map(|j| r[k][j] as i64 * d[j]).sum::<i64>() >> 12) as i16);
                Light { direction: dir, color: colours[i] }
            });
            let rec = record(ambient, lights);
            let world = local_rotation(&t, pose);
            let got = PartLight::new(&rec, &world).colour(t.normal(normal), stored);
            let wf = world.map(|row| row.map(|v| v as f64 / 4096.0));
            let want = float_colour(&rec, &wf, t.normal(normal), stored);
            for c in 0..3 {
                prop_assert!((got[c] as f64 - want[c]).abs() <= 2.0, "channel {c}: {} against {}", got[c], want[c]);
            }
        }
    }
}
