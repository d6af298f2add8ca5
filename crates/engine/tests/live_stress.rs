//! Millions of live updates against filtering threads, checked against a reference.
//!
//! The writer follows a fixed schedule, so the reference answer for any packet at any
//! point of the schedule is a formula. Each kind of edit has its own counter of
//! completed edits. A reader notes the counter before and after filtering a packet;
//! since every edit is published atomically, the verdict must be the reference
//! verdict of some state the counter passed through (one more than the last count,
//! for an edit published but not yet counted). Besides that:
//!
//! * a pass no update touches must match on every packet (no window of blindness);
//! * a packet no version of any pass matches must never be accepted (no torn
//!   instruction, no half-built pass).
//!
//! Edit kinds, each in rounds r = 0, 1, 2, ... with a window of W live items:
//! * ports: `add_param` port(r) to one instruction, then `del_param` port(r - W);
//! * servers: `dup_pass` of a template, `select_op` its server, `publish`, then
//!   `del_pass` of the child made W rounds earlier; the template's copied port test is
//!   also rewritten every round, which must not change what the children match;
//! * keys: `table_insert` key(r), then `table_remove` key(r - W) in a SET table.

use netsift_engine::live::{self, set_key, PassId};
use netsift_engine::Scratch;
use netsift_isa::insn::build::{self, Field};
use netsift_isa::{Instruction, Size};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

const W: u64 = 8;
const STABLE: u32 = 0xaaaa_0001;
const NEVER: u32 = 0xdead_0001;
const PORTS_SERVER: u32 = 0xbbbb_0001;
const TEMPLATE_SERVER: u32 = 0xeeee_0001;
const KEYS_SERVER: u32 = 0xcccc_0001;
const CHILD_PORT: u16 = 7777;

