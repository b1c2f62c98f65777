//! One scene as the GPU has it: its textures, each LOD's draw plan and the batches of it
//! uploaded so far, its outline, the layers it hides and the option of its choice on show.
//! The renderer holds one for the file on show and, comparing, one each for the other file
//! and the difference view; they share the camera and the view's switches.

use super::geometry::SceneGeometry;
use super::material::{self, Pass, RetroMaterial};
use super::{to_mat4, ViewOptions};
use crate::packing::{Varyings, VertexArrays};
use crate::webgl::scene::{
    source_of, Bounds, ColourSet, DrawPlan, InstancedBatch, Marker, MergedBatch, RecordBytes,
    Scene, SourceRun,
};
use crate::webgl::view::{skeleton, Lighting};
use glam::Vec3 as GVec3;
use std::sync::Arc;
use three_d::{
    vec2, vec3, Camera, ColorMaterial, Context, CpuMesh, CpuTexture, Cull, Geometry, Gm,
    InnerSpace, Interpolation, Mat3, Mat4, Mesh as GpuMesh, Mipmap, Positions, RenderTarget,
    ScissorBox, Srgba, Texture2DRef, TextureData, Vec3, Wireframe, Wrapping,
};

const WIRE_COLOR: Srgba = Srgba {
    r: 240,
    g: 240,
    b: 240,
    a: 255,
};
const POINT_COLOR: [u8; 4] = [255, 236, 150, 255];
const DROPZONE_COLOR: [u8; 4] = [230, 40, 40, 255];
const HIGHLIGHT_COLOR: Srgba = Srgba {
    r: 255,
    g: 200,
    b: 40,
    a: 255,
};
/// The largest texture side uploaded; WebGL2 promises 2,048 and SwiftShader takes 8,192.
const MAX_TEXTURE_SIDE: u32 = 8192;

/// Meshes baked into world space and merged: one draw per texture.
struct MergedDraw {
    gm: Gm<SceneGeometry, RetroMaterial>,
    /// A semi-transparent material's second pass: its blended texels.
    semi: Option<RetroMaterial>,
    /// The material a clip animates in this draw (its UV drift, its glow).
    animated_material: Option<u32>,
}

/// One mesh primitive drawn at every node that places it.
struct InstancedDraw {
    gm: Gm<SceneGeometry, RetroMaterial>,
    semi: Option<RetroMaterial>,
    nodes: Vec<u32>,
    /// A clip moves some of the nodes: instances are updated every frame.
    animated: bool,
    animated_material: Option<u32>,
}

/// One LOD as uploaded so far: its draw plan, and the batches of it already on the GPU.
struct GpuLod {
    plan: DrawPlan,
    merged: Vec<MergedDraw>,
    instanced: Vec<InstancedDraw>,
    /// Batches of the plan uploaded (merged first, then instanced).
    uploaded: usize,
    markers: Option<Gm<GpuMesh, ColorMaterial>>,
    wire: Option<Wireframe>,
    /// The plan's primitives drawn as lines (the file's words ask for them), each in its
    /// colour, at rest.
    lines: Vec<Wireframe>,
    triangles: usize,
    instances: usize,
}

impl GpuLod {
    fn batches(&self) -> usize {
        self.plan.merged.len() + self.plan.instanced.len()
    }
}

/// What the outline shows: a record's geometry, or one face of it (the bytes start..end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HighlightTarget {
    /// The record, by its bytes (none for a zone).
    pub record: Option<RecordBytes>,
    pub face: Option<(usize, usize)>,
    /// Outline the parts of this damage zone (a layer) instead of the record's triangles.
    pub zone: Option<u32>,
    /// The LOD it was outlined in; another LOD on show outlines it again (or nothing).
    pub lod: Option<usize>,
}

/// What a click in the view hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The record of the primitive, and of the node that drew it.
    pub primitive: Option<RecordBytes>,
    pub node: Option<RecordBytes>,
    /// The run of triangles (record and face bytes) the triangle belongs to.
    pub source: Option<SourceRun>,
    pub triangle: u32,
    pub distance: f32,
    /// The layer of the node drawn (its own or the nearest above it), if any.
    pub layer: Option<u32>,
    /// The triangle's corners, in the world.
    pub corners: [[f32; 3]; 3],
}

/// How a stage is drawn in a frame: the LOD on show, the light, the culling and the clock,
/// the columns of the view it owns, whether it is a ghost over another, and the view's radius
/// (which sizes the skeleton's bones).
pub(super) struct StageFrame {
    pub lod: usize,
    pub radius: f32,
    pub seconds: f64,
    pub light: Vec3,
    pub ambient: f32,
    pub cull: Cull,
    pub scissor: ScissorBox,
    pub ghost: bool,
}

