//! Looking through a camera the file sets up (an FF7 field's, `scene::GameCamera`), as its
//! game projects: the eye where the camera is, looking along its third row, the picture's
//! frame fitted to the view (centred on the projection centre, so an uneven frame leaves a
//! margin), and where the picture the game draws behind the scene goes on the view. The
//! renderer takes these numbers; the page's tests check against them.

use crate::scene::GameCamera;
use glam::Vec3;

/// The eye, a point ahead of it, and up (the camera's y points down the picture).
pub fn look(c: &GameCamera) -> ([f32; 3], [f32; 3], [f32; 3]) {
    let eye = Vec3::from(c.eye());
    let row = |i: usize| Vec3::from(c.rotation[i]).normalize_or_zero();
    (
        (eye).to_array(),
        (eye + row(2)).to_array(),
        (-row(1)).to_array(),
    )
}

/// Half the frame's width and height on the projection plane, in pixels from the projection
/// centre (the larger side of each axis).
fn half_frame(c: &GameCamera) -> (f32, f32) {
    let [x0, y0, x1, y1] = c.frame.map(|v| v as f32);
    (
        x0.abs().max(x1.abs()).max(1.0),
        y0.abs().max(y1.abs()).max(1.0),
    )
}

/// The tangent of half the vertical angle that shows the whole frame in a view `aspect`
/// (width / height) wide.
pub fn half_tangent(c: &GameCamera, aspect: f32) -> f32 {
    let (hx, hy) = half_frame(c);
    let h = c.projection.max(1.0);
    (hy / h).max(hx / h / aspect.max(1e-3))
}

/// The vertical field of view, in degrees.
pub fn fov_degrees(c: &GameCamera, aspect: f32) -> f32 {
    2.0 * half_tangent(c, aspect).atan().to_degrees()
}

/// Where picture point (px, py) (pixels from the projection centre, y down) is on the view,
/// in normalised device coordinates (−1..1, y up).
pub fn on_view(c: &GameCamera, aspect: f32, [px, py]: [f32; 2]) -> [f32; 2] {
    let t = half_tangent(c, aspect);
    let h = c.projection.max(1.0);
    [px / h / (t * aspect), -py / h / t]
}

/// The frame on the view, in normalised device coordinates: left, bottom, right, top.
pub fn frame_on_view(c: &GameCamera, aspect: f32) -> [f32; 4] {
    let [x0, y0, x1, y1] = c.frame.map(|v| v as f32);
    let [l, t] = on_view(c, aspect, [x0, y0]);
    let [r, b] = on_view(c, aspect, [x1, y1]);
    [l, b, r, t]
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec4};

    /// A camera looking down at the scene from one side, as a field's does.
    fn camera() -> GameCamera {
        let m = glam::Mat3::from_quat(glam::Quat::from_euler(glam::EulerRot::YXZ, 2.1, 0.6, 0.05))
            .transpose();
        let r = [
            m.x_axis.to_array(),
            m.y_axis.to_array(),
            m.z_axis.to_array(),
        ];
        GameCamera {
            name: "game camera".into(),
            rotation: r,
            translation: [-1000.0, 300.0, 6000.0],
            projection: 1769.0,
            frame: [-312, -200, 312, 200],
            backdrop: None,
            behind: None,
            cards: Vec::new(),
            card_texels: None,
            notes: Vec::new(),
            layers: Vec::new(),
        }
    }

    #[test]
    fn a_perspective_camera_at_the_eye_projects_as_the_game_does() {
        let c = camera();
        for aspect in [528.0 / 540.0, 1.6, 0.5] {
            let (eye, target, up) = look(&c);
            let fov = fov_degrees(&c, aspect).to_radians();
            let gl = Mat4::perspective_rh_gl(fov, aspect, 1.0, 100_000.0)
                * Mat4::look_at_rh(eye.into(), target.into(), up.into());
            for p in [
                [0.0f32, 0.0, 0.0],
                [300.0, 100.0, -200.0],
                [-500.0, -50.0, 400.0],
            ] {
                let (picture, _) = c.project(p).unwrap();
                let clip = gl * Vec4::new(p[0], p[1], p[2], 1.0);
                let got = [clip.x / clip.w, clip.y / clip.w];
                let want = on_view(&c, aspect, picture);
                assert!(
                    (got[0] - want[0]).abs() < 1e-3 && (got[1] - want[1]).abs() < 1e-3,
                    "{aspect} {p:?}: {got:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn the_whole_frame_fits_the_view_whatever_its_shape() {
        let c = camera();
        for aspect in [0.5, 1.0, 2.0, 4.0] {
            let [l, b, r, t] = frame_on_view(&c, aspect);
            assert!(
                l >= -1.0 - 1e-4 && r <= 1.0 + 1e-4 && b >= -1.0 - 1e-4 && t <= 1.0 + 1e-4,
                "{aspect}: {l} {b} {r} {t}"
            );
            // One side touches the view's edge.
            assert!((r - 1.0).abs() < 1e-4 || (t - 1.0).abs() < 1e-4);
        }
    }
}
