//! The intercepted functions (`wrap` in `symbols.txt`), each with libpcap's
//! exact C signature.
//!
//! A function that takes a `pcap_t *` asks the registry whether the handle is
//! ours: a real one goes to the real library's function unchanged, one of
//! ours to [`Handle`]. The functions that take names (`pcap_create`,
//! `pcap_open_live`, `pcap_lookupnet`) look for the `netsift:` prefix; the
//! ones that compile and free programs keep the expression text
//! ([`crate::filters`]); `pcap_findalldevs` adds the netsift entries.
//!
//! Nothing unwinds out of these: each body runs under [`guard`], which turns
//! a panic into the function's error value.

use crate::backend;
use crate::devs;
use crate::ffi::*;
use crate::filters;
use crate::handle::{Handle, PREFIX};
use crate::real::{self, Fns};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;

/// Runs `f`; `fail` if it panics.
fn guard<R>(fail: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fail)
}

/// The real library, which a handle of ours implies was loaded.
fn loaded() -> &'static Fns {
    real::fns().expect("a netsift handle exists only once the real libpcap is loaded")
}

/// A C string argument, if not null.
///
/// # Safety
///
/// `s` is null or NUL-terminated.
unsafe fn str_arg<'a>(s: *const c_char) -> Option<&'a str> {
    if s.is_null() {
        return None;
    }
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(s) }.to_str().ok()
}