pub(super) struct Stage {
    pub scene: Scene,
    textures: Vec<Texture2DRef>,
    /// Per LOD, uploaded on first use.
    lods: Vec<Option<GpuLod>>,
    highlight: Option<Wireframe>,
    pub highlight_target: Option<HighlightTarget>,
    /// The box around the outlined triangles, for framing the selection.
    pub highlight_bounds: Option<Bounds>,
    highlight_count: usize,
    pub bounds: Option<Bounds>,
    pub shown_lod: Option<usize>,
    /// Layers of the scene not drawn.
    pub hidden_layers: Vec<u32>,
    /// The option of the scene's choice on show.
    pub choice: Option<usize>,
    /// Bytes of vertex and index data sent to the GPU for the scene, and the time the
    /// uploads took (building the buffers and handing them to GL).
    pub upload_bytes: usize,
    /// The first draw the GPU would not take (no buffer for it): said to the page, which
    /// shows the file as failed to draw rather than drawing less than it says.
    pub gpu_error: Option<String>,
    pub upload_ms: f64,
    /// Every node's world matrix in the rest pose (clips at time 0), for planning, upload,
    /// bounds and a still scene's picks: found once per scene and choice, not per use.
    rest_world: Vec<glam::Mat4>,
    /// The scene has the colours the game's lighting gave it.
    pub game_lit: bool,
    /// The vertex colours uploaded.
    colours: ColourSet,
    /// Per mesh, the colour of its damage zone, when each zone is drawn in its own.
    zone_colours: Option<Vec<[f32; 4]>>,
}

impl Stage {
    pub fn new(context: &Context, scene: Scene) -> Stage {
        let textures = scene
            .textures
            .iter()
            .map(|t| upload_texture(context, t))
            .collect();
        let lods = (0..scene.lod_count()).map(|_| None).collect();
        let mut stage = Stage {
            scene,
            textures,
            lods,
            highlight: None,
            highlight_target: None,
            highlight_bounds: None,
            highlight_count: 0,
            bounds: None,
            shown_lod: None,
            hidden_layers: Vec::new(),
            choice: None,
            upload_bytes: 0,
            gpu_error: None,
            upload_ms: 0.0,
            rest_world: Vec::new(),
            game_lit: false,
            colours: ColourSet::Stored,
            zone_colours: None,
        };
        stage.game_lit = stage.scene.has_lit_colours();
        stage.hidden_layers = stage.scene.hidden.clone();
        if let Some(k) = stage.scene.choice.as_ref().map(|c| c.default) {
            stage.choose(k, 0);
        }
        // (A choice whose default is not one of its options chose nothing.)
        if stage.rest_world.len() != stage.scene.nodes.len() {
            stage.rest_world = stage.scene.rest_world();
        }
        stage.bounds = stage
            .scene
            .bounds_placed(0, &stage.hidden_layers, &stage.rest_world);
        stage
    }

    /// Show option `k` of the scene's choice (its layers, its clip) with LOD `lod` on show;
    /// false when there is none.
    pub fn choose(&mut self, k: usize, lod: usize) -> bool {
        let Some(choice) = &self.scene.choice else {
            return false;
        };
        if k >= choice.options.len() {
            return false;
        }
        let all: Vec<u32> = choice
            .options
            .iter()
            .flat_map(|o| o.layers.iter().copied())
            .collect();
        let hidden = self.scene.choose(k);
        // The person's own hidden layers stay; the choice's are the option's.
        let mut layers: Vec<u32> = self
            .hidden_layers
            .iter()
            .copied()
            .filter(|l| !all.contains(l))
            .collect();
        layers.extend(hidden);
        self.choice = Some(k);
        // Clips that play changed: what is animated is planned again.
        self.lods.iter_mut().for_each(|l| *l = None);
        self.set_hidden_layers(layers);
        self.rest_world = self.scene.rest_world();
        self.bounds = self
            .scene
            .bounds_placed(lod, &self.hidden_layers, &self.rest_world)
            .or(self.bounds);
        true
    }

    /// Draw the vertex colours the view's lighting asks for: another set is uploaded again.
    pub fn set_colours(&mut self, options: &ViewOptions) {
        let colours = options.lighting.colours(self.game_lit);
        if colours != self.colours {
            self.colours = colours;
            self.lods.iter_mut().for_each(|l| *l = None);
        }
    }

    /// Draw each damage zone in its own colour (`on`), or the scene's own colours. A scene
    /// without zones keeps its own: the mode is the zoned files' (docs/using.md, "Parts").
    pub fn set_zone_colours(&mut self, on: bool) {
        let on = on && !self.scene.zones.is_empty();
        if on != self.zone_colours.is_some() {
            self.zone_colours =
                on.then(|| crate::webgl::view::parts::mesh_zone_colours(&self.scene));
            self.lods.iter_mut().for_each(|l| *l = None);
        }
    }

    /// Let the scene's blinks play, or stop them.
    pub fn set_blinking(&mut self, on: bool) {
        if self.scene.ff7.blinks_stopped == on {
            self.scene.set_blinking(on);
        }
    }

    /// Hide the scene's layers in `hidden` (indices into its layer list), show the rest.
    pub fn set_hidden_layers(&mut self, mut hidden: Vec<u32>) {
        hidden.sort_unstable();
        hidden.dedup();
        if hidden != self.hidden_layers {
            self.hidden_layers = hidden;
            // What is drawn changes: plan and upload again (on the next frame).
            self.lods.iter_mut().for_each(|l| *l = None);
            self.highlight = None;
        }
    }

    pub fn lod_count(&self) -> usize {
        self.scene.lod_count()
    }

