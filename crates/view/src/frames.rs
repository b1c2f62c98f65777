//! Frames drawn in the last second: the viewer draws only when something changes, so this
//! is what it drew, not what it could.

use std::collections::VecDeque;

#[derive(Debug, Default, Clone)]
pub struct FrameRate {
    /// Page times (ms) of the frames of the last second, oldest first.
    times: VecDeque<f64>,
}

impl FrameRate {
    /// A frame drawn at `now_ms`; frames older than a second go.
    pub fn drawn(&mut self, now_ms: f64) {
        self.times.push_back(now_ms);
        while self.times.front().is_some_and(|&t| now_ms - t > 1000.0) {
            self.times.pop_front();
        }
    }
    /// Frames drawn in the second before `now_ms`.
    pub fn fps(&self, now_ms: f64) -> usize {
        self.times.iter().filter(|&&t| now_ms - t <= 1000.0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fps_counts_the_last_second_and_keeps_no_more() {
        let mut f = FrameRate::default();
        for k in 0..600 {
            f.drawn(k as f64 * 1000.0 / 60.0);
        }
        assert_eq!(f.fps(599.0 * 1000.0 / 60.0), 61);
        assert!(
            f.times.len() <= 61,
            "old frames are dropped as new ones come"
        );
        assert_eq!(f.fps(20_000.0), 0, "an idle viewer draws nothing");
    }
}
