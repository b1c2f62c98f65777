//! The skeleton overlay's triangles: each bone a solid double pyramid from its parent joint
//! to its child (the shape modelling tools give bones), a dot at every joint, shaded by a
//! fixed light so the shape reads, the bone of the picked part in the highlight colour.
//!
//! Solid triangles, not screen-space lines: a line of zero-area triangles rasterises
//! nothing, which is how an earlier overlay drew no pixel at all. Pure geometry, so it is
//! tested without a GPU; the renderer (`render`) draws it over the model with the depth
//! cleared.

use glam::Vec3;

/// Magenta: the one hue old games' textures hardly use, so the bones stand out on any model
/// and on every background.
pub const BONE_COLOR: [u8; 3] = [255, 60, 230];
pub const JOINT_COLOR: [u8; 3] = [255, 255, 255];
pub const PICKED_COLOR: [u8; 3] = [255, 200, 40];

/// One bone from `from` (the parent's joint) to `to`; `picked` when it carries the part
/// the user picked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bone {
    pub from: Vec3,
    pub to: Vec3,
    pub picked: bool,
}

/// Triangles (three corners each) and a colour per corner.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OverlayMesh {
    pub positions: Vec<Vec3>,
    pub colors: Vec<[u8; 4]>,
}

impl OverlayMesh {
    fn triangle(&mut self, corners: [Vec3; 3], color: [u8; 3]) {
        let normal = (corners[1] - corners[0])
            .cross(corners[2] - corners[0])
            .normalize_or_zero();
        // Faces toward the light brighter, never below 55 %: flat colour hides the shape.
        let light = Vec3::new(0.4, 0.8, 0.45).normalize();
        let shade = 0.55 + 0.45 * normal.dot(light).abs();
        let c = color.map(|x| (x as f32 * shade).round() as u8);
        self.positions.extend(corners);
        self.colors.extend([[c[0], c[1], c[2], 255]; 3]);
    }

    /// An octahedron of half-size `size` at `at`.
    fn dot(&mut self, at: Vec3, size: f32, color: [u8; 3]) {
        let axes = [Vec3::X, Vec3::Z, -Vec3::X, -Vec3::Z].map(|v| v * size);
        for k in 0..4 {
            let (a, b) = (at + axes[k], at + axes[(k + 1) % 4]);
            self.triangle([a, b, at + Vec3::Y * size], color);
            self.triangle([b, a, at - Vec3::Y * size], color);
        }
    }
}

/// The overlay for `bones` in a model of radius `radius`: bones as thick as a tenth of
/// their length (within bounds set by the model's size, so a tiny bone still shows and a
/// long one does not hide the model), joints a little wider than the bones.
pub fn overlay(bones: &[Bone], radius: f32) -> OverlayMesh {
    let radius = if radius.is_finite() && radius > 0.0 {
        radius
    } else {
        1.0
    };
    let (thinnest, thickest) = (radius * 0.006, radius * 0.03);
    let joint = radius * 0.014;
    let mut mesh = OverlayMesh::default();
    for bone in bones
        .iter()
        .filter(|b| b.from.is_finite() && b.to.is_finite())
    {
        let color = if bone.picked {
            PICKED_COLOR
        } else {
            BONE_COLOR
        };
        let along = bone.to - bone.from;
        let length = along.length();
        if length > thinnest {
            let dir = along / length;
            let width = (length * 0.1).clamp(thinnest, thickest);
            let (u, v) = dir.any_orthonormal_pair();
            // The waist sits near the parent joint, so the bone points to its child.
            let waist = bone.from + along * 0.15;
            let ring = [u, v, -u, -v].map(|d| waist + d * width);
            for k in 0..4 {
                let (a, b) = (ring[k], ring[(k + 1) % 4]);
                mesh.triangle([bone.from, b, a], color);
                mesh.triangle([a, b, bone.to], color);
            }
        }
        mesh.dot(
            bone.to,
            joint,
            if bone.picked {
                PICKED_COLOR
            } else {
                JOINT_COLOR
            },
        );
    }
    // Roots: a joint where bones start and none ends, one dot however many start there.
    let mut roots: Vec<Vec3> = Vec::new();
    for bone in bones
        .iter()
        .filter(|b| b.from.is_finite() && b.to.is_finite())
    {
        if !bones.iter().any(|o| o.to == bone.from) && !roots.contains(&bone.from) {
            roots.push(bone.from);
            mesh.dot(bone.from, joint, JOINT_COLOR);
        }
    }
    mesh
}

