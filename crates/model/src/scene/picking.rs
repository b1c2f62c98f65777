//! Which triangle a ray from the view hits, and from a record of the file (by its bytes)
//! back to what in the scene drew it (its node, its LOD, its triangles in the world).

use super::*;

/// The nearest triangle a ray hits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SceneHit {
    pub node: NodeId,
    pub mesh: MeshId,
    pub primitive: u32,
    pub triangle: u32,
    pub distance: f32,
}

/// Möller–Trumbore; the distance along `d` (in units of |d|), both faces.
fn ray_triangle(o: Vec3, d: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<f32> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let dist = e2.dot(q) / det;
    (dist > 0.0 && dist.is_finite()).then_some(dist)
}

impl Scene {
    /// The record of the nearest node at or above `node` that came from one.
    pub fn record_of(&self, node: NodeId) -> Option<RecordBytes> {
        let mut n = Some(node);
        while let Some(i) = n {
            let node = self.nodes.get(i as usize)?;
            if node.record.is_some() {
                return node.record;
            }
            n = node.parent.filter(|&p| p < i);
        }
        None
    }

    /// The nearest triangle (either face: winding is unconfirmed) that the ray from `origin`
    /// along `dir` hits among the nodes shown at `lod` (layers in `hidden` hidden), with
    /// nodes placed by `world`.
    pub fn pick(
        &self,
        origin: Vec3,
        dir: Vec3,
        lod: usize,
        hidden: &[u32],
        world: &[Mat4],
    ) -> Option<SceneHit> {
        let visible = self.visible_in(lod, hidden);
        let mut best: Option<SceneHit> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(m) = n.mesh.filter(|_| visible[i]) else {
                continue;
            };
            let inv = world[i].inverse();
            if !inv.is_finite() {
                continue;
            }
            // Intersect in the node's own space; distances along `dir` are kept by scaling
            // the direction, not normalising it.
            let (o, d) = (inv.transform_point3(origin), inv.transform_vector3(dir));
            for (k, prim) in self.meshes[m as usize].primitives.iter().enumerate() {
                for (t, tri) in prim.indices.chunks_exact(3).enumerate() {
                    let v = |j: usize| prim.positions.get(tri[j] as usize).map(|p| Vec3::from(*p));
                    let (Some(a), Some(b), Some(c)) = (v(0), v(1), v(2)) else {
                        continue;
                    };
                    if let Some(dist) = ray_triangle(o, d, a, b, c) {
                        if best.is_none_or(|h| dist < h.distance) {
                            best = Some(SceneHit {
                                node: i as NodeId,
                                mesh: m,
                                primitive: k as u32,
                                triangle: t as u32,
                                distance: dist,
                            });
                        }
                    }
                }
            }
        }
        best
    }

    /// Forget where everything came from: for a scene placed into another file's, whose
    /// records are bytes of that other file.
    pub fn forget_records(&mut self) {
        for n in &mut self.nodes {
            n.record = None;
        }
        for p in self.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            p.record = None;
            p.sources.clear();
        }
    }

    /// The node that came from record `record`.
    pub fn node_of_record(&self, record: RecordBytes) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.record == Some(record))
            .map(|i| i as NodeId)
    }

    /// The LOD that shows the node from record `record`, if that node is a LOD.
    pub fn lod_of_record(&self, record: RecordBytes) -> Option<usize> {
        let mut n = self.node_of_record(record);
        while let Some(i) = n {
            if let Some(l) = self.nodes[i as usize].lod {
                return Some(l as usize);
            }
            n = self.nodes[i as usize].parent;
        }
        None
    }

    /// Per node: whether it is the node from record `record` or sits under it.
    fn under_record(&self, record: RecordBytes) -> Vec<bool> {
        let mut under = vec![false; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            under[i] = n.record == Some(record)
                || n.parent
                    .is_some_and(|p| (p as usize) < i && under[p as usize]);
        }
        under
    }

    /// Per node: whether it draws something that came from `record` (it is that record's
    /// node or under it, or one of its primitives or runs of triangles came from it): the
    /// bones a picked part hangs on.
    pub fn nodes_drawing_record(&self, record: RecordBytes) -> Vec<bool> {
        let under = self.under_record(record);
        let from_record = |m: Option<MeshId>| {
            m.and_then(|m| self.meshes.get(m as usize))
                .is_some_and(|mesh| {
                    mesh.primitives.iter().any(|p| {
                        p.record == Some(record) || p.sources.iter().any(|r| r.record == record)
                    })
                })
        };
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| under[i] || from_record(n.mesh))
            .collect()
    }

    /// World-space corners of the triangles shown at `lod` of the parts of damage zone
    /// `zone` (a layer of [`Self::zones`]).
    pub fn triangles_of_zone(&self, zone: u32, lod: usize, world: &[Mat4]) -> Vec<[f32; 3]> {
        let visible = self.visible(lod);
        let mut out = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let in_zone = n.part.as_ref().is_some_and(|p| p.zones.contains(&zone));
            let Some(m) = n.mesh.filter(|_| visible[i] && in_zone) else {
                continue;
            };
            for prim in &self.meshes[m as usize].primitives {
                out.extend(
                    prim.indices
                        .iter()
                        .filter_map(|&k| prim.positions.get(k as usize))
                        .map(|p| world[i].transform_point3(Vec3::from(*p)).to_array()),
                );
            }
        }
        out
    }

    /// World-space corners of the triangles shown at `lod` that came from `record`: a node
    /// (everything under it), a primitive, or the record a run of triangles came from.
    /// With `face` (the bytes start..end of one face of record `record`), only the
    /// triangles made from that face; a run whose triangles all come from the whole record
    /// (a strip) counts as one face.
    pub fn triangles_of_record(
        &self,
        record: RecordBytes,
        face: Option<(usize, usize)>,
        lod: usize,
        world: &[Mat4],
    ) -> Vec<[f32; 3]> {
        let visible = self.visible(lod);
        let under = self.under_record(record);
        let mut out = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(m) = n.mesh.filter(|_| visible[i]) else {
                continue;
            };
            for prim in &self.meshes[m as usize].primitives {
                let whole = face.is_none() && (under[i] || prim.record == Some(record));
                let ours = |t: u32| {
                    source_of(&prim.sources, t).is_some_and(|r| {
                        r.record == record
                            && face.is_none_or(|f| r.tris_per_face == 0 || r.face_bytes(t) == f)
                    })
                };
                for (t, tri) in prim.indices.chunks_exact(3).enumerate() {
                    if whole || ours(t as u32) {
                        out.extend(
                            tri.iter()
                                .filter_map(|&k| prim.positions.get(k as usize))
                                .map(|p| world[i].transform_point3(Vec3::from(*p)).to_array()),
                        );
                    }
                }
            }
        }
        out
    }
}
