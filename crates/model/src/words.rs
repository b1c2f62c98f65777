//! Counts in words for labels the reader sees: "1 frame", "12 frames", "1 vertex".

/// `n` and the noun, plural unless `n` is 1: the noun plus "s".
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` and the noun for nouns whose plural is not the noun plus "s".
pub fn count_as(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// [`count`] for lengths.
pub fn count_len(n: usize, noun: &str) -> String {
    count(n as u64, noun)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(count(1u32, "frame"), "1 frame");
        assert_eq!(count(0u32, "frame"), "0 frames");
        assert_eq!(count(24u16, "animation"), "24 animations");
        assert_eq!(count_len(1, "bone"), "1 bone");
        assert_eq!(count_as(1u8, "vertex", "vertices"), "1 vertex");
        assert_eq!(count_as(3u8, "vertex", "vertices"), "3 vertices");
    }
}
