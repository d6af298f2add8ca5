//! A `netsift:IFACE` handle: what `pcap_create` returns for such a name, and
//! what every intercepted function does with one.
//!
//! [`Handle`] is the shim's own struct behind the `pcap_t *` (the registry
//! says which pointers are ours). It keeps the settings `pcap_set_*` made
//! until `pcap_activate` opens a [`LiveSource`]; a *proxy*, a real `pcap_t`
//! from `pcap_open_dead(linktype, snaplen)`, on which the real library
//! compiles filters, opens dump files and lists link types, exactly as it
//! would for a live handle of that link type; and an error buffer that
//! `pcap_geterr` returns.
//!
//! libpcap lets one thread at a time use a handle, except `pcap_breakloop`
//! and `pcap_stats`, which programs call from signal handlers. So the
//! settings live in an `UnsafeCell` reached by one thread, and the break flag
//! and the source's [`Control`] are atomics and lock-free, reached from
//! anywhere. The reading loop never holds a borrow of the settings while it
//! calls the program's callback, which may call back into the shim.

use crate::backend::{self, Control, Direction, LiveSource, OpenConfig, Packet, PacketRef};
use crate::ffi::*;
use crate::real::{self, Real};
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The prefix of the interface names `pcap_findalldevs` adds.
pub(crate) const PREFIX: &str = backend::DAEMON_PREFIX;

/// libpcap's default and largest snap length.
const MAX_SNAPLEN: u32 = 262_144;

/// `DLT_EN10MB`: the proxy's link type until the source says.
const DLT_EN10MB: c_int = 1;

/// Packets taken from the source at a time.
const BATCH: usize = 256;

/// `PCAP_WARNING_TSTAMP_TYPE_NOTSUP`.
const WARNING_TSTAMP_TYPE_NOTSUP: c_int = 3;

/// A netsift handle.
pub(crate) struct Handle {
    brk: AtomicBool,
    control: OnceLock<Arc<dyn Control>>,
    inner: UnsafeCell<Inner>,
}

/// The settings and state one thread at a time uses.
pub(crate) struct Inner {
    pub(crate) iface: String,
    /// Which backend opens it ([`backend::route`]).
    backend: &'static dyn backend::Backend,
    pub(crate) cfg: OpenConfig,
    rfmon: bool,
    pub(crate) precision: c_int,
    nonblock: bool,
    /// The source; taken out while it reads in place, so that a callback
    /// that calls back into the shim finds no borrow of it alive.
    source: Option<Box<dyn LiveSource>>,
    /// Whether `pcap_activate` opened the source (it stays so while the
    /// source is taken out).
    activated: bool,
    /// The source's selectable descriptor, once asked for.
    selectable: c_int,
    linktype: c_int,
    /// The real `pcap_t` the real library works on for this handle.
    pub(crate) proxy: *mut PcapT,
    errbuf: [c_char; ERRBUF_SIZE],
    pending: VecDeque<Packet>,
    /// A program the shim runs itself (one compiled elsewhere, or one the
    /// backend could not take).
    shim_filter: Option<Arc<Vec<BpfInsn>>>,
    /// The last packet taken from `pending`, kept (moved, not copied) so
    /// that `pcap_next_ex` may point its caller to it until the next read.
    current: Vec<u8>,
    current_hdr: PcapPkthdr,
}

/// How a read ended.
enum Read {
    /// This many packets were delivered (maybe 0 after a timeout).
    Packets(c_int),
    /// `pcap_breakloop` was called.
    Break,
    /// An error, in the error buffer.
    Error,
}

impl Handle {
    /// The handle behind `p`, if `p` is one of ours.
    ///
    /// # Safety
    ///
    /// `p` is null, a real `pcap_t`, or a handle of ours not yet closed.
    pub(crate) unsafe fn get<'a>(p: *mut PcapT) -> Option<&'a Handle> {
        if !crate::registry::contains(p.cast()) {
            return None;
        }
        // SAFETY: the registry holds only pointers from Box::into_raw of a
        // Handle, removed before the Box is dropped.
        Some(unsafe { &*p.cast::<Handle>() })
    }

