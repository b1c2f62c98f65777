//! Measuring in the view: the ground grid's step and lines, a picked point snapped to the
//! corner nearest the pointer, and what a length is in the file's units and in metres by
//! each reading of the file's unit.

use crate::scene::{Bounds, UnitReading};
use glam::Vec3;

/// A pointer this close to a corner of the face under it (screen pixels) measures from the
/// corner itself.
pub const SNAP_PX: f32 = 10.0;

/// Lines the grid draws at most each way.
const MAX_LINES: usize = 200;

/// A round step (1, 2 or 5 times a power of ten) about a tenth of `extent`.
pub fn grid_step(extent: f32) -> f32 {
    let raw = (extent / 10.0).max(1e-6);
    let power = 10f32.powf(raw.log10().floor());
    let k = raw / power;
    let nice = if k < 1.5 {
        1.0
    } else if k < 3.5 {
        2.0
    } else if k < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// The ground grid under `bounds`: lines `step` apart on the plane at its lowest y, over its
/// footprint and one step around, as thin quads (two triangles each, `width` wide).
pub fn grid_quads(bounds: &Bounds, step: f32, width: f32) -> Vec<[f32; 3]> {
    let snap_down = |v: f32| (v / step).floor() * step - step;
    let snap_up = |v: f32| (v / step).ceil() * step + step;
    let (x0, x1, z0, z1) = (
        snap_down(bounds.min[0]),
        snap_up(bounds.max[0]),
        snap_down(bounds.min[2]),
        snap_up(bounds.max[2]),
    );
    let y = bounds.min[1];
    let lines = |a: f32, b: f32| (((b - a) / step).round() as usize + 1).min(MAX_LINES);
    let h = width * 0.5;
    let mut out = Vec::new();
    for i in 0..lines(x0, x1) {
        let x = x0 + i as f32 * step;
        out.extend([
            [x - h, y, z0],
            [x + h, y, z0],
            [x + h, y, z1],
            [x - h, y, z0],
            [x + h, y, z1],
            [x - h, y, z1],
        ]);
    }
    for i in 0..lines(z0, z1) {
        let z = z0 + i as f32 * step;
        out.extend([
            [x0, y, z - h],
            [x1, y, z - h],
            [x1, y, z + h],
            [x0, y, z - h],
            [x1, y, z + h],
            [x0, y, z + h],
        ]);
    }
    out
}

/// The point a click at screen point `pointer` measures from: the corner of the face under
/// it whose screen point (`corners`, with `screen` giving each corner's) is within
/// [`SNAP_PX`], the nearest; else the surface point `hit`.
pub fn snapped(
    hit: Vec3,
    corners: &[Vec3],
    screen: impl Fn(Vec3) -> Option<(f32, f32)>,
    pointer: (f32, f32),
) -> Vec3 {
    corners
        .iter()
        .filter_map(|&c| {
            let (x, y) = screen(c)?;
            let d = ((x - pointer.0).powi(2) + (y - pointer.1).powi(2)).sqrt();
            (d <= SNAP_PX).then_some((d, c))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(hit, |(_, c)| c)
}

/// A length as the readout says it: in the file's units, then in metres by each reading of
/// the unit (`2.000 units · 2.000 m (bgf notes: a unit is a metre) · 0.0508 m (b2z notes: a
/// unit is an inch)`).
pub fn length_text(length: f32, units: &[UnitReading]) -> String {
    let mut text = format!("{} units", figure(length));
    for u in units {
        text.push_str(&format!(
            " · {} m ({}: a unit is a{} {})",
            figure(length * u.metres),
            u.source,
            if u.unit.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "n"
            } else {
                ""
            },
            u.unit
        ));
    }
    text
}

/// Four significant figures, no exponent for everyday sizes.
pub fn figure(x: f32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_steps_round_and_covers_the_footprint() {
        assert_eq!(grid_step(20.0), 2.0);
        assert_eq!(grid_step(7.0), 0.5);
        assert_eq!(grid_step(400.0), 50.0);
        let b = Bounds {
            min: [-1.0, 0.5, -1.0],
            max: [1.0, 2.0, 3.0],
        };
        let q = grid_quads(&b, 1.0, 0.02);
        assert_eq!(q.len() % 6, 0);
        assert!(
            q.iter().all(|p| p[1] == 0.5),
            "on the ground under the model"
        );
        let xs: Vec<f32> = q.iter().map(|p| p[0]).collect();
        assert!(
            xs.iter().cloned().fold(f32::MAX, f32::min) <= -2.0
                && xs.iter().cloned().fold(f32::MIN, f32::max) >= 2.0
        );
        // A huge footprint at a tiny step: the lines stop at the limit.
        assert!(
            grid_quads(
                &Bounds {
                    min: [-1e6, 0.0, -1e6],
                    max: [1e6, 0.0, 1e6]
                },
                1.0,
                0.1
            )
            .len()
                <= 2 * MAX_LINES * 6
        );
    }

    #[test]
    fn a_click_near_a_corner_measures_from_the_corner() {
        let corners = [Vec3::ZERO, Vec3::X, Vec3::Y];
        // The screen: x·100, y·100.
        let screen = |p: Vec3| Some((p.x * 100.0, p.y * 100.0));
        assert_eq!(
            snapped(Vec3::new(0.95, 0.02, 0.0), &corners, screen, (95.0, 2.0)),
            Vec3::X
        );
        let hit = Vec3::new(0.5, 0.2, 0.0);
        assert_eq!(
            snapped(hit, &corners, screen, (50.0, 20.0)),
            hit,
            "far from every corner: the surface point"
        );
    }

    #[test]
    fn a_length_reads_in_units_and_in_metres_by_each_reading() {
        let units = vec![
            UnitReading {
                source: "bgf notes".into(),
                unit: "metre".into(),
                metres: 1.0,
            },
            UnitReading {
                source: "b2z notes".into(),
                unit: "inch".into(),
                metres: 0.0254,
            },
        ];
        assert_eq!(length_text(2.0, &units), "2.000 units · 2.000 m (bgf notes: a unit is a metre) · 0.05080 m (b2z notes: a unit is an inch)");
        assert_eq!(length_text(1234.4, &[]), "1234 units");
    }
}
