//! The kernel code generator against the user-space engine: every EN10MB corpus
//! expression, compiled by pcapc, generated as an eBPF socket filter and run by the
//! kernel (`BPF_PROG_TEST_RUN`) on every whole corpus packet.
//!
//! The kernel's program must accept everything the engine accepts (a 0 where the
//! engine accepts is a lost packet), and where it answers surely ([`ACCEPT`] or
//! 0) it must agree with the engine exactly. [`UNSURE`] answers (an operation left
//! to user space, or a load the kernel could not make) are counted, and a program
//! that says it is decisive must not give one to these frames (all under 64 KiB).
//!
//! Packets cut short by the capture's snap length are left out: the kernel filters
//! whole packets, and a test run cannot tell it a packet's wire length. So are
//! packets over [`MAX_TEST_RUN`] bytes, which a test run refuses (its buffer is one
//! page with the skb's head- and tailroom).
//!
//! Needs root (CAP_BPF): skipped with a message without it, a failure under
//! `CI=true`.

use netsift_conformance::{builtin_expressions, generated_capture_data, load_corpus_captures};
use netsift_engine::Compiled;
use netsift_kernel::codegen::{generate, Env, ACCEPT, UNSURE};
use netsift_kernel::sys::{ProgKind, Program};
use netsift_pcapc::Target;
use netsift_testkit::{require, skip, Mismatches, Need};
use netsift_wire::LinkType;

/// The largest frame `BPF_PROG_TEST_RUN` takes for an skb program, with margin.
const MAX_TEST_RUN: usize = 3500;

/// Whether a packet can be compared: whole, and small enough for a test run.
fn usable(p: &netsift_oracle::OwnedPacket) -> bool {
    p.data.len() as u32 == p.wire_len && (14..=MAX_TEST_RUN).contains(&p.data.len())
}

/// `set`'s program for `env`, generated and loaded as `kind`; a failure of either
/// is one of `failures`.
fn load(
    expr: &str,
    set: &netsift_isa::PassSet,
    env: Env,
    kind: ProgKind,
    failures: &mut Mismatches<String>,
) -> Option<(netsift_kernel::codegen::Generated, Program)> {
    let g = generate(set, env)
        .map_err(|e| failures.record(format!("{expr:?}: {e}")))
        .ok()?;
    match Program::load(kind, "netsift", &g.insns) {
        Ok(p) => Some((g, p)),
        Err(e) => {
            failures.record(format!("{expr:?}: {} instructions: {e}", g.insns.len()));
            None
        }
    }
}

/// One test run's return value, or `None` (counted in `refused`) for a frame the
/// kernel refuses: an IPv4 or IPv6 frame too short for its network header
/// (EINVAL), which never reaches a live socket's filter either.
fn test_run(
    prog: &Program,
    frame: &[u8],
    mark: u32,
    priority: u32,
    refused: &mut u64,
) -> Option<u32> {
    match prog.test_run_with(frame, 1, mark, priority) {
        Ok(r) => Some(r.retval),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            *refused += 1;
            None
        }
        Err(e) => panic!("test run of a {}-byte frame: {e}", frame.len()),
    }
}

/// Whether the kernel's answer `got` is wrong against the engine's `want`: a 0
/// where the engine accepts, an [`ACCEPT`] where it rejects, or an [`UNSURE`]
/// (counted) from a decisive program, which is sure of every frame this short.
/// `Err` for a value no program returns.
fn wrong(got: u32, want: bool, decisive: bool, unsure: &mut u64) -> Result<bool, u32> {
    match got {
        ACCEPT => Ok(!want),
        0 => Ok(want),
        UNSURE => {
            *unsure += 1;
            Ok(decisive)
        }
        other => Err(other),
    }
}

/// Test runs against the engine: their counts (runs, unsure answers, frames the
/// kernel refused) and the wrong answers found.
struct Runs {
    runs: u64,
    unsure: u64,
    refused: u64,
    scratch: netsift_engine::Scratch,
    failures: Mismatches<String>,
}

impl Runs {
    fn new(what: &str) -> Runs {
        Runs {
            runs: 0,
            unsure: 0,
            refused: 0,
            scratch: netsift_engine::Scratch::new(),
            failures: Mismatches::new(what, 40),
        }
    }

    /// Test-runs `prog` on every packet against the engine's verdict, recording
    /// each wrong answer (see [`wrong`]) under `label`.
    fn check(
        &mut self,
        label: &str,
        prog: &Program,
        decisive: bool,
        engine: &Compiled,
        packets: &[Vec<u8>],
    ) {
        for (i, p) in packets.iter().enumerate() {
            let want = engine.matches(&mut self.scratch, p, p.len() as u32);
            let Some(got) = test_run(prog, p, 0, 0, &mut self.refused) else {
                continue;
            };
            self.runs += 1;
            match wrong(got, want, decisive, &mut self.unsure) {
                Ok(false) => {}
                Ok(true) => self.failures.record(format!(
                    "{label}: packet {i} ({} bytes): kernel {}, engine {}",
                    p.len(),
                    if got == 0 { "rejects" } else { "accepts" },
                    if want { "accepts" } else { "rejects" },
                )),
                Err(other) => self
                    .failures
                    .record(format!("{label}: packet {i}: return value {other:#x}")),
            }
        }
    }
}