/// Which of `bones` (the node pairs `pairs`, in the same order) carries the part drawn by
/// the nodes flagged in `drawing`: the bones at the part's joint (its own node if it is a
/// joint, else its parent's), the one whose middle is nearest the part's outlined
/// triangles (`centre`).
pub fn picked_bone(
    pairs: &[(u32, u32)],
    drawing: &[bool],
    parent: impl Fn(u32) -> Option<u32>,
    bones: &[Bone],
    centre: Vec3,
) -> Option<usize> {
    let joint = |n: u32| pairs.iter().any(|&(a, b)| a == n || b == n);
    let joints: Vec<u32> = (0..drawing.len() as u32)
        .filter(|&n| drawing[n as usize])
        .filter_map(|n| {
            if joint(n) {
                Some(n)
            } else {
                parent(n).filter(|&p| joint(p))
            }
        })
        .collect();
    pairs
        .iter()
        .enumerate()
        .filter(|(_, (a, b))| joints.contains(a) || joints.contains(b))
        .filter_map(|(k, _)| Some((k, bones.get(k)?)))
        .map(|(k, bone)| (k, ((bone.from + bone.to) / 2.0).distance(centre)))
        .filter(|(_, d)| d.is_finite())
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(t: &[Vec3]) -> f32 {
        (t[1] - t[0]).cross(t[2] - t[0]).length() / 2.0
    }

    #[test]
    fn every_triangle_has_area_so_it_rasterises() {
        let bones = [
            Bone {
                from: Vec3::ZERO,
                to: Vec3::new(0.0, 1.0, 0.0),
                picked: false,
            },
            Bone {
                from: Vec3::new(0.0, 1.0, 0.0),
                to: Vec3::new(0.3, 1.5, -0.2),
                picked: true,
            },
            // A bone of no length (a joint on its parent) still shows its dot.
            Bone {
                from: Vec3::new(0.3, 1.5, -0.2),
                to: Vec3::new(0.3, 1.5, -0.2),
                picked: false,
            },
        ];
        let mesh = overlay(&bones, 2.0);
        assert_eq!(mesh.positions.len(), mesh.colors.len());
        assert_eq!(mesh.positions.len() % 3, 0);
        // Two bones of 8 faces, four joint dots (three ends and the root), 8 faces each.
        assert_eq!(mesh.positions.len() / 3, 2 * 8 + 4 * 8);
        assert!(
            mesh.positions.chunks_exact(3).all(|t| area(t) > 1e-6),
            "no degenerate triangle"
        );
    }

    #[test]
    fn bones_span_their_joints_and_the_picked_one_is_highlighted() {
        let from = Vec3::new(1.0, 2.0, 3.0);
        let to = Vec3::new(1.0, 2.0, 5.0);
        let mesh = overlay(
            &[Bone {
                from,
                to,
                picked: true,
            }],
            10.0,
        );
        let zs: Vec<f32> = mesh.positions.iter().map(|p| p.z).collect();
        let (lo, hi) = zs
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), &z| (a.min(z), b.max(z)));
        // From the parent's joint (and its dot) to past the child's (its dot).
        assert!(lo <= 3.0 - 0.13 && hi >= 5.0 + 0.13, "{lo}..{hi}");
        let hue = |c: &[u8; 4]| c[0] >= c[2] && c[1] > 100;
        assert!(mesh.colors.iter().all(hue), "all in the highlight colour");
        let plain = overlay(
            &[Bone {
                from,
                to,
                picked: false,
            }],
            10.0,
        );
        assert!(
            plain.colors.iter().any(|c| c[1] < 100 && c[2] > 100),
            "magenta bones"
        );
    }

    #[test]
    fn thickness_follows_the_bone_within_the_models_bounds() {
        let width = |len: f32, radius: f32| {
            let mesh = overlay(
                &[Bone {
                    from: Vec3::ZERO,
                    to: Vec3::Y * len,
                    picked: false,
                }],
                radius,
            );
            // The bone's ring (without the joint dots) is its widest x.
            mesh.positions[..24]
                .iter()
                .map(|p| p.x.abs().max(p.z.abs()))
                .fold(0.0, f32::max)
        };
        assert!(
            (width(1.0, 100.0) - 0.6).abs() < 1e-4,
            "a short bone is at least the thinnest"
        );
        assert!(
            (width(10.0, 100.0) - 1.0).abs() < 1e-4,
            "a tenth of its length"
        );
        assert!(
            (width(100.0, 100.0) - 3.0).abs() < 1e-4,
            "at most the thickest"
        );
    }

    #[test]
    fn the_picked_bone_is_the_one_at_the_parts_joint_nearest_its_triangles() {
        // Nodes: 0 root, 1 and 2 bones in a chain, 3 a part hanging on bone 1, 4 another part.
        let pairs = [(0, 1), (1, 2)];
        let bones = [
            Bone {
                from: Vec3::ZERO,
                to: Vec3::Y,
                picked: false,
            },
            Bone {
                from: Vec3::Y,
                to: Vec3::Y * 2.0,
                picked: false,
            },
        ];
        let parent = |n: u32| [None, Some(0), Some(1), Some(1), Some(2)][n as usize];
        let drawing = [false, false, false, true, false];
        // Both bones meet at joint 1: the one nearer the part's triangles wins.
        assert_eq!(
            picked_bone(&pairs, &drawing, parent, &bones, Vec3::Y * 1.8),
            Some(1)
        );
        assert_eq!(
            picked_bone(&pairs, &drawing, parent, &bones, Vec3::Y * 0.2),
            Some(0)
        );
        // A part on the last bone, and nothing drawn.
        assert_eq!(
            picked_bone(
                &pairs,
                &[false, false, false, false, true],
                parent,
                &bones,
                Vec3::ZERO
            ),
            Some(1)
        );
        assert_eq!(
            picked_bone(&pairs, &[false; 5], parent, &bones, Vec3::ZERO),
            None
        );
    }

    #[test]
    fn bad_numbers_draw_nothing_rather_than_nan() {
        let mesh = overlay(
            &[Bone {
                from: Vec3::NAN,
                to: Vec3::ONE,
                picked: false,
            }],
            f32::NAN,
        );
        assert!(mesh.positions.is_empty());
        let mesh = overlay(
            &[Bone {
                from: Vec3::ZERO,
                to: Vec3::ONE,
                picked: false,
            }],
            f32::INFINITY,
        );
        assert!(mesh.positions.iter().all(|p| p.is_finite()));
    }
}
