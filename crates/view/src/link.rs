//! A permalink's view: everything a link to the page holds, read from and written to the
//! URL's fragment (`#archive=…&path=…&cam=…`). The words of the fragment, its defaults (a
//! switch at its default is left out of a link) and how each value is read are written here
//! once; the page asks for them (`parseLink`, `linkFragment`, `Viewer.link`,
//! `Viewer.restore`). docs/using.md, "What a link holds", lists the keys.
//!
//! A fragment is read as the browser's `URLSearchParams` reads it, and written as it writes
//! one (`application/x-www-form-urlencoded`): the links the page has always made read the
//! same. What cannot be read (a camera of six numbers, a word the view does not have) is
//! left out, never an error: a link is typed by people.

use crate::camera::CameraState;
use crate::compare::{CompareMode, CompareView};
use crate::options::{Background, Lighting, OptionChanges, ViewOptions};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// Everything a link holds. Absent (or false) is what the link leaves to the page: the
/// reader's own switches, the camera the file frames itself with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct ViewLink {
    /// Where the archive comes from: a hosted listing's URL …
    pub archive: Option<String>,
    /// … or a local folder's fingerprint (its file count, then a hash of names and sizes).
    pub folder: Option<String>,
    /// The file on show (file A of a comparison).
    pub path: Option<String>,
    pub cam: Option<CameraState>,
    /// A LOD chosen by hand (not LOD 0, not chosen by distance).
    pub lod: Option<usize>,
    /// The inspector record selected.
    pub chunk: Option<usize>,
    /// The animation clock, in seconds, where something moves.
    pub t: Option<f64>,
    /// The clock stopped.
    pub paused: bool,
    /// The camera flies.
    pub fly: bool,
    /// Looking through the file's own camera (an FF7 field's): `cam` is where it is.
    pub game: bool,
    /// The game's variables set by hand (an FF7 field's story moment), as the core's session
    /// reads them: `2:0=7,3:1=1`.
    pub state: Option<String>,
    /// Looking from viewpoint `view` (a world's dropzone).
    pub view: Option<usize>,
    /// Layers not shown (destroyed damage zones among them).
    pub hide: Vec<String>,
    /// Layers the file keeps out of sight when it opens (the party members a field's engine
    /// hides) that are shown.
    pub show: Vec<String>,
    /// The option of the scene's choice on show (a model and its animation).
    pub choice: Option<usize>,
    pub skeleton: bool,
    pub wire: bool,
    pub cull: bool,
    /// Another background than the dark one.
    pub bg: Option<Background>,
    /// Another lighting than the game's.
    pub light: Option<Lighting>,
    /// Faces do not blink.
    pub no_blink: bool,
    /// Each damage zone in its own colour.
    pub zones: bool,
    pub grid: bool,
    /// The archive grid is on show (no file): `browse=grid`.
    pub browse_grid: bool,
    /// The points measured between (one or two), as the page holds them (double precision:
    /// a point typed as 1.8 comes back as 1.8).
    pub measure: Vec<[f64; 3]>,
    /// File B of a comparison (`path` is file A), how it is drawn, the split, the row.
    pub compare: Option<String>,
    pub cmode: Option<CompareMode>,
    pub split: Option<f32>,
    pub row: Option<usize>,
}

/// What the viewer knows of the view on show, as a link holds it.
pub struct ViewerPart<'a> {
    /// A file is on show (else only the switches that outlive a file go in the link).
    pub shown: bool,
    pub options: &'a ViewOptions,
    pub camera: CameraState,
    pub fly: bool,
    /// Looking through the file's own camera.
    pub game: bool,
    /// Something moves with the clock; where the clock is; whether it runs.
    pub animating: bool,
    pub time: f64,
    pub playing: bool,
    /// The layers the file hides when it opens that are shown.
    pub revealed: Vec<String>,
    /// The layers hidden that the scene's choice does not hide.
    pub hidden: Vec<String>,
    /// The option of the scene's choice on show, where the scene has a choice.
    pub choice: Option<usize>,
    pub has_zones: bool,
    /// How a comparison is drawn, while one is.
    pub comparing: Option<CompareView>,
}

