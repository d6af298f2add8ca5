//! netsift's `native` filters: a shared object with the C entry point
//! `netsift_filter` (`include/netsift_native.h`, ABI 1), checked, loaded with
//! `libloading` and called once per packet, as FFPF let root run C.
//!
//! [`Filter::open`] refuses an object that is given by a relative path, is not
//! a regular file, is not owned by root, or is writable by its group or by
//! others, and one without `netsift_filter` or built for another ABI. The
//! file is opened once and checked through that descriptor, and the loader
//! maps that same file (`/proc/self/fd/N`), so it cannot be swapped between
//! the check and the load. Who may name an object at all (root only) is the
//! caller's rule: the graph's class table marks `native` root-only.
//!
//! The object's code runs in the calling process with its privileges: it is
//! trusted, as a kernel module is, once root has put it in place.

#![deny(unsafe_op_in_unsafe_fn)]

use libloading::os::unix::{Library, Symbol, RTLD_LOCAL, RTLD_NOW};
use std::fmt;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The ABI version this crate calls (`NETSIFT_NATIVE_ABI`).
pub const ABI: u32 = 1;

/// `netsift_filter`'s type.
type FilterFn = unsafe extern "C" fn(*const u8, u32, u32, *mut u8, u32) -> u32;
/// `netsift_init`'s type.
type InitFn = unsafe extern "C" fn(*mut u8, u32) -> i32;

/// Why an object was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The object's path.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for Error {}

/// A loaded native filter.
pub struct Filter {
    filter: FilterFn,
    // Keeps the object mapped while `filter` may be called; dropped last.
    _lib: Library,
}

impl fmt::Debug for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").finish_non_exhaustive()
    }
}

impl Filter {
    /// Checks and loads the object at `path`, then calls its `netsift_init`
    /// (if it has one) on `mbuf`.
    pub fn open(path: &str, mbuf: &mut [u8]) -> Result<Filter, Error> {
        let fail = |message: String| Error {
            path: path.to_string(),
            message,
        };
        if !path.starts_with('/') {
            return Err(fail(
                "a native filter must be given by an absolute path".into(),
            ));
        }
        let file = File::open(Path::new(path)).map_err(|e| fail(e.to_string()))?;
        let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("not a regular file".into()));
        }
        if meta.uid() != 0 {
            return Err(fail(format!(
                "owned by uid {}, not root: only root's objects are loaded",
                meta.uid()
            )));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(fail(format!(
                "writable by its group or by others (mode {:o}): only root may be able to change it",
                meta.mode() & 0o7777
            )));
        }
        let via = format!("/proc/self/fd/{}", file.as_raw_fd());
        // SAFETY: loading runs the object's initialisers in this process. The
        // object is a regular file owned by root and writable only by root
        // (checked above on the very descriptor the loader maps), which is
        // the trust this class asks for: root put it there to be run.
        let lib = unsafe { Library::open(Some(&via), RTLD_NOW | RTLD_LOCAL) }
            .map_err(|e| fail(format!("cannot be loaded: {e}")))?;
        drop(file);
        // SAFETY: `netsift_abi` is declared `const uint32_t` by the header;
        // an object that gives the symbol another type breaks the ABI it
        // names, which root vouched for by installing it.
        let abi: Option<Symbol<*const u32>> = unsafe { lib.get(b"netsift_abi\0") }.ok();
        if let Some(abi) = abi {
            // SAFETY: a non-null symbol address of a `const uint32_t` the
            // object defines, mapped while `lib` lives.
            let v = unsafe { (*abi).read_unaligned() };
            if v != ABI {
                return Err(fail(format!(
                    "built for native ABI {v}; this daemon calls ABI {ABI}"
                )));
            }
        }
        // SAFETY: the header declares `netsift_filter` with exactly
        // `FilterFn`'s C signature; the pointer is copied out of the
        // `Symbol`, and `Filter` keeps `lib` (its mapping) alive as long.
        let filter: FilterFn = unsafe { lib.get::<FilterFn>(b"netsift_filter\0") }
            .map(|s| *s)
            .map_err(|_| fail("has no `netsift_filter` symbol (see netsift_native.h)".into()))?;
        // SAFETY: as above, `netsift_init` with `InitFn`'s C signature.
        let init: Option<InitFn> = unsafe { lib.get::<InitFn>(b"netsift_init\0") }
            .ok()
            .map(|s| *s);
        if let Some(init) = init {
            let (ptr, len) = region(mbuf);
            // SAFETY: `ptr` and `len` describe `mbuf`, which is borrowed
            // mutably for the call (or null and 0 when it is empty), as the
            // header promises the object.
            let r = unsafe { init(ptr, len) };
            if r != 0 {
                return Err(fail(format!("its netsift_init refused the element ({r})")));
            }
        }
        Ok(Filter { filter, _lib: lib })
    }

    /// Runs the filter on `packet` (captured bytes; `wirelen` on the wire)
    /// with `mbuf`: whether it passes.
    pub fn run(&self, packet: &[u8], wirelen: u32, mbuf: &mut [u8]) -> bool {
        let caplen = u32::try_from(packet.len()).unwrap_or(u32::MAX);
        let (ptr, len) = region(mbuf);
        // SAFETY: `packet` is valid for `caplen` bytes (a packet is far
        // shorter than 4 GiB, and never longer than `caplen` says) and
        // `mbuf` for `len` bytes, mutably borrowed, for the call only; the
        // object is mapped while `self` lives.
        unsafe { (self.filter)(packet.as_ptr(), caplen, wirelen.max(caplen), ptr, len) != 0 }
    }
}

/// A mutable region as the ABI passes it: null and 0 when empty.
fn region(mbuf: &mut [u8]) -> (*mut u8, u32) {
    if mbuf.is_empty() {
        (std::ptr::null_mut(), 0)
    } else {
        let len = u32::try_from(mbuf.len()).unwrap_or(u32::MAX);
        (mbuf.as_mut_ptr(), len)
    }
}