    /// Makes a handle for `name` (`netsift:IFACE`), or says why not in
    /// `errbuf`.
    ///
    /// # Safety
    ///
    /// `errbuf` is null or holds [`ERRBUF_SIZE`] bytes.
    pub(crate) unsafe fn create(name: &str, errbuf: *mut c_char) -> *mut PcapT {
        let Some((backend, iface)) = backend::route(name) else {
            // SAFETY: the caller's buffer.
            unsafe { set_errbuf(errbuf, &format!("netsift: {name}: not a netsift interface")) };
            return std::ptr::null_mut();
        };
        let fail = |m: String| {
            // SAFETY: the caller's buffer.
            unsafe { set_errbuf(errbuf, &m) };
            std::ptr::null_mut()
        };
        if iface.is_empty() {
            return fail(format!(
                "netsift: {name}: no interface named after `{PREFIX}`"
            ));
        }
        let real = match real::real() {
            Ok(r) => r,
            Err(e) => return fail(e.to_string()),
        };
        let proxy = dead(real, DLT_EN10MB, MAX_SNAPLEN, TSTAMP_PRECISION_MICRO);
        if proxy.is_null() {
            return fail(format!("netsift: {iface}: pcap_open_dead failed"));
        }
        let h = Box::new(Handle {
            brk: AtomicBool::new(false),
            control: OnceLock::new(),
            inner: UnsafeCell::new(Inner {
                iface: iface.to_string(),
                backend,
                cfg: OpenConfig {
                    snaplen: MAX_SNAPLEN,
                    promiscuous: false,
                    timeout_ms: 0,
                    immediate: false,
                    buffer_size: None,
                    direction: Direction::InOut,
                },
                rfmon: false,
                precision: TSTAMP_PRECISION_MICRO,
                nonblock: false,
                source: None,
                activated: false,
                selectable: -1,
                linktype: DLT_EN10MB,
                proxy,
                errbuf: [0; ERRBUF_SIZE],
                pending: VecDeque::new(),
                shim_filter: None,
                current: Vec::new(),
                current_hdr: PcapPkthdr {
                    ts: libc::timeval {
                        tv_sec: 0,
                        tv_usec: 0,
                    },
                    caplen: 0,
                    len: 0,
                },
            }),
        });
        let p = Box::into_raw(h);
        if !crate::registry::insert(p.cast()) {
            // SAFETY: just made by Box::into_raw and never shared.
            let h = unsafe { Box::from_raw(p) };
            // SAFETY: the proxy is a live real handle, closed once.
            unsafe { (real.f.pcap_close)(h.inner.into_inner().proxy) };
            return fail(format!(
                "netsift: {iface}: more than {} netsift handles open",
                crate::registry::CAPACITY
            ));
        }
        p.cast()
    }

    /// Closes the handle `p`: the source stops, the proxy is closed.
    ///
    /// # Safety
    ///
    /// `p` is a handle of ours (from [`Handle::create`]) that no other thread
    /// uses, and is not used after.
    pub(crate) unsafe fn close(p: *mut PcapT) {
        crate::registry::remove(p.cast());
        // SAFETY: the caller's promise; it left the registry above, so no
        // other function reaches it now.
        let h = unsafe { Box::from_raw(p.cast::<Handle>()) };
        let mut inner = h.inner.into_inner();
        if let Some(mut s) = inner.source.take() {
            s.close();
        }
        if let Some(f) = real::fns() {
            // SAFETY: the proxy is a live real handle, closed once.
            unsafe { (f.pcap_close)(inner.proxy) };
        }
    }