/// Defines an exported function whose first argument is a `pcap_t *`: the
/// body for a handle of ours, the real function for any other.
macro_rules! on_handle {
    ($(#[$doc:meta])* fn $name:ident($p:ident: P $(, $a:ident: $t:ty)*) -> $ret:ty,
     fail = $fail:expr, |$h:ident| $body:expr) => {
        $(#[$doc])*
        #[no_mangle]
        unsafe extern "C" fn $name($p: *mut PcapT $(, $a: $t)*) -> $ret {
            guard($fail, || {
                // SAFETY: the caller passes a pcap_t that pcap_create or an
                // open function returned (ours or the real library's), as
                // libpcap requires, and uses it from one thread at a time.
                match unsafe { Handle::get($p) } {
                    #[allow(unused_unsafe, clippy::macro_metavars_in_unsafe)]
                    Some($h) => $body,
                    None => match real::fns() {
                        // SAFETY: a real pcap_t and the caller's arguments,
                        // passed on unchanged.
                        Some(f) => unsafe { (f.$name)($p $(, $a)*) },
                        None => $fail,
                    },
                }
            })
        }
    };
}

/// Returns `status::ACTIVATED` from a setter called after activation, else
/// applies `set` to the settings and returns 0.
macro_rules! setting {
    ($h:ident, |$c:ident| $set:expr) => {{
        // SAFETY: one thread at a time uses a handle (libpcap's rule).
        match unsafe { $h.inner() }.settings() {
            Some($c) => {
                $set;
                0
            }
            None => status::ACTIVATED,
        }
    }};
}

on_handle! {
    /// Opens the netsift source.
    fn pcap_activate(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.activate() }
}

on_handle! {
    /// Stops a loop; safe in a signal handler.
    fn pcap_breakloop(p: P) -> (), fail = (), |h| h.breakloop()
}

on_handle! {
    /// The buffer size asked for (0: the default).
    fn pcap_bufsize(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.cfg.buffer_size.map_or(0, |b| b as c_int)
}

on_handle! {
    /// A netsift capture has no monitor mode.
    fn pcap_can_set_rfmon(p: P) -> c_int, fail = status::ERROR, |_h| 0
}

on_handle! {
    /// Stops and frees a handle.
    fn pcap_close(p: P) -> (), fail = (),
    // SAFETY: the caller gives the handle up; it is ours.
    |_h| unsafe { Handle::close(p) }
}

on_handle! {
    /// The link type.
    fn pcap_datalink(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.live().map_or(status::NOT_ACTIVATED, |l| l.0)
}

on_handle! {
    /// The link type with its extension bits (none).
    fn pcap_datalink_ext(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.live().map_or(status::NOT_ACTIVATED, |l| l.0)
}

on_handle! {
    /// One batch of packets.
    fn pcap_dispatch(p: P, cnt: c_int, cb: PcapHandler, user: *mut u8) -> c_int,
    fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle; cb is the caller's handler.
    |h| unsafe { h.dispatch(cnt, cb, user) }
}

on_handle! {
    /// A dump file on an open `FILE`, written by the real library for the
    /// proxy's link type and snap length.
    fn pcap_dump_fopen(p: P, fp: *mut libc::FILE) -> *mut PcapDumper, fail = null_mut(),
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        // SAFETY: the proxy is a live real handle; fp is the caller's.
        let d = unsafe { (loaded().pcap_dump_fopen)(inner.proxy, fp) };
        if d.is_null() {
            inner.take_proxy_error();
        }
        d
    }
}

on_handle! {
    /// A dump file, written by the real library for the proxy's link type and
    /// snap length.
    fn pcap_dump_open(p: P, fname: *const c_char) -> *mut PcapDumper, fail = null_mut(),
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        // SAFETY: the proxy is a live real handle; fname is the caller's.
        let d = unsafe { (loaded().pcap_dump_open)(inner.proxy, fname) };
        if d.is_null() {
            inner.take_proxy_error();
        }
        d
    }
}

on_handle! {
    /// A dump file appended to.
    fn pcap_dump_open_append(p: P, fname: *const c_char) -> *mut PcapDumper, fail = null_mut(),
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        // SAFETY: the proxy is a live real handle; fname is the caller's.
        let d = unsafe { (loaded().pcap_dump_open_append)(inner.proxy, fname) };
        if d.is_null() {
            inner.take_proxy_error();
        }
        d
    }
}

on_handle! {
    /// A live capture has no file.
    fn pcap_file(p: P) -> *mut libc::FILE, fail = null_mut(), |_h| null_mut()
}

on_handle! {
    /// The descriptor that is readable while packets wait.
    fn pcap_fileno(p: P) -> c_int, fail = -1,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.live().map_or(-1, |l| l.2)
}

on_handle! {
    /// No timeout is needed: the descriptor is always selectable.
    fn pcap_get_required_select_timeout(p: P) -> *const libc::timeval,
    fail = std::ptr::null(), |_h| std::ptr::null()
}

on_handle! {
    /// The descriptor that is readable while packets wait.
    fn pcap_get_selectable_fd(p: P) -> c_int, fail = -1,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.live().map_or(-1, |l| l.2)
}

on_handle! {
    /// The time stamp precision.
    fn pcap_get_tstamp_precision(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.precision
}

on_handle! {
    /// The last error.
    fn pcap_geterr(p: P) -> *mut c_char, fail = null_mut(),
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.errbuf()
}

on_handle! {
    /// Whether reads return at once.
    fn pcap_getnonblock(p: P, errbuf: *mut c_char) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.nonblock(None)
}

on_handle! {
    /// Sending is not part of a netsift capture.
    fn pcap_inject(p: P, buf: *const c_void, size: usize) -> c_int, fail = status::ERROR,
    |h| not_sending(h)
}

on_handle! {
    /// Packets are in host byte order.
    fn pcap_is_swapped(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| if unsafe { h.inner() }.activated() { 0 } else { status::NOT_ACTIVATED }
}

on_handle! {
    /// The one link type, listed by the real library for the proxy (so that
    /// its `pcap_free_datalinks` frees the list).
    fn pcap_list_datalinks(p: P, list: *mut *mut c_int) -> c_int, fail = status::ERROR,
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        if !inner.activated() {
            return status::NOT_ACTIVATED;
        }
        // SAFETY: the proxy is a live real handle; list is the caller's.
        unsafe { (loaded().pcap_list_datalinks)(inner.proxy, list) }
    }
}

on_handle! {
    /// The time stamp types, listed by the real library for the proxy.
    fn pcap_list_tstamp_types(p: P, list: *mut *mut c_int) -> c_int, fail = status::ERROR,
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        // SAFETY: the proxy is a live real handle; list is the caller's.
        unsafe { (loaded().pcap_list_tstamp_types)(inner.proxy, list) }
    }
}

on_handle! {
    /// Packets until `cnt`, a break or an error.
    fn pcap_loop(p: P, cnt: c_int, cb: PcapHandler, user: *mut u8) -> c_int,
    fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle; cb is the caller's handler.
    |h| unsafe { h.pcap_loop(cnt, cb, user) }
}

on_handle! {
    /// The pcap file format's major version a dump gets.
    fn pcap_major_version(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| if unsafe { h.inner() }.activated() { 2 } else { status::NOT_ACTIVATED }
}

on_handle! {
    /// The pcap file format's minor version a dump gets.
    fn pcap_minor_version(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| if unsafe { h.inner() }.activated() { 4 } else { status::NOT_ACTIVATED }
}

on_handle! {
    /// The next packet, its header copied to `hdr`; NULL if none.
    fn pcap_next(p: P, hdr: *mut PcapPkthdr) -> *const u8, fail = std::ptr::null(),
    // SAFETY: one thread at a time uses a handle.
    |h| match unsafe { h.next_ex() } {
        Ok((ph, data)) => {
            // SAFETY: hdr is the caller's header to fill; ph is the handle's.
            unsafe { *hdr = *ph };
            data
        }
        Err(_) => std::ptr::null(),
    }
}

on_handle! {
    /// The next packet: 1, 0 on a timeout, or a status.
    fn pcap_next_ex(p: P, hdrp: *mut *mut PcapPkthdr, datap: *mut *const u8) -> c_int,
    fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| match unsafe { h.next_ex() } {
        Ok((ph, data)) => {
            // SAFETY: the caller's pointers to fill.
            unsafe {
                *hdrp = ph;
                *datap = data;
            }
            1
        }
        Err(s) => s,
    }
}

on_handle! {
    /// Prints the last error after `prefix` on stderr.
    fn pcap_perror(p: P, prefix: *const c_char) -> (), fail = (),
    |h| {
        use std::io::Write;
        // SAFETY: one thread at a time uses a handle; the error buffer is
        // NUL-terminated, prefix the caller's string.
        let (e, pre) = unsafe {
            (CStr::from_ptr(h.inner().errbuf()), str_arg(prefix).unwrap_or(""))
        };
        let _ = writeln!(std::io::stderr(), "{pre}: {}", e.to_string_lossy());
    }
}

on_handle! {
    /// Sending is not part of a netsift capture.
    fn pcap_sendpacket(p: P, buf: *const u8, size: c_int) -> c_int, fail = status::ERROR,
    |h| not_sending(h)
}

on_handle! {
    /// The kernel buffer's size.
    fn pcap_set_buffer_size(p: P, size: c_int) -> c_int, fail = status::ERROR,
    |h| setting!(h, |c| if size > 0 { c.buffer_size = Some(size as usize) })
}

on_handle! {
    /// Only the interface's own link type.
    fn pcap_set_datalink(p: P, dlt: c_int) -> c_int, fail = status::ERROR,
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        match inner.live() {
            Some((lt, _, _)) if lt == dlt => 0,
            Some((lt, _, _)) => {
                inner.fail(&format!("link type {dlt} is not supported (the interface's is {lt})"));
                status::ERROR
            }
            None => status::NOT_ACTIVATED,
        }
    }
}

on_handle! {
    /// Hand each packet over as it arrives.
    fn pcap_set_immediate_mode(p: P, on: c_int) -> c_int, fail = status::ERROR,
    |h| setting!(h, |c| c.immediate = on != 0)
}

on_handle! {
    /// Promiscuous mode.
    fn pcap_set_promisc(p: P, on: c_int) -> c_int, fail = status::ERROR,
    |h| setting!(h, |c| c.promiscuous = on != 0)
}

on_handle! {
    /// The ring captures every protocol; the setting is accepted and ignored.
    fn pcap_set_protocol_linux(p: P, protocol: c_int) -> c_int, fail = status::ERROR,
    |h| setting!(h, |_c| {})
}

on_handle! {
    /// Monitor mode (refused at activation).
    fn pcap_set_rfmon(p: P, on: c_int) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.set_rfmon(on != 0)
}

on_handle! {
    /// The snap length (0 or too large: libpcap's 262144).
    fn pcap_set_snaplen(p: P, snaplen: c_int) -> c_int, fail = status::ERROR,
    |h| setting!(h, |c| c.snaplen = snaplen.max(0) as u32)
}

on_handle! {
    /// The packet buffer timeout.
    fn pcap_set_timeout(p: P, ms: c_int) -> c_int, fail = status::ERROR,
    |h| setting!(h, |c| c.timeout_ms = ms)
}

on_handle! {
    /// Micro- or nanosecond time stamps.
    fn pcap_set_tstamp_precision(p: P, precision: c_int) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.set_precision(precision)
}

on_handle! {
    /// Host time stamps only.
    fn pcap_set_tstamp_type(p: P, t: c_int) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.set_tstamp_type(t)
}

on_handle! {
    /// Which direction is captured.
    fn pcap_setdirection(p: P, d: c_int) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.setdirection(d) }
}

on_handle! {
    /// The filter: its text to the source, or its program run in the shim.
    fn pcap_setfilter(p: P, fp: *mut BpfProgram) -> c_int, fail = status::ERROR,
    |h| {
        if fp.is_null() {
            // SAFETY: one thread at a time uses a handle.
            unsafe { h.inner() }.fail("No filter specified");
            return status::ERROR;
        }
        // SAFETY: one thread at a time uses a handle; fp is the caller's
        // valid program.
        unsafe { h.setfilter(&*fp) }
    }
}

on_handle! {
    /// Whether reads return at once.
    fn pcap_setnonblock(p: P, on: c_int, errbuf: *mut c_char) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| { unsafe { h.inner() }.nonblock(Some(on != 0)); 0 }
}

on_handle! {
    /// The snap length.
    fn pcap_snapshot(p: P) -> c_int, fail = status::ERROR,
    // SAFETY: one thread at a time uses a handle.
    |h| unsafe { h.inner() }.live().map_or(status::NOT_ACTIVATED, |l| l.1)
}

on_handle! {
    /// What the source counted: packets accepted, and (once the capture
    /// ended) the kernel's drops. Safe in a signal handler.
    fn pcap_stats(p: P, ps: *mut PcapStat) -> c_int, fail = status::ERROR,
    |h| match h.stats() {
        Some(s) if !ps.is_null() => {
            // SAFETY: the caller's struct to fill.
            unsafe {
                *ps = PcapStat {
                    ps_recv: s.received as u32,
                    ps_drop: s.dropped as u32,
                    ps_ifdrop: 0,
                };
            }
            0
        }
        _ => status::NOT_ACTIVATED,
    }
}

on_handle! {
    /// Compiles on the proxy (the real compiler, for the capture's link type),
    /// and remembers the text.
    fn pcap_compile(p: P, fp: *mut BpfProgram, text: *const c_char, optimize: c_int, netmask: u32)
        -> c_int, fail = status::ERROR,
    |h| {
        // SAFETY: one thread at a time uses a handle.
        let inner = unsafe { h.inner() };
        // SAFETY: the proxy is a live real handle; the rest is the caller's.
        let r = unsafe { (loaded().pcap_compile)(inner.proxy, fp, text, optimize, netmask) };
        if r < 0 {
            inner.take_proxy_error();
        } else {
            // SAFETY: compiled, so fp is a valid program and text a string.
            unsafe { remember(fp, text) };
        }
        r
    }
}

/// Remembers `fp`'s text.
///
/// # Safety
///
/// `fp` is a compiled program, `text` null or NUL-terminated.
unsafe fn remember(fp: *mut BpfProgram, text: *const c_char) {
    // SAFETY: the caller's promise.
    let t = unsafe { str_arg(text) }.unwrap_or("");
    // SAFETY: as above.
    if let Some(p) = unsafe { fp.as_ref() } {
        filters::remember(p, t.to_string());
    }
}

/// The error of `pcap_inject` and `pcap_sendpacket`.
fn not_sending(h: &Handle) -> c_int {
    // SAFETY: one thread at a time uses a handle.
    unsafe { h.inner() }.fail("sending packets is not supported on a netsift capture");
    status::ERROR
}

/// The real library, or its load error in `errbuf`.
///
/// # Safety
///
/// `errbuf` is null or holds PCAP_ERRBUF_SIZE bytes.
unsafe fn real_or_err(errbuf: *mut c_char) -> Option<&'static Fns> {
    match real::real() {
        Ok(r) => Some(&r.f),
        Err(e) => {
            // SAFETY: the caller's buffer.
            unsafe { set_errbuf(errbuf, &e.to_string()) };
            None
        }
    }
}

/// A handle for `source`: ours for `netsift:IFACE`, else the real library's.
#[no_mangle]
unsafe extern "C" fn pcap_create(source: *const c_char, errbuf: *mut c_char) -> *mut PcapT {
    guard(null_mut(), || {
        // SAFETY: source is null or a C string (libpcap's contract).
        if let Some(name) = unsafe { str_arg(source) }.filter(|s| backend::route(s).is_some()) {
            // SAFETY: errbuf holds PCAP_ERRBUF_SIZE bytes.
            return unsafe { Handle::create(name, errbuf) };
        }
        // SAFETY: errbuf holds PCAP_ERRBUF_SIZE bytes.
        match unsafe { real_or_err(errbuf) } {
            // SAFETY: the caller's arguments, passed on unchanged.
            Some(f) => unsafe { (f.pcap_create)(source, errbuf) },
            None => null_mut(),
        }
    })
}

/// `pcap_create`, the settings and `pcap_activate` in one, as libpcap's own
/// `pcap_open_live` does them, with its error messages.
#[no_mangle]
unsafe extern "C" fn pcap_open_live(
    device: *const c_char,
    snaplen: c_int,
    promisc: c_int,
    to_ms: c_int,
    errbuf: *mut c_char,
) -> *mut PcapT {
    guard(null_mut(), || {
        // SAFETY: device is null or a C string (libpcap's contract).
        let Some(name) = unsafe { str_arg(device) }.filter(|s| backend::route(s).is_some()) else {
            // SAFETY: errbuf holds PCAP_ERRBUF_SIZE bytes.
            return match unsafe { real_or_err(errbuf) } {
                // SAFETY: the caller's arguments, passed on unchanged.
                Some(f) => unsafe { (f.pcap_open_live)(device, snaplen, promisc, to_ms, errbuf) },
                None => null_mut(),
            };
        };
        // SAFETY: errbuf holds PCAP_ERRBUF_SIZE bytes; p is ours until closed.
        unsafe {
            let p = Handle::create(name, errbuf);
            if p.is_null() {
                return p;
            }
            pcap_set_snaplen(p, snaplen);
            pcap_set_promisc(p, promisc);
            pcap_set_timeout(p, to_ms);
            let st = pcap_activate(p);
            if st < 0 {
                let h = Handle::get(p).expect("just made");
                let e = CStr::from_ptr(h.inner().errbuf())
                    .to_string_lossy()
                    .into_owned();
                let s = CStr::from_ptr((loaded().pcap_statustostr)(st)).to_string_lossy();
                let m = match st {
                    status::ERROR => format!("{name}: {e}"),
                    status::NO_SUCH_DEVICE | status::PERM_DENIED => format!("{name}: {s} ({e})"),
                    _ => format!("{name}: {s}"),
                };
                set_errbuf(errbuf, &m);
                Handle::close(p);
                return null_mut();
            }
            p
        }
    })
}

/// The real list of interfaces, then the netsift ones.
#[no_mangle]
unsafe extern "C" fn pcap_findalldevs(alldevs: *mut *mut PcapIf, errbuf: *mut c_char) -> c_int {
    guard(status::ERROR, || {
        // SAFETY: errbuf holds PCAP_ERRBUF_SIZE bytes.
        match unsafe { real_or_err(errbuf) } {
            // SAFETY: the caller's buffer and list pointer, passed on.
            Some(f) => unsafe { devs::findalldevs(f, alldevs, errbuf) },
            None => status::ERROR,
        }
    })
}

/// Frees a list from `pcap_findalldevs`, netsift entries and all.
#[no_mangle]
unsafe extern "C" fn pcap_freealldevs(list: *mut PcapIf) {
    guard((), || {
        if let Some(f) = real::fns() {
            // SAFETY: a list from pcap_findalldevs, freed once.
            unsafe { devs::freealldevs(f, list) }
        }
    })
}

/// Prints a program as libpcap's `bpf_dump` does, but through the program's
/// own stdio: the real library's `printf` would write into its namespace's
/// `stdout` buffer, which the program's output and `exit()` never meet.
#[no_mangle]
unsafe extern "C" fn bpf_dump(p: *const BpfProgram, option: c_int) {
    guard((), || {
        // SAFETY: p is the caller's valid program.
        let Some(p) = (unsafe { p.as_ref() }) else {
            return;
        };
        // SAFETY: bf_len instructions at bf_insns.
        let insns = unsafe { filters::copy(p) };
        // SAFETY: printf and puts of the program's libc with format strings
        // whose conversions match the arguments, as libpcap's bpf_dump has
        // them; bpf_image returns a NUL-terminated string.
        unsafe {
            if option > 2 {
                libc::printf(c"%d\n".as_ptr(), insns.len() as c_int);
                for i in &insns {
                    let (code, jt, jf) =
                        (c_int::from(i.code), c_int::from(i.jt), c_int::from(i.jf));
                    libc::printf(c"%u %u %u %u\n".as_ptr(), code, jt, jf, i.k);
                }
            } else if option > 1 {
                for i in &insns {
                    let (code, jt, jf) =
                        (c_int::from(i.code), c_int::from(i.jt), c_int::from(i.jf));
                    libc::printf(c"{ 0x%x, %d, %d, 0x%08x },\n".as_ptr(), code, jt, jf, i.k);
                }
            } else if let Some(f) = real::fns() {
                for (n, i) in insns.iter().enumerate() {
                    libc::puts((f.bpf_image)(i, n as c_int));
                }
            }
        }
    })
}

/// Compiles without a handle, and remembers the text.
#[no_mangle]
unsafe extern "C" fn pcap_compile_nopcap(
    snaplen: c_int,
    linktype: c_int,
    fp: *mut BpfProgram,
    text: *const c_char,
    optimize: c_int,
    netmask: u32,
) -> c_int {
    guard(status::ERROR, || {
        let Some(f) = real::fns() else {
            return status::ERROR;
        };
        // SAFETY: the caller's arguments, passed on.
        let r = unsafe { (f.pcap_compile_nopcap)(snaplen, linktype, fp, text, optimize, netmask) };
        if r == 0 {
            // SAFETY: compiled, so fp is valid and text a string.
            unsafe { remember(fp, text) };
        }
        r
    })
}

/// Forgets a program's text and frees it.
#[no_mangle]
unsafe extern "C" fn pcap_freecode(fp: *mut BpfProgram) {
    guard((), || {
        // SAFETY: fp is null or the caller's program.
        if let Some(p) = unsafe { fp.as_ref() } {
            filters::forget(p);
        }
        if let Some(f) = real::fns() {
            // SAFETY: the caller's program, freed by the library that
            // allocated its instructions.
            unsafe { (f.pcap_freecode)(fp) }
        }
    })
}

/// The network of an interface: of IFACE for `netsift:IFACE`.
#[no_mangle]
unsafe extern "C" fn pcap_lookupnet(
    device: *const c_char,
    net: *mut u32,
    mask: *mut u32,
    errbuf: *mut c_char,
) -> c_int {
    guard(status::ERROR, || {
        // SAFETY: the caller's buffer.
        let Some(f) = (unsafe { real_or_err(errbuf) }) else {
            return status::ERROR;
        };
        // SAFETY: device is null or a C string.
        let dev = unsafe { str_arg(device) };
        match dev.and_then(|d| {
            d.strip_prefix(PREFIX)
                .or_else(|| d.strip_prefix(backend::LOCAL_PREFIX))
        }) {
            Some(iface) => {
                let c = std::ffi::CString::new(iface).unwrap_or_default();
                // SAFETY: a C string that lives through the call; the rest
                // is the caller's.
                unsafe { (f.pcap_lookupnet)(c.as_ptr(), net, mask, errbuf) }
            }
            // SAFETY: the caller's arguments, passed on.
            None => unsafe { (f.pcap_lookupnet)(device, net, mask, errbuf) },
        }
    })
}
