//! Updates without a system call: a SET table in memory shared with the kernel
//! (`netsift_kernel::table`), beside a map write through `bpf(2)`.
//!
//! Update latency: inserting (then removing, untimed) a fresh key in a shared
//! table already holding 1 to 100,000 keys, each insert timed alone with the
//! monotonic clock (whose own reading, some 20 ns, is in the figure); beside it,
//! one `bpf(2)` map write (an array map's word, the cheapest write there is) in
//! the same run.
//!
//! Per packet: a program that reads a key from the packet and probes the shared
//! table, against one that looks the key up in a BPF hash map (what the
//! follower's listeners were), both holding the same keys, run side by side
//! packet by packet (which goes first turns) by `BPF_PROG_TEST_RUN`; the figure
//! is the median over runs of the ratio mapped/hash. Half the packets carry a
//! held key, half do not.

use super::{per_packet_paired, Latency};
use anyhow::{anyhow, bail, Result};
use netsift_kernel::asm::{Alu, Asm, Width, R0, R1, R10, R2, R6};
use netsift_kernel::helpers::MAP_LOOKUP_ELEM;
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use netsift_kernel::table::{Key, Table, KEY_WORDS};
use std::time::Instant;

/// `BPF_LD | BPF_ABS | BPF_W`.
const ABS_W: u8 = 0x20;
/// The programs' key on the stack.
const KEY_AT: i16 = -24;

/// The `i`th key of the benchmarks: a follower's listener (TCP, IPv4, a port,
/// an address).
fn key(i: u32) -> Key {
    [
        6 << 24 | 4 << 16 | (i & 0xffff),
        0x0a00_0000 | i >> 16,
        0,
        0,
        0,
    ]
}

/// Insert latency of a fresh key into a shared table holding `held` keys.
pub fn updates(held: u32, n: usize) -> Result<Latency> {
    let mut t = Table::with_capacity(held as usize + 16).map_err(|e| anyhow!("{e}"))?;
    for i in 0..held {
        t.insert(&key(i), 1).map_err(|e| anyhow!("{e}"))?;
    }
    let mut ns = Vec::with_capacity(n);
    for i in 0..n as u32 {
        let k = key(0x0100_0000 + i);
        let t0 = Instant::now();
        let r = t.insert(&k, 1);
        ns.push(t0.elapsed().as_nanos() as f64);
        r.map_err(|e| anyhow!("{e}"))?;
        t.remove(&k);
    }
    Ok(Latency::of(ns))
}

/// One `bpf(2)` map write: a word of an array map.
pub fn syscall_updates(n: usize) -> Result<Latency> {
    let map = Map::create(MapKind::Array, 4, 4, 1).map_err(|e| anyhow!("{e}"))?;
    let ns: Vec<f64> = (0..n as u32)
        .map(|i| {
            let t0 = Instant::now();
            let r = map.update(&0u32.to_ne_bytes(), &i.to_ne_bytes());
            r.map(|()| t0.elapsed().as_nanos() as f64)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(Latency::of(ns))
}

/// A program that reads a key from the five words after the Ethernet header
/// and returns 1 if `probe` finds it, else 0.
fn program(
    name: &str,
    probe: impl FnOnce(&mut Asm, netsift_kernel::asm::Label),
) -> Result<Program> {
    let mut a = Asm::new();
    let hit = a.label();
    a.mov64_reg(R6, R1);
    for w in 0..KEY_WORDS as i16 {
        a.raw(ABS_W, R0, 0, 14 + 4 * i32::from(w));
        a.stx(Width::W, R10, KEY_AT + 4 * w, R0);
    }
    probe(&mut a, hit);
    a.mov64_imm(R0, 0);
    a.exit();
    a.bind(hit);
    a.mov64_imm(R0, 1);
    a.exit();
    let insns = a.finish().map_err(|e| anyhow!("{e}"))?;
    Program::load(ProgKind::SchedCls, name, &insns).map_err(|e| anyhow!("{e}"))
}

/// A frame carrying `k` after its Ethernet header.
fn frame(k: &Key) -> Vec<u8> {
    let mut f = vec![0u8; 64];
    f[..12].copy_from_slice(&[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
    for (i, w) in k.iter().enumerate() {
        f[14 + 4 * i..18 + 4 * i].copy_from_slice(&w.to_be_bytes());
    }
    f
}

/// The per-packet cost of the shared table's probe over a hash map lookup of
/// the same `held` keys, ns each and their ratio per run (medians taken by the
/// caller).
pub fn probe_over_hash(
    held: u32,
    packets: usize,
    repeat: u32,
    runs: usize,
) -> Result<Vec<(f64, f64)>> {
    let mut t = Table::with_capacity(held as usize).map_err(|e| anyhow!("{e}"))?;
    let map = Map::create(MapKind::Hash, 4 * KEY_WORDS as u32, 4, held.max(1))
        .map_err(|e| anyhow!("{e}"))?;
    for i in 0..held {
        let k = key(i);
        t.insert(&k, 1).map_err(|e| anyhow!("{e}"))?;
        let bytes: Vec<u8> = k.iter().flat_map(|w| w.to_ne_bytes()).collect();
        map.update(&bytes, &1u32.to_ne_bytes())
            .map_err(|e| anyhow!("{e}"))?;
    }
    let probe = t.probe();
    let mapped = program("mapped", |a, hit| probe.emit(a, KEY_AT, hit))?;
    let hashed = program("hashed", |a, hit| {
        a.ld_map_fd(R1, map.fd());
        a.mov64_reg(R2, R10);
        a.alu64_imm(Alu::Add, R2, i32::from(KEY_AT));
        a.call(MAP_LOOKUP_ELEM);
        a.jmp_imm(netsift_kernel::asm::Cond::Ne, R0, 0, hit);
    })?;
    // Half held keys, half absent ones, spread over the table.
    let step = (held / (packets as u32).max(1)).max(1);
    let frames: Vec<Vec<u8>> = (0..packets as u32)
        .map(|i| {
            if i % 2 == 0 {
                frame(&key((i * step) % held.max(1)))
            } else {
                frame(&key(0x0200_0000 + i))
            }
        })
        .collect();
    for (i, f) in frames.iter().enumerate() {
        let (a, b) = (
            mapped.test_run(f, 1).map_err(|e| anyhow!("{e}"))?.retval,
            hashed.test_run(f, 1).map_err(|e| anyhow!("{e}"))?.retval,
        );
        if a != b || a != u32::from(i % 2 == 0) {
            bail!("packet {i}: the mapped probe says {a}, the hash map {b}");
        }
    }
    (0..runs)
        .map(|run| per_packet_paired(&mapped, &hashed, &frames, repeat, run))
        .collect()
}