/// Long `host` and `port` lists, which pcapc compiles to SET lookups in a key
/// table (a BPF hash map in the kernel): half of their values taken from the
/// packets (IPv4 source addresses, TCP/UDP destination ports), half not.
fn lists(packets: &[Vec<u8>]) -> Vec<String> {
    let mut hosts = std::collections::BTreeSet::new();
    let mut ports = std::collections::BTreeSet::new();
    for p in packets {
        if p.len() >= 38 && p[12..14] == [8, 0] && p[14] >> 4 == 4 {
            hosts.insert(format!("{}.{}.{}.{}", p[26], p[27], p[28], p[29]));
            let ihl = usize::from(p[14] & 0x0f) * 4;
            if matches!(p[23], 6 | 17) && p.len() >= 14 + ihl + 4 {
                ports.insert(u16::from_be_bytes([p[14 + ihl + 2], p[14 + ihl + 3]]));
            }
        }
    }
    let hosts: Vec<String> = hosts
        .into_iter()
        .take(40)
        .chain((0..40).map(|i| format!("192.0.2.{i}")))
        .collect();
    let ports: Vec<String> = ports
        .into_iter()
        .take(40)
        .map(|p| p.to_string())
        .chain((0..40).map(|i| (61_000 + i).to_string()))
        .collect();
    let or = |kind: &str, vals: &[String]| {
        vals.iter()
            .map(|v| format!("{kind} {v}"))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    vec![
        or("host", &hosts),
        or("src host", &hosts),
        or("port", &ports),
        format!("tcp and ({})", or("dst port", &ports)),
        format!("not ({})", or("host", &hosts)),
        // Short enough to stay EQ2s, negated in a row: the generator fuses them.
        format!("ip and not ip host ({})", hosts[..20].join(" or ")),
        format!(
            "not tcp port ({}) and not host ({})",
            ports[..6].join(" or "),
            hosts[..12].join(" or ")
        ),
    ]
}

/// The whole EN10MB corpus packets and the expressions to try (built-in and the
/// corpus's accept list); `None` (with a message) where the kernel tests cannot
/// run, which under CI is a failure.
#[track_caller]
fn corpus() -> Option<(Vec<Vec<u8>>, Vec<String>)> {
    if !skip::all_met(&[Need::Root]) {
        return None;
    }
    let lt = LinkType::EN10MB;
    let mut packets: Vec<Vec<u8>> = Vec::new();
    let mut exprs = builtin_expressions(lt);
    if let Some(corpus) = netsift_conformance::require_corpus() {
        let caps = load_corpus_captures(&corpus);
        for c in caps.captures(lt) {
            packets.extend(
                c.packets
                    .iter()
                    .filter(|p| usable(p))
                    .map(|p| p.data.clone()),
            );
        }
        exprs.extend(netsift_conformance::read_accept_list(&corpus, lt));
    }
    Some((packets, exprs))
}

#[test]
fn kernel_programs_accept_what_the_engine_accepts() {
    let Some((mut packets, mut exprs)) = corpus() else {
        return;
    };
    let lt = LinkType::EN10MB;
    for c in generated_capture_data().get(&lt).into_iter().flatten() {
        packets.extend(
            c.packets
                .iter()
                .filter(|p| usable(p))
                .map(|p| p.data.clone()),
        );
    }
    exprs.sort();
    exprs.dedup();
    exprs.extend(lists(&packets));
    let target = Target::new(lt);
    let (mut exact_programs, mut programs, mut not_compiled) = (0, 0, 0);
    let mut r = Runs::new("socket programs against the engine");
    for expr in &exprs {
        let Ok(set) = netsift_pcapc::compile_for(expr, target) else {
            // The differential corpus test checks these refusals against libpcap.
            not_compiled += 1;
            continue;
        };
        let generated = match generate(&set, Env::TEST_RUN) {
            Ok(g) => g,
            Err(e) => {
                r.failures.record(format!("{expr:?}: {e}"));
                continue;
            }
        };
        let prog = match Program::load(ProgKind::SchedCls, "netsift", &generated.insns) {
            Ok(p) => p,
            Err(e) => {
                r.failures.record(format!(
                    "{expr:?}: {} instructions: {e}",
                    generated.insns.len()
                ));
                continue;
            }
        };
        programs += 1;
        exact_programs += usize::from(generated.exact);
        let engine = Compiled::new(set);
        r.check(
            &format!("{expr:?}"),
            &prog,
            generated.decisive,
            &engine,
            &packets,
        );
    }
    eprintln!(
        "kernel: {programs} programs ({exact_programs} exact) of {} expressions ({not_compiled} refused by pcapc), {} packets, {} runs, {} unsure answers, {} runs the kernel refused",
        exprs.len(),
        packets.len(),
        r.runs,
        r.unsure,
        r.refused
    );
    assert!(programs > 0 && !packets.is_empty());
    r.failures.assert_none();
}

/// Swift's update in the kernel: a key written to a SET's shared table is seen by
/// the very next packet, with no reload, no verifier run and no system call; and
/// what one write costs.
#[test]
fn a_key_written_to_the_table_is_seen_by_the_next_packet() {
    use netsift_kernel::codegen::set_words;
    require!(Need::Root);
    let hosts: Vec<String> = (1..=40).map(|i| format!("host 10.9.0.{i}")).collect();
    let target = Target::new(LinkType::EN10MB);
    let set = netsift_pcapc::compile_for(&hosts.join(" or "), target).unwrap();
    let g = generate(&set, Env::TEST_RUN).unwrap();
    assert!(g.exact, "a host list compiles whole");
    assert_eq!(g.tables.len(), 1, "one key table");
    let prog = Program::load(ProgKind::SchedCls, "hosts", &g.insns).unwrap();
    // An IPv4/UDP frame from 192.0.2.77 to 198.51.100.1.
    let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0];
    f.extend([0x45, 0, 0, 32, 0, 1, 0, 0, 64, 17, 0, 0]);
    f.extend([192, 0, 2, 77, 198, 51, 100, 1]);
    f.extend([0x30, 0x39, 0x00, 0x35, 0, 12, 0, 0, 1, 2, 3, 4]);
    let run = |f: &[u8]| prog.test_run(f, 1).unwrap().retval;
    assert_eq!(run(&f), 0);
    let mut table = g.tables[0].2.lock().unwrap();
    let key = set_words(netsift_isa::set_key(u32::from_be_bytes([192, 0, 2, 77]), 0));
    table.insert(&key, 1).unwrap();
    assert_eq!(run(&f), ACCEPT, "the next packet sees the inserted key");
    assert!(table.remove(&key));
    assert_eq!(run(&f), 0, "and the deleted one");
    // What a write costs, over 10,000 inserts and deletes of fresh keys.
    let mut ns: Vec<u64> = (0..10_000u32)
        .map(|i| {
            let k = set_words(netsift_isa::set_key(0x0a63_0000 | i, 0));
            let t = std::time::Instant::now();
            table.insert(&k, 1).unwrap();
            let d = t.elapsed().as_nanos() as u64;
            table.remove(&k);
            d
        })
        .collect();
    ns.sort_unstable();
    eprintln!(
        "shared-table insert: p50 {} ns, p99 {} ns, max {} ns (10,000 keys)",
        ns[5_000], ns[9_900], ns[9_999]
    );
}

