//! The addon's allocator: glibc's (musl's on musl), tuned for images made
//! to fit, with each buffer of 8 MiB or more marked for 2 MiB pages.
//!
//! - Sizes (`prepare_for_fits`): glibc otherwise raises the size from which
//!   it maps a buffer fresh as large buffers are freed (up to 32 MiB) and
//!   keeps what a thread frees in that thread's arena, so with the thread
//!   pool's arenas the process would grow past the fitting budget
//!   (`image_fit::memory::Budget`) with memory no fit holds: 16 fits of
//!   3000x3000 on 16 threads under a 200 MiB budget peaked at 505 MiB
//!   resident. From 8 MiB every buffer is mapped and given back when freed.
//!   An arena then gives back the free memory at its top only beyond 16 MiB,
//!   twice that size, as glibc sets it itself when it raises the size: fixing
//!   one stops glibc adjusting the other, which stays at 128 KiB, and every
//!   conversion of a part of 100 KB or more then grew the heap and gave it
//!   back (`brk` twice, its pages faulted in and zeroed again), up to twice
//!   as slow, by the order of earlier calls.
//! - After each fit (`give_back_freed`), the free pages of every arena go
//!   back: what a fit freed below 8 MiB stays in its thread's arena, up to
//!   16 MiB a thread, and the 16 fits above still peaked at 231-260 MiB;
//!   with this, at 205-232 (docs/images.md).
//! - Huge pages (`HugePagesForLargeBuffers`): a buffer mapped fresh is
//!   faulted in and zeroed 4 KiB at a time on first write. On the 2-core
//!   virtual machine of docs/performance.md that cost about 25 ms per 43 MB,
//!   three times the work done on the bytes: reading a base64 string of
//!   32 MiB into Rust took 30 ms where the copy itself takes 3 (Bun's own
//!   allocator keeps and reuses its memory, so the same copy in JS costs
//!   about 5 ms there). Marked with `madvise(MADV_HUGEPAGE)` before it is
//!   written, it is faulted in 2 MiB at a time: 512 times fewer faults.
//!   Linux uses them for a range marked so when transparent huge pages are
//!   `always` or `madvise` (the usual default); with `never` the mark does
//!   nothing. The contents do not change, and a buffer is written from its
//!   start, so at most its last 2 MiB page is partly unused.

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::raw::{c_int, c_void};

/// Buffers from this size on are mapped fresh: by glibc once
/// `prepare_for_fits` has set it so, by musl from far smaller sizes.
use crate::image_fit::MAPPED_FROM;

/// The base page size on every Linux target we build (x86_64, aarch64).
const PAGE: usize = 4096;

extern "C" {
    fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
}

/// Sets glibc's sizes, once, before the first image is fitted, and has
/// every fit give back what it freed.
pub fn prepare_for_fits() {
    #[cfg(target_env = "gnu")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            extern "C" {
                fn mallopt(param: c_int, value: c_int) -> c_int;
            }
            /// glibc's `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` (malloc.h).
            const M_TRIM_THRESHOLD: c_int = -1;
            const M_MMAP_THRESHOLD: c_int = -3;
            // SAFETY: `mallopt` (glibc, the allocator of Rust's `System`
            // allocator and of the host) takes two integers and changes
            // only the sizes from which allocations are mapped and free
            // memory is given back, under the allocator's own lock; memory
            // in use is not touched.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, MAPPED_FROM as c_int);
                mallopt(M_TRIM_THRESHOLD, 2 * MAPPED_FROM as c_int);
            }
            crate::image_fit::set_give_back_freed(give_back_freed);
        });
    }
}

/// Gives the system the whole free pages of every arena. The main heap
/// keeps up to the trim threshold at its top, so calls after a fit do not
/// grow it again page by page.
#[cfg(target_env = "gnu")]
fn give_back_freed() {
    extern "C" {
        fn malloc_trim(pad: usize) -> c_int;
    }
    // SAFETY: `malloc_trim` (glibc) takes the bytes to keep at the main
    // heap's top and gives back free pages under each arena's own lock;
    // memory in use is not touched.
    unsafe { malloc_trim(2 * MAPPED_FROM) };
}

/// `MADV_HUGEPAGE` (asm-generic/mman-common.h, the same on x86_64 and aarch64).
const MADV_HUGEPAGE: c_int = 14;

/// Marks the whole pages inside `[ptr, ptr + size)` for huge pages. A hint:
/// its failure (an old kernel, THP compiled out) changes nothing.
fn mark(ptr: *mut u8, size: usize) {
    if ptr.is_null() || size < MAPPED_FROM {
        return;
    }
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize + size) & !(PAGE - 1);
    if end > start {
        // SAFETY: `[start, end)` lies inside the allocation just made (the
        // range was rounded inwards to whole pages), which nothing else
        // uses yet. MADV_HUGEPAGE only sets how the kernel backs those
        // pages; it never changes or frees their contents.
        unsafe { madvise(start as *mut c_void, end - start, MADV_HUGEPAGE) };
    }
}

pub struct HugePagesForLargeBuffers;

// SAFETY: every method hands the request to `System` unchanged and returns
// its answer; `mark` only adds a hint on the memory `System` returned. The
// one path that does more, `realloc` from a small buffer to a large one, is
// `GlobalAlloc::realloc`'s default (allocate, copy the old size, free),
// whose contract it keeps.
unsafe impl GlobalAlloc for HugePagesForLargeBuffers {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let ptr = unsafe { System.alloc(layout) };
        mark(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        mark(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on: `ptr` came
        // from this allocator, so from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= MAPPED_FROM && layout.size() < MAPPED_FROM {
            // Growing into a fresh mapping: marked before the copy writes it
            // (glibc's own realloc would copy first).
            // SAFETY: the caller guarantees `new_size` with `layout.align()`
            // is a valid layout.
            let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            // SAFETY: a non-zero size (at least MAPPED_FROM).
            let new_ptr = unsafe { self.alloc(new_layout) };
            if !new_ptr.is_null() {
                // SAFETY: both blocks are live, distinct, and at least
                // `layout.size()` long; `ptr` came from this allocator with
                // `layout` and is freed once, after the copy.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, new_ptr, layout.size());
                    self.dealloc(ptr, layout);
                }
            }
            return new_ptr;
        }
        // SAFETY: the caller's contract for `realloc`, passed on.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        mark(new_ptr, new_size);
        new_ptr
    }
}