    /// The LOD the options select with the eye at `eye`.
    pub fn current_lod(&self, options: &ViewOptions, eye: Vec3) -> usize {
        let count = self.lod_count();
        if !options.auto_lod {
            return options.lod.min(count - 1);
        }
        let Some(b) = self.bounds else { return 0 };
        let c = b.center();
        let d = (eye - vec3(c.x, c.y, c.z)).magnitude();
        let within = |l: &crate::webgl::scene::LodLevel| {
            l.distance.is_some_and(|[near, far]| d >= near && d < far)
        };
        let beyond =
            |l: &crate::webgl::scene::LodLevel| l.distance.is_some_and(|[near, _]| d >= near);
        self.scene
            .lods
            .iter()
            .position(within)
            .or_else(|| self.scene.lods.iter().rposition(beyond))
            .unwrap_or(0)
    }

    /// World matrices at the animation clock (a still scene's are its rest pose's).
    pub fn world(&self, seconds: f64) -> std::borrow::Cow<'_, [glam::Mat4]> {
        if self.animating() {
            std::borrow::Cow::Owned(self.scene.world(&self.scene.pose(seconds)))
        } else {
            std::borrow::Cow::Borrowed(&self.rest_world)
        }
    }

    /// Batches of LOD `lod` uploaded, and in all.
    pub fn upload_progress(&self, lod: Option<usize>) -> (usize, usize) {
        lod.and_then(|i| self.lods.get(i))
            .and_then(Option::as_ref)
            .map_or((0, 0), |l| (l.uploaded, l.batches()))
    }

    fn shown(&self) -> Option<&GpuLod> {
        self.shown_lod
            .and_then(|i| self.lods.get(i))
            .and_then(Option::as_ref)
    }

    /// Triangles of the LOD drawn in the last frame, every instance counted.
    pub fn triangles(&self) -> usize {
        self.shown().map_or(0, |l| l.triangles)
    }

    /// Mesh placements drawn in the last frame.
    pub fn instances(&self) -> usize {
        self.shown().map_or(0, |l| l.instances)
    }

    pub fn animating(&self) -> bool {
        self.scene.clips.iter().any(|c| !c.tracks.is_empty())
    }

    /// Plan LOD `lod` if it has not been yet: its markers now, its batches as frames allow.
    fn ensure_lod(&mut self, context: &Context, lod: usize) {
        if self.lods.get(lod).is_none_or(Option::is_some) {
            return;
        }
        let scene = &self.scene;
        let plan = scene.draw_plan_in(lod, &self.hidden_layers);
        let world = &self.rest_world;
        let visible = scene.visible_in(lod, &self.hidden_layers);
        let size = self.bounds.map_or(0.05, |b| b.radius() * 0.015);
        let markers = marker_meshes(context, scene, world, &visible, size);
        let triangles = scene
            .nodes
            .iter()
            .zip(&visible)
            .filter(|(_, &v)| v)
            .filter_map(|(n, _)| n.mesh)
            .map(|m| scene.meshes[m as usize].triangle_count())
            .sum();
        let instances = scene
            .nodes
            .iter()
            .zip(&visible)
            .filter(|(n, &v)| v && n.mesh.is_some())
            .count();
        let lines = plan
            .lines
            .iter()
            .filter_map(|&item| self.line_draw(context, item))
            .collect();
        self.lods[lod] = Some(GpuLod {
            plan,
            merged: Vec::new(),
            instanced: Vec::new(),
            uploaded: 0,
            markers,
            wire: None,
            lines,
            triangles,
            instances,
        });
    }

    /// A primitive drawn as lines (`item`: its node, mesh and index), as a wireframe in its
    /// colour (its zone's, when zones have their own); None for one of fewer than 3 corners.
    fn line_draw(&self, context: &Context, (n, m, k): (u32, u32, u32)) -> Option<Wireframe> {
        let prim = &self.scene.meshes[m as usize].primitives[k as usize];
        let corners: Vec<Vec3> = prim
            .indices
            .iter()
            .filter_map(|&i| prim.positions.get(i as usize))
            .map(|p| {
                Vec3::from(
                    self.rest_world[n as usize]
                        .transform_point3(GVec3::from(*p))
                        .to_array(),
                )
            })
            .collect();
        let colour = self
            .zone_colours
            .as_ref()
            .and_then(|z| z.get(m as usize).copied())
            .unwrap_or_else(|| self.scene.shading(prim).base_color);
        let [r, g, b, _] = colour.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        (corners.len() >= 3)
            .then(|| Wireframe::new(context, &corners, 1.5, Srgba::new(r, g, b, 255)))
    }

    /// Upload batches of LOD `lod` until `budget` vertices have gone up (one batch at
    /// least); → how many went up.
    fn upload_some(&mut self, context: &Context, lod: usize, budget: usize) -> usize {
        let (scene, world, Some(Some(l))) = (&self.scene, &self.rest_world, self.lods.get_mut(lod))
        else {
            return 0;
        };
        if l.uploaded >= l.batches() {
            return 0;
        }
        let inputs = UploadInputs {
            context,
            scene,
            world,
            textures: &self.textures,
            zone_colours: self.zone_colours.as_deref(),
            colours: self.colours,
            animated: scene.animated_nodes(),
            animated_materials: scene.animated_materials(),
        };
        let mut sent = 0usize;
        while l.uploaded < l.batches() && (sent == 0 || sent < budget) {
            let k = l.uploaded;
            l.uploaded += 1;
            let made = match l.plan.merged.get(k) {
                Some(batch) => {
                    sent += batch
                        .items
                        .iter()
                        .map(|&(_, m, k)| {
                            scene.meshes[m as usize].primitives[k as usize]
                                .positions
                                .len()
                        })
                        .sum::<usize>();
                    inputs.merged(batch).map(|d| {
                        d.map(|(draw, bytes)| {
                            l.merged.push(draw);
                            bytes
                        })
                    })
                }
                None => {
                    let batch = &l.plan.instanced[k - l.plan.merged.len()];
                    sent += inputs
                        .primitive(batch.mesh, batch.primitive)
                        .positions
                        .len();
                    inputs.instanced(batch).map(|d| {
                        d.map(|(draw, bytes)| {
                            l.instanced.push(draw);
                            bytes
                        })
                    })
                }
            };
            match made {
                Ok(Some(bytes)) => self.upload_bytes += bytes,
                Ok(None) => {}
                Err(e) => {
                    self.gpu_error.get_or_insert(e);
                }
            }
        }
        sent
    }

    /// Plan LOD `lod` and upload up to `budget` vertices of it (the time it took counts);
    /// → how many vertices went up.
    pub fn prepare(
        &mut self,
        context: &Context,
        lod: usize,
        budget: usize,
        clock: fn() -> f64,
    ) -> usize {
        self.shown_lod = Some(lod);
        self.ensure_lod(context, lod);
        let (t0, before) = (clock(), self.upload_bytes);
        let sent = self.upload_some(context, lod, budget);
        if self.upload_bytes != before {
            self.upload_ms += clock() - t0;
        }
        sent
    }

    /// Whether LOD `lod` still has batches to upload.
    pub fn uploading(&self, lod: Option<usize>) -> bool {
        let (done, total) = self.upload_progress(lod);
        done < total
    }

    /// What the ray from `origin` along `dir` hits first among the nodes shown at `lod`.
    pub fn pick(&self, origin: GVec3, dir: GVec3, lod: usize, seconds: f64) -> Option<Hit> {
        let scene = &self.scene;
        let world = self.world(seconds);
        let hit = scene.pick(origin, dir, lod, &self.hidden_layers, &world)?;
        let prim = &scene.meshes[hit.mesh as usize].primitives[hit.primitive as usize];
        let corner = |k: usize| {
            let v = prim
                .indices
                .get(hit.triangle as usize * 3 + k)
                .and_then(|&i| prim.positions.get(i as usize))
                .copied()
                .unwrap_or_default();
            world[hit.node as usize]
                .transform_point3(GVec3::from(v))
                .to_array()
        };
        let mut layer = None;
        let mut at = Some(hit.node);
        while let (None, Some(i)) = (layer, at) {
            layer = scene.nodes[i as usize].layer;
            at = scene.nodes[i as usize].parent.filter(|&p| p < i);
        }
        // A node copied from another file (a model placed in a world) has no record of its
        // own: the placement above it stands for it.
        Some(Hit {
            primitive: prim.record,
            node: scene.record_of(hit.node),
            source: source_of(&prim.sources, hit.triangle).copied(),
            triangle: hit.triangle,
            distance: hit.distance,
            layer,
            corners: [corner(0), corner(1), corner(2)],
        })
    }

    /// Outline `target` in LOD `lod` (None clears); → how many triangles are outlined.
    pub fn set_highlight(
        &mut self,
        context: &Context,
        target: Option<HighlightTarget>,
        lod: Option<usize>,
        seconds: f64,
    ) -> usize {
        self.highlight = None;
        self.highlight_bounds = None;
        self.highlight_count = 0;
        self.highlight_target = target.map(|t| HighlightTarget { lod, ..t });
        let (Some(t), Some(lod)) = (target, lod) else {
            return 0;
        };
        let world = self.world(seconds);
        let corners = match t.zone {
            Some(zone) => self.scene.triangles_of_zone(zone, lod, &world),
            None => t.record.map_or(Vec::new(), |r| {
                self.scene.triangles_of_record(r, t.face, lod, &world)
            }),
        };
        self.highlight_bounds = Bounds::of(corners.iter().copied());
        let positions: Vec<Vec3> = corners.iter().map(|&p| Vec3::from(p)).collect();
        let triangles = positions.len() / 3;
        self.highlight_count = triangles;
        if triangles > 0 {
            self.highlight = Some(Wireframe::new(context, &positions, 2.0, HIGHLIGHT_COLOR));
        }
        triangles
    }

    /// Triangles outlined now (0: none, or the outlined record is not in the LOD on show).
    pub fn highlighted_triangles(&self) -> usize {
        if self.highlight.is_some() {
            self.highlight_count
        } else {
            0
        }
    }

    /// The bones of the scene's skeleton as posed at `seconds`, the bone of the outlined
    /// part in the highlight colour.
    fn skeleton_overlay(
        &self,
        context: &Context,
        seconds: f64,
        lod: usize,
        radius: f32,
    ) -> Option<Gm<GpuMesh, ColorMaterial>> {
        let scene = &self.scene;
        if scene.skeleton.is_empty() {
            return None;
        }
        let world = scene.world(&scene.pose(seconds));
        let visible = scene.visible_in(lod, &self.hidden_layers);
        let at = |n: u32| {
            world
                .get(n as usize)
                .map_or(GVec3::NAN, |m| m.transform_point3(GVec3::ZERO))
        };
        let shown: Vec<(u32, u32)> = scene
            .skeleton
            .iter()
            .copied()
            .filter(|&(_, b)| visible.get(b as usize).copied().unwrap_or(false))
            .collect();
        let mut bones: Vec<skeleton::Bone> = shown
            .iter()
            .map(|&(a, b)| skeleton::Bone {
                from: at(a),
                to: at(b),
                picked: false,
            })
            .collect();
        if let (Some(record), Some(centre)) = (
            self.highlight_target.and_then(|t| t.record),
            self.highlight_bounds.map(|b| b.center()),
        ) {
            let picked = skeleton::picked_bone(
                &shown,
                &scene.nodes_drawing_record(record),
                |n| scene.nodes.get(n as usize).and_then(|n| n.parent),
                &bones,
                centre,
            );
            if let Some(k) = picked {
                bones[k].picked = true;
            }
        }
        let mesh = skeleton::overlay(&bones, radius);
        if mesh.positions.is_empty() {
            return None;
        }
        let cpu = CpuMesh {
            positions: Positions::F32(mesh.positions.iter().map(|p| vec3(p.x, p.y, p.z)).collect()),
            colors: Some(
                mesh.colors
                    .iter()
                    .map(|&[r, g, b, a]| Srgba::new(r, g, b, a))
                    .collect(),
            ),
            ..Default::default()
        };
        Some(Gm::new(
            GpuMesh::new(context, &cpu),
            ColorMaterial::default(),
        ))
    }

    /// Draw LOD `lod` as `frame` says into `target` (its outline and, when asked and not a
    /// ghost, its skeleton over it); → the draw calls made.
    pub fn draw(
        &mut self,
        context: &Context,
        target: &RenderTarget,
        camera: &Camera,
        frame: &StageFrame,
        options: &ViewOptions,
    ) -> u32 {
        let (lod, radius) = (frame.lod, frame.radius);
        // The outline follows the LOD on show: made again for it (empty when the outlined
        // record is in another LOD).
        if let Some(t) = self.highlight_target.filter(|t| t.lod != Some(lod)) {
            self.set_highlight(context, Some(t), Some(lod), frame.seconds);
        }
        let animating = self.animating();
        let (scene, Some(Some(l))) = (&self.scene, self.lods.get_mut(lod)) else {
            return 0;
        };
        let world = if animating {
            scene.world(&scene.pose(frame.seconds))
        } else {
            Vec::new()
        };
        l.update(scene, frame, &world);
        if options.wireframe && l.wire.is_none() {
            let world = if world.is_empty() {
                scene.world(&scene.pose(frame.seconds))
            } else {
                world
            };
            let positions = wire_positions(scene, lod, &self.hidden_layers, &world);
            l.wire = Some(Wireframe::new(context, &positions, 1.0, WIRE_COLOR));
        }
        let mut calls = l.render(target, camera, frame, options);
        let scissor = frame.scissor;
        if let Some(h) = &self.highlight {
            target.render_partially(scissor, camera, [h], &[]);
            calls += 1;
        }
        if options.skeleton && !frame.ghost {
            if let Some(bones) = self.skeleton_overlay(context, frame.seconds, lod, radius) {
                // Over everything: the bones run inside the model.
                target.clear_partially(scissor, three_d::ClearState::depth(1.0));
                target.render_partially(scissor, camera, [&bones], &[]);
                calls += 1;
            }
        }
        calls
    }
}

