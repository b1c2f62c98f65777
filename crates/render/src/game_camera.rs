//! Looking through a camera the file sets up (an FF7 field's): the numbers are
//! `view::game_view`'s; this puts them to three-d, and draws the picture the game shows
//! behind the scene on the frame.

use crate::scene::{GameCamera, Scene};
use crate::view::game_view;
use three_d::{vec3, ColorMaterial, Context, CpuMesh, Gm, Mesh as GpuMesh, Positions, Vec2, Vec3};

/// The eye, a point ahead of it, and up.
pub fn view(c: &GameCamera) -> (Vec3, Vec3, Vec3) {
    let (eye, target, up) = game_view::look(c);
    (Vec3::from(eye), Vec3::from(target), Vec3::from(up))
}

/// The first camera of the scene that has one.
pub fn of(scene: &Scene) -> Option<&GameCamera> {
    scene.cameras.first()
}

/// The frame as a rectangle of the flat camera two units high and `aspect` · 2 wide that
/// the backgrounds are drawn with: left, bottom, right, top.
pub fn frame_on_screen(c: &GameCamera, aspect: f32) -> [f32; 4] {
    let [l, b, r, t] = game_view::frame_on_view(c, aspect);
    [l * aspect, b, r * aspect, t]
}

/// The picture behind the scene as a texture: linear colours in floats, so that the darks a
/// PlayStation picture is full of come back out to the byte (eight bits of linear colour
/// would merge them).
pub fn backdrop_texture(
    context: &Context,
    texels: &crate::texture::Texels,
) -> three_d::Texture2DRef {
    let lut: Vec<f32> = (0..256)
        .map(|c| crate::texture::srgb_to_linear(c as f32 / 255.0))
        .collect();
    let data = texels
        .rgba
        .chunks_exact(4)
        .map(|p| {
            [
                lut[p[0] as usize],
                lut[p[1] as usize],
                lut[p[2] as usize],
                p[3] as f32 / 255.0,
            ]
        })
        .collect();
    let cpu = three_d::CpuTexture {
        name: String::new(),
        data: three_d::TextureData::RgbaF32(data),
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
/// at the top.
pub fn backdrop(
    context: &Context,
    texture: three_d::Texture2DRef,
    rect: [f32; 4],
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
    let material = ColorMaterial {
        texture: Some(texture),
        ..Default::default()
    };
    Gm::new(GpuMesh::new(context, &mesh), material)
}