    /// The settings.
    ///
    /// # Safety
    ///
    /// No other reference to them is alive: libpcap's rule that one thread at
    /// a time uses a handle, and no borrow held across a callback.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn inner(&self) -> &mut Inner {
        // SAFETY: the caller's promise.
        unsafe { &mut *self.inner.get() }
    }

    /// `pcap_breakloop`: async-signal-safe.
    pub(crate) fn breakloop(&self) {
        self.brk.store(true, Ordering::Release);
        if let Some(c) = self.control.get() {
            c.interrupt();
        }
    }

    /// `pcap_stats`: async-signal-safe.
    pub(crate) fn stats(&self) -> Option<backend::Stats> {
        self.control.get().map(|c| c.stats())
    }

    /// `pcap_activate`.
    ///
    /// # Safety
    ///
    /// As [`Handle::inner`].
    pub(crate) unsafe fn activate(&self) -> c_int {
        // SAFETY: the caller's promise.
        let inner = unsafe { self.inner() };
        if inner.activated {
            return status::ACTIVATED;
        }
        if inner.rfmon {
            inner.fail("monitor mode is not supported on a netsift capture");
            return status::RFMON_NOTSUP;
        }
        let Ok(real) = real::real() else {
            return status::ERROR;
        };
        let snaplen = match inner.cfg.snaplen {
            0 => MAX_SNAPLEN,
            n => n.min(MAX_SNAPLEN),
        };
        inner.cfg.snaplen = snaplen;
        let source = match inner.backend.open(&inner.iface, &inner.cfg) {
            Ok(s) => s,
            Err(e) => {
                inner.fail(&e.message);
                return match e.kind {
                    backend::ErrorKind::NoSuchDevice => status::NO_SUCH_DEVICE,
                    backend::ErrorKind::Permission => status::PERM_DENIED,
                    _ => status::ERROR,
                };
            }
        };
        let linktype = source.linktype() as c_int;
        let proxy = dead(real, linktype, snaplen, inner.precision);
        if proxy.is_null() {
            inner.fail("pcap_open_dead failed");
            return status::ERROR;
        }
        // SAFETY: the old proxy is a live real handle, replaced and closed once.
        unsafe { (real.f.pcap_close)(inner.proxy) };
        inner.proxy = proxy;
        inner.linktype = linktype;
        let _ = self.control.set(source.control());
        inner.source = Some(source);
        inner.activated = true;
        0
    }

    /// `pcap_loop` (`looping`) or `pcap_dispatch`: delivers up to `cnt`
    /// packets (all available where `cnt <= 0`) to `deliver`.
    ///
    /// # Safety
    ///
    /// As [`Handle::inner`], except that `deliver` may use the handle.
    unsafe fn read(
        &self,
        cnt: c_int,
        looping: bool,
        mut deliver: impl FnMut(&PcapPkthdr, &[u8]),
    ) -> Read {
        // SAFETY: the caller's promise; the borrow ends at once.
        let in_place = unsafe { self.inner() }
            .source
            .as_mut()
            .is_some_and(|s| s.in_place().is_some());
        if in_place {
            // SAFETY: the caller's promise.
            return unsafe { self.read_in_place(cnt, looping, &mut deliver) };
        }
        let mut n: c_int = 0;
        loop {
            if self.brk.swap(false, Ordering::AcqRel) {
                return Read::Break;
            }
            let (fd, wait) = {
                // SAFETY: the caller's promise; this borrow ends before
                // `deliver` runs.
                let inner = unsafe { self.inner() };
                let Some(src) = inner.source.as_mut() else {
                    inner.fail("not activated");
                    return Read::Error;
                };
                if inner.pending.is_empty() {
                    match src.next_batch(BATCH, &mut inner.pending) {
                        Ok(true) => {}
                        Ok(false) if n > 0 => return Read::Packets(n),
                        Ok(false) => {
                            inner.fail("the capture has ended");
                            return Read::Error;
                        }
                        Err(e) => {
                            inner.fail(&e.message);
                            return Read::Error;
                        }
                    }
                }
                (src.selectable_fd(), inner.wait_ms())
            };
            let mut any = false;
            loop {
                // SAFETY: as above; the packet is moved out of the settings
                // before the callback runs.
                let next = unsafe { self.inner() }.next_kept();
                let Some((hdr, p)) = next else { break };
                any = true;
                deliver(&hdr, &p.data);
                // Kept until the next read (`pcap_next_ex`'s contract): a move
                // of the vector, whose bytes stay where they are.
                // SAFETY: the caller's promise; `deliver` has returned.
                unsafe { self.inner() }.current = p.data;
                n += 1;
                if cnt > 0 && n >= cnt {
                    return Read::Packets(n);
                }
                if self.brk.swap(false, Ordering::AcqRel) {
                    return Read::Break;
                }
            }
            if any && !looping {
                return Read::Packets(n);
            }
            if any || self.brk.load(Ordering::Acquire) {
                continue;
            }
            if wait == 0 && !looping {
                return Read::Packets(n);
            }
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd on the stack.
            let r = unsafe { libc::poll(&mut pfd, 1, wait) };
            if r == 0 && !looping {
                return Read::Packets(n);
            }
        }
    }

    /// [`Handle::read`] from a source that delivers in place: the source is
    /// taken out of the settings while it calls back (the callback may call
    /// into the shim), and each packet goes from the source's buffer to
    /// `deliver` without a copy.
    ///
    /// # Safety
    ///
    /// As [`Handle::read`]; the source is [`LiveSource::in_place`].
    unsafe fn read_in_place(
        &self,
        cnt: c_int,
        looping: bool,
        deliver: &mut dyn FnMut(&PcapPkthdr, &[u8]),
    ) -> Read {
        let (mut src, wait, precision, filter) = {
            // SAFETY: the caller's promise; this borrow ends before the
            // source calls back.
            let inner = unsafe { self.inner() };
            let Some(src) = inner.source.take() else {
                inner.fail("not activated");
                return Read::Error;
            };
            let wait = match inner.wait_ms() {
                w if w < 0 => None,
                w => Some(std::time::Duration::from_millis(w as u64)),
            };
            (src, wait, inner.precision, inner.shim_filter.clone())
        };
        let mut n: c_int = 0;
        let result = loop {
            if self.brk.swap(false, Ordering::AcqRel) {
                break Ok(Read::Break);
            }
            let Some(ip) = src.in_place() else {
                break Err("the source stopped reading in place".to_string());
            };
            let mut f = |p: &PacketRef<'_>| {
                let hdr = header(precision, p.ts_sec, p.ts_nsec, p.data.len(), p.wire_len);
                if keeps(filter.as_deref(), &hdr, p.data) {
                    deliver(&hdr, p.data);
                    n += 1;
                }
                let done = cnt > 0 && n >= cnt;
                !done && !self.brk.load(Ordering::Acquire)
            };
            match ip.dispatch(wait, &mut f) {
                Err(e) => break Err(e.message),
                Ok(None) if n > 0 => break Ok(Read::Packets(n)),
                Ok(None) => break Err("the capture has ended".to_string()),
                Ok(Some(got)) => {
                    if cnt > 0 && n >= cnt {
                        break Ok(Read::Packets(n));
                    }
                    if self.brk.swap(false, Ordering::AcqRel) {
                        break Ok(Read::Break);
                    }
                    // A dispatch returns after one batch, or a timeout (0),
                    // as libpcap's does; a loop goes on.
                    if !looping && (got > 0 || n > 0 || wait.is_some()) {
                        break Ok(Read::Packets(n));
                    }
                }
            }
        };
        // SAFETY: the caller's promise; the source has stopped calling back.
        let inner = unsafe { self.inner() };
        inner.source = Some(src);
        match result {
            Ok(r) => r,
            Err(m) => {
                inner.fail(&m);
                Read::Error
            }
        }
    }

    /// `pcap_loop`.
    ///
    /// # Safety
    ///
    /// As [`Handle::read`]; `cb` is a valid handler for `user`.
    pub(crate) unsafe fn pcap_loop(&self, cnt: c_int, cb: PcapHandler, user: *mut u8) -> c_int {
        let Some(cb) = cb else { return status::ERROR };
        // SAFETY: the caller's promises.
        let r = unsafe {
            self.read(cnt, true, |h, data| {
                // SAFETY: a handler called as libpcap calls it: a header and
                // caplen bytes that live through the call.
                cb(user, h, data.as_ptr())
            })
        };
        match r {
            Read::Packets(_) => 0,
            Read::Break => status::BREAK,
            Read::Error => status::ERROR,
        }
    }

    /// `pcap_dispatch`.
    ///
    /// # Safety
    ///
    /// As [`Handle::pcap_loop`].
    pub(crate) unsafe fn dispatch(&self, cnt: c_int, cb: PcapHandler, user: *mut u8) -> c_int {
        let Some(cb) = cb else { return status::ERROR };
        // SAFETY: the caller's promises.
        let r = unsafe {
            self.read(cnt, false, |h, data| {
                // SAFETY: as in pcap_loop.
                cb(user, h, data.as_ptr())
            })
        };
        match r {
            Read::Packets(n) => n,
            Read::Break => status::BREAK,
            Read::Error => status::ERROR,
        }
    }

    /// `pcap_next_ex`: 1 and the packet (kept until the next call), 0 on a
    /// timeout, or a status.
    ///
    /// # Safety
    ///
    /// As [`Handle::inner`].
    pub(crate) unsafe fn next_ex(&self) -> Result<(*mut PcapPkthdr, *const u8), c_int> {
        // No copy: libpcap's caller may use the packet only until its next
        // call on the handle, and until then its bytes stay where the read
        // left them: in the source's own buffer for a source read in place
        // ([`InPlace::dispatch`]'s promise: the daemon's reader copied it out
        // of the shared PBuf already), else in `current`, where `read` moves
        // the delivered packet.
        let mut got = None;
        // SAFETY: the caller's promise; the closure only notes the packet.
        let r = unsafe { self.read(1, false, |h, data| got = Some((*h, data.as_ptr()))) };
        // SAFETY: the caller's promise; no other borrow is alive.
        let inner = unsafe { self.inner() };
        match r {
            Read::Packets(_) => {
                let Some((h, data)) = got else { return Err(0) };
                inner.current_hdr = h;
                Ok((&mut inner.current_hdr, data))
            }
            Read::Break => Err(status::BREAK),
            Read::Error => Err(status::ERROR),
        }
    }

    /// `pcap_setfilter`: the text behind `fp` goes to the source; a program
    /// the shim did not compile, or whose text the source refuses, runs in the
    /// shim on every packet.
    ///
    /// # Safety
    ///
    /// As [`Handle::inner`]; `fp` is a valid program.
    pub(crate) unsafe fn setfilter(&self, fp: &BpfProgram) -> c_int {
        // SAFETY: the caller's promise.
        let inner = unsafe { self.inner() };
        let Some(src) = inner.source.as_mut() else {
            if inner.activated {
                inner.fail(
                    "pcap_setfilter from a packet callback is not supported on a netsift capture",
                );
                return status::ERROR;
            }
            inner.fail("not activated");
            return status::NOT_ACTIVATED;
        };
        if let Some(text) = crate::filters::text_of(fp) {
            match src.set_filter(Some(&text)) {
                Ok(()) => {
                    inner.shim_filter = None;
                    return 0;
                }
                Err(e) if e.kind != backend::ErrorKind::Filter => {
                    inner.fail(&e.message);
                    return status::ERROR;
                }
                // A filter netsift cannot run: libpcap's program runs here.
                Err(_) => {}
            }
        }
        if let Err(e) = src.set_filter(None) {
            inner.fail(&e.message);
            return status::ERROR;
        }
        // SAFETY: the caller's promise that fp is valid.
        inner.shim_filter = Some(Arc::new(unsafe { crate::filters::copy(fp) }));
        0
    }

    /// `pcap_setdirection`.
    ///
    /// # Safety
    ///
    /// As [`Handle::inner`].
    pub(crate) unsafe fn setdirection(&self, d: c_int) -> c_int {
        // SAFETY: the caller's promise.
        let inner = unsafe { self.inner() };
        let d = match d {
            D_INOUT => Direction::InOut,
            D_IN => Direction::In,
            D_OUT => Direction::Out,
            _ => {
                inner.fail(&format!("Invalid direction {d}"));
                return status::ERROR;
            }
        };
        match inner.source.as_mut() {
            None if inner.activated => {
                inner.fail("pcap_setdirection from a packet callback is not supported on a netsift capture");
                return status::ERROR;
            }
            None => inner.cfg.direction = d,
            Some(s) => {
                if let Err(e) = s.set_direction(d) {
                    inner.fail(&e.message);
                    return status::ERROR;
                }
            }
        }
        0
    }
}