/// libpcap's classic programs, translated to eBPF as the kernel converts them
/// (`netsift_kernel::classic`) and run by the kernel as SCHED_CLS test runs (which
/// start at the MAC header, as classic loads do): the same return value as
/// libpcap's own interpreter on every whole corpus packet. This is what makes the
/// benchmarks' "libpcap's program in the kernel" a faithful contender.
#[test]
fn classic_programs_translated_return_what_libpcap_returns() {
    use netsift_kernel::classic::{translate, Classic};
    let Some((packets, exprs)) = corpus() else {
        return;
    };
    let lt = LinkType::EN10MB;
    // Every third packet: the translation is checked on thousands either way.
    let packets: Vec<Vec<u8>> = packets.into_iter().step_by(3).collect();
    let (mut programs, mut runs, mut refused, mut skipped) = (0, 0u64, 0u64, 0);
    let mut failures = Mismatches::new("classic programs against libpcap", 40);
    for expr in &exprs {
        let Ok(f) = netsift_oracle::Filter::compile(lt, expr) else {
            continue;
        };
        // Backward jumps are not classic BPF the kernel takes. A packet load with
        // a negative offset (`tcp[-20]`) is where the kernel and libpcap's
        // interpreter differ: libpcap refuses an offset past 2^31 outright, the
        // kernel adds it to X as a signed number and loads; the translation keeps
        // the kernel's meaning, so such programs are left out here.
        let negative_load = f
            .insns()
            .iter()
            .any(|i| i.code & 0x07 == 0 && matches!(i.code & 0xe0, 0x20 | 0x40) && i.k >= 1 << 31);
        if f.may_loop() || negative_load {
            skipped += 1;
            continue;
        }
        let prog: Vec<Classic> = f
            .insns()
            .iter()
            .map(|i| Classic {
                code: i.code,
                jt: i.jt,
                jf: i.jf,
                k: i.k,
            })
            .collect();
        let insns = match translate(&prog) {
            Ok(i) => i,
            Err(e) => {
                failures.record(format!("{expr:?}: {e}"));
                continue;
            }
        };
        let p = match Program::load(ProgKind::SchedCls, "classic", &insns) {
            Ok(p) => p,
            Err(e) => {
                failures.record(format!("{expr:?}: {e}"));
                continue;
            }
        };
        programs += 1;
        for (i, pkt) in packets.iter().enumerate() {
            let want = f.run(pkt, pkt.len() as u32);
            let got = match p.test_run(pkt, 1) {
                Ok(r) => r.retval,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    refused += 1;
                    continue;
                }
                Err(e) => panic!("{expr:?}: packet {i}: {e}"),
            };
            runs += 1;
            if got != want {
                failures.record(format!(
                    "{expr:?}: packet {i}: kernel {got:#x}, libpcap {want:#x}"
                ));
            }
        }
    }
    eprintln!(
        "classic: {programs} programs of {} expressions ({skipped} left out), {} packets, {runs} runs, {refused} refused",
        exprs.len(),
        packets.len()
    );
    assert!(programs > 0);
    failures.assert_none();
}

