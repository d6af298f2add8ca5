//! The two data objects libpcap exports: `pcap_version` and `eproto_db`.
//!
//! Data cannot be passed through like a function: a program that refers to
//! one gets a copy of the object the library defines (a copy relocation made
//! before any of the shim's code runs), so the shim defines both with the
//! size and contents of libpcap 1.10.3's (`tests/exports.rs` compares them
//! with the real library's). Both are writable in libpcap, and so here.

use std::ffi::c_char;

/// `char pcap_version[]`: libpcap's version, "1.10.3".
#[no_mangle]
#[allow(non_upper_case_globals)]
static mut pcap_version: [c_char; 7] = [
    b'1' as c_char,
    b'.' as c_char,
    b'1' as c_char,
    b'0' as c_char,
    b'.' as c_char,
    b'3' as c_char,
    0,
];

/// `struct eproto`: an Ethernet protocol's name and type.
#[repr(C)]
struct Eproto {
    /// The name (NUL-terminated), or null at the end of the table.
    s: *const c_char,
    /// The EtherType.
    p: u16,
}

/// `struct eproto eproto_db[]`: the names `pcap_nametoeproto` knows, as in
/// libpcap 1.10.3's `nametoaddr.c` (with INET6).
#[no_mangle]
#[allow(non_upper_case_globals)]
static mut eproto_db: [Eproto; 13] = [
    e(c"aarp", 0x80f3),
    e(c"arp", 0x0806),
    e(c"atalk", 0x809b),
    e(c"decnet", 0x6003),
    e(c"ip", 0x0800),
    e(c"ip6", 0x86dd),
    e(c"lat", 0x6004),
    e(c"loopback", 0x9000),
    e(c"mopdl", 0x6001),
    e(c"moprc", 0x6002),
    e(c"rarp", 0x8035),
    e(c"sca", 0x6007),
    Eproto {
        s: std::ptr::null(),
        p: 0,
    },
];

const fn e(s: &'static std::ffi::CStr, p: u16) -> Eproto {
    Eproto { s: s.as_ptr(), p }
}
