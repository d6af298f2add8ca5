//! `pcap_findalldevs`: the real library's list, then one `netsift:SOURCE`
//! entry for each source of the daemon (when it answers at its socket), and
//! one `netsift-local:IFACE` entry for each real interface that is up (and is
//! a network interface: in `/sys/class/net`, or `any`), described as "netsift
//! capture of IFACE" (captured in this process: root only).
//!
//! The netsift entries are the shim's own memory, linked after the real
//! list's last node; `pcap_freealldevs` unlinks them before the real library
//! frees its part (with its own allocator), and frees them itself.

use crate::backend::{daemon, DAEMON_PREFIX, LOCAL_PREFIX};
use crate::ffi::{PcapIf, IF_UP};
use crate::real::Fns;
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::Mutex;

/// A netsift entry: the node first, so a pointer to it is a pointer to this.
#[repr(C)]
struct Entry {
    node: PcapIf,
    name: CString,
    description: CString,
}

/// Lists handed out: (head, first netsift entry).
static APPENDED: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

fn appended() -> std::sync::MutexGuard<'static, Vec<(usize, usize)>> {
    APPENDED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `name` is an interface netsift can capture on.
fn capturable(name: &str) -> bool {
    name == "any" || std::path::Path::new("/sys/class/net").join(name).exists()
}

/// `pcap_findalldevs` with the netsift entries.
///
/// # Safety
///
/// `alldevs` is writable and `errbuf` holds PCAP_ERRBUF_SIZE bytes.
pub(crate) unsafe fn findalldevs(f: &Fns, alldevs: *mut *mut PcapIf, errbuf: *mut c_char) -> c_int {
    // SAFETY: the caller's arguments, passed on.
    let r = unsafe { (f.pcap_findalldevs)(alldevs, errbuf) };
    // SAFETY: alldevs is writable, so readable; set by the real library.
    let head = unsafe { *alldevs };
    if r != 0 || head.is_null() {
        return r;
    }
    let mut ours: Vec<Box<Entry>> = daemon_sources()
        .into_iter()
        .map(|s| {
            let desc = format!("netsift shared capture of {s} (netsiftd)");
            entry(&format!("{DAEMON_PREFIX}{s}"), &desc, IF_UP)
        })
        .collect();
    let mut tail = head;
    let mut node = head;
    while !node.is_null() {
        // SAFETY: a node of the real library's list, alive until it is freed.
        let n = unsafe { &*node };
        // SAFETY: a node's name is a NUL-terminated string.
        let name = unsafe { CStr::from_ptr(n.name) }
            .to_string_lossy()
            .into_owned();
        if n.flags & IF_UP != 0 && capturable(&name) {
            let desc = format!("netsift capture of {name}");
            ours.push(entry(&format!("{LOCAL_PREFIX}{name}"), &desc, n.flags));
        }
        tail = node;
        node = n.next;
    }
    if ours.is_empty() {
        return r;
    }
    // Link them to each other, then after the real tail.
    let mut next: *mut PcapIf = std::ptr::null_mut();
    for e in ours.into_iter().rev() {
        let p = Box::into_raw(e);
        // SAFETY: just made, owned by the list from here on.
        unsafe { (*p).node.next = next };
        next = p.cast();
    }
    // SAFETY: the real list's last node, which the caller owns.
    unsafe { (*tail).next = next };
    appended().push((head as usize, next as usize));
    r
}

/// The daemon's sources, if it answers at its socket (none if not: the list
/// is what can be opened now).
fn daemon_sources() -> Vec<String> {
    netsift_ffpf::Client::connect(daemon::socket())
        .and_then(|c| c.sources())
        .map(|v| v.into_iter().map(|s| s.name).collect())
        .unwrap_or_default()
}

fn entry(name: &str, description: &str, flags: u32) -> Box<Entry> {
    let full = CString::new(name).unwrap_or_default();
    let desc = CString::new(description).unwrap_or_default();
    let mut e = Box::new(Entry {
        node: PcapIf {
            next: std::ptr::null_mut(),
            name: std::ptr::null_mut(),
            description: std::ptr::null_mut(),
            addresses: std::ptr::null_mut(),
            flags,
        },
        name: full,
        description: desc,
    });
    e.node.name = e.name.as_ptr().cast_mut();
    e.node.description = e.description.as_ptr().cast_mut();
    e
}

/// `pcap_freealldevs`, which frees the netsift entries of a list from
/// [`findalldevs`].
///
/// # Safety
///
/// `list` is null or a list from `pcap_findalldevs`, freed once.
pub(crate) unsafe fn freealldevs(f: &Fns, list: *mut PcapIf) {
    let first = {
        let mut a = appended();
        match a.iter().position(|(h, _)| *h == list as usize) {
            Some(i) => a.swap_remove(i).1 as *mut PcapIf,
            None => std::ptr::null_mut(),
        }
    };
    if !first.is_null() {
        let mut node = list;
        // SAFETY: the list's nodes are alive until freed below; the real
        // part ends at the node that links to our first entry.
        unsafe {
            while !node.is_null() && (*node).next != first {
                node = (*node).next;
            }
            if !node.is_null() {
                (*node).next = std::ptr::null_mut();
            }
        }
        let mut e = first;
        while !e.is_null() {
            // SAFETY: each of our entries came from Box::into_raw in
            // findalldevs and is freed once, here.
            let b = unsafe { Box::from_raw(e.cast::<Entry>()) };
            e = b.node.next;
        }
    }
    // SAFETY: the real part of the list, freed by its allocator.
    unsafe { (f.pcap_freealldevs)(list) };
}
