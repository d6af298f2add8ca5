//! A live libpcap capture handle, as tcpdump opens one: `pcap_create` and
//! `pcap_activate` on an interface, programs compiled once with `pcap_compile`,
//! `pcap_setfilter` to swap them, `pcap_dispatch` to read, `pcap_stats` for the
//! kernel's drop count. The benchmark's edit experiment runs it beside netsift.
//!
//! [`Live`] is a safe wrapper: every call into libpcap happens on a handle it owns,
//! and compiling takes the crate's compiler lock like [`crate::Filter`] does.

use crate::ffi::{
    pcap_activate, pcap_close, pcap_compile, pcap_create, pcap_dispatch, pcap_freecode,
    pcap_get_selectable_fd, pcap_geterr, pcap_set_buffer_size, pcap_set_promisc, pcap_set_snaplen,
    pcap_set_timeout, pcap_setfilter, pcap_setnonblock, pcap_stats, BpfProgram, PcapPkthdr,
    PcapStat, PcapT, PCAP_ERRBUF_SIZE,
};
use crate::PCAP_NETMASK_UNKNOWN;
use std::ffi::{c_char, c_int, CStr, CString};

/// An activated capture handle. Not `Send`: libpcap handles belong to one thread,
/// so the edit experiment opens, uses and closes it on its capture thread.
pub struct Live {
    p: *mut PcapT,
    programs: Vec<BpfProgram>,
}

impl Live {
    fn error(&self, what: &str) -> String {
        // SAFETY: `p` is a live handle; pcap_geterr returns its NUL-terminated
        // message buffer, copied at once.
        let msg = unsafe { CStr::from_ptr(pcap_geterr(self.p)) };
        format!("{what}: {}", msg.to_string_lossy())
    }

    /// Opens `dev` as tcpdump does (snap length 262144, promiscuous), with a ring of
    /// `buffer` bytes and a read timeout of `timeout_ms`.
    pub fn open(dev: &str, buffer: usize, timeout_ms: i32) -> Result<Live, String> {
        let name = CString::new(dev).map_err(|_| format!("{dev:?}: bad interface name"))?;
        let mut errbuf = [0 as c_char; PCAP_ERRBUF_SIZE];
        // SAFETY: a NUL-terminated name and an error buffer of the documented size.
        let p = unsafe { pcap_create(name.as_ptr(), errbuf.as_mut_ptr()) };
        if p.is_null() {
            // SAFETY: libpcap wrote a NUL-terminated message into `errbuf`.
            let msg = unsafe { CStr::from_ptr(errbuf.as_ptr()) };
            return Err(format!("pcap_create {dev}: {}", msg.to_string_lossy()));
        }
        let live = Live {
            p,
            programs: Vec::new(),
        };
        // SAFETY: setters on a created, not yet activated handle.
        let rc = unsafe {
            pcap_set_snaplen(p, 262_144)
                | pcap_set_promisc(p, 1)
                | pcap_set_timeout(p, timeout_ms)
                | pcap_set_buffer_size(p, buffer.min(i32::MAX as usize) as c_int)
        };
        if rc != 0 {
            return Err(live.error("pcap_set_*"));
        }
        // SAFETY: activation of a created handle.
        if unsafe { pcap_activate(p) } < 0 {
            return Err(live.error(&format!("pcap_activate {dev}")));
        }
        // Non-blocking, with our own poll in `wait`: on a TPACKET_V3 ring libpcap
        // polls without a time limit and relies on the kernel retiring a block,
        // which it never does for an empty one, so a blocking dispatch on a quiet
        // interface would never return.
        // SAFETY: an activated handle and an error buffer of the documented size.
        if unsafe { pcap_setnonblock(p, 1, errbuf.as_mut_ptr()) } != 0 {
            return Err(live.error("pcap_setnonblock"));
        }
        Ok(live)
    }

    /// Compiles `expr` as tcpdump does (optimised, netmask unknown); returns its
    /// number for [`Self::set_filter`].
    pub fn compile(&mut self, expr: &str) -> Result<usize, String> {
        let text = CString::new(expr).map_err(|_| format!("{expr:?}: NUL in filter"))?;
        let mut prog = BpfProgram {
            bf_len: 0,
            bf_insns: std::ptr::null_mut(),
        };
        let _compiler = crate::lock_compiler();
        // SAFETY: a live handle, an out-pointer and a NUL-terminated expression.
        let rc = unsafe { pcap_compile(self.p, &mut prog, text.as_ptr(), 1, PCAP_NETMASK_UNKNOWN) };
        if rc != 0 {
            return Err(self.error(&format!("pcap_compile {expr:?}")));
        }
        self.programs.push(prog);
        Ok(self.programs.len() - 1)
    }

    /// `pcap_setfilter` with program `i`.
    pub fn set_filter(&mut self, i: usize) -> Result<(), String> {
        let prog: *mut BpfProgram = &mut self.programs[i];
        // SAFETY: a live handle and a program compiled for it (libpcap copies it).
        if unsafe { pcap_setfilter(self.p, prog) } != 0 {
            return Err(self.error("pcap_setfilter"));
        }
        Ok(())
    }

    /// One `pcap_dispatch` call for at most `cnt` packets: `f` gets each packet's
    /// captured bytes. Returns the number of packets (0 when there were none ready).
    pub fn dispatch<F: FnMut(&[u8])>(&mut self, cnt: i32, f: &mut F) -> Result<usize, String> {
        extern "C" fn trampoline<F: FnMut(&[u8])>(
            user: *mut u8,
            h: *const PcapPkthdr,
            bytes: *const u8,
        ) {
            // SAFETY: `user` is the `&mut F` passed below, alive for the dispatch;
            // libpcap passes a valid header and `caplen` readable bytes.
            unsafe {
                let f = &mut *(user as *mut F);
                f(std::slice::from_raw_parts(bytes, (*h).caplen as usize));
            }
        }
        let user = f as *mut F as *mut u8;
        // SAFETY: a live handle; the callback and `user` match and outlive the call.
        let n = unsafe { pcap_dispatch(self.p, cnt, trampoline::<F>, user) };
        if n < 0 {
            return Err(self.error("pcap_dispatch"));
        }
        Ok(n as usize)
    }

    /// Waits up to `ms` milliseconds for packets to read.
    pub fn wait(&mut self, ms: i32) {
        // SAFETY: a live handle; its selectable descriptor is valid while it lives.
        let fd = unsafe { pcap_get_selectable_fd(self.p) };
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd that lives through the call. An error or EINTR only
        // means the caller's loop comes round sooner.
        unsafe { libc::poll(&mut p, 1, ms) };
    }

    /// The kernel's drop count ("packets dropped by kernel").
    pub fn dropped(&mut self) -> Result<u64, String> {
        let mut s = PcapStat {
            ps_recv: 0,
            ps_drop: 0,
            ps_ifdrop: 0,
        };
        // SAFETY: a live handle and an out-pointer.
        if unsafe { pcap_stats(self.p, &mut s) } != 0 {
            return Err(self.error("pcap_stats"));
        }
        Ok(s.ps_drop as u64)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // SAFETY: the programs were compiled by pcap_compile and are freed once;
        // the handle is closed last, once.
        unsafe {
            for p in &mut self.programs {
                pcap_freecode(p);
            }
            pcap_close(self.p);
        }
    }
}