/// A text of a link, where it is not empty.
fn text(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

/// A word of one of the view's enums, as serde spells it (`lowercase`), and back.
fn word<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(w)) => w,
        _ => String::new(),
    }
}
fn from_word<T: DeserializeOwned>(w: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(w.to_string())).ok()
}

/// A number as the page writes one: to four decimals, without trailing zeros ("0.5", "3").
fn number(x: f64) -> String {
    let rounded: f64 = format!("{x:.4}").parse().unwrap_or(0.0);
    // (-0 is written as 0, as the browser's String(-0) does.)
    format!("{}", rounded + 0.0)
}

/// A number of a link as the browser's `Number()` reads it, where it is finite.
fn finite(text: &str) -> Option<f64> {
    let t = text.trim();
    let n = if t.is_empty() {
        0.0
    } else {
        t.parse::<f64>().ok()?
    };
    n.is_finite().then_some(n)
}

/// A number of a link the view keeps in single precision (the camera, the split): where it
/// is finite there too.
fn finite32(text: &str) -> Option<f32> {
    finite(text).map(|n| n as f32).filter(|n| n.is_finite())
}

/// Numbers of a link, comma-separated, where each reads (in single precision).
fn numbers(text: &str) -> Option<Vec<f32>> {
    text.split(',').map(finite32).collect()
}

/// A camera: position, target (three numbers each) and field of view.
fn camera(text: &str) -> Option<CameraState> {
    let n = numbers(text).filter(|n| n.len() == 7)?;
    Some(CameraState {
        position: [n[0], n[1], n[2]],
        target: [n[3], n[4], n[5]],
        fov: n[6],
    })
}

/// One or two points of three numbers each.
fn points(text: &str) -> Option<Vec<[f64; 3]>> {
    let n = text
        .split(',')
        .map(finite)
        .collect::<Option<Vec<f64>>>()
        .filter(|n| !text.is_empty() && n.len() % 3 == 0 && n.len() <= 6)?;
    Some(n.chunks(3).map(|p| [p[0], p[1], p[2]]).collect())
}

/// A count of a link: digits only.
fn count(text: &str) -> Option<usize> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

impl ViewLink {
    /// The link a fragment (`#…`, or without the `#`) describes. The first of a key given
    /// twice counts, as `URLSearchParams.get` takes it.
    pub fn parse(fragment: &str) -> ViewLink {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(fragment.as_bytes()) {
            if !pairs.iter().any(|(seen, _)| *seen == k) {
                pairs.push((k.into_owned(), v.into_owned()));
            }
        }
        let get = |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let flag = |key: &str| get(key) == Some("1");
        // (An empty name is none: the page never acted on one.)
        let name = |key: &str| get(key).filter(|v| !v.is_empty()).map(String::from);
        // A list of layer names, comma-separated (empty ones dropped).
        let names = |key: &str| -> Vec<String> {
            get(key).map_or(Vec::new(), |h| {
                h.split(',')
                    .filter(|n| !n.is_empty())
                    .map(String::from)
                    .collect()
            })
        };
        ViewLink {
            archive: name("archive"),
            folder: name("folder"),
            path: name("path"),
            cam: get("cam").and_then(camera),
            lod: get("lod").and_then(count),
            chunk: get("chunk").and_then(count),
            t: get("t").and_then(finite),
            paused: flag("paused"),
            fly: get("mode") == Some("fly"),
            game: get("mode") == Some("game"),
            state: name("state"),
            view: get("view").and_then(count),
            hide: names("hide"),
            show: names("show"),
            choice: get("choice").and_then(count),
            skeleton: flag("skeleton"),
            wire: flag("wire"),
            cull: flag("cull"),
            bg: get("bg").and_then(from_word),
            light: get("light").and_then(from_word),
            no_blink: get("blink") == Some("0"),
            zones: flag("zones"),
            grid: flag("grid"),
            browse_grid: get("browse") == Some("grid"),
            measure: get("measure").and_then(points).unwrap_or_default(),
            compare: name("compare"),
            cmode: get("cmode").and_then(from_word),
            split: get("split").and_then(finite32),
            row: get("row").and_then(count),
        }
    }

