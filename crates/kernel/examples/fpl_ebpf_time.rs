//! Times the seeds' Table 1 filter (`crates/fpl/examples/table1_udp.fpl`)
//! compiled to eBPF, in the kernel, on a 1,514-byte UDP frame it accepts:
//! `BPF_PROG_TEST_RUN` with a repeat count, whose mean per run the kernel
//! measures; several rounds, the median with the minimum and maximum.
//!
//! `cargo run --release -p netsift-kernel --example fpl_ebpf_time [ROUNDS [REPEAT]]`
//! (root, for CAP_BPF).

use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, Options};
use netsift_kernel::asm::{Asm, R0};
use netsift_kernel::fpl::Loaded;
use netsift_kernel::sys::{ProgKind, Program};
use netsift_testkit::frames::Frame;

const TABLE1: &str = include_str!("../../fpl/examples/table1_udp.fpl");

/// A 1,514-byte Ethernet/IPv4/UDP frame from 192.168.1.3 to port 54321.
fn frame() -> Vec<u8> {
    Frame::default()
        .ipv4([192, 168, 1, 3], [192, 168, 1, 4])
        .udp(4000, 54321)
        .payload(&[0xa5; 1472])
        .build()
}

/// The minimum, median and maximum.
fn spread(mut v: Vec<u32>) -> [u32; 3] {
    v.sort_unstable();
    [v[0], v[v.len() / 2], v[v.len() - 1]]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(Ok(11), |a| a.parse())?;
    let repeat: u32 = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let p = compile(TABLE1, &Options::default(), &Externs::new())?;
    let k = Loaded::load(&p, Some(TABLE1), ProgKind::SchedCls)?;
    let f = frame();
    if f.len() != 1514 {
        return Err(format!("the frame has {} bytes, not 1514", f.len()).into());
    }
    let first = k.prog.test_run(&f, 1)?;
    if first.retval == 0 || k.result() != 1 {
        return Err("the Table 1 filter did not accept its frame".into());
    }
    // The floor of a test run of this frame: a program that returns at once.
    let mut a = Asm::new();
    a.mov64_imm(R0, 0);
    a.exit();
    let empty = Program::load(ProgKind::SchedCls, "empty", &a.finish()?)?;
    // Rounds of the two alternate, so that a noisy stretch hits both.
    let (mut ns, mut floor) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        ns.push(k.prog.test_run(&f, repeat)?.duration_ns);
        floor.push(empty.test_run(&f, repeat)?.duration_ns);
    }
    let (ns, floor) = (spread(ns), spread(floor));
    println!(
        "fpl_ebpf_ns: median {} ns per run (min {}, max {}); an empty program: median {} \
         (min {}, max {}); {rounds} rounds of {repeat}; Table 1 filter, {} eBPF instructions, \
         1514-byte matching UDP frame",
        ns[1],
        ns[0],
        ns[2],
        floor[1],
        floor[0],
        floor[2],
        k.insns.len()
    );
    println!(
        "command: cargo run --release -p netsift-kernel --example fpl_ebpf_time {rounds} {repeat}"
    );
    Ok(())
}
