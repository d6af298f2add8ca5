//! Shared objects for the `native` filter class, compiled by the tests with
//! `cc` against netsift's ABI header (`crates/native/include`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn native_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../native")
}

/// C `source` compiled with `cc -O2 -shared -fPIC` into `dir/NAME.so`,
/// mode 0644 (owned by whoever runs the test); panics with the compiler's
/// message if it fails.
pub fn shared_object(dir: &Path, name: &str, source: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let so = dir.join(format!("{name}.so"));
    let out = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(native_dir().join("include"))
        .arg("-o")
        .arg(&so)
        .arg(&c)
        .output()
        .expect("running cc");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cc {}: {err}", c.display());
    std::fs::set_permissions(&so, std::fs::Permissions::from_mode(0o644)).unwrap();
    so
}

/// The example filter, `crates/native/c/udp_counter.c`, compiled into `dir`:
/// it passes IPv4 UDP in Ethernet frames and keeps, as native-endian `u64`s
/// in MBuf, the packets seen, the wire bytes passed and `netsift_init`'s
/// mark [`EXAMPLE_MARK`].
pub fn example_filter(dir: &Path) -> PathBuf {
    let src = std::fs::read_to_string(native_dir().join("c/udp_counter.c")).unwrap();
    shared_object(dir, "udp_counter", &src)
}

/// What the example's `netsift_init` writes at MBuf offset 16 ("native").
pub const EXAMPLE_MARK: u64 = 0x6e61_7469_7665;
