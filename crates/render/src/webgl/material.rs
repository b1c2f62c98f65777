//! The material every model is drawn with: vertex colour × texture (with its UV drift),
//! lit by one fixed light from both sides (winding is unconfirmed in these files), with
//! flat facets computed in the fragment shader where the file has no normals. Each shader
//! variant reads only what its geometry passes (`Varyings`) and tests texels only when a
//! texel can be dropped: a `discard` anywhere in the shader stops a software rasteriser from
//! testing depth before shading. Colours go
//! through three-d's sRGB output mapping and no tone mapping, so texels and material
//! colours come out as the file stores them.

use crate::packing::{Normals, Varyings};
use three_d::{
    Blend, BlendEquationType, BlendMultiplierType, ColorMapping, Cull, DepthTest, EffectMaterialId,
    Light, Material, MaterialType, Program, RenderStates, Texture2DRef, Vec3, Viewer, WriteMask,
};

pub struct RetroMaterial {
    pub texture: Option<Texture2DRef>,
    /// What the geometry drawn with this material passes to shade with.
    pub varyings: Varyings,
    pub cull: Cull,
    /// Light the surface gives off on its own: 0 none, 1 its full colour added.
    pub glow: f32,
    /// Texels with less alpha than this are not drawn (0: all are).
    pub alpha_cutoff: f32,
    pub pass: Pass,
    /// World-space direction towards the light, and the share of the colour a surface has
    /// facing away from it (1: unlit, the colour as stored).
    pub light: Vec3,
    pub ambient: f32,
    /// Drawn as a see-through ghost of itself over what is already drawn (the other file
    /// of a comparison): tinted, blended, tested against the depth but not writing it.
    pub ghost: bool,
}

/// A ghost's tint (linear RGB, mixed half and half with its own colour) and its opacity.
const GHOST_TINT: [f32; 3] = [0.25, 0.75, 1.0];
pub const GHOST_ALPHA: f32 = 0.45;

/// Which texels a draw puts down. A semi-transparent material is drawn twice: its opaque
/// texels with the opaque models, then its semi-transparent ones (alpha below 1) blended
/// by its rule over everything opaque.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Pass {
    All,
    OpaqueTexels,
    SemiTexels(crate::webgl::scene::Blend),
    /// Every fragment added to what is behind, after everything opaque, writing no depth
    /// (a surface the file's words draw additively).
    Additive,
}

impl Pass {
    /// Whether a texel can be dropped in this pass at this alpha cut-off (the shader then
    /// tests each texel's alpha).
    fn drops_texels(self, alpha_cutoff: f32) -> bool {
        matches!(self, Pass::OpaqueTexels | Pass::SemiTexels(_)) || alpha_cutoff > 0.0
    }

    /// Drawn after everything opaque.
    pub fn after_opaque(self) -> bool {
        matches!(self, Pass::SemiTexels(_) | Pass::Additive)
    }

    /// The shader's `pass` uniform and the factor the texel's colour is scaled by.
    fn uniforms(self) -> (i32, f32) {
        match self {
            Pass::All | Pass::Additive => (0, 1.0),
            Pass::OpaqueTexels => (1, 1.0),
            Pass::SemiTexels(crate::webgl::scene::Blend::AddQuarter) => (2, 0.25),
            Pass::SemiTexels(_) => (2, 1.0),
        }
    }
}

/// World-space direction towards the light (normalised in the shader).
pub const LIGHT: Vec3 = Vec3 {
    x: 0.45,
    y: 0.8,
    z: 0.35,
};

impl Material for RetroMaterial {
    fn id(&self) -> EffectMaterialId {
        // The public id range; one id per shader variant.
        let normals = match self.varyings.normals {
            Normals::None => 0,
            Normals::Every => 1,
            Normals::Some => 2,
        };
        let alpha_test = self.texture.is_some() && self.pass.drops_texels(self.alpha_cutoff);
        EffectMaterialId(
            0x0100
                | self.texture.is_some() as u16
                | normals << 1
                | (self.varyings.vertex_colors as u16) << 3
                | (alpha_test as u16) << 4,
        )
    }

