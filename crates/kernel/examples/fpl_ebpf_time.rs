//! Times the seeds' Table 1 filter (`crates/fpl/examples/table1_udp.fpl`)
//! compiled to eBPF, in the kernel, on a 1,514-byte UDP frame it accepts:
//! `BPF_PROG_TEST_RUN` with a repeat count, whose mean per run the kernel
//! measures; several rounds, the median with the minimum and maximum.
//!
//! `cargo run --release -p netsift-kernel --example fpl_ebpf_time [ROUNDS [REPEAT]]`
//! (root, for CAP_BPF).

use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, Options};
use netsift_kernel::fpl::Loaded;
use netsift_kernel::sys::ProgKind;

const TABLE1: &str = include_str!("../../fpl/examples/table1_udp.fpl");

/// A 1,514-byte Ethernet/IPv4/UDP frame from 192.168.1.3 to port 54321.
fn frame() -> Vec<u8> {
    let mut f = vec![0u8; 1514];
    f[..12].copy_from_slice(&[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&1500u16.to_be_bytes());
    f[22] = 64;
    f[23] = 17;
    f[26..30].copy_from_slice(&[192, 168, 1, 3]);
    f[30..34].copy_from_slice(&[192, 168, 1, 4]);
    f[34..36].copy_from_slice(&4000u16.to_be_bytes());
    f[36..38].copy_from_slice(&54321u16.to_be_bytes());
    f[38..40].copy_from_slice(&1480u16.to_be_bytes());
    f
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(Ok(11), |a| a.parse())?;
    let repeat: u32 = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let p = compile(TABLE1, &Options::default(), &Externs::new())?;
    let k = Loaded::load(&p, Some(TABLE1), ProgKind::SchedCls)?;
    let f = frame();
    let first = k.prog.test_run(&f, 1)?;
    if first.retval == 0 || k.result() != 1 {
        return Err("the Table 1 filter did not accept its frame".into());
    }
    let mut ns: Vec<u32> = (0..rounds.max(1))
        .map(|_| k.prog.test_run(&f, repeat).map(|r| r.duration_ns))
        .collect::<Result<_, _>>()?;
    ns.sort_unstable();
    println!(
        "fpl_ebpf_ns: median {} ns per run (min {}, max {}) over {} rounds of {repeat}; \
         Table 1 filter, {} eBPF instructions, 1514-byte matching UDP frame",
        ns[ns.len() / 2],
        ns[0],
        ns[ns.len() - 1],
        ns.len(),
        k.insns.len()
    );
    println!(
        "command: cargo run --release -p netsift-kernel --example fpl_ebpf_time {rounds} {repeat}"
    );
    Ok(())
}
