//! The test binary's global allocator: the system's, counting the bytes live now and the most
//! live since the last [`Counting::start`], so a test can bound what a call takes.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static ALLOCATOR: Counting = Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

impl Counting {
    /// The bytes live now.
    pub fn live() -> usize {
        LIVE.load(Ordering::SeqCst)
    }

    /// Starts measuring a peak from now: returns the bytes live now.
    pub fn start() -> usize {
        let live = Self::live();
        PEAK.store(live, Ordering::SeqCst);
        live
    }

    /// The most bytes live since [`Counting::start`] returned `start`, above it.
    pub fn peak_above(start: usize) -> usize {
        PEAK.load(Ordering::SeqCst).saturating_sub(start)
    }
}