/// A live set's clauses as one kernel program (`generate_clauses`): what any
/// clause accepts, each clause its own fault domain, against the live set itself
/// (netsift_swift over the engine's live form) on every other whole packet.
#[test]
fn clause_programs_accept_what_a_live_set_accepts() {
    use netsift_kernel::codegen::generate_clauses;
    let Some((packets, mut exprs)) = corpus() else {
        return;
    };
    exprs.sort();
    exprs.dedup();
    let lt = LinkType::EN10MB;
    let target = Target::new(lt);
    let sets: Vec<(String, netsift_isa::PassSet)> = exprs
        .iter()
        .filter(|e| !e.trim().is_empty())
        .filter_map(|e| Some((e.clone(), netsift_pcapc::compile_for(e, target).ok()?)))
        .collect();
    let packets: Vec<Vec<u8>> = packets.into_iter().step_by(2).collect();
    let mut scratch = netsift_engine::Scratch::new();
    let (mut programs, mut runs, mut unsure) = (0, 0u64, 0u64);
    let mut failures = Mismatches::new("clause programs against a live set", 40);
    // Clauses in threes, the first of each group shifting by one each time.
    for group in sets.windows(3).step_by(2) {
        let (mut swift, reader) = netsift_swift::Swift::open(lt);
        let ids: Vec<_> = group
            .iter()
            .map(|(e, _)| swift.add(e).expect("a corpus expression is a clause"))
            .collect();
        let refs: Vec<&netsift_isa::PassSet> = group.iter().map(|(_, s)| s).collect();
        let g = generate_clauses(&refs, Env::TEST_RUN).expect("generated");
        let prog = match Program::load(ProgKind::SchedCls, "clauses", &g.insns) {
            Ok(p) => p,
            Err(e) => {
                failures.record(format!(
                    "{:?}: {e}",
                    group.iter().map(|g| &g.0).collect::<Vec<_>>()
                ));
                continue;
            }
        };
        programs += 1;
        // All three clauses; then the middle one switched off in place (a map
        // write) and removed from the live set, on every other packet.
        let mut all: Vec<(bool, usize)> = (0..packets.len()).map(|i| (false, i)).collect();
        all.extend((0..packets.len()).step_by(2).map(|i| (true, i)));
        let mut switched = false;
        for (off, i) in all {
            if off && !switched {
                g.set_enabled(1, false).expect("a map write");
                swift.remove(&ids[1]).expect("the clause goes");
                switched = true;
            }
            let p = &packets[i];
            let want = reader.matches(&mut scratch, p, p.len() as u32);
            let got = match prog.test_run(p, 1) {
                Ok(r) => r.retval,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => continue,
                Err(e) => panic!("packet {i}: {e}"),
            };
            runs += 1;
            let wrong = match got {
                ACCEPT => !want,
                0 => want,
                UNSURE => {
                    unsure += 1;
                    false
                }
                _ => true,
            };
            if wrong {
                failures.record(format!(
                    "{:?}{}: packet {i} ({} bytes): kernel {got:#x}, live set {want}",
                    group.iter().map(|g| &g.0).collect::<Vec<_>>(),
                    if switched { " (the second off)" } else { "" },
                    p.len()
                ));
            }
        }
    }
    eprintln!("clauses: {programs} programs of three clauses, {runs} runs, {unsure} unsure");
    assert!(programs > 0);
    failures.assert_none();
}

/// Whether a frame has a tag of the kinds the kernel takes out on receive
/// (802.1Q, 802.1ad).
fn is_tagged(p: &[u8]) -> bool {
    p.len() >= 18 && matches!(p[12..14], [0x81, 0x00] | [0x88, 0xa8])
}

/// The corpus's tagged frames, then 300 untagged ones; and how many are tagged.
fn tagged_first(packets: &[Vec<u8>]) -> (Vec<&Vec<u8>>, usize) {
    let mut frames: Vec<&Vec<u8>> = packets.iter().filter(|p| is_tagged(p)).collect();
    let tagged = frames.len();
    frames.extend(packets.iter().filter(|p| !is_tagged(p)).take(300));
    (frames, tagged)
}

/// A frame as a test run gets it where the kernel took its tag out: the data
/// without the tag, and the context's `mark` (the tag control information) and
/// `priority` (the tag protocol identifier; 0 for an untagged frame).
fn tag_out(p: &[u8]) -> (Vec<u8>, u32, u32) {
    if !is_tagged(p) {
        return (p.to_vec(), 0, 0);
    }
    let mut d = p[..12].to_vec();
    d.extend_from_slice(&p[16..]);
    let tpid = u16::from_be_bytes([p[12], p[13]]);
    let tci = u16::from_be_bytes([p[14], p[15]]);
    (d, u32::from(tci), u32::from(tpid))
}

/// A received frame's VLAN tag is out of the data by the time a socket filter
/// runs; the program's tagged half reads it from beside the packet. Here each
/// corpus frame with an 802.1Q or 802.1ad tag (the kinds the kernel takes out)
/// is run with the tag cut out of its data and put in the test run's context
/// (`Env::TEST_RUN_TAGGED`), and the answer must be the engine's on the whole
/// frame; untagged frames run the untagged half. A decisive program
/// (`Generated::decisive`) must never answer unsure on these frames.
#[test]
fn tagged_frames_get_the_engines_answer_with_the_tag_out_of_the_data() {
    let Some((packets, mut exprs)) = corpus() else {
        return;
    };
    let (frames, tagged) = tagged_first(&packets);
    exprs.extend(
        [
            "vlan",
            "vlan 10",
            "vlan and tcp port 80",
            "vlan and vlan",
            "ether[12:2] = 0x8100",
            "ether[10:4] != 0",
            "ether[11:2] = 0x0081",
            "ether[13] = 0",
            "ether[14:2] & 0xfff < 100",
            "ether[15:2] != 0",
            "ether[ether[0] & 15] = 0x81",
            "ether[ether[0] & 15:4] != 1",
            "len > 100 and vlan",
            "vlan and tcp[ip[0]-60:1] = 3",
            "vlan and ip and ip[0] & 0xf > 5",
        ]
        .map(String::from),
    );
    exprs.sort();
    exprs.dedup();
    let target = Target::new(LinkType::EN10MB);
    let mut scratch = netsift_engine::Scratch::new();
    let (mut programs, mut decisive, mut runs, mut unsure, mut refused) = (0, 0, 0u64, 0u64, 0u64);
    let mut failures = Mismatches::new("tagged frames against the engine", 40);
    for expr in &exprs {
        let Ok(set) = netsift_pcapc::compile_for(expr, target) else {
            continue;
        };
        let Some((g, prog)) = load(
            expr,
            &set,
            Env::TEST_RUN_TAGGED,
            ProgKind::SchedCls,
            &mut failures,
        ) else {
            continue;
        };
        programs += 1;
        decisive += usize::from(g.decisive);
        let engine = Compiled::new(set);
        for (i, p) in frames.iter().enumerate() {
            let want = engine.matches(&mut scratch, p, p.len() as u32);
            let (data, mark, priority) = tag_out(p);
            let Some(got) = test_run(&prog, &data, mark, priority, &mut refused) else {
                continue;
            };
            runs += 1;
            let wrong = match wrong(got, want, g.decisive, &mut unsure) {
                Ok(w) => w,
                Err(other) => {
                    failures.record(format!("{expr:?}: frame {i}: return value {other:#x}"));
                    false
                }
            };
            if wrong {
                failures.record(format!(
                    "{expr:?}: frame {i} ({} bytes, {}): kernel {got:#x}, engine {}{}",
                    p.len(),
                    if priority != 0 { "tagged" } else { "untagged" },
                    if want { "accepts" } else { "rejects" },
                    if g.decisive {
                        " (decisive program)"
                    } else {
                        ""
                    },
                ));
            }
        }
    }
    eprintln!(
        "tagged: {programs} programs ({decisive} decisive), {} frames ({tagged} tagged), {runs} runs, {unsure} unsure, {refused} refused",
        frames.len()
    );
    assert!(tagged > 0, "the corpus has VLAN-tagged frames");
    failures.assert_none();
}