impl Inner {
    /// Says `msg` in the error buffer, after `netsift: IFACE: `.
    pub(crate) fn fail(&mut self, msg: &str) {
        let m = format!("netsift: {}: {msg}", self.iface);
        // SAFETY: the handle's own buffer of ERRBUF_SIZE bytes.
        unsafe { set_errbuf(self.errbuf.as_mut_ptr(), &m) };
    }

    /// Copies the proxy's error (the real library's message) into ours.
    pub(crate) fn take_proxy_error(&mut self) {
        let Some(f) = real::fns() else { return };
        // SAFETY: the proxy is a live real handle; geterr returns its
        // NUL-terminated buffer.
        let e = unsafe { std::ffi::CStr::from_ptr((f.pcap_geterr)(self.proxy)) };
        let m = e.to_string_lossy().into_owned();
        // SAFETY: the handle's own buffer.
        unsafe { set_errbuf(self.errbuf.as_mut_ptr(), &m) };
    }

    /// The error buffer, for `pcap_geterr`.
    pub(crate) fn errbuf(&mut self) -> *mut c_char {
        self.errbuf.as_mut_ptr()
    }

    /// Whether it is activated.
    pub(crate) fn activated(&self) -> bool {
        self.activated
    }

    /// The link type, the snap length and the source's descriptor once
    /// activated.
    pub(crate) fn live(&mut self) -> Option<(c_int, c_int, c_int)> {
        if !self.activated {
            return None;
        }
        // While the source reads in place (a callback asks), the descriptor
        // it gave before.
        if let Some(s) = self.source.as_mut() {
            self.selectable = s.selectable_fd();
        }
        Some((self.linktype, self.cfg.snaplen as c_int, self.selectable))
    }

