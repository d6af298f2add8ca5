//! Builds the shim as `libpcap.so.0.8`: its soname, the pass-through
//! trampolines generated from `symbols.txt`, and a link named
//! `target/<profile>/libpcap/libpcap.so.0.8` to the built library, so that
//! `LD_LIBRARY_PATH=target/<profile>/libpcap tcpdump ...` loads it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=symbols.txt");
    // Programs linked against libpcap ask for `libpcap.so.0.8` (their
    // DT_NEEDED); the loader matches that name, and ours must say it too.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpcap.so.0.8");

    let symbols = std::fs::read_to_string("symbols.txt").expect("symbols.txt");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("trampolines.rs"), trampolines(&symbols))
        .expect("writing trampolines.rs");
    link_into_profile_dir(&out);
}

/// `pass_through! { name, ... }` for every `pass` line of `symbols.txt`.
fn trampolines(symbols: &str) -> String {
    let mut s = String::from("pass_through! {\n");
    for line in symbols.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(name), Some(kind)) = (parts.next(), parts.next()) else {
            panic!("symbols.txt: `{line}`: want `NAME pass|wrap|data`");
        };
        match kind {
            "pass" => writeln!(s, "    {name},").unwrap(),
            "wrap" | "data" => {}
            other => panic!("symbols.txt: {name}: unknown kind `{other}`"),
        }
    }
    s.push_str("}\n");
    s
}

/// `target/<profile>/libpcap/libpcap.so.0.8` → `../deps/libnetsift_pcap.so`.
/// (The library is not named `pcap`: a `libpcap.so` in `deps`, which is on the
/// linker's path, would stand in for the real one when another crate, the
/// oracle, links `-lpcap`.) The
/// directory holds only that name, so pointing `LD_LIBRARY_PATH` at it changes
/// which libpcap a program loads and nothing else. A build script runs before
/// the library is linked, so it makes a link, not a copy. OUT_DIR is
/// `target/<profile>/build/<pkg>-<hash>/out`.
fn link_into_profile_dir(out: &Path) {
    let Some(profile) = out.ancestors().nth(3) else {
        return;
    };
    let dir = profile.join("libpcap");
    let link = dir.join("libpcap.so.0.8");
    let target = Path::new("../deps/libnetsift_pcap.so");
    if std::fs::read_link(&link).is_ok_and(|t| t == target) {
        return;
    }
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::remove_file(&link);
    if let Err(e) = std::os::unix::fs::symlink(target, &link) {
        println!("cargo:warning=cannot link {}: {e}", link.display());
    }
}
