//! Looking through a camera the file sets up (an FF7 field's): the numbers are
//! `view::game_view`'s; this puts them to three-d, and draws the picture the game shows
//! behind the scene on the frame.

use crate::webgl::scene::{GameCamera, Scene};
use crate::webgl::view::game_view;
use three_d::{vec3, ColorMaterial, Context, CpuMesh, Gm, Mesh as GpuMesh, Positions, Vec2, Vec3};

/// The eye, a point ahead of it, and up.
pub fn view(c: &GameCamera) -> (Vec3, Vec3, Vec3) {
    let (eye, target, up) = game_view::look(c);
    (Vec3::from(eye), Vec3::from(target), Vec3::from(up))
}

/// The first camera of the scene that has one.
pub fn of(scene: &Scene) -> Option<&GameCamera> {
    scene.ff7.cameras.first()
}

/// The frame as a rectangle of the flat camera two units high and `aspect` · 2 wide that
/// the backgrounds are drawn with: left, bottom, right, top.
pub fn frame_on_screen(c: &GameCamera, aspect: f32) -> [f32; 4] {
    let [l, b, r, t] = game_view::frame_on_view(c, aspect);
    [l * aspect, b, r * aspect, t]
}

/// The picture behind the scene as a texture: linear colours in half floats, so that the
/// darks a PlayStation picture is full of come back out to the byte (eight bits of linear
/// colour would merge them; a half float's 11 bits keep the console's 32 levels apart), at
/// half the upload of full floats.
pub fn backdrop_texture(
    context: &Context,
    texels: &crate::webgl::texture::Texels,
) -> three_d::Texture2DRef {
    let lut: Vec<three_d::f16> = (0..256)
        .map(|c| three_d::f16::from_f32(crate::webgl::texture::srgb_to_linear(c as f32 / 255.0)))
        .collect();
    let data = texels
        .rgba
        .chunks_exact(4)
        .map(|p| {
            [
                lut[p[0] as usize],
                lut[p[1] as usize],
                lut[p[2] as usize],
                three_d::f16::from_f32(p[3] as f32 / 255.0),
            ]
        })
        .collect();
    let cpu = three_d::CpuTexture {
        name: String::new(),
        data: three_d::TextureData::RgbaF16(data),
        width: texels.width.max(1),
        height: texels.height.max(1),
        min_filter: three_d::Interpolation::Nearest,
        mag_filter: three_d::Interpolation::Nearest,
        mipmap: None,
        wrap_s: three_d::Wrapping::ClampToEdge,
        wrap_t: three_d::Wrapping::ClampToEdge,
    };
    three_d::Texture2DRef::from_cpu_texture(context, &cpu)
}

/// The picture behind the scene as a square the flat camera draws over `rect`: its first row
/// at the top. `layered`: one of several drawn over each other, each where its texels are
/// not transparent, in the order drawn (no depth test: they lie in one plane).
pub fn backdrop(
    context: &Context,
    texture: three_d::Texture2DRef,
    rect: [f32; 4],
    layered: bool,
) -> Gm<GpuMesh, ColorMaterial> {
    let [l, b, r, t] = rect;
    let mesh = CpuMesh {
        positions: Positions::F32(vec![
            vec3(l, t, 0.0),
            vec3(r, t, 0.0),
            vec3(r, b, 0.0),
            vec3(l, b, 0.0),
        ]),
        indices: three_d::Indices::U32(vec![0, 2, 1, 0, 3, 2]),
        uvs: Some(vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        ]),
        ..Default::default()
    };
    let material = if layered {
        ColorMaterial {
            texture: Some(texture),
            render_states: three_d::RenderStates {
                write_mask: three_d::WriteMask::COLOR,
                depth_test: three_d::DepthTest::Always,
                blend: three_d::Blend::TRANSPARENCY,
                cull: three_d::Cull::None,
            },
            is_transparent: true,
            ..Default::default()
        }
    } else {
        ColorMaterial {
            texture: Some(texture),
            ..Default::default()
        }
    };
    Gm::new(GpuMesh::new(context, &mesh), material)
}

/// How far inside its texels a card's texture coordinates start, in texels.
const INSET: f32 = 1.0 / 64.0;

