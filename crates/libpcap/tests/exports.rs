//! The shim exports exactly what the real libpcap exports: `symbols.txt`
//! lists every symbol, the built library's dynamic symbol table matches the
//! real one's (names, kinds, the data objects' sizes), and the two data
//! objects hold the real library's contents.

mod common;

use common::{shim_dir, REAL};
use netsift_testkit::{require, Need};
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;

/// `nm -DS --defined-only`: (name, kind letter, size if shown).
fn exports(lib: &Path) -> BTreeSet<(String, String, String)> {
    let out = std::process::Command::new("nm")
        .args(["-DS", "--defined-only"])
        .arg(lib)
        .output()
        .expect("nm (binutils)");
    assert!(out.status.success(), "nm {}", lib.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                // A function's size depends on its code; a data object's is
                // its type's.
                [_, size, k, name] if *k == "D" || *k == "B" => {
                    Some((name.to_string(), "D".to_string(), size.to_string()))
                }
                [.., k, name] => Some((name.to_string(), k.to_string(), String::new())),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn symbols_txt_lists_every_real_export() {
    require!(Need::File(Path::new(REAL)), Need::Command("nm"));
    let listed: BTreeSet<String> = include_str!("../symbols.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let real: BTreeSet<String> = exports(Path::new(REAL))
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(listed, real);
}

#[test]
fn the_shim_exports_what_the_real_library_exports() {
    require!(Need::File(Path::new(REAL)), Need::Command("nm"));
    let shim = exports(&shim_dir().join("libpcap.so.0.8"));
    let real = exports(Path::new(REAL));
    let missing: Vec<_> = real.difference(&shim).collect();
    let extra: Vec<_> = shim.difference(&real).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, extra {extra:?}"
    );
}

#[test]
fn the_shim_says_it_is_libpcap_so_0_8() {
    require!(Need::Command("readelf"));
    let out = std::process::Command::new("readelf")
        .arg("-d")
        .arg(shim_dir().join("libpcap.so.0.8"))
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("Library soname: [libpcap.so.0.8]"), "{s}");
}

/// `dlopen(path)`'s handle (never closed).
fn open(path: &Path) -> *mut c_void {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; RTLD_LOCAL keeps its symbols to itself.
    let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(!h.is_null(), "dlopen {}", path.display());
    h
}

fn symbol(h: *mut c_void, name: &CStr) -> *const c_void {
    // SAFETY: a live handle and a NUL-terminated name.
    let p = unsafe { libc::dlsym(h, name.as_ptr()) };
    assert!(!p.is_null(), "{name:?}");
    p
}

/// `struct eproto`.
#[repr(C)]
struct Eproto {
    s: *const c_char,
    p: u16,
}

/// The entries of an `eproto_db` at `p`, up to its NULL name.
fn eprotos(p: *const c_void) -> Vec<(String, u16)> {
    let mut out = Vec::new();
    let mut e = p.cast::<Eproto>();
    loop {
        // SAFETY: the table ends with a NULL name (13 entries in 1.10.3,
        // whose size the symbol table test checks); each name is a C string.
        let (s, v) = unsafe { ((*e).s, (*e).p) };
        if s.is_null() {
            return out;
        }
        // SAFETY: as above.
        out.push((
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned(),
            v,
        ));
        // SAFETY: the next entry, at most up to the terminator.
        e = unsafe { e.add(1) };
    }
}

#[test]
fn the_data_objects_hold_the_real_contents() {
    require!(Need::File(Path::new(REAL)));
    let real = open(Path::new(REAL));
    let shim = open(&shim_dir().join("libpcap.so.0.8"));
    let version = |h| {
        // SAFETY: pcap_version is a NUL-terminated char array.
        unsafe { CStr::from_ptr(symbol(h, c"pcap_version").cast()) }
            .to_string_lossy()
            .into_owned()
    };
    assert_eq!(version(shim), version(real));
    assert_eq!(
        eprotos(symbol(shim, c"eproto_db")),
        eprotos(symbol(real, c"eproto_db"))
    );
}