impl GpuLod {
    /// Its materials as `frame` has them (cull, light, glow at the clock, ghost, texture
    /// scrolls), and its animated instances placed where `world` (the nodes' transforms at
    /// the clock; empty when nothing moves) puts them.
    fn update(&mut self, scene: &Scene, frame: &StageFrame, world: &[glam::Mat4]) {
        let offsets = scene.uv_offsets(frame.seconds);
        let glows = scene.glows(frame.seconds);
        let uv = |m: Option<u32>| {
            m.and_then(|m| offsets.get(m as usize))
                .map(|&[u, v]| Mat3::from_translation(vec2(u, v)))
        };
        let glow = |m: Option<u32>| {
            m.and_then(|m| glows.get(m as usize))
                .copied()
                .unwrap_or(0.0)
        };
        let update = |m: &mut RetroMaterial, animated: Option<u32>| {
            m.cull = frame.cull;
            m.light = frame.light;
            m.ambient = frame.ambient;
            m.glow = glow(animated);
            m.ghost = frame.ghost;
            if let (Some(t), Some(tex)) = (uv(animated), m.texture.as_mut()) {
                tex.transformation = t;
            }
        };
        for d in &mut self.merged {
            update(&mut d.gm.material, d.animated_material);
            if let Some(m) = d.semi.as_mut() {
                update(m, d.animated_material);
            }
        }
        for d in &mut self.instanced {
            update(&mut d.gm.material, d.animated_material);
            if let Some(m) = d.semi.as_mut() {
                update(m, d.animated_material);
            }
            if d.animated && !world.is_empty() {
                let transformations: Vec<Mat4> = d
                    .nodes
                    .iter()
                    .map(|&n| to_mat4(world[n as usize]))
                    .collect();
                d.gm.geometry.set_instances(&transformations);
            }
        }
    }

