//! Which bytes differ, for the page's two hex views: inside a changed record, what is left
//! over on one side, and what the records do not reach.

/// Ranges kept per side at most: past this, a changed record is marked whole (one range), so
/// two files that differ in every other byte cost a bounded list.
pub const MAX_RANGES: usize = 100_000;

/// The differing byte ranges of side A and of side B, as [`ByteRanges::finish`] gives them.
pub(super) type ByteRangePair = (Vec<[usize; 2]>, Vec<[usize; 2]>);

/// The byte ranges `[start, end)` of each side that differ, in file order once finished.
#[derive(Debug, Default)]
pub(super) struct ByteRanges {
    a: Vec<[usize; 2]>,
    b: Vec<[usize; 2]>,
}

impl ByteRanges {
    /// A range of A with no counterpart in B (a removed record).
    pub fn only_a(&mut self, start: usize, end: usize) {
        push(&mut self.a, start, end);
    }

    /// A range of B with no counterpart in A (an added record).
    pub fn only_b(&mut self, start: usize, end: usize) {
        push(&mut self.b, start, end);
    }

    /// Two versions of one record, `a` at byte `at_a` of A and `b` at `at_b` of B. Of equal
    /// length, each run of bytes that differ (a vertex's changed float, not the whole list);
    /// otherwise what lies between their common beginning and their common end.
    pub fn changed(&mut self, a: &[u8], at_a: usize, b: &[u8], at_b: usize) {
        if a.len() == b.len() {
            let mut i = 0;
            while i < a.len() {
                if a[i] == b[i] {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < a.len() && a[i] != b[i] {
                    i += 1;
                }
                if self.a.len() >= MAX_RANGES || self.b.len() >= MAX_RANGES {
                    // Out of room: the rest of the record is one range.
                    self.only_a(at_a + start, at_a + a.len());
                    self.only_b(at_b + start, at_b + b.len());
                    return;
                }
                self.only_a(at_a + start, at_a + i);
                self.only_b(at_b + start, at_b + i);
            }
            return;
        }
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let room = a.len().min(b.len()) - prefix;
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take(room)
            .take_while(|(x, y)| x == y)
            .count();
        self.only_a(at_a + prefix, at_a + a.len() - suffix);
        self.only_b(at_b + prefix, at_b + b.len() - suffix);
    }

    /// Both sides sorted, overlapping and touching ranges merged.
    pub fn finish(self) -> ByteRangePair {
        (merged(self.a), merged(self.b))
    }
}

fn push(out: &mut Vec<[usize; 2]>, start: usize, end: usize) {
    if end <= start {
        return;
    }
    // Runs come mostly in file order: extend the last one where they touch.
    match out.last_mut() {
        Some(last) if last[1] == start => last[1] = end,
        _ => out.push([start, end]),
    }
}

fn merged(mut ranges: Vec<[usize; 2]>) -> Vec<[usize; 2]> {
    ranges.sort_unstable();
    let mut out: Vec<[usize; 2]> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r[0] <= last[1] => last[1] = last[1].max(r[1]),
            _ => out.push(r),
        }
    }
    out
}

/// The first byte at which two byte strings differ (or where the shorter ends).
pub(super) fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_one_length_mark_each_run_that_differs_and_others_the_middle() {
        let mut r = ByteRanges::default();
        r.changed(b"abcdefgh", 100, b"aXcdeYZh", 200);
        assert_eq!(
            r.finish(),
            (vec![[101, 102], [105, 107]], vec![[201, 202], [205, 207]])
        );
        let mut r = ByteRanges::default();
        // One byte inserted: only the middle, on B; A's side is empty and not listed.
        r.changed(b"abcdef", 0, b"abcXdef", 10);
        assert_eq!(r.finish(), (vec![], vec![[13, 14]]));
        let mut r = ByteRanges::default();
        // A repeated byte: the common end does not reach back into the common beginning.
        r.changed(b"aa", 0, b"aaa", 0);
        assert_eq!(r.finish(), (vec![], vec![[2, 3]]));
    }

    #[test]
    fn ranges_are_sorted_and_merged_and_bounded() {
        let mut r = ByteRanges::default();
        r.only_b(50, 60);
        r.only_b(10, 20);
        r.only_b(15, 30);
        r.only_b(30, 31);
        assert_eq!(r.finish().1, vec![[10, 31], [50, 60]]);
        // Every other byte differs in a long record: the list stops growing at the limit.
        let a = vec![0u8; 4 * MAX_RANGES];
        let b: Vec<u8> = (0..a.len()).map(|i| (i % 2) as u8).collect();
        let mut r = ByteRanges::default();
        r.changed(&a, 0, &b, 0);
        let (ra, rb) = r.finish();
        assert!(
            ra.len() <= MAX_RANGES + 1 && rb.len() <= MAX_RANGES + 1,
            "{} {}",
            ra.len(),
            rb.len()
        );
        assert_eq!(
            ra.last().unwrap()[1],
            a.len(),
            "the rest is one range to the record's end"
        );
    }
}
