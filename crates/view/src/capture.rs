//! Captures of the view: what a still, a turntable or the timeline asks for, made into a
//! plan of frames (their size, count, clock times and turns), the rule for the files' names,
//! and what is done to the pixels read back. The renderer draws each frame (off the screen,
//! at the plan's size); the page encodes them (PNG, WebM or a zip of PNG frames). The page's
//! menu, keys and `capture()` all go through this one plan, so each rule is written once.

use serde::{Deserialize, Serialize};

/// What is captured: one picture, one turn of the camera about its target, or the clock
/// running (doors, scrolling textures, clips, blinks) with the camera where it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum CaptureKind {
    #[default]
    Still,
    Turntable,
    Timeline,
}

impl CaptureKind {
    pub const ALL: [CaptureKind; 3] = [
        CaptureKind::Still,
        CaptureKind::Turntable,
        CaptureKind::Timeline,
    ];
}

/// How frames in motion leave the page: a WebM video, or a zip of numbered PNG frames
/// (which keep the transparency a video may not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum CaptureFormat {
    #[default]
    Webm,
    Frames,
}

impl CaptureFormat {
    pub const ALL: [CaptureFormat; 2] = [CaptureFormat::Webm, CaptureFormat::Frames];
}

/// The sizes a capture is made at, as multiples of the view's.
pub const SCALES: [u32; 3] = [1, 2, 4];
/// The longest capture in motion (seconds), and the fastest and slowest frame rates: at most
/// 60 · 60 frames, each read back and encoded.
pub const MAX_SECONDS: f64 = 60.0;
pub const FPS_RANGE: (u32, u32) = (1, 60);
/// A turntable's turn, and a timeline with nothing that loops, last this long unless asked.
pub const TURNTABLE_SECONDS: f64 = 6.0;
pub const TIMELINE_SECONDS: f64 = 4.0;
pub const DEFAULT_FPS: u32 = 30;

/// What the page asks for (`capture({kind, scale, transparent, seconds, fps, format})`):
/// anything left out takes its default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptureRequest {
    #[serde(default)]
    pub kind: CaptureKind,
    #[serde(default)]
    pub scale: Option<u32>,
    /// Leave the view's background out: its pixels are transparent.
    #[serde(default)]
    pub transparent: bool,
    #[serde(default)]
    pub seconds: Option<f64>,
    #[serde(default)]
    pub fps: Option<u32>,
    #[serde(default)]
    pub format: CaptureFormat,
}

/// What the view is when a capture starts, as the plan needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewNow {
    /// The view's size in device pixels.
    pub width: u32,
    pub height: u32,
    /// The largest picture the GPU draws into (its renderbuffer and viewport limits).
    pub max_size: u32,
    /// The clock's seconds, whether it runs and how fast.
    pub time: f64,
    pub playing: bool,
    pub speed: f64,
    /// The longest looping clip on show (0: none).
    pub loop_seconds: f64,
    /// The camera can turn about a target (not the game's own camera).
    pub can_turn: bool,
}

/// Frames to draw: `frames` of `width` × `height`, frame `i` at clock `start + i · step`
/// seconds and turned `i · turn` radians about the camera's target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CapturePlan {
    pub kind: CaptureKind,
    pub format: CaptureFormat,
    pub scale: u32,
    pub transparent: bool,
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub fps: u32,
    /// The length of the capture (frames / fps), 0 for a still.
    pub seconds: f64,
    pub start: f64,
    pub step: f64,
    pub turn: f64,
}

impl CapturePlan {
    /// Frame `i`'s clock time and turn.
    pub fn frame(&self, i: u32) -> (f64, f32) {
        let i = i.min(self.frames.saturating_sub(1)) as f64;
        (self.start + i * self.step, (i * self.turn) as f32)
    }
}

