//! The ways into a field (docs/formats/field-dat.md, "Entrances"): the party leader comes in
//! where another field's gateway or MAPJUMP puts it. Those name the field they lead to by its
//! map id, and FIELD.BIN's field table knows each id only by its files' places and sizes on
//! the disc: a field's own id is the one whose .DAT (and .MIM) sizes are its files', and the
//! fields that may lead here are those its own exits lead to (a way out is a way back in).

use super::bytes::{s16_at, u16_at};
use super::raw::{DatFile, Walkmesh};

/// The MAPJUMP opcode and its length: `60 map:u16 x:s16 y:s16 triangle:u16 direction:u8`.
const MAPJUMP: (u8, usize) = (0x60, 10);
/// An arrival's x that means "the middle of the triangle".
const MIDDLE: i16 = 0x7FFF;
/// Neighbouring fields looked at, at most (a field has a few exits; a hostile one 12
/// gateways and any number of MAPJUMPs).
pub const MAX_NEIGHBOURS: usize = 32;

/// How an exit leaves its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Gateway,
    MapJump,
}

impl Via {
    pub fn word(self) -> &'static str {
        match self {
            Via::Gateway => "gateway",
            Via::MapJump => "MAPJUMP",
        }
    }
}

/// A way out of a field, at byte `at` of its file: to map `to`, arriving at `point` (x, y)
/// on triangle `triangle` of that field's walkmesh, facing `direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    pub via: Via,
    pub at: usize,
    pub to: u16,
    pub point: [i16; 2],
    pub triangle: u16,
    pub direction: u8,
}

/// The gateways in use and every MAPJUMP of every script (all branches: each is a way out
/// some story moment takes), in file order.
pub fn exits(d: &DatFile, bytes: &[u8]) -> Vec<Exit> {
    let mut out: Vec<Exit> = Vec::new();
    if let Ok(t) = &d.triggers {
        out.extend(t.gateways.iter().map(|g| Exit {
            via: Via::Gateway,
            at: g.at,
            to: g.map,
            point: g.destination,
            triangle: g.triangle,
            direction: g.direction,
        }));
    }
    if let Ok(s) = &d.script {
        for op in s.scripts.iter().flat_map(|c| &c.ops) {
            if (op.code, op.len) != MAPJUMP || bytes.len() < op.at + MAPJUMP.1 {
                continue;
            }
            let at = op.at;
            out.push(Exit {
                via: Via::MapJump,
                at,
                to: u16_at(bytes, at + 1),
                point: [s16_at(bytes, at + 3), s16_at(bytes, at + 5)],
                triangle: u16_at(bytes, at + 7),
                direction: bytes[at + 9],
            });
        }
    }
    out
}

/// Where the party leader stands coming in by `exit` into the field whose walkmesh is `w`:
/// its (x, y) with z on the plane of its triangle, or the triangle's middle where x is
/// 0x7FFF (as the engine does); None where the walkmesh has no such triangle.
pub fn arrival(w: &Walkmesh, exit: &Exit) -> Option<[i16; 3]> {
    let t = w.triangles.get(exit.triangle as usize)?;
    let v = t.map(|p| p.map(|c| c as f64));
    if exit.point[0] == MIDDLE {
        let mid = |i: usize| ((v[0][i] + v[1][i] + v[2][i]) / 3.0).round() as i16;
        return Some([mid(0), mid(1), mid(2)]);
    }
    Some([
        exit.point[0],
        exit.point[1],
        height_on(w, exit.triangle, exit.point[0], exit.point[1])?,
    ])
}

/// The height of triangle `t`'s plane of walkmesh `w` at (x, y), rounded; None where the
/// walkmesh has no such triangle.
pub fn height_on(w: &Walkmesh, t: u16, x: i16, y: i16) -> Option<i16> {
    let v = w.triangles.get(t as usize)?.map(|p| p.map(|c| c as f64));
    let [x, y] = [x as f64, y as f64];
    // The plane through the three corners: n · (p − a) = 0, solved for z.
    let (e1, e2) = (
        [v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]],
        [v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]],
    );
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let z = if n[2].abs() < 1e-9 {
        v[0][2]
    } else {
        v[0][2] - (n[0] * (x - v[0][0]) + n[1] * (y - v[0][1])) / n[2]
    };
    Some(z.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16)
}

/// A way into a field: from which field (its file's stem), by what, where the leader stands
/// and which way it faces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrance {
    pub from: String,
    pub via: Via,
    pub position: [i16; 3],
    pub triangle: u16,
    pub direction: u8,
}

impl Entrance {
    /// How the page's picker and the info pane name it.
    pub fn label(&self) -> String {
        format!("from {} ({})", self.from, self.via.word())
    }
}

/// The entrances into the field whose walkmesh is `w` and whose map id is `id` among the
/// exits of `neighbours` (each field's stem and exits): each arrival once, in the order
/// found.
pub fn entrances<'a>(
    w: &Walkmesh,
    id: u16,
    neighbours: impl IntoIterator<Item = (&'a str, Vec<Exit>)>,
) -> Vec<Entrance> {
    let mut out: Vec<Entrance> = Vec::new();
    for (from, exits) in neighbours {
        for e in exits.iter().filter(|e| e.to == id) {
            let Some(position) = arrival(w, e) else {
                continue;
            };
            let entrance = Entrance {
                from: from.to_string(),
                via: e.via,
                position,
                triangle: e.triangle,
                direction: e.direction,
            };
            if !out
                .iter()
                .any(|o| (o.position, o.direction) == (entrance.position, entrance.direction))
            {
                out.push(entrance);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh() -> Walkmesh {
        Walkmesh {
            range: 0..0,
            triangles: vec![[[0, 0, 0], [100, 0, 100], [0, 100, 0]]],
            access: vec![[-1; 3]],
        }
    }

    #[test]
    fn an_arrival_stands_on_its_triangle_s_plane_or_at_its_middle() {
        let e = Exit {
            via: Via::Gateway,
            at: 0,
            to: 1,
            point: [50, 10],
            triangle: 0,
            direction: 64,
        };
        assert_eq!(
            arrival(&mesh(), &e),
            Some([50, 10, 50]),
            "z rises with x on this slope"
        );
        let middle = Exit {
            point: [MIDDLE, 0],
            ..e
        };
        assert_eq!(arrival(&mesh(), &middle), Some([33, 33, 33]));
        assert_eq!(arrival(&mesh(), &Exit { triangle: 1, ..e }), None);
    }

    #[test]
    fn entrances_are_the_neighbours_exits_into_this_field_each_once() {
        let e = |to: u16, x: i16| Exit {
            via: Via::MapJump,
            at: 0,
            to,
            point: [x, 5],
            triangle: 0,
            direction: 0,
        };
        let found = entrances(
            &mesh(),
            7,
            [
                ("A", vec![e(7, 10), e(8, 10), e(7, 10)]),
                ("B", vec![e(7, 20)]),
            ],
        );
        assert_eq!(
            found
                .iter()
                .map(|f| (f.from.as_str(), f.position[0]))
                .collect::<Vec<_>>(),
            [("A", 10), ("B", 20)]
        );
        assert_eq!(found[0].label(), "from A (MAPJUMP)");
    }
}
