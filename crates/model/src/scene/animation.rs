//! Time in a scene: a track sampled at a time, a clip's local time by its repeat rule,
//! and the scene's pose, UV offsets and glows at a moment (what the renderer draws and the
//! glTF exporter writes as animations).

use super::*;

impl Track {
    /// The value at `t` seconds into the clip (already wrapped for looping clips).
    pub fn sample(&self, t: f64, repeat: Repeat) -> Vec<f32> {
        let w = self.target.width();
        let n = self.times.len().min(self.values.len() / w);
        if n == 0 {
            return vec![0.0; w];
        }
        let key = |i: usize| &self.values[i * w..i * w + w];
        if n == 1 {
            return key(0).to_vec();
        }
        if let Target::Visibility(_) = self.target {
            return key(self.times[..n].partition_point(|&k| (k as f64) <= t).max(1) - 1).to_vec();
        }
        // The segment holding t (or the last one, to extrapolate past it).
        let i = self.times[..n]
            .partition_point(|&k| (k as f64) <= t)
            .clamp(1, n - 1)
            - 1;
        let (t0, t1) = (self.times[i] as f64, self.times[i + 1] as f64);
        let span = (t1 - t0).max(1e-9);
        let mut s = (t - t0) / span;
        if repeat == Repeat::Loop || t < t0 {
            s = s.clamp(0.0, 1.0);
        }
        let (a, b) = (key(i), key(i + 1));
        if let Target::Rotation(_) = self.target {
            let q = Quat::from_slice(a)
                .normalize()
                .slerp(Quat::from_slice(b).normalize(), s.clamp(0.0, 1.0) as f32);
            return q.to_array().to_vec();
        }
        a.iter()
            .zip(b)
            .map(|(&x, &y)| (x as f64 + (y as f64 - x as f64) * s) as f32)
            .collect()
    }
}

impl Clip {
    /// Clip time for the animation clock `seconds`.
    pub fn local_time(&self, seconds: f64) -> f64 {
        match self.repeat {
            Repeat::Loop if self.duration > 0.0 => seconds.rem_euclid(self.duration as f64),
            _ => seconds,
        }
    }
}

impl Scene {
    /// The clips that play (not [`Self::stopped`]).
    pub fn playing(&self) -> impl Iterator<Item = &Clip> + '_ {
        self.clips
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.stopped.contains(&(*i as u32)))
            .map(|(_, c)| c)
    }

    /// Let the blinks play (`on`) or stop them, whatever the choice plays.
    pub fn set_blinking(&mut self, on: bool) {
        self.ff7.blinks_stopped = !on;
        let blinks = &self.ff7.blinks;
        self.stopped.retain(|c| !blinks.contains(c));
        if !on {
            self.stopped.extend(blinks.iter().copied());
        }
    }

    /// The clips that play and loop with the timeline: those that play, less the blinks.
    pub fn timeline_clips(&self) -> impl Iterator<Item = &Clip> + '_ {
        self.clips
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                !self.stopped.contains(&(*i as u32)) && !self.ff7.blinks.contains(&(*i as u32))
            })
            .map(|(_, c)| c)
    }

    /// The transforms of nodes as animated at `seconds`, for nodes that clips move.
    pub fn pose(&self, seconds: f64) -> Vec<Transform> {
        let mut pose: Vec<Transform> = self.nodes.iter().map(|n| n.transform).collect();
        for clip in self.playing() {
            let t = clip.local_time(seconds);
            for track in &clip.tracks {
                let v = track.sample(t, clip.repeat);
                match track.target {
                    Target::Translation(n) => pose[n as usize].translation = [v[0], v[1], v[2]],
                    Target::Rotation(n) => pose[n as usize].rotation = [v[0], v[1], v[2], v[3]],
                    Target::Scale(n) => pose[n as usize].scale = [v[0], v[1], v[2]],
                    // A hidden node is drawn at no size: it and everything under it vanish.
                    Target::Visibility(n) if v[0] < 0.5 => pose[n as usize].scale = [0.0; 3],
                    Target::Visibility(_) | Target::UvOffset(_) | Target::Glow(_) => {}
                }
            }
        }
        pose
    }

    /// The UV offset of every material at `seconds` (wrapped into [0, 1)).
    pub fn uv_offsets(&self, seconds: f64) -> Vec<[f32; 2]> {
        let mut out = vec![[0.0f32; 2]; self.materials.len()];
        for clip in self.playing() {
            let t = clip.local_time(seconds);
            for track in &clip.tracks {
                if let Target::UvOffset(m) = track.target {
                    let v = track.sample(t, clip.repeat);
                    if let Some(o) = out.get_mut(m as usize) {
                        *o = [v[0].rem_euclid(1.0), v[1].rem_euclid(1.0)];
                    }
                }
            }
        }
        out
    }

    /// The glow of every material at `seconds` (0 where nothing animates it).
    pub fn glows(&self, seconds: f64) -> Vec<f32> {
        let mut out = vec![0.0f32; self.materials.len()];
        for clip in self.playing() {
            let t = clip.local_time(seconds);
            for track in &clip.tracks {
                if let Target::Glow(m) = track.target {
                    if let Some(g) = out.get_mut(m as usize) {
                        *g = track.sample(t, clip.repeat)[0].clamp(0.0, 1.0);
                    }
                }
            }
        }
        out
    }

    /// Materials a clip changes the look of: a UV drift or a glow.
    pub fn animated_materials(&self) -> Vec<MaterialId> {
        let mut out: Vec<MaterialId> = self
            .clips
            .iter()
            .flat_map(|c| &c.tracks)
            .filter_map(|t| match t.target {
                Target::UvOffset(m) | Target::Glow(m) => Some(m),
                _ => None,
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Nodes whose transform some clip changes, or that sit under one.
    pub fn animated_nodes(&self) -> Vec<bool> {
        let mut moved = vec![false; self.nodes.len()];
        for t in self.clips.iter().flat_map(|c| &c.tracks) {
            match t.target {
                Target::Translation(n)
                | Target::Rotation(n)
                | Target::Scale(n)
                | Target::Visibility(n) => {
                    if let Some(m) = moved.get_mut(n as usize) {
                        *m = true;
                    }
                }
                Target::UvOffset(_) | Target::Glow(_) => {}
            }
        }
        for i in 0..self.nodes.len() {
            if let Some(p) = self.nodes[i].parent {
                if (p as usize) < i && moved[p as usize] {
                    moved[i] = true;
                }
            }
        }
        moved
    }

    /// Materials whose UV offset a clip animates.
    pub fn scrolling_materials(&self) -> Vec<MaterialId> {
        let mut out: Vec<MaterialId> = self
            .clips
            .iter()
            .flat_map(|c| &c.tracks)
            .filter_map(|t| {
                if let Target::UvOffset(m) = t.target {
                    Some(m)
                } else {
                    None
                }
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
