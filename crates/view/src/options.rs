//! The view's switches (wireframe, culling, LOD, skeleton, background, lighting), how the
//! page changes them, and what a pixel of the background looks like.

use serde::{Deserialize, Serialize};

/// Background colour (sRGB bytes), also what pixel tests compare against.
pub const BACKGROUND: [u8; 3] = [24, 26, 31];
/// What the renderer is asked to show; the web glue owns these switches. Serialised as the
/// page reads them back (camelCase, every field).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ViewOptions {
    pub wireframe: bool,
    /// Hide back faces. Off by default: winding is unconfirmed in these files.
    pub cull_back: bool,
    /// Pick the LOD by camera distance (LOD in/out distances) instead of `lod`.
    pub auto_lod: bool,
    pub lod: usize,
    /// Draw the scene's skeleton over it.
    pub skeleton: bool,
    /// A ground grid under the model (and the page's scale bar).
    pub grid: bool,
    pub background: Background,
    pub lighting: Lighting,
    /// Faces blink (a scene's blink clips play).
    pub blink: bool,
    /// Each damage zone drawn in its own colour (parts of no zone grey), untextured.
    pub zone_colours: bool,
}

impl Default for ViewOptions {
    fn default() -> ViewOptions {
        ViewOptions {
            wireframe: false,
            cull_back: false,
            auto_lod: false,
            lod: 0,
            skeleton: false,
            grid: false,
            background: Background::default(),
            lighting: Lighting::default(),
            blink: true,
            zone_colours: false,
        }
    }
}

/// What is behind the model: dark models show on the light one, cut-outs on the checker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Background {
    #[default]
    Dark,
    Light,
    Checker,
}

/// How surfaces are shaded: as the game lit them (the colours its own lighting gave them,
/// with no light on top, where the format reproduces that lighting: FF7 field models with
/// FIELD.BIN; elsewhere as the sun), a fixed light from above, a light at the eye (every
/// face the camera sees is lit), or the colours exactly as the file stores them, unlit
/// ("none" is the older word for it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Lighting {
    #[default]
    Game,
    Sun,
    Camera,
    #[serde(alias = "none")]
    Stored,
}

impl Lighting {
    pub const ALL: [Lighting; 4] = [
        Lighting::Game,
        Lighting::Sun,
        Lighting::Camera,
        Lighting::Stored,
    ];

    /// The lighting a scene is drawn with: the game's where the scene has its colours,
    /// else the sun for it.
    pub fn for_scene(self, game_lit: bool) -> Lighting {
        match self {
            Lighting::Game if !game_lit => Lighting::Sun,
            other => other,
        }
    }

    /// The vertex colours drawn under it.
    pub fn colours(self, game_lit: bool) -> crate::scene::ColourSet {
        if self.for_scene(game_lit) == Lighting::Game {
            crate::scene::ColourSet::Lit
        } else {
            crate::scene::ColourSet::Stored
        }
    }
}

pub const LIGHT_BACKGROUND: [u8; 3] = [200, 204, 210];
/// The checker's two squares.
pub const CHECKER: [[u8; 3]; 2] = [[58, 61, 68], [86, 90, 99]];
/// The checker's square, in pixels.
pub const CHECKER_PX: f32 = 16.0;

impl Background {
    pub const ALL: [Background; 3] = [Background::Dark, Background::Light, Background::Checker];

    /// The colours a pixel of the background can have.
    pub fn colors(self) -> &'static [[u8; 3]] {
        match self {
            Background::Dark => &[BACKGROUND],
            Background::Light => &[LIGHT_BACKGROUND],
            Background::Checker => &CHECKER,
        }
    }
}

/// Switches the shell may set; missing fields keep their value.
#[derive(Debug, Deserialize, Default)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct OptionChanges {
    pub wireframe: Option<bool>,
    pub cull_back: Option<bool>,
    pub auto_lod: Option<bool>,
    pub lod: Option<usize>,
    pub skeleton: Option<bool>,
    pub grid: Option<bool>,
    pub background: Option<Background>,
    pub lighting: Option<Lighting>,
    pub blink: Option<bool>,
    pub zone_colours: Option<bool>,
}

impl OptionChanges {
    pub fn apply(&self, o: &mut ViewOptions) {
        let ViewOptions {
            wireframe,
            cull_back,
            auto_lod,
            lod,
            skeleton,
            grid,
            background,
            lighting,
            blink,
            zone_colours,
        } = o;
        *zone_colours = self.zone_colours.unwrap_or(*zone_colours);
        *blink = self.blink.unwrap_or(*blink);
        *grid = self.grid.unwrap_or(*grid);
        *background = self.background.unwrap_or(*background);
        *lighting = self.lighting.unwrap_or(*lighting);
        *skeleton = self.skeleton.unwrap_or(*skeleton);
        *wireframe = self.wireframe.unwrap_or(*wireframe);
        *cull_back = self.cull_back.unwrap_or(*cull_back);
        *auto_lod = self.auto_lod.unwrap_or(*auto_lod);
        *lod = self.lod.unwrap_or(*lod);
    }
}

/// Pixels of a frame that are not the background (within 3 levels a channel: behind a
/// checker, either square's colour is background).
pub fn non_background(pixels: &[[u8; 4]], background: Background) -> usize {
    let colors = background.colors();
    let near = |p: &[u8; 4], c: &[u8; 3]| p[..3].iter().zip(c).all(|(&a, &b)| a.abs_diff(b) <= 3);
    pixels
        .iter()
        .filter(|p| !colors.iter().any(|c| near(p, c)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_touch_only_what_they_name() {
        let mut o = ViewOptions {
            lod: 2,
            wireframe: true,
            ..Default::default()
        };
        let c: OptionChanges =
            serde_json::from_str(r#"{"background":"checker","cullBack":true}"#).unwrap();
        c.apply(&mut o);
        assert_eq!(
            o,
            ViewOptions {
                lod: 2,
                wireframe: true,
                cull_back: true,
                background: Background::Checker,
                ..Default::default()
            }
        );
        assert!(serde_json::from_str::<OptionChanges>(r#"{"background":"purple"}"#).is_err());
        let back = serde_json::to_value(o).unwrap();
        assert_eq!(back["background"], "checker");
        assert_eq!(back["cullBack"], true);
    }

    #[test]
    fn the_background_is_counted_out_of_a_frame() {
        let [a, b] = CHECKER;
        let px = |c: [u8; 3]| [c[0], c[1], c[2], 255];
        let frame = [
            px(a),
            px(b),
            px([a[0] + 2, a[1], a[2]]),
            px([250, 10, 10]),
            px(BACKGROUND),
        ];
        assert_eq!(non_background(&frame, Background::Checker), 2);
        assert_eq!(non_background(&frame, Background::Dark), 4);
        assert_eq!(non_background(&frame, Background::Light), 5);
    }
}