/// The plan for `asked` of the view `now`, or why it cannot be made.
pub fn plan(asked: &CaptureRequest, now: &ViewNow) -> Result<CapturePlan, String> {
    let motion = asked.kind != CaptureKind::Still;
    let (scale, width, height) = capture_size(asked, now, motion)?;
    if !motion {
        return Ok(CapturePlan {
            kind: asked.kind,
            format: asked.format,
            scale,
            transparent: asked.transparent,
            width,
            height,
            frames: 1,
            fps: 0,
            seconds: 0.0,
            start: now.time,
            step: 0.0,
            turn: 0.0,
        });
    }
    if asked.kind == CaptureKind::Turntable && !now.can_turn {
        return Err(
            "a turntable turns the camera about its target: leave the game's camera (T) first"
                .into(),
        );
    }
    let (fps, seconds) = capture_timing(asked, now)?;
    let frames = ((seconds * fps as f64).round() as u32).max(1);
    // The timeline's clock runs at the page's speed; a turntable's only while it plays (a
    // paused model turns as it is).
    let clock_runs = asked.kind == CaptureKind::Timeline || now.playing;
    let step = if clock_runs {
        now.speed / fps as f64
    } else {
        0.0
    };
    let turn = if asked.kind == CaptureKind::Turntable {
        std::f64::consts::TAU / frames as f64
    } else {
        0.0
    };
    Ok(CapturePlan {
        kind: asked.kind,
        format: asked.format,
        scale,
        transparent: asked.transparent,
        width,
        height,
        frames,
        fps,
        seconds: frames as f64 / fps as f64,
        start: now.time,
        step,
        turn,
    })
}

/// The capture's scale and size in pixels (even sides for a video), or why it cannot be made.
fn capture_size(
    asked: &CaptureRequest,
    now: &ViewNow,
    motion: bool,
) -> Result<(u32, u32, u32), String> {
    let scale = asked.scale.unwrap_or(1);
    if !SCALES.contains(&scale) {
        return Err(format!(
            "a capture is made at 1×, 2× or 4× the view's size, not {scale}×"
        ));
    }
    let (mut width, mut height) = (now.width.max(1) * scale, now.height.max(1) * scale);
    if width > now.max_size || height > now.max_size {
        return Err(format!(
            "{width} × {height} pixels is more than this GPU draws at once ({} a side): a smaller scale or window",
            now.max_size
        ));
    }
    if motion && asked.format == CaptureFormat::Webm {
        // The video's 4:2:0 colour is stored per 2 × 2 pixels: encoders want even sides.
        width = (width & !1).max(2);
        height = (height & !1).max(2);
    }
    Ok((scale, width, height))
}

/// A motion capture's frames a second and length in seconds (as asked, else the defaults:
/// a turntable's turn, the clip's loop, or the timeline's), or why they cannot be.
fn capture_timing(asked: &CaptureRequest, now: &ViewNow) -> Result<(u32, f64), String> {
    let fps = asked.fps.unwrap_or(DEFAULT_FPS);
    if !(FPS_RANGE.0..=FPS_RANGE.1).contains(&fps) {
        return Err(format!(
            "a capture runs at {} to {} frames a second, not {fps}",
            FPS_RANGE.0, FPS_RANGE.1
        ));
    }
    let default_seconds = match asked.kind {
        CaptureKind::Turntable => TURNTABLE_SECONDS,
        _ if now.loop_seconds > 0.0 => now.loop_seconds.clamp(1.0, MAX_SECONDS),
        _ => TIMELINE_SECONDS,
    };
    let seconds = asked.seconds.unwrap_or(default_seconds);
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_SECONDS) {
        return Err(format!(
            "a capture lasts more than 0 and at most {MAX_SECONDS} seconds, not {seconds}"
        ));
    }
    Ok((fps, seconds))
}

