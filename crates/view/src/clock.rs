//! The animation clock clips and scrolling textures follow: seconds run from where they
//! were set, at a speed, while playing. Times come from the page (the frame's timestamp);
//! nothing here reads a clock.

/// The slowest and fastest the clock runs.
pub const SPEEDS: (f64, f64) = (0.25, 4.0);

/// seconds = `base` + (now − `since_ms`) · `speed` while playing, `base` while stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    pub playing: bool,
    pub speed: f64,
    base: f64,
    since_ms: f64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            playing: true,
            speed: 1.0,
            base: 0.0,
            since_ms: 0.0,
        }
    }
}

impl Clock {
    /// The clock's seconds at page time `now_ms`.
    pub fn at(&self, now_ms: f64) -> f64 {
        if self.playing {
            // A frame stamped just before the clock was set does not run it backwards.
            self.base + (now_ms - self.since_ms).max(0.0) * self.speed / 1000.0
        } else {
            self.base
        }
    }
    /// Set the clock to `seconds` at page time `now_ms` (negative and non-finite values are
    /// refused: a permalink or a timeline cannot send it elsewhere).
    pub fn set(&mut self, seconds: f64, now_ms: f64) {
        if seconds.is_finite() {
            self.base = seconds.max(0.0);
            self.since_ms = now_ms;
        }
    }
    /// Run or stop it without a jump: it goes on from the seconds it shows.
    pub fn set_playing(&mut self, playing: bool, now_ms: f64) {
        let t = self.at(now_ms);
        self.playing = playing;
        self.set(t, now_ms);
    }
    /// Change the speed (clamped to [`SPEEDS`]) without a jump.
    pub fn set_speed(&mut self, speed: f64, now_ms: f64) {
        if speed.is_finite() && speed > 0.0 {
            let t = self.at(now_ms);
            self.speed = speed.clamp(SPEEDS.0, SPEEDS.1);
            self.set(t, now_ms);
        }
    }
}

/// What the timeline says of `seconds` on clips that loop every `period` seconds (0: none
/// loops), with the frame too where the clips run in frames of `frame` seconds. It never
/// counts past the loop the slider shows.
pub fn timeline_label(seconds: f64, period: f64, frame: Option<f64>) -> String {
    if !(period > 0.0 && seconds.is_finite()) {
        return format!("{seconds:.2} s");
    }
    // (A time a rounding short of the period is the loop's start again, not its end.)
    let within = Some(seconds.rem_euclid(period))
        .filter(|w| period - w > 1e-6)
        .unwrap_or(0.0);
    // (Cut, not rounded, to the hundredth: a time short of the period never reads as it.)
    let time = format!("{:.2}/{period:.2} s", (within * 100.0).floor() / 100.0);
    match frame.filter(|f| *f > 0.0) {
        Some(f) => {
            let frames = (period / f).round().max(1.0) as u64;
            // A hair over, so that 0.4 s at 1/30 s is frame 12, not 11.999….
            let k = ((within / f) + 1e-6).floor() as u64;
            // Frames count from 0: the last of n is n − 1.
            format!("frame {}/{frames} · {time}", k.min(frames - 1))
        }
        None => time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeline_counts_within_the_loop() {
        assert_eq!(timeline_label(23.16, 12.0, None), "11.16/12.00 s");
        assert_eq!(
            timeline_label(9.8, 0.8, Some(1.0 / 30.0)),
            "frame 6/24 · 0.20/0.80 s"
        );
        assert_eq!(
            timeline_label(0.4, 0.8, Some(1.0 / 30.0)),
            "frame 12/24 · 0.40/0.80 s"
        );
        // One frame: frame 0 however the clock stands, a hair short of the period included.
        let frame = f64::from(1.0f32 / 30.0);
        for t in [0.0, 0.01, frame - 1e-9, frame, 7.0 * frame - 1e-8] {
            let label = timeline_label(t, frame, Some(frame));
            assert!(
                label.starts_with("frame 0/1 · ") && label.ends_with("/0.03 s"),
                "{t}: {label}"
            );
        }
        assert_eq!(
            timeline_label(frame - 1e-9, frame, Some(frame)),
            "frame 0/1 · 0.00/0.03 s"
        );
        assert_eq!(
            timeline_label(3.5, 0.0, None),
            "3.50 s",
            "nothing loops: the clock itself"
        );
        for k in 0..2000 {
            let t = k as f64 * 0.0137;
            let label = timeline_label(t, 1.2, Some(1.0 / 30.0));
            let shown: f64 = label
                .split(" · ")
                .nth(1)
                .unwrap()
                .split('/')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(shown <= 1.2, "{label}");
        }
    }

    #[test]
    fn the_clock_runs_at_its_speed_and_never_jumps_when_changed() {
        let mut c = Clock::default();
        c.set(2.0, 1000.0);
        assert_eq!(c.at(1500.0), 2.5);
        c.set_speed(4.0, 1500.0);
        assert_eq!(
            c.at(1500.0),
            2.5,
            "a new speed starts from where the clock is"
        );
        assert_eq!(c.at(2000.0), 4.5);
        c.set_playing(false, 2000.0);
        assert_eq!(
            (c.at(2000.0), c.at(9000.0)),
            (4.5, 4.5),
            "stopped, it stays"
        );
        c.set_playing(true, 9000.0);
        assert_eq!(
            c.at(9250.0),
            5.5,
            "restarted, it goes on from the stopped time"
        );
        c.set_speed(100.0, 9250.0);
        assert_eq!(c.speed, SPEEDS.1);
        c.set_speed(f64::NAN, 9250.0);
        c.set_speed(-1.0, 9250.0);
        assert_eq!(c.speed, SPEEDS.1, "a speed that is no speed is ignored");
        assert_eq!(
            c.at(9000.0),
            c.at(9250.0),
            "a frame stamped before the change does not go back"
        );
        c.set(-3.0, 9250.0);
        assert_eq!(c.at(9250.0), 0.0);
        c.set(f64::INFINITY, 9250.0);
        assert_eq!(c.at(9250.0), 0.0);
    }
}
