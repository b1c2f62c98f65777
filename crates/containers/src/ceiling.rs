//! A ceiling on any one allocation, for a stretch of code on one thread.
//!
//! A 7z header is compressed, and the counts in it size the reader's tables: a 4 KB archive
//! can declare 30 million entries, which the reader would allocate (some 3 GB) before it
//! could find anything wrong. The reader makes every allocation sized by the header a
//! fallible one (`try_reserve`); under a ceiling those fail as they would on a machine
//! without the memory, and the header is refused with an error instead of the process
//! growing by gigabytes. Elsewhere the ceiling is off and this allocator is the system's.
//!
//! A library does not choose a program's allocator: each program that reads containers (the
//! CLI, the containers wasm module, the tests and fuzz targets that open 7z archives)
//! installs it, in one line:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: CeilingAllocator = CeilingAllocator;
//! ```
//!
//! Without it a ceiling bounds nothing; [`installed`] tells.
//! docs/formats/containers.md, "7z", says what it bounds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct CeilingAllocator;

thread_local! {
    /// The largest single allocation allowed on this thread (usize::MAX: no ceiling).
    static CEILING: Cell<usize> = const { Cell::new(usize::MAX) };
}

fn ceiling() -> usize {
    // During a thread's teardown its locals are gone: no ceiling then.
    CEILING.try_with(Cell::get).unwrap_or(usize::MAX)
}

// SAFETY: every call goes to the system allocator unchanged, or returns null (an allocation
// failure, which callers handle) without touching memory.
unsafe impl GlobalAlloc for CeilingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ceiling() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract for this call is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ceiling() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract for this call is the system allocator's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for this call is the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > ceiling() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract for this call is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Whether this program's allocator is [`CeilingAllocator`]: a ceiling of one byte refuses a
/// two-byte reservation only then.
pub fn installed() -> bool {
    with_ceiling(1, || Vec::<u8>::new().try_reserve_exact(2).is_err())
}

/// Runs `f` with each allocation on this thread limited to `bytes`. Only code whose large
/// allocations are all fallible may run under it: an infallible one above the ceiling
/// aborts, as it would out of memory.
pub fn with_ceiling<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = CEILING.try_with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CEILING.with(|c| c.replace(bytes.min(ceiling()))));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tests_run_under_the_ceiling_allocator() {
        assert!(installed());
    }

    #[test]
    fn a_fallible_allocation_above_the_ceiling_fails_and_the_ceiling_ends_with_its_stretch() {
        let refused = with_ceiling(1 << 20, || {
            Vec::<u8>::new().try_reserve_exact(2 << 20).is_err()
        });
        assert!(refused);
        let small = with_ceiling(1 << 20, || {
            Vec::<u8>::new().try_reserve_exact(1 << 10).is_ok()
        });
        assert!(small);
        // Nested stretches keep the lower ceiling, and each ends with its stretch.
        with_ceiling(1 << 20, || {
            with_ceiling(4 << 20, || {
                assert!(Vec::<u8>::new().try_reserve_exact(2 << 20).is_err())
            });
            assert_eq!(ceiling(), 1 << 20);
        });
        assert_eq!(ceiling(), usize::MAX);
        assert!(Vec::<u8>::new().try_reserve_exact(2 << 20).is_ok());
    }
}