/// The flat camera the backgrounds are drawn with: its eye one unit before the plane z = 0,
/// seeing from `FLAT_NEAR` to `FLAT_FAR` ahead.
pub const FLAT_NEAR: f32 = 0.1;
pub const FLAT_FAR: f32 = 10.0;

/// The flat camera of a view `w` × `h`: two units high, `w / h` · 2 wide, looking at the plane
/// z = 0 (the checker, the picture behind a game camera and its cards are drawn with it).
pub fn flat_camera(w: u32, h: u32) -> three_d::Camera {
    three_d::Camera::new_orthographic(
        three_d::Viewport::new_at_origo(w, h),
        vec3(0.0, 0.0, 1.0),
        vec3(0.0, 0.0, 0.0),
        vec3(0.0, 1.0, 0.0),
        2.0,
        FLAT_NEAR,
        FLAT_FAR,
    )
}

/// The picture's pieces at depths among the models, as one mesh for the flat camera, far to
/// near in the camera's order (the GPU keeps a draw's order): each square exactly on its
/// rectangle of the frame, as the picture behind is, with the depth the perspective camera
/// (`near`, `far`) gives a point `depth` ahead of it, so that the depth test against the
/// models drawn works. Drawn after the scene without writing depth: a piece hides what is
/// farther and nothing nearer, and the pieces lie over each other in the game's order. The
/// pieces on a layer in `hidden` are left out.
pub fn cards(
    context: &Context,
    c: &GameCamera,
    texture: three_d::Texture2DRef,
    aspect: f32,
    near: f32,
    far: f32,
    hidden: &[u32],
) -> Option<Gm<GpuMesh, ColorMaterial>> {
    let atlas = c.card_texels.as_ref()?;
    let shown: Vec<&crate::webgl::scene::Card> = c
        .cards
        .iter()
        .filter(|card| card.layer.is_none_or(|l| !hidden.contains(&l)))
        .collect();
    if shown.is_empty() {
        return None;
    }
    // The perspective camera's depth (normalised device z) at distance `d`, and where the
    // flat camera puts the same depth: its distance, and so its z.
    let flat_z = |d: f32| {
        let ndc = (far + near) / (far - near) - 2.0 * far * near / ((far - near) * d);
        let distance = FLAT_NEAR + (ndc + 1.0) * (FLAT_FAR - FLAT_NEAR) / 2.0;
        1.0 - distance
    };
    let at = |px: f32, py: f32, z: f32| {
        let [x, y] = game_view::on_view(c, aspect, [px, py]);
        vec3(x * aspect, y, z)
    };
    let (aw, ah) = (atlas.width.max(1) as f32, atlas.height.max(1) as f32);
    let (mut positions, mut uvs, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    for card in shown {
        let [x0, y0, x1, y1] = card.rect.map(|v| v as f32);
        // A hair inside the texels: a pixel on the card's edge samples the card, never the
        // cell beside it.
        let [tx, ty, tw, th] = card.texels.map(|v| v as f32);
        let (tx, ty, tw, th) = (tx + INSET, ty + INSET, tw - 2.0 * INSET, th - 2.0 * INSET);
        let first = positions.len() as u32;
        let z = flat_z(card.depth.clamp(near, far));
        positions.extend([at(x0, y0, z), at(x1, y0, z), at(x1, y1, z), at(x0, y1, z)]);
        uvs.extend([
            Vec2::new(tx / aw, ty / ah),
            Vec2::new((tx + tw) / aw, ty / ah),
            Vec2::new((tx + tw) / aw, (ty + th) / ah),
            Vec2::new(tx / aw, (ty + th) / ah),
        ]);
        indices.extend([first, first + 2, first + 1, first, first + 3, first + 2]);
    }
    let mesh = CpuMesh {
        positions: Positions::F32(positions),
        indices: three_d::Indices::U32(indices),
        uvs: Some(uvs),
        ..Default::default()
    };
    let material = ColorMaterial {
        texture: Some(texture),
        render_states: three_d::RenderStates {
            write_mask: three_d::WriteMask::COLOR,
            depth_test: three_d::DepthTest::Less,
            blend: three_d::Blend::TRANSPARENCY,
            cull: three_d::Cull::None,
        },
        is_transparent: true,
        ..Default::default()
    };
    Some(Gm::new(GpuMesh::new(context, &mesh), material))
}