    /// Its passes into `target`: the opaque draws and the lines, then (not for a ghost) the
    /// semi-transparent texels, the additive surfaces and the wireframe over them, then the
    /// markers; → the draw calls made.
    fn render(
        &self,
        target: &RenderTarget,
        camera: &Camera,
        frame: &StageFrame,
        options: &ViewOptions,
    ) -> u32 {
        let scissor = frame.scissor;
        let mut calls = 0;
        // Additive surfaces go over everything opaque (a ghost draws them as a ghost).
        let later =
            |gm: &Gm<SceneGeometry, RetroMaterial>| gm.material.pass.after_opaque() && !frame.ghost;
        let all = || {
            self.merged
                .iter()
                .map(|d| &d.gm)
                .chain(self.instanced.iter().map(|d| &d.gm))
        };
        for gm in all().filter(|gm| !later(gm)) {
            target.render_partially(scissor, camera, [gm], &[]);
            calls += 1;
        }
        for lines in &self.lines {
            target.render_partially(scissor, camera, [lines], &[]);
            calls += 1;
        }
        if !frame.ghost {
            // Semi-transparent texels and additive surfaces over everything opaque.
            let semis = self
                .merged
                .iter()
                .filter_map(|d| Some((d.semi.as_ref()?, &d.gm.geometry as &dyn Geometry)))
                .chain(
                    self.instanced
                        .iter()
                        .filter_map(|d| Some((d.semi.as_ref()?, &d.gm.geometry as &dyn Geometry))),
                );
            let additive = all()
                .filter(|gm| later(gm))
                .map(|gm| (&gm.material, &gm.geometry as &dyn Geometry));
            for (semi, geometry) in semis.chain(additive) {
                target.render_partially_with_material(scissor, semi, camera, [geometry], &[]);
                calls += 1;
            }
            if let (true, Some(wire)) = (options.wireframe, &self.wire) {
                target.render_partially(scissor, camera, [wire], &[]);
                calls += 1;
            }
        }
        if let Some(m) = &self.markers {
            target.render_partially(scissor, camera, [m], &[]);
            calls += 1;
        }
        calls
    }
}