/// `position` turned by `angle` radians about the vertical line through `target` (the
/// world's up is +Y): a turntable's eye.
pub fn turned(position: [f32; 3], target: [f32; 3], angle: f32) -> [f32; 3] {
    let (s, c) = angle.sin_cos();
    let (x, z) = (position[0] - target[0], position[2] - target[2]);
    [
        target[0] + x * c + z * s,
        position[1],
        target[2] - x * s + z * c,
    ]
}

/// RGBA pixels as drawn over a transparent background (each colour weighted by its alpha,
/// as blending leaves it) made straight, as PNG stores them: a half-covered edge keeps its
/// colour instead of darkening towards black.
pub fn unpremultiply(rgba: &mut [u8]) {
    for p in rgba.chunks_exact_mut(4) {
        let a = p[3] as u32;
        if a != 0 && a != 255 {
            for c in &mut p[..3] {
                *c = ((*c as u32 * 255 + a / 2) / a).min(255) as u8;
            }
        }
    }
}

/// What a capture's file is called: the file's name, what is on show that is not its
/// default (tags such as `dz-larm-destroyed`), the kind when it moves, the scale, the
/// extension: `WALKER_dz-larm-destroyed_2x.png`. Each part is kept to letters, digits, `-`
/// and `.`, so any file system takes the name.
pub fn file_name(stem: &str, tags: &[String], kind: CaptureKind, scale: u32, ext: &str) -> String {
    // (The file's own name keeps its underscores, MD1_1; a tag's become dashes, dz-larm,
    // so that `_` parts the name's parts.)
    let mut parts = vec![name_part(stem, true).unwrap_or_else(|| "relicview".into())];
    parts.extend(tags.iter().filter_map(|t| name_part(t, false)));
    if kind != CaptureKind::Still {
        parts.push(format!("{kind:?}").to_lowercase());
    }
    parts.push(format!("{scale}x"));
    format!("{}.{ext}", parts.join("_"))
}

/// Damage zones named in a capture's name at most; more are counted.
const NAMED_ZONES: usize = 3;

/// What is on show that a capture's name should say (`file_name`'s tags): the option of
/// the scene's choice other than the first (an FF7 file's model or animation), the damage
/// zones destroyed, a LOD other than 0, the game's camera.
pub fn tags(
    scene: &crate::scene::Scene,
    choice: Option<usize>,
    hidden_layers: &[u32],
    lod: Option<usize>,
    game_camera: bool,
) -> Vec<String> {
    let mut tags = Vec::new();
    if let (Some(c), Some(k)) = (scene.choice.as_ref(), choice) {
        if k > 0 {
            if let Some(o) = c.options.get(k) {
                tags.push(o.label.clone());
            }
        }
    }
    let destroyed: Vec<&str> = scene
        .zones
        .iter()
        .filter(|z| hidden_layers.contains(z))
        .filter_map(|&z| scene.layers.get(z as usize).map(String::as_str))
        .collect();
    for zone in destroyed.iter().take(NAMED_ZONES) {
        tags.push(format!("{zone}-destroyed"));
    }
    if destroyed.len() > NAMED_ZONES {
        tags.push(format!("{}-more-destroyed", destroyed.len() - NAMED_ZONES));
    }
    if let Some(lod) = lod.filter(|&l| l > 0) {
        tags.push(format!("lod{lod}"));
    }
    if game_camera {
        tags.push("game-camera".into());
    }
    tags
}

