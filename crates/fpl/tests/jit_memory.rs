//! A compiled program's executable memory is returned when it drops: compiling
//! and dropping 2,000 programs leaves the process's anonymous executable memory
//! where it was, where keeping them adds at least a page each. Alone in its
//! test binary, so that no other test maps memory meanwhile.
#![cfg(feature = "jit")]

use netsift_fpl::externs::Externs;
use netsift_fpl::jit::Jit;
use netsift_fpl::{compile, Options};

/// Bytes of anonymous executable mappings (JIT code) in /proc/self/maps.
/// Counted in bytes, not lines: the kernel merges neighbouring mappings.
fn code_bytes() -> usize {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    maps.lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let (range, perms) = (f.next()?, f.next()?);
            let path = f.nth(3);
            if !perms.contains('x') || path.is_some() {
                return None;
            }
            let (lo, hi) = range.split_once('-')?;
            let lo = usize::from_str_radix(lo, 16).ok()?;
            Some(usize::from_str_radix(hi, 16).ok()? - lo)
        })
        .sum()
}

#[test]
fn dropping_a_program_unmaps_its_code() {
    let jit = Jit::new().unwrap();
    let program = compile(
        include_str!("../examples/table1_udp.fpl"),
        &Options::default(),
        &Externs::new(),
    )
    .unwrap();
    // Warm up: allocator arenas and Cranelift's own first allocations.
    for _ in 0..50 {
        drop(jit.compile(&program).unwrap());
    }
    let before = code_bytes();
    for _ in 0..2000 {
        let code = jit.compile(&program).unwrap();
        assert!(!code.run(&[0; 60], &mut [0; 8], &mut [0; 16]).accepts());
    }
    let after = code_bytes();
    assert!(
        after <= before + 64 * 1024,
        "executable memory grew from {before} to {after} bytes over 2000 programs"
    );
    // And the check can fail: programs kept alive hold a page each.
    let kept: Vec<_> = (0..200).map(|_| jit.compile(&program).unwrap()).collect();
    let held = code_bytes();
    assert!(
        held >= after + 200 * 4096,
        "200 programs hold {held} bytes, {after} before"
    );
    drop(kept);
    assert!(code_bytes() <= after + 64 * 1024);
}