/// The XDP level: every expression generated as an XDP program, test-run on
/// every whole corpus frame. Every frame must go on (`XDP_PASS`); the ring buffer
/// must hold one record, the whole frame with its lengths, for each frame the
/// engine accepts, and none for a frame it rejects where the program is decisive
/// (an unsure accept is a record too). The counters must add up.
#[test]
fn xdp_programs_copy_what_the_engine_accepts() {
    use netsift_kernel::codegen::{XDP_HDR, XDP_STATS};
    use netsift_kernel::ringbuf::RingBuf;
    use netsift_kernel::sys::{Map, MapKind};
    let Some((packets, mut exprs)) = corpus() else {
        return;
    };
    exprs.sort();
    exprs.dedup();
    exprs.extend(lists(&packets));
    let target = Target::new(LinkType::EN10MB);
    let mut ring = RingBuf::create(1 << 20).expect("a ring buffer");
    let mut scratch = netsift_engine::Scratch::new();
    let (mut programs, mut runs, mut records, mut extra) = (0, 0u64, 0u64, 0u64);
    let mut failures = Mismatches::new("XDP programs against the engine", 40);
    // Every third frame: the socket-level test runs them all.
    let frames: Vec<&Vec<u8>> = packets.iter().step_by(3).collect();
    for expr in &exprs {
        let Ok(set) = netsift_pcapc::compile_for(expr, target) else {
            continue;
        };
        let stats = Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).expect("counters");
        let env = Env::xdp(ring.map().fd(), stats.fd(), 262_144);
        let Some((g, prog)) = load(expr, &set, env, ProgKind::Xdp, &mut failures) else {
            continue;
        };
        programs += 1;
        let engine = Compiled::new(set);
        let (mut accepted, mut copied) = (0u64, 0u64);
        for (i, p) in frames.iter().enumerate() {
            let want = engine.matches(&mut scratch, p, p.len() as u32);
            let r = prog.test_run(p, 1).expect("an XDP test run");
            runs += 1;
            assert_eq!(r.retval, 2, "{expr:?}: frame {i}: not passed on");
            let mut got = Vec::new();
            ring.drain(|rec| got.push(rec.to_vec()));
            let rec = match got.as_slice() {
                [] => None,
                [one] => Some(one),
                more => panic!("{expr:?}: frame {i}: {} records", more.len()),
            };
            copied += u64::from(rec.is_some());
            accepted += u64::from(want);
            if let Some(rec) = rec {
                let h = XDP_HDR as usize;
                let cap = u32::from_ne_bytes(rec[0..4].try_into().unwrap()) as usize;
                let wire = u32::from_ne_bytes(rec[4..8].try_into().unwrap()) as usize;
                if cap != p.len()
                    || wire != p.len()
                    || rec.len() < h + cap
                    || rec[h..h + cap] != p[..]
                {
                    failures.record(format!(
                        "{expr:?}: frame {i}: record of {cap}/{wire} bytes differs"
                    ));
                }
            }
            let wrong = match (rec.is_some(), want) {
                (false, true) => true,
                (true, false) => {
                    extra += 1;
                    g.decisive
                }
                _ => false,
            };
            if wrong {
                failures.record(format!(
                    "{expr:?}: frame {i} ({} bytes): {} record, engine {}",
                    p.len(),
                    if rec.is_some() { "a" } else { "no" },
                    if want { "accepts" } else { "rejects" },
                ));
            }
        }
        records += copied;
        let seen = stats.sum_percpu_u64(0).unwrap();
        let acc = stats.sum_percpu_u64(1).unwrap();
        let full = stats.sum_percpu_u64(2).unwrap();
        if (seen, acc, full) != (frames.len() as u64, copied, 0) {
            failures.record(format!(
                "{expr:?}: counters seen {seen}, accepted {acc}, full {full}; {} frames, {copied} records ({accepted} accepted by the engine)",
                frames.len()
            ));
        }
    }
    eprintln!(
        "xdp: {programs} programs, {} frames, {runs} runs, {records} records, {extra} unsure records",
        frames.len()
    );
    assert!(programs > 0);
    failures.assert_none();
}