    /// The settings `pcap_set_*` change before activation.
    pub(crate) fn settings(&mut self) -> Option<&mut OpenConfig> {
        (!self.activated()).then_some(&mut self.cfg)
    }

    /// `pcap_set_rfmon`.
    pub(crate) fn set_rfmon(&mut self, on: bool) -> c_int {
        if self.activated() {
            return status::ACTIVATED;
        }
        self.rfmon = on;
        0
    }

    /// `pcap_set_tstamp_type`: host time stamps only.
    pub(crate) fn set_tstamp_type(&self, t: c_int) -> c_int {
        match (self.activated(), t) {
            (true, _) => status::ACTIVATED,
            (false, 0) => 0,
            (false, _) => WARNING_TSTAMP_TYPE_NOTSUP,
        }
    }

    /// `pcap_set_tstamp_precision`.
    pub(crate) fn set_precision(&mut self, p: c_int) -> c_int {
        if self.activated() {
            return status::ACTIVATED;
        }
        if p != TSTAMP_PRECISION_MICRO && p != TSTAMP_PRECISION_NANO {
            return status::TSTAMP_PRECISION_NOTSUP;
        }
        self.precision = p;
        0
    }

    /// `pcap_setnonblock` / `pcap_getnonblock`.
    pub(crate) fn nonblock(&mut self, set: Option<bool>) -> c_int {
        if let Some(b) = set {
            self.nonblock = b;
        }
        c_int::from(self.nonblock)
    }