fn rounds() -> u64 {
    // Each round makes 8 published updates (ports 2, servers 4 with the two template
    // rewrites, keys 2): 250k rounds is 2M updates.
    std::env::var("NETSIFT_STRESS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(250_000)
}

fn port(k: u64) -> u16 {
    1024 + (k % 60_000) as u16
}
fn child_server(k: u64) -> u32 {
    0x1000_0000 + k as u32
}
fn key(k: u64) -> u32 {
    0x2000_0000 + k as u32
}

fn pkt(server: u32, port: u16, key: u32) -> [u8; 16] {
    let mut p = [0u8; 16];
    p[0..4].copy_from_slice(&server.to_be_bytes());
    p[4..6].copy_from_slice(&port.to_be_bytes());
    p[8..12].copy_from_slice(&key.to_be_bytes());
    p
}

fn server(v: u32) -> Instruction {
    build::eq(0, 0, Size::B4, u32::MAX, &[v]).unwrap()
}

/// Item k is added by edit 2k and removed by edit 2(k+W)+1, so it is present once
/// `2k + 1` edits are done and until `2(k + W) + 2` are.
fn present(k: u64, done: u64) -> bool {
    2 * k < done && done < 2 * (k + W) + 2
}

/// Whether `verdict` is the reference verdict of some count in `before ..= after + 1`.
fn consistent(k: u64, before: u64, after: u64, verdict: bool) -> bool {
    (before..=after + 1).any(|d| present(k, d) == verdict)
}

struct Counters {
    ports: AtomicU64,
    servers: AtomicU64,
    keys: AtomicU64,
    done: AtomicBool,
}

#[test]
fn millions_of_updates_against_filtering_threads() {
    let rounds = rounds();
    let (mut w, r) = live::new();

    let stable = w.new_pass().unwrap();
    w.select_op(stable, 0, server(STABLE)).unwrap();
    w.publish(stable).unwrap();

    let ports = w.new_pass().unwrap();
    w.select_op(ports, 0, server(PORTS_SERVER)).unwrap();
    w.select_op(ports, 1, build::eq(0, 4, Size::B2, 0xffff, &[1]).unwrap())
        .unwrap();
    w.publish(ports).unwrap();

    // The template: port first, so that its run decides the children's copied port
    // test (hierarchical execution is exercised on every child packet).
    let template = w.new_pass().unwrap();
    let port_eq = |p: u16| build::eq(0, 4, Size::B2, 0xffff, &[p as u32]).unwrap();
    w.select_op(template, 0, port_eq(CHILD_PORT)).unwrap();
    w.select_op(template, 1, server(TEMPLATE_SERVER)).unwrap();
    w.publish(template).unwrap();

    let table = w.create_table(16).unwrap();
    let keys = w.new_pass().unwrap();
    w.select_op(keys, 0, server(KEYS_SERVER)).unwrap();
    let k_field = Field {
        anchor: 0,
        offset: 8,
        size: Size::B4,
    };
    w.select_op(
        keys,
        1,
        build::set(table, k_field, u32::MAX, None, 0, None).unwrap(),
    )
    .unwrap();
    w.publish(keys).unwrap();

    let c = Arc::new(Counters {
        ports: AtomicU64::new(0),
        servers: AtomicU64::new(0),
        keys: AtomicU64::new(0),
        done: AtomicBool::new(false),
    });

    let readers: Vec<_> = (0..2)
        .map(|t| {
            let r = r.clone();
            let c = c.clone();
            thread::spawn(move || {
                let mut s = Scratch::new();
                let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ t;
                let mut checks = [0u64; 5];
                let mut session = r.session();
                let mut n = 0u64;
                while !c.done.load(Ordering::Acquire) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let kind = x % 5;
                    let counter = match kind {
                        0 => {
                            assert!(session.matches(&mut s, &pkt(STABLE, 1, 0), 16), "blind");
                            checks[0] += 1;
                            continue;
                        }
                        1 => {
                            // A port some version had, a server no version has.
                            assert!(!session.matches(&mut s, &pkt(NEVER, CHILD_PORT, 0), 16));
                            assert!(!session.matches(&mut s, &pkt(PORTS_SERVER, 0, 0), 16));
                            checks[1] += 1;
                            continue;
                        }
                        2 => &c.ports,
                        3 => &c.servers,
                        _ => &c.keys,
                    };
                    let before = counter.load(Ordering::Acquire);
                    let round = before / 2;
                    let k = (round + (x >> 8) % (W + 4)).saturating_sub(W + 1);
                    let packet = match kind {
                        2 => pkt(PORTS_SERVER, port(k), 0),
                        3 => pkt(child_server(k), CHILD_PORT, 0),
                        _ => pkt(KEYS_SERVER, 0, key(k)),
                    };
                    let verdict = session.matches(&mut s, &packet, 16);
                    let after = counter.load(Ordering::Acquire);
                    assert!(
                        consistent(k, before, after, verdict),
                        "kind {kind} item {k}: verdict {verdict} with {before}..={after} edits done"
                    );
                    checks[kind as usize] += 1;
                    n += 1;
                    if n & 63 == 0 {
                        session.repin();
                    }
                }
                checks
            })
        })
        .collect();

    let mut children: Vec<PassId> = Vec::new();
    for round in 0..rounds {
        // ports
        w.add_param(ports, 1, port(round) as u32).unwrap();
        c.ports.fetch_add(1, Ordering::Release);
        if round >= W {
            w.del_param(ports, 1, port(round - W) as u32).unwrap();
        }
        c.ports.fetch_add(1, Ordering::Release);
        // servers: children copy the template while its port is CHILD_PORT ...
        w.select_op(template, 0, port_eq(CHILD_PORT)).unwrap();
        let child = w.dup_pass(template).unwrap();
        w.select_op(child, 1, server(child_server(round))).unwrap();
        w.publish(child).unwrap();
        children.push(child);
        c.servers.fetch_add(1, Ordering::Release);
        if round >= W {
            let old = children.remove(0);
            w.del_pass(old).unwrap();
        }
        c.servers.fetch_add(1, Ordering::Release);
        // ... and keep matching it after the template's port changes.
        w.select_op(template, 0, port_eq(CHILD_PORT + 1)).unwrap();
        // keys
        assert!(w.table_insert(table, set_key(key(round), 0)).unwrap());
        c.keys.fetch_add(1, Ordering::Release);
        if round >= W {
            assert!(w.table_remove(table, set_key(key(round - W), 0)).unwrap());
        }
        c.keys.fetch_add(1, Ordering::Release);
    }
    c.done.store(true, Ordering::Release);
    let mut total = [0u64; 5];
    for t in readers {
        let checks = t.join().expect("a reader failed");
        for (a, b) in total.iter_mut().zip(checks) {
            *a += b;
        }
    }
    eprintln!(
        "live stress: {} rounds, {} published updates; reader checks: stable {}, never {}, ports {}, servers {}, keys {}",
        rounds,
        rounds * 8,
        total[0],
        total[1],
        total[2],
        total[3],
        total[4]
    );
    assert!(
        total.iter().all(|&n| n > 100),
        "readers barely ran: {total:?}"
    );
    assert_eq!(w.table_len(table).unwrap() as u64, W.min(rounds));
}