/// The triangles of LOD `lod` shown (its layers not `hidden`), each corner placed by `world`,
/// for its wireframe.
fn wire_positions(scene: &Scene, lod: usize, hidden: &[u32], world: &[glam::Mat4]) -> Vec<Vec3> {
    let visible = scene.visible_in(lod, hidden);
    let mut positions: Vec<Vec3> = Vec::new();
    for (n, node) in scene.nodes.iter().enumerate().filter(|(n, _)| visible[*n]) {
        for p in node
            .mesh
            .iter()
            .flat_map(|&m| &scene.meshes[m as usize].primitives)
        {
            positions.extend(
                p.indices
                    .iter()
                    .filter_map(|&k| p.positions.get(k as usize))
                    .map(|v| Vec3::from(world[n].transform_point3(GVec3::from(*v)).to_array())),
            );
        }
    }
    positions
}

/// How the view's lighting switch lights a scene seen from `camera` (`game_lit`: the scene
/// has the colours the game's lighting gave it): the direction towards the light, and the
/// share of colour a face turned away keeps (1: no light, the colours as they are).
pub(super) fn lighting(options: &ViewOptions, camera: &Camera, game_lit: bool) -> (Vec3, f32) {
    match options.lighting.for_scene(game_lit) {
        Lighting::Sun => (material::LIGHT, 0.2),
        Lighting::Camera => (camera.position() - camera.target(), 0.3),
        Lighting::Game | Lighting::Stored => (material::LIGHT, 1.0),
    }
}

/// The material a primitive is drawn with and, for a semi-transparent one, the material of
/// its second (blending) pass.
pub(super) fn retro_materials(
    material: Option<&crate::webgl::scene::Material>,
    texture: Option<Texture2DRef>,
    varyings: Varyings,
) -> (RetroMaterial, Option<RetroMaterial>) {
    let cutoff = material.and_then(|m| m.alpha_cutoff).unwrap_or(0.0);
    let blend = material.and_then(|m| m.blend).filter(|_| texture.is_some());
    let make = |pass| RetroMaterial {
        texture: texture.clone(),
        varyings,
        cull: Cull::None,
        glow: 0.0,
        alpha_cutoff: cutoff,
        pass,
        light: material::LIGHT,
        ambient: 0.2,
        ghost: false,
    };
    if material.is_some_and(|m| m.surface == crate::webgl::scene::Surface::Additive) {
        return (make(Pass::Additive), None);
    }
    match blend {
        Some(rule) => (make(Pass::OpaqueTexels), Some(make(Pass::SemiTexels(rule)))),
        None => (make(Pass::All), None),
    }
}

