//! What the player saw of a field, added to its scene (docs/formats/field-dat.md, "The game's
//! camera"): the field's camera as the scene's game camera, and the background composed
//! from the field's .MIM as the picture behind it.

use super::background::{self, Composed};
use super::raw::DatFile;
use super::tiles::LAYERS;
use crate::ff7::psx::Vram;
use crate::scene::{GameCamera, PictureLayer, Scene, Texture};

/// What a background layer's scene layer is called, before its number (1–4): "background
/// layer 2" is what a link hides.
pub const PICTURE_LAYER: &str = "background layer";

/// The field scale the camera's fit is known for: a field of another scale (md1_1's 1024)
/// does not put its walkmesh on the picture's floor (docs/formats/field-dat.md).
const KNOWN_SCALE: u16 = 512;

/// The field's .MIM, loaded: its path and the video memory it fills.
pub struct Pixels<'a> {
    pub path: &'a str,
    pub vram: Vram,
}

/// The camera of `d` in the scene's coordinates, whose root turns the field's z up into the
/// viewer's y: v = R · field / 4096 + T, field = (x, −z, y) of the scene.
pub fn game_camera(d: &DatFile) -> Option<GameCamera> {
    let c = d.camera.as_ref().ok()?;
    let r = c.matrix();
    let rotation = r.map(|row| [row[0] as f32, row[2] as f32, -row[1] as f32]);
    let frame = d
        .tile_map
        .as_ref()
        .ok()
        .map_or([-160, -120, 160, 120], |m| background::frame(scroll(d), m));
    let mut notes = Vec::new();
    if let Ok(s) = &d.script {
        if s.scale != KNOWN_SCALE {
            notes.push(format!("this field's scale is {} (512 is 1): how its walkmesh fits the picture through this camera is not settled, and the models may stand off the floor the picture shows", s.scale));
        }
    }
    Some(GameCamera {
        name: "game camera".into(),
        rotation,
        translation: c.translation.map(|t| t as f32),
        projection: c.projection as f32,
        frame,
        backdrop: None,
        notes,
        behind: None,
        cards: Vec::new(),
        card_texels: None,
        layers: Vec::new(),
    })
}

/// The scroll range: the frame the game's picture moves in.
pub fn scroll(d: &DatFile) -> Option<[i16; 4]> {
    d.triggers.as_ref().ok().map(|t| t.scroll)
}

/// The composed background of `d` from `pixels`, every layer on.
pub fn compose(d: &DatFile, pixels: &Pixels) -> Option<Composed> {
    let map = d.tile_map.as_ref().ok()?;
    Some(background::compose(
        map,
        &pixels.vram,
        background::frame(scroll(d), map),
        [true; LAYERS],
    ))
}

/// Give `scene` the field's game camera, with the composed background behind it where the
/// .MIM is there; without it the camera says what the picture needs.
pub fn add_to(scene: &mut Scene, d: &DatFile, name: &str, pixels: Option<&Pixels>) {
    let Some(mut camera) = game_camera(d) else {
        return;
    };
    match pixels.and_then(|p| compose(d, p).map(|c| (p, c))) {
        Some((p, composed)) => {
            // What the models pass among (layers 2 and 4) as cards at their depths, and
            // the rest (layers 3 and 1) behind everything.
            // Each layer that draws a tile a scene layer the person can hide, in the order
            // drawn: 3 and 1 behind every model, each with its own picture, then 2 and 4.
            let mut layer_of = [None; LAYERS];
            for l in [2, 0, 1, 3] {
                if composed.drawn[l] > 0 {
                    let id = scene.layer(&format!("{PICTURE_LAYER} {}", l + 1));
                    layer_of[l] = Some(id);
                    // A layer behind the models has its own picture; the only one there is
                    // the picture behind.
                    let own = composed.alone[l].clone().or_else(|| {
                        background::BEHIND_MODELS
                            .contains(&l)
                            .then(|| composed.behind.clone())
                    });
                    camera.layers.push(PictureLayer {
                        layer: id,
                        tiles: composed.drawn[l],
                        picture: own,
                    });
                }
            }
            if let Ok(map) = &d.tile_map {
                let mut cards = background::cards(map, &p.vram, &composed);
                for (card, &l) in cards.cards.iter_mut().zip(&cards.tile_layers) {
                    card.layer = layer_of[l];
                }
                if !cards.cards.is_empty() {
                    camera.behind = Some(composed.behind.clone());
                    camera.notes.push(format!("{} tiles of layers 2 and 4 are drawn at their depths among the models (our reading of the engine's sorting: its ordering-table index is a quarter of the depth)", cards.cards.len()));
                    if cards.left_out > 0 {
                        camera.notes.push(format!("{} more tiles of layers 2 and 4 are not drawn (more than the card atlas holds)", cards.left_out));
                    }
                    camera.cards = cards.cards;
                    camera.card_texels = Some(cards.texels);
                }
            }
            scene.textures.push(Texture {
                name: Some(format!(
                    "background ({} tiles)",
                    composed.drawn.iter().sum::<usize>()
                )),
                texels: composed.picture,
                file: Some(p.path.to_string()),
                nearest: true,
                stand_in: false,
            });
            camera.backdrop = Some(scene.textures.len() as u32 - 1);
            if !composed.states.is_empty() {
                camera.notes.push(format!("optional tiles: each group drawn in its first state ({}); which one the game starts with is its scripts' business", composed.states.iter().map(|(g, s)| format!("group {g}: {s}")).collect::<Vec<_>>().join(", ")));
            }
        }
        None => camera.notes.push(format!(
            "the background's pixels are in {name}.MIM, which is not beside the field"
        )),
    }
    scene.ff7.cameras.push(camera);
}