/// Swift's `add_param`/`del_param` in the kernel: with operand sets in a map
/// (`Env::with_params`), every EQ and EQ2 looks its field up there, and an
/// operand added or removed is one map write. After each edit, the kernel's
/// verdict on every corpus packet is the engine's on the same pass set with the
/// same instruction edited as the live writer edits it (operand added or moved
/// out, `copied` cleared).
#[test]
fn operand_maps_answer_as_the_engine_through_add_and_del_param() {
    use netsift_engine::Scratch;
    let Some((packets, _)) = corpus() else {
        return;
    };
    let packets: Vec<Vec<u8>> = packets.into_iter().step_by(3).collect();
    // Values worth adding: the corpus's IPv4 addresses, ports and protocols.
    let (mut addrs, mut ports, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
    for f in &packets {
        if f.len() >= 38 && f[12..14] == [8, 0] && f[14] == 0x45 {
            addrs.push(u32::from_be_bytes(f[26..30].try_into().unwrap()));
            addrs.push(u32::from_be_bytes(f[30..34].try_into().unwrap()));
            bytes.push(u32::from(f[23]));
            ports.push(u32::from(u16::from_be_bytes([f[34], f[35]])));
            ports.push(u32::from(u16::from_be_bytes([f[36], f[37]])));
        }
    }
    for v in [&mut addrs, &mut ports, &mut bytes] {
        v.sort_unstable();
        v.dedup();
    }
    assert!(addrs.len() > 10 && ports.len() > 10, "corpus values to add");
    let exprs = [
        "host 10.0.0.1 or host 10.0.0.2",
        "tcp port 80 or tcp port 443",
        "ip src host 192.168.1.1 and udp dst port 53",
        "not host 10.0.0.1 and not host 10.0.0.2",
        "ip proto 17 or ip proto 1",
        "vlan and tcp port 22",
        "ether proto 0x800 and src port 1024",
    ];
    let target = Target::new(LinkType::EN10MB);
    let mut scratch = Scratch::new();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let (mut edits, mut runs, mut changed) = (0, 0u64, 0u64);
    let mut last: Option<u64> = None;
    for expr in exprs {
        let mut set = netsift_pcapc::compile_for(expr, target).unwrap();
        let g = generate(&set, Env::TEST_RUN.with_params()).unwrap();
        let prog = Program::load(ProgKind::SchedCls, "params", &g.insns)
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        // The EQ and EQ2 instructions: (pass, index).
        let sites: Vec<(usize, usize)> = set.operand_sites().map(|(p, k, _)| (p, k)).collect();
        assert!(!sites.is_empty(), "{expr}: an operand set to edit");
        for round in 0..12 {
            let (p, k) = sites[next() as usize % sites.len()];
            let insn = set.passes()[p].instructions()[k];
            let (first, size, n, cap) = insn.operand_slots().unwrap();
            let pool = match size {
                netsift_isa::insn::Size::B4 => &addrs,
                netsift_isa::insn::Size::B2 => &ports,
                netsift_isa::insn::Size::B1 => &bytes,
            };
            // Add a corpus value, or take one out, as the live writer does.
            let new = if round % 3 != 2 && n < cap {
                let v = pool[next() as usize % pool.len()] & size.max();
                if (0..n).any(|i| insn.operand(first, size, i) == v) {
                    continue;
                }
                g.add_param(0, p, k, v).unwrap();
                insn.with_operand(first, size, n, v).with_count(n + 1)
            } else if n > 0 {
                let at = next() as usize % n;
                let v = insn.operand(first, size, at);
                assert!(
                    g.del_param(0, p, k, v).unwrap(),
                    "{expr}: operand {v:#x} was in the map"
                );
                let last = insn.operand(first, size, n - 1);
                insn.with_operand(first, size, at, last)
                    .with_operand(first, size, n - 1, 0)
                    .with_count(n - 1)
            } else {
                continue;
            };
            set.set_insn(p, k, new.with_copied(false)).unwrap();
            edits += 1;
            let mut accepted = 0u64;
            for (j, f) in packets.iter().enumerate() {
                let want = netsift_engine::matches(&set, &mut scratch, f, f.len() as u32);
                let got = prog.test_run(f, 1).map(|r| r.retval);
                let got = match got {
                    Ok(v) => v,
                    // A frame the test run refuses (too short for its IP header).
                    Err(_) => continue,
                };
                runs += 1;
                accepted += u64::from(want);
                assert!(
                    got == UNSURE || (got == ACCEPT) == want,
                    "{expr}: after {edits} edits, packet {j}: kernel {got:#x}, engine {want}"
                );
            }
            // An edit that changes no verdict would not show a map the program
            // ignores.
            changed += u64::from(matches!(last.replace(accepted), Some(x) if x != accepted));
        }
        last = None;
    }
    eprintln!(
        "operand maps: {edits} edits ({changed} changed what the corpus accepts), {runs} test runs, every verdict the engine's"
    );
    assert!(edits >= 40, "enough edits were made: {edits}");
    assert!(changed >= 10, "edits that changed verdicts: {changed}");
}

/// The kernel's edit paths in shared memory under traffic: one thread edits
/// without pause (an operand added to and removed from clause 0's port test,
/// clause 1 switched off and on, each a store into memory the program reads)
/// while this one test-runs frames through the program; every verdict must be
/// the one of the edits' state before the run or of one reached by the edit in
/// flight after it, never a mix.
#[test]
fn a_verdict_under_shared_memory_edits_is_the_state_before_or_after() {
    use netsift_kernel::codegen::generate_clauses_editable;
    use netsift_testkit::frames::Frame;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    require!(Need::Root);
    let target = Target::new(LinkType::EN10MB);
    let web = netsift_pcapc::compile_for("tcp dst port 80", target).unwrap();
    let dns = netsift_pcapc::compile_for("udp dst port 53", target).unwrap();
    let g = generate_clauses_editable(&[(&web, true), (&dns, false)], Env::TEST_RUN).unwrap();
    let prog =
        Program::load(ProgKind::SchedCls, "edits", &g.insns).unwrap_or_else(|e| panic!("{e}"));
    let (pass, insn, _) = web.operand_sites().last().expect("a port test");
    let tcp = |port: u16| {
        Frame::ethernet([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
            .tcp(40000, port, 0x02)
            .padded()
            .build()
    };
    let udp = Frame::ethernet([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .udp(40000, 53)
        .padded()
        .build();
    // After n edits the state is n % 4: (port 8080 accepted, clause 1 on).
    let states = [(false, true), (true, true), (true, false), (false, false)];
    // Each frame, with its verdict in a state.
    type Verdict = fn((bool, bool)) -> bool;
    let frames: Vec<(Vec<u8>, Verdict)> = vec![
        (tcp(8080), |s| s.0),
        (udp, |s| s.1),
        (tcp(80), |_| true),
        (tcp(81), |_| false),
    ];
    let g = Arc::new(g);
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (g, done, stop) = (g.clone(), done.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                match n % 4 {
                    0 => g.add_param(0, pass, insn, 8080).unwrap(),
                    1 => g.set_enabled(1, false).unwrap(),
                    2 => assert!(g.del_param(0, pass, insn, 8080).unwrap()),
                    _ => g.set_enabled(1, true).unwrap(),
                }
                n += 1;
                done.store(n, Ordering::Release);
            }
            n
        })
    };
    let (mut runs, mut accepted) = (0u64, 0u64);
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(3) {
        for (f, want) in &frames {
            let c0 = done.load(Ordering::Acquire);
            let got = prog.test_run(f, 1).unwrap().retval;
            let c1 = done.load(Ordering::Acquire);
            assert!(got == ACCEPT || got == 0, "a sure answer: {got:#x}");
            let ok = (c0..=c1 + 1).any(|n| want(states[(n % 4) as usize]) == (got == ACCEPT));
            assert!(
                ok,
                "verdict {got:#x} is no state of edits {c0}..={}",
                c1 + 1
            );
            runs += 1;
            accepted += u64::from(got == ACCEPT);
        }
    }
    stop.store(true, Ordering::Relaxed);
    let edits = writer.join().unwrap();
    eprintln!("{runs} test runs, {accepted} accepted, under {edits} edits");
    assert!(
        edits > 1000 && accepted > runs / 4,
        "the test exercised nothing"
    );
}

/// The link types of the second tranche (FDDI, Token Ring, ATM, ARCNET, IEEE 1394,
/// MTP2, Juniper; `NETSIFT_LINKTYPES` narrows them): their accept lists as socket
/// filters, test-run on their corpus and generated frames, must accept everything
/// the engine accepts and agree with it where sure. A test run reads a frame from
/// its first byte as a socket filter reads a capture of that link type.
#[test]
fn kernel_programs_on_the_second_tranche_of_link_types() {
    let tranche = |lt: LinkType| {
        let n = lt.name().unwrap_or("");
        [6, 7, 10, 100, 106, 122, 123, 129, 138, 139, 140, 197].contains(&lt.0)
            || n.starts_with("JUNIPER_")
    };
    if let Some(t) = more_link_types_against_engine("more link types", tranche, |_| false) {
        t.runs.failures.assert_none();
    }
}

/// 802.11 and its capture headers (radiotap, AVS, Prism, PPI) in the kernel: the
/// header-length anchors are eBPF here (`codegen/wlan.rs`), so a program that
/// needs them answers surely instead of passing every frame up as unsure. As the
/// test above, against the engine on every corpus and generated frame; and the
/// programs that use an 802.11 anchor must mostly be decisive (all of them were
/// unsure while the kernel left these anchors to user space).
#[test]
fn kernel_programs_on_802_11_link_types() {
    use netsift_isa::AnchorRule as R;
    let wlan = |lt: LinkType| [105, 119, 127, 163, 192].contains(&lt.0);
    let uses_wlan = |set: &netsift_isa::PassSet| {
        set.anchors().iter().any(|a| {
            matches!(
                a.rule(),
                Some(
                    R::RadiotapHdr
                        | R::AvsHdr
                        | R::PrismHdr
                        | R::WlanPayload
                        | R::WlanPayloadPadded
                )
            )
        })
    };
    let Some(t) = more_link_types_against_engine("802.11", wlan, uses_wlan) else {
        return;
    };
    eprintln!(
        "kernel, 802.11: {} of {} programs with an 802.11 anchor are decisive",
        t.marked_decisive, t.marked
    );
    t.runs.failures.assert_none();
    assert!(
        t.marked > 0 && t.marked_decisive * 2 > t.marked,
        "the programs with an 802.11 anchor are not decided in the kernel"
    );
}

/// What [`more_link_types_against_engine`] found: the runs, and how many of the
/// programs `mark` picked out there were, and were decisive.
struct Tally {
    runs: Runs,
    marked: usize,
    marked_decisive: usize,
}

/// The accept lists of the link types `pick` selects among those beyond the first
/// eight, as socket filters test-run on their corpus and generated frames against
/// the engine. `None` without root.
fn more_link_types_against_engine(
    what: &str,
    pick: impl Fn(LinkType) -> bool,
    mark: impl Fn(&netsift_isa::PassSet) -> bool,
) -> Option<Tally> {
    if !skip::all_met(&[Need::Root]) {
        return None;
    }
    let dir = netsift_conformance::require_corpus();
    let corpus = dir.as_ref().map(|d| load_corpus_captures(d));
    let mut programs = 0;
    let mut r = Runs::new(&format!("socket programs of {what} against the engine"));
    let (mut marked_n, mut marked_decisive) = (0, 0);
    for lt in netsift_conformance::more_linktypes()
        .into_iter()
        .filter(|&lt| pick(lt))
    {
        let mut packets: Vec<Vec<u8>> = Vec::new();
        let caps = netsift_conformance::generated_capture_data_for(lt);
        let corpus_caps = corpus.as_ref().map(|c| c.captures(lt)).unwrap_or_default();
        for c in caps.iter().chain(corpus_caps.iter()) {
            packets.extend(
                c.packets
                    .iter()
                    .filter(|p| usable(p))
                    .map(|p| p.data.clone()),
            );
        }
        let mut exprs = dir
            .as_ref()
            .map(|d| netsift_conformance::read_accept_list(d, lt))
            .unwrap_or_default();
        exprs.sort();
        exprs.dedup();
        let target = Target::new(lt);
        for expr in &exprs {
            let Ok(set) = netsift_pcapc::compile_for(expr, target) else {
                continue;
            };
            let marked = mark(&set);
            let Some((g, prog)) = load(
                expr,
                &set,
                Env::TEST_RUN,
                ProgKind::SchedCls,
                &mut r.failures,
            ) else {
                continue;
            };
            programs += 1;
            if marked {
                marked_n += 1;
                marked_decisive += g.decisive as usize;
            }
            let engine = Compiled::new(set);
            r.check(
                &format!("[{lt}] {expr:?}"),
                &prog,
                g.decisive,
                &engine,
                &packets,
            );
        }
    }
    eprintln!(
        "kernel, {what}: {programs} programs, {} runs, {} unsure, {} refused by the kernel",
        r.runs, r.unsure, r.refused
    );
    Some(Tally {
        runs: r,
        marked: marked_n,
        marked_decisive,
    })
}

/// A live capture's static filter reads a frame whose tag the kernel took out
/// as libpcap's kernel filter does (`pcapc::Meta::tag_stripped`): the socket
/// filter's tagged half runs that program (`generate_split`), its untagged half
/// the program a file gets. Each corpus frame with an 802.1Q or 802.1ad tag is
/// run with the tag cut out into the test run's context, and the answer must be
/// the engine's with the tagged program on the whole frame; untagged frames get
/// the untagged program's.
#[test]
fn split_programs_read_untagged_frames_as_libpcaps_kernel_filter_does() {
    use netsift_kernel::codegen::{generate_split, Halves, Split};
    let Some((packets, mut exprs)) = corpus() else {
        return;
    };
    let (frames, tagged) = tagged_first(&packets);
    exprs.extend(
        [
            "vlan",
            "not vlan",
            "vlan 10 or vlan 20",
            "vlan and vlan",
            "vlan and tcp port 80",
            "ip or ip6",
            "host 10.0.0.1 or udp",
            "ether[12:2] = 0x0800",
            "ether[10:4] != 0",
            "ether[14] = 0x45",
            "len > 100",
            "less 80",
        ]
        .map(String::from),
    );
    exprs.sort();
    exprs.dedup();
    let target = |tag_stripped| {
        Target::new(LinkType::EN10MB).meta(netsift_pcapc::Meta {
            outgoing: false,
            ifindex: 1,
            tag_stripped,
        })
    };
    let compile = |expr: &str, t| netsift_pcapc::compile_for(expr, target(t));
    let mut scratch = netsift_engine::Scratch::new();
    let (mut programs, mut runs, mut unsure, mut refused) = (0, 0u64, 0u64, 0u64);
    let mut failures = Mismatches::new("split programs against the engine", 40);
    for expr in &exprs {
        let (Ok(plain), Ok(stripped)) = (compile(expr, false), compile(expr, true)) else {
            continue;
        };
        let split = Split {
            received: Halves {
                untagged: &plain,
                tagged: Some(&stripped),
            },
            sent: None,
        };
        let g = match generate_split(split, Env::TEST_RUN_TAGGED) {
            Ok(g) => g,
            Err(e) => {
                failures.record(format!("{expr:?}: {e}"));
                continue;
            }
        };
        let prog = match Program::load(ProgKind::SchedCls, "netsift", &g.insns) {
            Ok(p) => p,
            Err(e) => {
                failures.record(format!("{expr:?}: {} instructions: {e}", g.insns.len()));
                continue;
            }
        };
        programs += 1;
        let (plain, stripped) = (Compiled::new(plain), Compiled::new(stripped));
        for (i, p) in frames.iter().enumerate() {
            let (data, mark, priority) = tag_out(p);
            let engine = if priority != 0 { &stripped } else { &plain };
            let want = engine.matches(&mut scratch, p, p.len() as u32);
            let Some(got) = test_run(&prog, &data, mark, priority, &mut refused) else {
                continue;
            };
            runs += 1;
            match wrong(got, want, g.decisive, &mut unsure) {
                Ok(false) => {}
                Ok(true) => failures.record(format!(
                    "{expr:?}: frame {i} ({} bytes, {}): kernel {got:#x}, engine {}",
                    p.len(),
                    if priority != 0 { "tagged" } else { "untagged" },
                    if want { "accepts" } else { "rejects" },
                )),
                Err(other) => {
                    failures.record(format!("{expr:?}: frame {i}: return value {other:#x}"))
                }
            }
        }
    }
    eprintln!(
        "split: {programs} programs, {} frames ({tagged} tagged), {runs} runs, {unsure} unsure, {refused} refused",
        frames.len()
    );
    assert!(tagged > 0, "the corpus has VLAN-tagged frames");
    failures.assert_none();
}