    /// The fragment (with its `#`) that describes this link, keys in the order the page has
    /// always written them; what is absent, false or at its default is left out.
    pub fn fragment(&self) -> String {
        let num = |x: Option<f64>| x.map(number);
        let int = |n: Option<usize>| n.map(|n| n.to_string());
        let flag = |on: bool, value: &str| on.then(|| value.to_string());
        let joined = |n: Vec<String>| (!n.is_empty()).then(|| n.join(","));
        let numbers =
            |xs: &mut dyn Iterator<Item = &f32>| joined(xs.map(|&x| number(x.into())).collect());
        let pairs: [(&str, Option<String>); 28] = [
            ("archive", text(&self.archive).map(String::from)),
            ("folder", text(&self.folder).map(String::from)),
            ("path", text(&self.path).map(String::from)),
            ("state", text(&self.state).map(String::from)),
            ("compare", text(&self.compare).map(String::from)),
            ("cmode", self.cmode.as_ref().map(word)),
            ("split", num(self.split.map(f64::from))),
            ("row", int(self.row)),
            (
                "cam",
                self.cam
                    .and_then(|c| numbers(&mut c.position.iter().chain(&c.target).chain([&c.fov]))),
            ),
            ("lod", int(self.lod)),
            ("chunk", int(self.chunk)),
            ("t", num(self.t)),
            ("paused", flag(self.paused, "1")),
            ("mode", flag(self.fly, "fly").or(flag(self.game, "game"))),
            ("view", int(self.view)),
            ("hide", joined(self.hide.clone())),
            ("show", joined(self.show.clone())),
            ("choice", int(self.choice)),
            ("skeleton", flag(self.skeleton, "1")),
            ("wire", flag(self.wire, "1")),
            ("cull", flag(self.cull, "1")),
            (
                "bg",
                self.bg
                    .filter(|b| *b != Background::default())
                    .as_ref()
                    .map(word),
            ),
            (
                "light",
                self.light
                    .filter(|l| *l != Lighting::default())
                    .as_ref()
                    .map(word),
            ),
            ("blink", flag(self.no_blink, "0")),
            ("zones", flag(self.zones, "1")),
            ("grid", flag(self.grid, "1")),
            ("browse", flag(self.browse_grid, "grid")),
            (
                "measure",
                joined(self.measure.iter().flatten().map(|&x| number(x)).collect()),
            ),
        ];
        let mut out = form_urlencoded::Serializer::new(String::new());
        for (key, value) in pairs {
            if let Some(value) = value {
                out.append_pair(key, &value);
            }
        }
        format!("#{}", out.finish())
    }

    /// The viewer's part of a link to the view on show (the page adds its own: where the
    /// archive comes from, the file, the record, the viewpoint, the points measured, file B
    /// and the row).
    pub fn of_viewer(v: ViewerPart) -> ViewLink {
        let o = v.options;
        let shown = v.shown;
        ViewLink {
            cam: shown.then_some(v.camera),
            lod: (!o.auto_lod && o.lod != 0).then_some(o.lod),
            t: v.animating.then_some(v.time),
            paused: shown && v.animating && !v.playing,
            fly: shown && v.fly,
            game: shown && v.game,
            hide: if shown { v.hidden } else { Vec::new() },
            show: if shown { v.revealed } else { Vec::new() },
            choice: if shown { v.choice } else { None },
            skeleton: shown && o.skeleton,
            wire: shown && o.wireframe,
            cull: shown && o.cull_back,
            bg: Some(o.background).filter(|b| *b != Background::default()),
            light: Some(o.lighting).filter(|l| *l != Lighting::default()),
            no_blink: shown && !o.blink,
            // Colour by zone is the zoned files' mode: a link to any other leaves it out.
            zones: shown && o.zone_colours && v.has_zones,
            grid: shown && o.grid,
            cmode: v.comparing.map(|c| c.mode),
            split: v
                .comparing
                .filter(|c| c.mode == CompareMode::Split)
                .map(|c| c.split),
            ..ViewLink::default()
        }
    }