/// `text` as a part of a file name (None when nothing is left): runs of anything but
/// letters, digits, dots (and underscores where `underscores`) become one `-`, at most 40
/// characters.
fn name_part(text: &str, underscores: bool) -> Option<String> {
    let mut out = String::new();
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() || ch == '.' || (underscores && ch == '_') {
            out.push(ch);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 40 {
            break;
        }
    }
    let out = out
        .trim_matches(|c| c == '-' || c == '.' || c == '_')
        .to_string();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ViewNow {
        ViewNow {
            width: 641,
            height: 480,
            max_size: 4096,
            time: 1.5,
            playing: true,
            speed: 1.0,
            loop_seconds: 0.0,
            can_turn: true,
        }
    }

    fn ask(kind: CaptureKind) -> CaptureRequest {
        CaptureRequest {
            kind,
            ..Default::default()
        }
    }

    #[test]
    fn a_still_is_one_frame_at_the_scale_asked() {
        for scale in SCALES {
            let p = plan(
                &CaptureRequest {
                    scale: Some(scale),
                    ..ask(CaptureKind::Still)
                },
                &view(),
            )
            .unwrap();
            assert_eq!((p.width, p.height, p.frames), (641 * scale, 480 * scale, 1));
            assert_eq!(p.frame(0), (1.5, 0.0));
        }
        let three = CaptureRequest {
            scale: Some(3),
            ..ask(CaptureKind::Still)
        };
        assert!(plan(&three, &view()).unwrap_err().contains("not 3×"));
        let eight = CaptureRequest {
            scale: Some(4),
            ..ask(CaptureKind::Still)
        };
        let small_gpu = ViewNow {
            max_size: 2048,
            ..view()
        };
        assert!(plan(&eight, &small_gpu).unwrap_err().contains("2048"));
    }

    #[test]
    fn motion_has_seconds_times_fps_frames_and_a_video_has_even_sides() {
        for (seconds, fps) in [(1.0, 1), (2.0, 12), (0.5, 60), (60.0, 60), (3.3, 30)] {
            for kind in [CaptureKind::Turntable, CaptureKind::Timeline] {
                for format in CaptureFormat::ALL {
                    let p = plan(
                        &CaptureRequest {
                            kind,
                            seconds: Some(seconds),
                            fps: Some(fps),
                            format,
                            ..Default::default()
                        },
                        &view(),
                    )
                    .unwrap();
                    assert_eq!(p.frames, (seconds * fps as f64).round() as u32);
                    assert!((p.seconds - p.frames as f64 / fps as f64).abs() < 1e-9);
                    let even = format == CaptureFormat::Webm;
                    assert_eq!(p.width, if even { 640 } else { 641 });
                    assert_eq!(p.height, 480);
                    if kind == CaptureKind::Turntable {
                        // One whole turn: the frame after the last is the first again.
                        let whole = p.turn * p.frames as f64;
                        assert!((whole - std::f64::consts::TAU).abs() < 1e-9);
                    } else {
                        assert_eq!(p.turn, 0.0);
                    }
                    assert!((p.step - 1.0 / fps as f64).abs() < 1e-12);
                }
            }
        }
        for bad in [0.0, -1.0, 61.0, f64::NAN, f64::INFINITY] {
            let p = plan(
                &CaptureRequest {
                    seconds: Some(bad),
                    ..ask(CaptureKind::Timeline)
                },
                &view(),
            );
            assert!(p.is_err(), "{bad}");
        }
        for fps in [0, 61, 1000] {
            let p = plan(
                &CaptureRequest {
                    fps: Some(fps),
                    ..ask(CaptureKind::Turntable)
                },
                &view(),
            );
            assert!(p.unwrap_err().contains("frames a second"));
        }
    }

    #[test]
    fn the_timeline_lasts_one_loop_and_the_clock_runs_at_its_speed() {
        let looping = ViewNow {
            loop_seconds: 2.5,
            speed: 0.5,
            playing: false,
            ..view()
        };
        let p = plan(&ask(CaptureKind::Timeline), &looping).unwrap();
        assert_eq!((p.frames, p.fps), (75, 30));
        assert_eq!(p.frame(10).0, 1.5 + 10.0 * 0.5 / 30.0);
        assert_eq!(
            plan(&ask(CaptureKind::Timeline), &view()).unwrap().frames,
            120
        );
        // A paused turntable turns the model as it stands; a playing one lets it move.
        let t = plan(&ask(CaptureKind::Turntable), &looping).unwrap();
        assert_eq!((t.frames, t.step), (180, 0.0));
        let t = plan(&ask(CaptureKind::Turntable), &view()).unwrap();
        assert!(t.step > 0.0);
        let game = ViewNow {
            can_turn: false,
            ..view()
        };
        assert!(plan(&ask(CaptureKind::Turntable), &game).is_err());
        assert!(plan(&ask(CaptureKind::Timeline), &game).is_ok());
    }

    #[test]
    fn a_turn_keeps_the_distance_and_height_and_goes_the_right_way() {
        let (p, t) = ([3.0, 2.0, 4.0], [1.0, 0.5, -1.0]);
        for k in 0..16 {
            let a = k as f32 * 0.4;
            let q = turned(p, t, a);
            let d = |v: [f32; 3]| ((v[0] - t[0]).powi(2) + (v[2] - t[2]).powi(2)).sqrt();
            assert!((d(q) - d(p)).abs() < 1e-4);
            assert_eq!(q[1], p[1]);
        }
        // A quarter turn takes an eye on +Z round to +X (anticlockwise seen from above).
        let q = turned([0.0, 0.0, 1.0], [0.0; 3], std::f32::consts::FRAC_PI_2);
        assert!((q[0] - 1.0).abs() < 1e-6 && q[2].abs() < 1e-6);
    }

    #[test]
    fn unpremultiplied_pixels_keep_their_colour() {
        let mut px = vec![
            10, 20, 30, 255, // opaque: as it is
            0, 0, 0, 0, // empty: as it is
            64, 32, 0, 128, // half covered: twice as bright
            200, 200, 200, 100, // brighter than its alpha allows: clamped
        ];
        unpremultiply(&mut px);
        assert_eq!(&px[..8], &[10, 20, 30, 255, 0, 0, 0, 0]);
        assert_eq!(&px[8..12], &[128, 64, 0, 128]);
        assert_eq!(&px[12..], &[255, 255, 255, 100]);
    }

    #[test]
    fn tags_name_the_zones_destroyed_and_what_is_not_the_default() {
        let scene = crate::scene::Scene {
            layers: (0..6).map(|k| format!("dz_part{k}")).collect(),
            zones: vec![0, 1, 2, 3, 4],
            ..Default::default()
        };
        assert!(tags(&scene, None, &[], Some(0), false).is_empty());
        let t = tags(&scene, None, &[1, 5], Some(2), true);
        assert_eq!(t, ["dz_part1-destroyed", "lod2", "game-camera"]);
        let all = tags(&scene, None, &[0, 1, 2, 3, 4, 5], None, false);
        assert_eq!(all.len(), 4);
        assert_eq!(all[3], "2-more-destroyed");
        let name = file_name("WALKER", &t[..1], CaptureKind::Still, 2, "png");
        assert_eq!(name, "WALKER_dz-part1-destroyed_2x.png");
    }

    #[test]
    fn file_names_say_what_and_where() {
        let tags = vec!["dz_larm destroyed".to_string()];
        assert_eq!(
            file_name("WALKER", &tags, CaptureKind::Still, 2, "png"),
            "WALKER_dz-larm-destroyed_2x.png"
        );
        assert_eq!(
            file_name(
                "MD1_1",
                &["cl: idle".into()],
                CaptureKind::Turntable,
                1,
                "webm"
            ),
            "MD1_1_cl-idle_turntable_1x.webm"
        );
        let odd = vec!["../<b>x</b>".to_string(), "   ".to_string(), "a".repeat(90)];
        let name = file_name("", &odd, CaptureKind::Timeline, 4, "zip");
        assert!(name.starts_with("relicview_b-x-b_"), "{name}");
        assert!(name.ends_with("_timeline_4x.zip"), "{name}");
        assert!(name.len() < 100);
        assert!(!name.contains('/') && !name.contains('<') && !name.contains(' '));
    }
}
