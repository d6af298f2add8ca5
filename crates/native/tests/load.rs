//! `netsift_native` on real shared objects that the test compiles with `cc`:
//! the example filter (`c/udp_counter.c`) loaded, its `netsift_init` run on
//! the MBuf, its verdicts and MBuf counts checked against the frames; and
//! every refusal the crate promises, each with what it names.

use netsift_native::Filter;
use netsift_testkit::native::{example_filter, shared_object as object, EXAMPLE_MARK};
use netsift_testkit::{require, Need};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn frame(proto: u8, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[12] = 0x08;
    f[14] = 0x45;
    f[23] = proto;
    f
}

fn slot(m: &[u8], i: usize) -> u64 {
    u64::from_ne_bytes(m[8 * i..8 * i + 8].try_into().unwrap())
}

fn refusal(path: &Path) -> String {
    Filter::open(path.to_str().unwrap(), &mut [0; 24])
        .err()
        .unwrap_or_else(|| panic!("{}: loaded", path.display()))
        .to_string()
}

#[test]
fn the_example_filter_passes_udp_and_counts_in_mbuf() {
    // The object must be root's, and built here.
    require!(Need::Root, Need::Command("cc"));
    let dir = tempfile::tempdir().unwrap();
    let so = example_filter(dir.path());
    let mut mbuf = vec![0u8; 24];
    let f = Filter::open(so.to_str().unwrap(), &mut mbuf).unwrap();
    assert_eq!(slot(&mbuf, 2), EXAMPLE_MARK, "netsift_init's mark");
    let frames: Vec<Vec<u8>> = (0..30)
        .map(|i| frame(if i % 3 == 0 { 17 } else { 6 }, 60 + i))
        .collect();
    let mut want_bytes = 0;
    for (i, fr) in frames.iter().enumerate() {
        let udp = i % 3 == 0;
        assert_eq!(f.run(fr, fr.len() as u32 + 4, &mut mbuf), udp, "frame {i}");
        want_bytes += if udp { fr.len() as u64 + 4 } else { 0 };
    }
    assert_eq!((slot(&mbuf, 0), slot(&mbuf, 1)), (30, want_bytes));
    // A short frame and an empty MBuf: no reads past either.
    assert!(!f.run(&[0x08, 0x00], 2, &mut []));
}

#[test]
fn bad_objects_are_refused_saying_why() {
    // The object must be root's, and built here.
    require!(Need::Root, Need::Command("cc"));
    let dir = tempfile::tempdir().unwrap();
    let pass = "#include <netsift_native.h>\nuint32_t netsift_filter(const uint8_t *p, uint32_t c, uint32_t w, uint8_t *m, uint32_t l) { return 1; }\n";
    let e = Filter::open("relative/f.so", &mut [])
        .unwrap_err()
        .to_string();
    assert!(e.contains("absolute path"), "{e}");
    let e = refusal(&dir.path().join("missing.so"));
    assert!(
        e.contains("missing.so") && e.contains("No such file"),
        "{e}"
    );
    assert!(refusal(dir.path()).contains("not a regular file"));

    let so = object(dir.path(), "writable", pass);
    std::fs::set_permissions(&so, std::fs::Permissions::from_mode(0o664)).unwrap();
    let e = refusal(&so);
    assert!(
        e.contains("writable by its group or by others (mode 664)"),
        "{e}"
    );

    let so = object(dir.path(), "theirs", pass);
    std::os::unix::fs::chown(&so, Some(65534), None).unwrap();
    let e = refusal(&so);
    assert!(e.contains("owned by uid 65534, not root"), "{e}");

    let so = object(
        dir.path(),
        "nofilter",
        "int netsift_other(void) { return 0; }\n",
    );
    let e = refusal(&so);
    assert!(e.contains("no `netsift_filter` symbol"), "{e}");

    let abi2 = format!("{pass}const uint32_t netsift_abi = 2;\n");
    let e = refusal(&object(dir.path(), "abi2", &abi2));
    assert!(e.contains("built for native ABI 2"), "{e}");

    let init = format!("{pass}int32_t netsift_init(uint8_t *m, uint32_t l) {{ return 7; }}\n");
    let e = refusal(&object(dir.path(), "init7", &init));
    assert!(e.contains("netsift_init refused the element (7)"), "{e}");

    std::fs::write(dir.path().join("text.so"), "not an object").unwrap();
    let e = refusal(&dir.path().join("text.so"));
    assert!(e.contains("cannot be loaded"), "{e}");
}