    /// The switches the link sets, as changes to the view's options: only those it carries
    /// (a link without them leaves the reader's own), then its LOD.
    pub fn option_changes(&self) -> OptionChanges {
        OptionChanges {
            skeleton: self.skeleton.then_some(true),
            wireframe: self.wire.then_some(true),
            cull_back: self.cull.then_some(true),
            background: self.bg,
            lighting: self.light,
            blink: self.no_blink.then_some(false),
            zone_colours: self.zones.then_some(true),
            grid: self.grid.then_some(true),
            lod: self.lod,
            auto_lod: self.lod.map(|_| false),
        }
    }

    /// How the link draws a comparison: its mode and split over `now`'s.
    pub fn compare_view(&self, now: CompareView) -> CompareView {
        CompareView {
            mode: self.cmode.unwrap_or(now.mode),
            split: self.split.unwrap_or(now.split),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_of_every_key_reads_back_as_written() {
        let link = ViewLink {
            archive: Some("https://cdn.example/ff7/index.json".into()),
            path: Some("FF7.cue/FIELD/MD1_1.BSX".into()),
            cam: Some(CameraState {
                position: [1.5, -2.0, 3.25],
                target: [0.0, 0.5, 0.0],
                fov: 45.0,
            }),
            lod: Some(2),
            chunk: Some(12),
            t: Some(3.25),
            paused: true,
            fly: true,
            view: Some(2),
            hide: vec!["doors".into(), "dz_larm".into()],
            choice: Some(1),
            skeleton: true,
            wire: true,
            cull: true,
            bg: Some(Background::Checker),
            light: Some(Lighting::Stored),
            no_blink: true,
            zones: true,
            grid: true,
            browse_grid: true,
            measure: vec![[1.0, 2.0, 3.0], [4.0, 5.5, 6.0]],
            compare: Some("FF7.cue/FIELD/MD1_2.BSX".into()),
            cmode: Some(CompareMode::Split),
            split: Some(0.4),
            row: Some(7),
            ..ViewLink::default()
        };
        let fragment = link.fragment();
        assert_eq!(
            fragment,
            "#archive=https%3A%2F%2Fcdn.example%2Fff7%2Findex.json&path=FF7.cue%2FFIELD%2FMD1_1.BSX\
             &compare=FF7.cue%2FFIELD%2FMD1_2.BSX&cmode=split&split=0.4&row=7\
             &cam=1.5%2C-2%2C3.25%2C0%2C0.5%2C0%2C45&lod=2&chunk=12&t=3.25&paused=1&mode=fly&view=2\
             &hide=doors%2Cdz_larm&choice=1&skeleton=1&wire=1&cull=1&bg=checker&light=stored\
             &blink=0&zones=1&grid=1&browse=grid&measure=1%2C2%2C3%2C4%2C5.5%2C6"
        );
        assert_eq!(ViewLink::parse(&fragment), link);
    }

    #[test]
    fn defaults_stay_out_of_a_link() {
        let link = ViewLink {
            path: Some("A.BGF".into()),
            bg: Some(Background::Dark),
            light: Some(Lighting::Game),
            ..ViewLink::default()
        };
        assert_eq!(link.fragment(), "#path=A.BGF");
        assert_eq!(ViewLink::default().fragment(), "#");
    }

    #[test]
    fn what_cannot_be_read_is_left_out() {
        let l = ViewLink::parse(
            "cam=1,2,3,4,5,6&lod=-1&chunk=1.5&t=x&bg=purple&light=neon&cmode=diagonal&measure=1,2&mode=walk&split=",
        );
        assert_eq!(
            l,
            ViewLink {
                // (An empty number reads as 0, as the browser's Number('') does.)
                split: Some(0.0),
                ..ViewLink::default()
            }
        );
        // The older word for stored colours.
        assert_eq!(ViewLink::parse("light=none").light, Some(Lighting::Stored));
        // Numbers as people type them.
        // (Too large for the single precision the view keeps: left out, not infinite.)
        assert_eq!(
            ViewLink::parse(&format!("split=3{}", "3".repeat(60))).split,
            None
        );
        let l = ViewLink::parse("t=1e1&cam=1,2,3,4,5,6,1e1&split=.5");
        assert_eq!(
            (l.t, l.cam.map(|c| c.fov), l.split),
            (Some(10.0), Some(10.0), Some(0.5))
        );
    }

    #[test]
    fn the_game_camera_is_a_mode_of_its_own() {
        let l = ViewLink::parse("path=FIELD%2FNMKIN_1.DAT&mode=game");
        assert!(l.game && !l.fly);
        assert_eq!(l.fragment(), "#path=FIELD%2FNMKIN_1.DAT&mode=game");
        assert!(!ViewLink::parse("mode=fly").game);
        // A story moment: the game's variables as the core's session writes them.
        let l = ViewLink::parse("path=A.DAT&state=2%3A0%3D7%2C3%3A1%3D1");
        assert_eq!(l.state.as_deref(), Some("2:0=7,3:1=1"));
        assert_eq!(l.fragment(), "#path=A.DAT&state=2%3A0%3D7%2C3%3A1%3D1");
    }

    #[test]
    fn a_layer_the_file_hides_and_the_person_shows_is_in_the_link() {
        let l = ViewLink::parse("path=A.DAT&show=hidden+by+the+game");
        assert_eq!(l.show, ["hidden by the game"]);
        assert_eq!(l.fragment(), "#path=A.DAT&show=hidden+by+the+game");
    }

    #[test]
    fn numbers_go_out_to_four_decimals_as_the_page_wrote_them() {
        for (x, text) in [
            (0.5, "0.5"),
            (3.0, "3"),
            (-0.0, "0"),
            (1.0 / 3.0, "0.3333"),
            (123456.789012, "123456.789"),
            (-2.00004, "-2"),
            (0.00001, "0"),
        ] {
            assert_eq!(number(x), text, "{x}");
        }
    }

    #[test]
    fn the_viewer_part_leaves_out_what_no_file_shows() {
        let options = ViewOptions {
            wireframe: true,
            background: Background::Light,
            lod: 1,
            ..ViewOptions::default()
        };
        let part = |shown| ViewerPart {
            shown,
            options: &options,
            camera: CameraState {
                position: [0.0; 3],
                target: [0.0; 3],
                fov: 45.0,
            },
            fly: true,
            game: false,
            animating: false,
            time: 2.0,
            playing: true,
            hidden: vec!["doors".into()],
            revealed: vec!["hidden by the game".into()],
            choice: Some(1),
            has_zones: false,
            comparing: None,
        };
        let shown = ViewLink::of_viewer(part(true));
        assert!(shown.cam.is_some() && shown.wire && shown.fly && shown.hide == ["doors"]);
        assert_eq!(
            (shown.lod, shown.bg, shown.t),
            (Some(1), Some(Background::Light), None)
        );
        let none = ViewLink::of_viewer(part(false));
        assert_eq!(
            none,
            ViewLink {
                lod: Some(1),
                bg: Some(Background::Light),
                ..ViewLink::default()
            }
        );
    }
}
