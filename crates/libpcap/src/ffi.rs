//! The C types of libpcap's API that the shim reads or builds, laid out as
//! `pcap/pcap.h` and `pcap/bpf.h` of libpcap 1.10 declare them (LP64 Linux),
//! and the status codes it returns.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `pcap_t`: only ever seen through a pointer. A pointer the real library
/// made is passed back to it untouched; one of ours is a [`crate::handle::Handle`].
pub(crate) enum PcapT {}

/// `pcap_dumper_t`: always the real library's.
pub(crate) enum PcapDumper {}

/// `struct pcap_pkthdr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct PcapPkthdr {
    /// Seconds and microseconds (or nanoseconds on a nanosecond handle).
    pub(crate) ts: libc::timeval,
    /// Bytes present.
    pub(crate) caplen: u32,
    /// Bytes on the wire.
    pub(crate) len: u32,
}

/// `struct bpf_insn`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BpfInsn {
    pub(crate) code: u16,
    pub(crate) jt: u8,
    pub(crate) jf: u8,
    pub(crate) k: u32,
}

/// `struct bpf_program`.
#[repr(C)]
pub(crate) struct BpfProgram {
    pub(crate) bf_len: c_uint,
    pub(crate) bf_insns: *mut BpfInsn,
}

/// `struct pcap_stat` (without the Windows-only field).
#[repr(C)]
pub(crate) struct PcapStat {
    pub(crate) ps_recv: c_uint,
    pub(crate) ps_drop: c_uint,
    pub(crate) ps_ifdrop: c_uint,
}

/// `struct pcap_if` (`pcap_if_t`).
#[repr(C)]
pub(crate) struct PcapIf {
    pub(crate) next: *mut PcapIf,
    pub(crate) name: *mut c_char,
    pub(crate) description: *mut c_char,
    pub(crate) addresses: *mut c_void,
    pub(crate) flags: u32,
}

/// `pcap_handler`.
pub(crate) type PcapHandler = Option<unsafe extern "C" fn(*mut u8, *const PcapPkthdr, *const u8)>;

/// `PCAP_ERRBUF_SIZE`.
pub(crate) const ERRBUF_SIZE: usize = 256;

/// `PCAP_IF_UP`.
pub(crate) const IF_UP: u32 = 0x0000_0002;

/// `PCAP_TSTAMP_PRECISION_MICRO` and `_NANO`.
pub(crate) const TSTAMP_PRECISION_MICRO: c_int = 0;
pub(crate) const TSTAMP_PRECISION_NANO: c_int = 1;

/// `pcap_direction_t`.
pub(crate) const D_INOUT: c_int = 0;
pub(crate) const D_IN: c_int = 1;
pub(crate) const D_OUT: c_int = 2;

/// libpcap's status codes (`PCAP_ERROR_*`), as `pcap_activate` and friends
/// return them.
pub(crate) mod status {
    use std::ffi::c_int;
    pub(crate) const ERROR: c_int = -1;
    pub(crate) const BREAK: c_int = -2;
    pub(crate) const NOT_ACTIVATED: c_int = -3;
    pub(crate) const ACTIVATED: c_int = -4;
    pub(crate) const NO_SUCH_DEVICE: c_int = -5;
    pub(crate) const RFMON_NOTSUP: c_int = -6;
    pub(crate) const PERM_DENIED: c_int = -8;
    pub(crate) const TSTAMP_PRECISION_NOTSUP: c_int = -12;
}

/// Copies `msg` into a C error buffer of [`ERRBUF_SIZE`] bytes, cut to fit and
/// NUL-terminated, as libpcap's `snprintf` into it does.
///
/// # Safety
///
/// `errbuf` is null or points to [`ERRBUF_SIZE`] writable bytes.
pub(crate) unsafe fn set_errbuf(errbuf: *mut c_char, msg: &str) {
    if errbuf.is_null() {
        return;
    }
    let n = msg.len().min(ERRBUF_SIZE - 1);
    // SAFETY: the caller's buffer holds ERRBUF_SIZE bytes and n + 1 <= that;
    // `msg` is a distinct Rust string.
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr().cast::<c_char>(), errbuf, n);
        *errbuf.add(n) = 0;
    }
}