/// Upload texels as sRGB-decoded RGBA: three-d samples textures as linear and encodes the
/// output as sRGB, so the file's colours come out as they are stored.
pub(super) fn upload_texture(context: &Context, t: &crate::webgl::scene::Texture) -> Texture2DRef {
    let blank = crate::webgl::texture::Texels {
        width: 1,
        height: 1,
        rgba: Arc::new(vec![255; 4]),
    };
    let fits = |x: &crate::webgl::texture::Texels| {
        x.width > 0
            && x.height > 0
            && x.width <= MAX_TEXTURE_SIDE
            && x.height <= MAX_TEXTURE_SIDE
            && x.rgba.len() == x.width as usize * x.height as usize * 4
    };
    // A picture the GPU cannot take is drawn white (times the material's colour), not failed.
    let texels = if fits(&t.texels) { &t.texels } else { &blank };
    let data = TextureData::RgbaU8(crate::webgl::texture::linear_texel_bytes(&texels.rgba));
    let cpu = CpuTexture {
        name: String::new(),
        data,
        width: texels.width,
        height: texels.height,
        // Old games' texels are big on screen: keep them crisp. Emulated console VRAM is
        // sampled texel by texel far away too (its cut-out texels would smear in mipmaps).
        min_filter: if t.nearest {
            Interpolation::Nearest
        } else {
            Interpolation::Linear
        },
        mag_filter: Interpolation::Nearest,
        mipmap: (!t.nearest).then(Mipmap::default),
        wrap_s: Wrapping::Repeat,
        wrap_t: Wrapping::Repeat,
    };
    Texture2DRef::from_cpu_texture(context, &cpu)
}

/// A small octahedron at every light point, sized by its radius (or `size` when smaller).
pub(super) fn point_markers(points: &[([f32; 3], f32)], size: f32) -> CpuMesh {
    let mut positions = Vec::with_capacity(points.len() * 24);
    let mut colors = Vec::with_capacity(points.len() * 24);
    let dirs = [
        vec3(1.0, 0.0, 0.0),
        vec3(0.0, 0.0, 1.0),
        vec3(-1.0, 0.0, 0.0),
        vec3(0.0, 0.0, -1.0),
    ];
    let [r, g, b, a] = POINT_COLOR;
    for &(p, radius) in points {
        let c = vec3(p[0], p[1], p[2]);
        let s = radius.max(size);
        for k in 0..4 {
            let (d0, d1) = (dirs[k] * s, dirs[(k + 1) % 4] * s);
            for pole in [vec3(0.0, s, 0.0), vec3(0.0, -s, 0.0)] {
                positions.extend([c + d0, c + d1, c + pole]);
                colors.extend([Srgba::new(r, g, b, a); 3]);
            }
        }
    }
    CpuMesh {
        positions: Positions::F32(positions),
        colors: Some(colors),
        ..Default::default()
    }
}

/// A red pyramid at every dropzone, its apex along the dropzone's +Z.
fn add_pyramids(cpu: &mut CpuMesh, at: &[glam::Mat4], size: f32) {
    let Positions::F32(positions) = &mut cpu.positions else {
        return;
    };
    let colors = cpu.colors.get_or_insert_with(Vec::new);
    let [r, g, b, a] = DROPZONE_COLOR;
    let (s, h) = (size, size * 2.0);
    let base = [
        GVec3::new(-s, -s, 0.0),
        GVec3::new(s, -s, 0.0),
        GVec3::new(s, s, 0.0),
        GVec3::new(-s, s, 0.0),
    ]
    .map(|v| v + GVec3::Y * s);
    let apex = GVec3::new(0.0, s, h);
    for m in at {
        let p = |v: GVec3| {
            let w = m.transform_point3(v);
            vec3(w.x, w.y, w.z)
        };
        for k in 0..4 {
            positions.extend([p(base[k]), p(base[(k + 1) % 4]), p(apex)]);
        }
        positions.extend([
            p(base[0]),
            p(base[2]),
            p(base[1]),
            p(base[0]),
            p(base[3]),
            p(base[2]),
        ]);
        colors.extend(std::iter::repeat_n(Srgba::new(r, g, b, a), 18));
    }
}

/// One draw's GPU buffers: the primitives placed by their world matrices, tinted by their
/// materials' base colours (see `SceneGeometry::new`).
fn batch_geometry(
    context: &Context,
    scene: &Scene,
    items: &[(
        &crate::webgl::scene::Primitive,
        glam::Mat4,
        Option<[f32; 4]>,
    )],
    textured: bool,
    colours: ColourSet,
) -> Result<Option<SceneGeometry>, String> {
    let tint_of =
        |p: &crate::webgl::scene::Primitive| scene.shading(p).base_color.map(|c| c.clamp(0.0, 1.0));
    let parts: Vec<VertexArrays> = items
        .iter()
        .map(|&(p, model, colour)| VertexArrays {
            positions: &p.positions,
            normals: p.normals.as_deref(),
            // A colour of its own (its damage zone's) stands for the vertex colours.
            colors: if colour.is_some() {
                None
            } else {
                p.colours(colours)
            },
            // Textured batches hold only primitives with a UV per vertex (`Scene::texture_of`).
            uvs: if textured { p.uvs.as_deref() } else { None },
            indices: &p.indices,
            model,
            tint: colour.unwrap_or_else(|| tint_of(p)),
        })
        .collect();
    SceneGeometry::new(context, &parts)
}