    fn fragment_shader_source(&self, _lights: &[&dyn Light]) -> String {
        let mut shader = String::new();
        if self.texture.is_some() {
            shader.push_str("#define USE_TEXTURE\nin vec2 uvs;\n");
            if self.pass.drops_texels(self.alpha_cutoff) {
                shader.push_str("#define ALPHA_TEST\n");
            }
        }
        if self.varyings.normals != Normals::None {
            shader.push_str("#define USE_NORMALS\nin vec3 nor;\n");
        }
        if self.varyings.normals != Normals::Every {
            shader.push_str("#define USE_POSITIONS\nin vec3 pos;\n");
        }
        if self.varyings.vertex_colors {
            shader.push_str("#define USE_VERTEX_COLORS\nin vec4 col;\n");
        }
        shader.push_str(ColorMapping::fragment_shader_source());
        shader.push_str(
            r#"
uniform vec3 lightDirection;
uniform float ambient;
uniform float glow;
uniform float alphaCutoff;
uniform int texelPass;
uniform float semiScale;
uniform float opaqueOut;
uniform vec4 ghost;
#ifdef USE_TEXTURE
uniform sampler2D tex;
uniform mat3 textureTransformation;
#endif
#ifndef USE_VERTEX_COLORS
uniform vec4 baseColor;
#endif
layout (location = 0) out vec4 outColor;

void main()
{
#if defined(USE_NORMALS) && defined(USE_POSITIONS)
    // Vertex normals where the file has them (a zero normal means none: flat facets).
    // (Derivatives outside the branch: they are only defined in uniform control flow.)
    vec3 dx = dFdx(pos), dy = dFdy(pos);
    vec3 n = dot(nor, nor) > 0.25 ? normalize(nor) : normalize(cross(dx, dy));
#elif defined(USE_NORMALS)
    vec3 n = normalize(nor);
#else
    vec3 n = normalize(cross(dFdx(pos), dFdy(pos)));
#endif
    float light = ambient + (1.0 - ambient) * abs(dot(n, normalize(lightDirection)));
#ifdef USE_VERTEX_COLORS
    vec4 c = col;
#else
    vec4 c = baseColor;
#endif
#ifdef USE_TEXTURE
    vec4 t = texture(tex, (textureTransformation * vec3(uvs, 1.0)).xy);
#ifdef ALPHA_TEST
    if (t.a < alphaCutoff) discard;
    bool semi = t.a < 0.99;
    if ((texelPass == 1 && semi) || (texelPass == 2 && !semi)) discard;
#endif
    c *= t;
#endif
    outColor = vec4(c.rgb * (light + glow), c.a);
    // The console blends in its own (gamma) space: scale after the output mapping.
    outColor.rgb = color_mapping(outColor.rgb) * semiScale;
    // What the opaque passes draw covers the pixel whole (a capture without the background
    // keeps it); the blended ones cover it by their alpha.
    outColor.a = mix(outColor.a, 1.0, opaqueOut);
    if (ghost.a > 0.0) outColor = vec4(mix(outColor.rgb, ghost.rgb, 0.5), ghost.a);
}
"#,
        );
        shader
    }

    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, _lights: &[&dyn Light]) {
        viewer.color_mapping().use_uniforms(program);
        program.use_uniform("lightDirection", self.light);
        program.use_uniform("ambient", self.ambient);
        program.use_uniform("glow", self.glow);
        program.use_uniform_if_required("alphaCutoff", self.alpha_cutoff);
        let (pass, scale) = self.pass.uniforms();
        program.use_uniform_if_required("texelPass", pass);
        program.use_uniform("semiScale", scale);
        let opaque = !self.ghost && !self.pass.after_opaque();
        program.use_uniform_if_required("opaqueOut", if opaque { 1.0f32 } else { 0.0 });
        let [r, g, b] = GHOST_TINT;
        program.use_uniform_if_required(
            "ghost",
            three_d::Vec4::new(r, g, b, if self.ghost { GHOST_ALPHA } else { 0.0 }),
        );
        if let Some(tex) = &self.texture {
            program.use_uniform("textureTransformation", tex.transformation);
            program.use_texture("tex", tex);
        }
    }

    fn render_states(&self) -> RenderStates {
        if self.ghost {
            // Over A where B coincides with it (equal depth passes), hidden where A is nearer.
            return RenderStates {
                cull: self.cull,
                blend: Blend::TRANSPARENCY,
                write_mask: WriteMask::COLOR,
                depth_test: DepthTest::LessOrEqual,
            };
        }
        let rule = match self.pass {
            Pass::SemiTexels(rule) => rule,
            Pass::Additive => crate::webgl::scene::Blend::Add,
            Pass::All | Pass::OpaqueTexels => {
                return RenderStates {
                    cull: self.cull,
                    blend: Blend::Disabled,
                    ..Default::default()
                }
            }
        };
        let (source, equation) = match rule {
            crate::webgl::scene::Blend::Average => {
                (BlendMultiplierType::SrcAlpha, BlendEquationType::Add)
            }
            crate::webgl::scene::Blend::Subtract => {
                (BlendMultiplierType::One, BlendEquationType::ReverseSubtract)
            }
            crate::webgl::scene::Blend::Add | crate::webgl::scene::Blend::AddQuarter => {
                (BlendMultiplierType::One, BlendEquationType::Add)
            }
        };
        let destination = if rule == crate::webgl::scene::Blend::Average {
            BlendMultiplierType::OneMinusSrcAlpha
        } else {
            BlendMultiplierType::One
        };
        // Alpha gathers coverage (what a capture without the background keeps): the texel's
        // over what is there. The canvas itself has no alpha.
        let blend = Blend::Enabled {
            source_rgb_multiplier: source,
            source_alpha_multiplier: BlendMultiplierType::One,
            destination_rgb_multiplier: destination,
            destination_alpha_multiplier: BlendMultiplierType::OneMinusSrcAlpha,
            rgb_equation: equation,
            alpha_equation: BlendEquationType::Add,
        };
        // Tested against the opaque depth, not written: what is behind stays visible.
        RenderStates {
            cull: self.cull,
            blend,
            write_mask: WriteMask::COLOR,
            ..Default::default()
        }
    }

    fn material_type(&self) -> MaterialType {
        if self.ghost || self.pass.after_opaque() {
            MaterialType::Transparent
        } else {
            MaterialType::Opaque
        }
    }
}