    /// How long a dispatch waits for packets, in poll(2)'s terms.
    fn wait_ms(&self) -> c_int {
        if self.nonblock {
            0
        } else if self.cfg.timeout_ms > 0 && !self.cfg.immediate {
            self.cfg.timeout_ms
        } else {
            -1
        }
    }

    /// The next pending packet the shim's own filter keeps, and its header.
    fn next_kept(&mut self) -> Option<(PcapPkthdr, Packet)> {
        while let Some(p) = self.pending.pop_front() {
            let hdr = header(
                self.precision,
                p.ts_sec,
                p.ts_nsec,
                p.data.len(),
                p.wire_len,
            );
            if keeps(self.shim_filter.as_deref(), &hdr, &p.data) {
                return Some((hdr, p));
            }
        }
        None
    }
}

/// A packet's header at time stamp `precision`.
fn header(precision: c_int, ts_sec: i64, ts_nsec: u32, caplen: usize, len: u32) -> PcapPkthdr {
    let usec = if precision == TSTAMP_PRECISION_NANO {
        ts_nsec
    } else {
        ts_nsec / 1000
    };
    PcapPkthdr {
        ts: libc::timeval {
            tv_sec: ts_sec as libc::time_t,
            tv_usec: usec as libc::suseconds_t,
        },
        caplen: caplen as u32,
        len,
    }
}

/// Whether the shim's own filter `insns` (if any) keeps `data`.
fn keeps(insns: Option<&Vec<BpfInsn>>, hdr: &PcapPkthdr, data: &[u8]) -> bool {
    // No program (the common case, on every packet): nothing to look up.
    let Some(insns) = insns else { return true };
    let Some(f) = real::fns() else { return true };
    let prog = BpfProgram {
        bf_len: insns.len() as u32,
        bf_insns: insns.as_ptr().cast_mut(),
    };
    // SAFETY: a program of bf_len instructions that outlives the call, a
    // header whose caplen is the data's length, and the data.
    unsafe { (f.pcap_offline_filter)(&prog, hdr, data.as_ptr()) != 0 }
}

/// A real dead handle of `linktype` and `snaplen`.
fn dead(real: &Real, linktype: c_int, snaplen: u32, precision: c_int) -> *mut PcapT {
    // SAFETY: pcap_open_dead_with_tstamp_precision takes plain integers.
    unsafe {
        (real.f.pcap_open_dead_with_tstamp_precision)(linktype, snaplen as c_int, precision as u32)
    }
}