/// The markers of the nodes `visible` shows (lights as points, dropzones as pyramids), `size`
/// across, at their places in the rest pose `world`; None where there are none.
fn marker_meshes(
    context: &Context,
    scene: &Scene,
    world: &[glam::Mat4],
    visible: &[bool],
    size: f32,
) -> Option<Gm<GpuMesh, ColorMaterial>> {
    let mut points: Vec<([f32; 3], f32)> = Vec::new();
    let mut dropzones: Vec<glam::Mat4> = Vec::new();
    for (i, n) in scene.nodes.iter().enumerate().filter(|(i, _)| visible[*i]) {
        match n.marker {
            Some(Marker::Light { radius }) => {
                points.push((world[i].transform_point3(GVec3::ZERO).to_array(), radius))
            }
            Some(Marker::Dropzone) => dropzones.push(world[i]),
            None => {}
        }
    }
    (!points.is_empty() || !dropzones.is_empty()).then(|| {
        let mut cpu = point_markers(&points, size);
        add_pyramids(&mut cpu, &dropzones, (size * 1.5).max(0.3));
        Gm::new(
            GpuMesh::new(context, &cpu),
            ColorMaterial {
                color: Srgba::WHITE,
                ..Default::default()
            },
        )
    })
}

/// What uploading a LOD's batches reads: the scene, its rest pose, its textures, and how it
/// is coloured (each zone in its own colour: no texture, no vertex colours).
struct UploadInputs<'a> {
    context: &'a Context,
    scene: &'a Scene,
    world: &'a [glam::Mat4],
    textures: &'a [Texture2DRef],
    zone_colours: Option<&'a [[f32; 4]]>,
    colours: ColourSet,
    /// The nodes and materials clips animate.
    animated: Vec<bool>,
    animated_materials: Vec<u32>,
}

impl UploadInputs<'_> {
    fn primitive(&self, mesh: u32, k: u32) -> &crate::webgl::scene::Primitive {
        &self.scene.meshes[mesh as usize].primitives[k as usize]
    }

    /// Mesh `m`'s zone colour, when zones are drawn in their own.
    fn tint_of(&self, m: u32) -> Option<[f32; 4]> {
        self.zone_colours.and_then(|z| z.get(m as usize).copied())
    }

    /// Scene texture `t`, unless zones are drawn in their own colours.
    fn texture(&self, t: Option<u32>) -> Option<Texture2DRef> {
        t.filter(|_| self.zone_colours.is_none())
            .and_then(|t| self.textures.get(t as usize).cloned())
    }

    /// A merged batch baked into world space and uploaded. → the draw and its bytes; None
    /// for a batch with nothing to draw.
    fn merged(&self, batch: &MergedBatch) -> Result<Option<(MergedDraw, usize)>, String> {
        let items: Vec<_> = batch
            .items
            .iter()
            .map(|&(n, m, k)| {
                (
                    self.primitive(m, k),
                    self.world[n as usize],
                    self.tint_of(m),
                )
            })
            .collect();
        let texture = self.texture(batch.texture);
        let Some(geometry) = batch_geometry(
            self.context,
            self.scene,
            &items,
            texture.is_some(),
            self.colours,
        )?
        else {
            return Ok(None);
        };
        let bytes = geometry.bytes();
        let material = batch
            .items
            .first()
            .and_then(|&(_, m, k)| self.primitive(m, k).material)
            .and_then(|m| self.scene.materials.get(m as usize));
        let (material, semi) = retro_materials(material, texture, geometry.varyings());
        Ok(Some((
            MergedDraw {
                gm: Gm::new(geometry, material),
                semi,
                animated_material: batch.animated_material,
            },
            bytes,
        )))
    }

    /// An instanced batch's primitive uploaded once, with an instance at each of its nodes.
    /// → the draw and its bytes; None for a primitive with nothing to draw.
    fn instanced(&self, batch: &InstancedBatch) -> Result<Option<(InstancedDraw, usize)>, String> {
        let prim = self.primitive(batch.mesh, batch.primitive);
        // The shader samples a texture exactly when the geometry has UVs for it: both follow
        // the scene's one decision (`Scene::texture_of`).
        let texture = self.texture(self.scene.texture_of(prim));
        let Some(mut geometry) = batch_geometry(
            self.context,
            self.scene,
            &[(prim, glam::Mat4::IDENTITY, self.tint_of(batch.mesh))],
            texture.is_some(),
            self.colours,
        )?
        else {
            return Ok(None);
        };
        let bytes = geometry.bytes();
        geometry.set_instances(
            &batch
                .nodes
                .iter()
                .map(|&n| to_mat4(self.world[n as usize]))
                .collect::<Vec<_>>(),
        );
        let (material, semi) = retro_materials(
            prim.material
                .and_then(|m| self.scene.materials.get(m as usize)),
            texture,
            geometry.varyings(),
        );
        Ok(Some((
            InstancedDraw {
                gm: Gm::new(geometry, material),
                semi,
                animated: batch.nodes.iter().any(|&n| self.animated[n as usize]),
                nodes: batch.nodes.clone(),
                animated_material: prim
                    .material
                    .filter(|m| self.animated_materials.contains(m)),
            },
            bytes,
        )))
    }
}
