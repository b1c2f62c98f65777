//! How the renderer draws a scene at one LOD: static meshes baked into merged batches,
//! meshes several nodes place drawn instanced, a batch per texture and texel rule. Tuned
//! for the rasteriser (docs/architecture.md); the scene model itself knows nothing of it.

use super::*;

/// Vertices a plan bakes at most from meshes that several nodes place (see
/// [`Scene::draw_plan_in`]): 19 MB at the widest vertex (36 bytes), whatever the world.
pub const BAKED_VERTICES: usize = 1 << 19;

/// How the renderer draws a scene at one LOD: merged static batches (meshes baked into world
/// space, one draw per texture and way of drawing texels) and instanced batches (one draw per
/// (mesh, primitive) for all the nodes placing it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DrawPlan {
    pub merged: Vec<MergedBatch>,
    pub instanced: Vec<InstancedBatch>,
    /// (node, mesh, primitive) drawn as lines along their triangles' edges
    /// ([`Surface::Lines`]), not in the batches.
    pub lines: Vec<(NodeId, MeshId, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MergedBatch {
    pub texture: Option<TextureId>,
    /// The material a clip animates (UV drift, glow) when this batch has one: such a
    /// material gets a batch of its own.
    pub animated_material: Option<MaterialId>,
    /// (node, mesh, primitive) in draw order.
    pub items: Vec<(NodeId, MeshId, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InstancedBatch {
    pub mesh: MeshId,
    pub primitive: u32,
    pub nodes: Vec<NodeId>,
}

impl DrawPlan {
    pub fn draw_calls(&self) -> usize {
        self.merged.len() + self.instanced.len()
    }
}

impl Scene {
    pub fn draw_plan(&self, lod: usize) -> DrawPlan {
        self.draw_plan_in(lod, &[])
    }

    /// [`Self::draw_plan`] with the layers in `hidden` hidden.
    ///
    /// A static node's mesh is baked into a merged batch when one node places it, and also
    /// when several do, as long as all its static placements fit in what is left of
    /// [`BAKED_VERTICES`] (offered to the smallest meshes first). A software rasteriser
    /// (SwiftShader, what a browser without a GPU uses) pays for each instance of an
    /// instanced draw about as much as for twenty vertices: 11,236 boxes drew 1.7–2× slower
    /// instanced than baked. The budget keeps the copies bounded however many placements a
    /// world has. Nodes a clip moves, and meshes past the budget, are instanced.
    pub fn draw_plan_in(&self, lod: usize, hidden: &[u32]) -> DrawPlan {
        let visible = self.visible_in(lod, hidden);
        let animated = self.animated_nodes();
        let animated_materials = self.animated_materials();
        let drawn = |i: usize| {
            self.nodes[i]
                .mesh
                .filter(|_| visible[i])
                .map(|m| m as usize)
        };
        let mut users = vec![0usize; self.meshes.len()];
        let mut static_users = vec![0usize; self.meshes.len()];
        for (i, &moving) in animated.iter().enumerate().take(self.nodes.len()) {
            if let Some(m) = drawn(i) {
                users[m] += 1;
                static_users[m] += usize::from(!moving);
            }
        }
        let baked = self.baked_meshes(&users, &static_users);
        let mut plan = DrawPlan::default();
        for (i, &moving) in animated.iter().enumerate().take(self.nodes.len()) {
            let Some(m) = drawn(i) else { continue };
            for (k, prim) in self.meshes[m].primitives.iter().enumerate() {
                if prim.indices.is_empty() {
                    continue;
                }
                if self.surface_of(prim) == Surface::Lines {
                    plan.lines.push((i as NodeId, m as MeshId, k as u32));
                    continue;
                }
                if moving || (users[m] > 1 && !baked[m]) {
                    match plan
                        .instanced
                        .iter_mut()
                        .find(|b| b.mesh == m as MeshId && b.primitive == k as u32)
                    {
                        Some(b) => b.nodes.push(i as NodeId),
                        None => plan.instanced.push(InstancedBatch {
                            mesh: m as MeshId,
                            primitive: k as u32,
                            nodes: vec![i as NodeId],
                        }),
                    }
                    continue;
                }
                self.merge_into(
                    &mut plan,
                    (i as NodeId, m as MeshId, k as u32),
                    &animated_materials,
                );
            }
        }
        plan
    }

    /// Which meshes several nodes place are baked into merged batches: all their static
    /// placements, smallest meshes first, while they fit in [`BAKED_VERTICES`] (`users` and
    /// `static_users`: how many shown nodes, and shown static nodes, place each mesh).
    fn baked_meshes(&self, users: &[usize], static_users: &[usize]) -> Vec<bool> {
        let vertices = |m: usize| {
            self.meshes[m]
                .primitives
                .iter()
                .filter(|p| !p.indices.is_empty())
                .map(|p| p.positions.len())
                .sum::<usize>()
        };
        let mut shared: Vec<usize> = (0..self.meshes.len())
            .filter(|&m| users[m] > 1 && static_users[m] > 0)
            .collect();
        shared.sort_by_key(|&m| (vertices(m), m));
        let mut baked = vec![false; self.meshes.len()];
        let mut budget = BAKED_VERTICES;
        for m in shared {
            let Some(left) = budget.checked_sub(vertices(m).saturating_mul(static_users[m])) else {
                continue;
            };
            budget = left;
            baked[m] = true;
        }
        baked
    }

    /// Primitive `k` of mesh `m` at node `i` (`item`) into the merged batch of its texture,
    /// animated material and texel rule, or a new one.
    fn merge_into(
        &self,
        plan: &mut DrawPlan,
        item: (NodeId, MeshId, u32),
        animated_materials: &[MaterialId],
    ) {
        let prim = &self.meshes[item.1 as usize].primitives[item.2 as usize];
        let texture = self.texture_of(prim);
        let own = prim
            .material
            .filter(|&id| (id as usize) < self.materials.len() && animated_materials.contains(&id));
        let texels = self.texel_rule(prim);
        let first = |b: &MergedBatch| {
            b.items
                .first()
                .map(|&(_, m, k)| &self.meshes[m as usize].primitives[k as usize])
        };
        match plan.merged.iter_mut().find(|b| {
            b.texture == texture
                && b.animated_material == own
                && first(b).is_some_and(|p| self.texel_rule(p) == texels)
        }) {
            Some(b) => b.items.push(item),
            None => plan.merged.push(MergedBatch {
                texture,
                animated_material: own,
                items: vec![item],
            }),
        }
    }

    /// How primitive `p`'s texels are drawn, which a merged batch shares (it draws with its
    /// first primitive's material): the alpha cut-off, the blend rule and the surface.
    fn texel_rule(&self, p: &Primitive) -> (Option<u32>, Option<Blend>, Surface) {
        let material = p.material.and_then(|m| self.materials.get(m as usize));
        material.map_or((None, None, Surface::Filled), |m| {
            (m.alpha_cutoff.map(f32::to_bits), m.blend, m.surface)
        })
    }
}
