//! netsift against libpcap on the shared corpus: the accept lists over every capture
//! of their link type (and the generated captures), the reject lists, and the
//! recorded results of apply.tsv.
//!
//! Without the corpus (and outside CI) the accept test runs built-in expressions over
//! the generated captures and the other two tests have nothing to do.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use netsift_conformance::*;

struct Data {
    dir: Option<PathBuf>,
    corpus: CorpusCaptures,
    generated: BTreeMap<LinkType, Vec<CaptureData>>,
}

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = require_corpus();
        let corpus = match &dir {
            Some(d) => {
                let c = load_corpus_captures(d);
                println!(
                    "corpus at {}: {} captures of link types netsift filters ({} packets), {} of \
                     unsupported link types, {} unreadable",
                    d.display(),
                    c.total_captures(),
                    c.total_packets(),
                    c.unsupported.len(),
                    c.unreadable.len()
                );
                c
            }
            None => CorpusCaptures::default(),
        };
        Data {
            dir,
            corpus,
            generated: generated_capture_data(),
        }
    })
}

/// Prints the report, writes the full one, and fails if anything failed.
fn finish(report: &Report, file: &str) {
    println!("{}", report.render(50, 10));
    let full = report.write_full(&report_dir(), file);
    if let Some(p) = &full {
        println!("full report: {}", p.display());
    }
    if report.failed() {
        panic!(
            "{}\n(see the report above{})",
            report.summary(),
            full.map(|p| format!(", full report in {}", p.display()))
                .unwrap_or_default()
        );
    }
}

fn dedup(v: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    v.into_iter().filter(|e| seen.insert(e.clone())).collect()
}

#[test]
fn accept_lists() {
    accept_lists_with(&Netsift, "corpus", "corpus-accept.txt");
}

/// The same through the live update path: each expression is added with
/// `Swift::add` to a live set that already holds another clause, so its passes,
/// GROUP ranges and anchors are relocated, and evaluated by a live reader.
#[test]
fn accept_lists_live() {
    accept_lists_with(&NetsiftLive, "corpus (live)", "corpus-accept-live.txt");
}

fn accept_lists_with<C: Candidate>(candidate: &C, title: &str, file: &str) {
    let d = data();
    let cmp = Comparison::new(candidate);
    let mut total = Report::new(title, candidate.name());
    for lt in LinkType::SUPPORTED {
        // The accept list, plus the built-in expressions (some link types have only
        // one or two listed; these are cheap and run over the real captures too).
        let mut exprs = match &d.dir {
            Some(dir) => read_accept_list(dir, lt),
            None => Vec::new(),
        };
        exprs.extend(builtin_expressions(lt));
        let exprs = dedup(exprs);
        let mut caps: Vec<&CaptureData> = d.corpus.captures(lt).iter().collect();
        for c in &caps {
            if let Some(e) = &c.read_error {
                total
                    .notes
                    .push(format!("{}: libpcap stopped reading: {e}", c.name));
            }
        }
        caps.extend(d.generated.get(&lt).into_iter().flatten());
        let mut r = Report::new(&format!("{title} {lt}"), candidate.name());
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
    }
    finish(&total, file);
}

/// The link types beyond the first eight (issue 26): every `accept-<LT>.txt` of
/// them over every corpus capture of that link type and over generated frames
/// (whole, cut short and with mutated headers), packet by packet against libpcap;
/// `NETSIFT_LINKTYPES=PPP,C_HDLC` limits it to those.
#[test]
fn accept_lists_more() {
    accept_lists_more_with(
        &Netsift,
        "corpus (more link types)",
        "corpus-accept-more.txt",
    );
}

/// The same through the batch engine and the live update path.
#[test]
fn accept_lists_more_batch_and_live() {
    accept_lists_more_with(
        &NetsiftBatch,
        "corpus (more link types, batch)",
        "corpus-accept-more-batch.txt",
    );
    accept_lists_more_with(
        &NetsiftLive,
        "corpus (more link types, live)",
        "corpus-accept-more-live.txt",
    );
}

fn accept_lists_more_with<C: Candidate>(candidate: &C, title: &str, file: &str) {
    let d = data();
    let cmp = Comparison::new(candidate);
    let mut total = Report::new(title, candidate.name());
    let (mut n_lt, mut n_corpus) = (0usize, 0usize);
    for lt in more_linktypes() {
        let mut exprs = match &d.dir {
            Some(dir) => read_accept_list(dir, lt),
            None => Vec::new(),
        };
        exprs.extend(more_expressions());
        let exprs = dedup(exprs);
        let generated = generated_capture_data_for(lt);
        let mut caps: Vec<&CaptureData> = d.corpus.captures(lt).iter().collect();
        n_corpus += caps.len();
        caps.extend(generated.iter());
        let mut r = Report::new(&format!("more {lt}"), candidate.name());
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
        n_lt += 1;
    }
    println!(
        "compared {n_lt} link types, {} expressions, {} packets ({n_corpus} corpus captures); \
         {} expressions the installed libpcap refuses, recorded apart",
        total.expressions,
        total.packets,
        total.libpcap_rejects.len()
    );
    assert!(n_lt > 0, "no link types to compare (NETSIFT_LINKTYPES?)");
    // Refusing exactly where libpcap refuses: compiling what it refuses is a failure.
    for c in std::mem::take(&mut total.candidate_accepts) {
        total.failures.push(format!(
            "[{}] {:?}: netsift compiles it, libpcap refuses it: {}",
            c.linktype, c.expr, c.message
        ));
    }
    finish(&total, file);
}

/// Where libpcap refuses an expression on one of the link types beyond the first
/// eight, netsift refuses it too, with libpcap's reason in its first line.
#[test]
fn refusals_more() {
    let cmp = Comparison::new(&Netsift);
    let (mut refused, mut failures) = (0usize, Vec::new());
    for lt in more_linktypes() {
        for e in more_expressions() {
            let Err(want) = Filter::compile(lt, &e) else {
                continue;
            };
            refused += 1;
            match cmp.candidate_compiles(lt, &e) {
                Ok(()) => failures.push(format!("[{lt}] {e:?}: netsift compiles it ({want})")),
                Err(m) if !m.lines().next().unwrap_or("").contains(want.as_str()) => {
                    failures.push(format!("[{lt}] {e:?}: libpcap: {want}\n    netsift: {m}"))
                }
                Err(_) => {}
            }
        }
    }
    println!(
        "{refused} refusals by libpcap compared, {} differ",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The empty expression accepts every packet on the 802.11 link types, as in
/// libpcap, which adds PPI's link-type test and the offset code only to a filter
/// that has an expression.
#[test]
fn empty_filter_on_wlan() {
    let mut compared = 0usize;
    for lt in [
        LinkType::IEEE802_11,
        LinkType::IEEE802_11_RADIO,
        LinkType::IEEE802_11_RADIO_AVS,
        LinkType::PRISM_HEADER,
        LinkType::PPI,
    ] {
        let oracle = Filter::compile(lt, "").expect("libpcap compiles the empty filter");
        let set = netsift_pcapc::compile("", lt).expect("netsift compiles the empty filter");
        let compiled = netsift_engine::Compiled::new(set);
        let mut scratch = netsift_engine::Scratch::new();
        for cap in generated_capture_data_for(lt) {
            for p in &cap.packets {
                let want = oracle.run(&p.data, p.wire_len) != 0;
                let got = compiled.matches(&mut scratch, &p.data, p.wire_len);
                assert_eq!(
                    got,
                    want,
                    "[{lt}] \"\" on {} ({} bytes)",
                    cap.name,
                    p.data.len()
                );
                compared += 1;
            }
        }
    }
    println!("empty filter: {compared} packets of the 802.11 link types agree");
    assert!(compared > 0);
}

/// Expressions beside the accept lists for the link types beyond the first eight:
/// each link type's own tests and the primitives that must be refused the way
/// libpcap refuses them (the comparison counts a refusal by one side only as a
/// failure).
fn more_expressions() -> Vec<String> {
    [
        "ip",
        "ip6",
        "arp",
        "tcp port 80",
        "udp",
        "icmp",
        "host 10.0.0.1",
        "iso",
        "isis",
        "clnp",
        "esis",
        "iso proto 0x83",
        "ipx",
        "atalk",
        "stp",
        "decnet",
        "netbeui",
        "mpls",
        "mpls 17 and ip",
        "pppoes",
        "pppoes 3 and ip",
        "pppoed",
        "vlan",
        "ether host 00:01:02:03:04:05",
        "ether broadcast",
        "ether multicast",
        "llc",
        "inbound",
        "outbound",
        "ifindex 2",
        "link[0] = 0xff",
        "link[2:2] = 0x21",
        "byte 0 = 1",
        "len > 60",
        "greater 100",
        "len > 1000 or tcp",
        "tcp or len > 1000",
        // On PFLOG the payload offset becomes the relation's right side: offsets
        // past 2^32 must neither panic nor differ from libpcap (found by the
        // `compile_links` fuzz target).
        "len < 4294967295 and tcp",
        "not ether[21] < 4294967295 and geneve and tcp",
        "len > 4294967290 or ip6 and tcp",
        "1 > 0 and udp port 53",
        "protochain 6",
        "ip multicast",
        "ip broadcast",
        "ip6 multicast",
        "geneve",
        "ip proto 47",
        "link proto 0x0021",
        "ip or not ip6",
        "tcp[tcpflags] & tcp-syn != 0",
        "ip[0] & 0xf0 = 0x40",
        "on eth0",
        "ifname em0",
        "ifname abcdefghijklmnop",
        "ruleset testruleset2",
        "rset abcdefghijklmnopq",
        "rnr 0x456789",
        "srnr 123",
        "reason 300",
        "reason SHORT",
        "reason nosuch",
        "action PASS",
        "action nosuch",
        "action block and tcp",
        "len > 60 or tcp",
        "inbound and ip6",
        "not outbound or udp port 53",
        "fddi host 00:11:22:33:44:55",
        "tr src 00:11:22:33:44:55 or ip",
        "ether dst ff:ff:ff:ff:ff:ff and not ip6",
        "link host $d4",
        "link src $8c and arp",
        "llc s or llc u",
        "llc i and not broadcast",
        "lane and ip",
        "lane and ether host 00:11:22:33:44:55",
        "vpi 0 and vci (5 or 16)",
        "vci > 5 or vpi <= 2",
        "oamf4 or metac",
        "oamf4sc",
        "oamf4ec and vpi 0",
        "connectmsg or metaconnect",
        "bcc or sc or ilmic or oamf4ec or oamf4sc",
        "fisu or lssu",
        "msu and sio 3",
        "hfisu or hlssu or hmsu",
        "opc 1234 and dpc (5 or 16383)",
        "sls > 3 or hsls 15",
        "hsio 5 and hopc < 300 and hdpc != 7",
        "opc 16384",
        "sio 256",
        // 802.11: addresses by frame type and direction, type/subtype/dir and their
        // names, LLC through the variable header lengths, relations before them.
        "wlan host 00:11:22:33:44:55",
        "wlan src 66:77:88:99:aa:bb or wlan dst ff:ff:ff:ff:ff:ff",
        "wlan src and dst 02:00:00:00:00:01",
        "wlan addr1 00:11:22:33:44:55 or wlan addr2 00:11:22:33:44:55",
        "wlan addr3 02:00:00:00:00:02 or wlan addr4 02:00:00:00:00:01",
        "wlan ra ff:ff:ff:ff:ff:ff or wlan ta 66:77:88:99:aa:bb",
        "ether src 00:11:22:33:44:55 and arp",
        "link host 00:00:0c:07:ac:01",
        "wlan multicast",
        "wlan broadcast or ip multicast",
        "type mgt",
        "type data subtype qos-data",
        "type ctl subtype ack or type ctl subtype cts",
        "type mgt subtype 0x80",
        "subtype beacon or subtype probe-resp",
        "subtype qos and ip6",
        "type 12",
        "type 0x10",
        "type mgt subtype 0x0f",
        "type foo",
        "subtype foo",
        "type 12 subtype ack",
        "type data subtype beacon",
        "dir tods",
        "dir 3 and udp",
        "dir nowhere",
        "not type mgt and not ip",
        "type data and tcp port 80",
        "link[0] & 0x0c = 8 and ip",
        "len < 100 or ip",
        "len < 100 or wlan host 00:11:22:33:44:55",
        "len > 40 or type mgt",
        "ip[0] > 0x44 or udp",
        "link[1] > 1 or icmp",
        "vlan and ip",
        "vlan 5 or arp",
        "llc u or llc rr",
        "llc i and not ip",
        "ip host 10.0.0.1 and ether dst 33:33:00:00:00:01",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn reject_lists() {
    let d = data();
    let Some(dir) = &d.dir else {
        println!("reject lists: no corpus, nothing to do");
        return;
    };
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("reject lists", "netsift");
    let (mut refused_ok, mut same_words, mut n_lines) = (0usize, 0usize, 0usize);
    for lt in LinkType::SUPPORTED {
        let list = read_reject_list(dir, lt);
        let mut accepted_by_libpcap = Vec::new();
        for (expr, recorded) in list {
            n_lines += 1;
            match Filter::compile(lt, &expr) {
                Err(installed) => match cmp.candidate_compiles(lt, &expr) {
                    Ok(()) => total.failures.push(format!(
                        "[{lt}] {expr:?}: netsift compiles it, libpcap refuses it: {installed} \
                         (recorded: {recorded})"
                    )),
                    Err(m) if m.starts_with("PANIC") => {
                        total.panics.push(format!("[{lt}] compile {expr:?}: {m}"))
                    }
                    Err(m) => {
                        refused_ok += 1;
                        let first = m.lines().next().unwrap_or("");
                        if first.contains(recorded.as_str()) || first.contains(installed.as_str()) {
                            same_words += 1;
                        }
                    }
                },
                Ok(_) => {
                    total.notes.push(format!(
                        "[{lt}] {expr:?} is in reject-{}.tsv ({recorded}) but the installed \
                         libpcap accepts it: netsift must accept it and agree on the captures",
                        lt.name().unwrap_or("?")
                    ));
                    accepted_by_libpcap.push(expr);
                }
            }
        }
        if !accepted_by_libpcap.is_empty() {
            let mut caps: Vec<&CaptureData> = d.corpus.captures(lt).iter().collect();
            caps.extend(d.generated.get(&lt).into_iter().flatten());
            cmp.run(lt, &accepted_by_libpcap, &caps, &mut total);
        }
    }
    total.notes.push(format!(
        "{n_lines} reject-list lines: {refused_ok} refused by both as they should be ({same_words} \
         with a message containing libpcap's wording, recorded or installed), {} accepted by the \
         installed libpcap and compared as accept expressions",
        total.expressions + total.candidate_rejects.len()
    ));
    finish(&total, "corpus-reject.txt");
}

#[test]
fn apply_table() {
    let d = data();
    let Some(dir) = &d.dir else {
        println!("apply.tsv: no corpus, nothing to do");
        return;
    };
    let lines = read_apply_table(dir).unwrap_or_else(|e| panic!("{e}"));
    let cmp = Comparison::new(&Netsift);
    let mut r = Report::new("apply.tsv", "netsift");
    let mut cache: BTreeMap<String, Result<CaptureData, String>> = BTreeMap::new();
    let (mut compared, mut unsupported, mut lib_rejects, mut lib_disagrees) = (0, 0, 0, 0);
    for l in &lines {
        let cap = cache.entry(l.capture.clone()).or_insert_with(|| {
            let p = dir.join("pcaps").join("libpcap").join(&l.capture);
            read_capture(&p, &format!("libpcap/{}", l.capture))
        });
        let cap = match cap {
            Ok(c) => c,
            Err(e) => {
                r.failures
                    .push(format!("apply.tsv:{}: {}: {e}", l.line, l.capture));
                continue;
            }
        };
        let lt = cap.linktype;
        if !lt.is_supported() {
            unsupported += 1;
            continue;
        }
        let lib = match Filter::compile(lt, &l.expr) {
            Ok(f) => f,
            Err(e) => {
                lib_rejects += 1;
                r.libpcap_rejects.push(CompileDiff {
                    linktype: lt,
                    expr: l.expr.clone(),
                    message: e,
                    note: format!("apply.tsv:{}", l.line),
                });
                continue;
            }
        };
        let installed: Vec<bool> = cap
            .packets
            .iter()
            .map(|p| lib.accepts(&p.data, p.wire_len))
            .collect();
        let recorded: Vec<bool> = l.results.iter().map(|&v| v != 0).collect();
        if installed != recorded {
            lib_disagrees += 1;
            r.notes.push(format!(
                "skipped apply.tsv:{}: the installed libpcap disagrees with the recorded results \
                 for {:?} on {} (recorded {:?}, installed {:?})",
                l.line,
                l.expr,
                l.capture,
                l.results,
                installed.iter().map(|&b| b as u8).collect::<Vec<_>>()
            ));
            continue;
        }
        compared += 1;
        r.expressions += 1;
        r.expr_set.insert((lt, l.expr.clone()));
        r.captures.insert(cap.name.clone());
        match cmp.candidate_verdicts(lt, &l.expr, &cap.packets) {
            Err(m) if m.starts_with("PANIC") => r
                .panics
                .push(format!("[{lt}] {:?} on {}: {m}", l.expr, cap.name)),
            Err(m) => r.candidate_rejects.push(CompileDiff {
                linktype: lt,
                expr: l.expr.clone(),
                message: m,
                note: format!("apply.tsv:{}", l.line),
            }),
            Ok(got) => {
                for (i, (g, p)) in got.iter().zip(&cap.packets).enumerate() {
                    r.packets += 1;
                    if *g != recorded[i] {
                        r.record(Mismatch {
                            linktype: lt,
                            expr: l.expr.clone(),
                            capture: cap.name.clone(),
                            index: i,
                            libpcap: l.results[i],
                            netsift: *g,
                            wire_len: p.wire_len,
                            data: p.data.clone(),
                            // apply.tsv must agree on every packet; no class is excused.
                            short: false,
                        });
                    }
                }
            }
        }
    }
    r.notes.push(format!(
        "{} lines: {compared} compared, {unsupported} skipped (capture link type unsupported), \
         {lib_rejects} skipped (installed libpcap rejects the expression), {lib_disagrees} \
         skipped (installed libpcap disagrees with the recorded results)",
        lines.len()
    ));
    finish(&r, "corpus-apply.txt");
}

/// The same, through the batch engine (`Compiled::filter_many`, 32 packets at a
/// time): every verdict must equal libpcap's, as the per-packet engine's do.
#[test]
fn accept_lists_batch() {
    accept_lists_with(&NetsiftBatch, "corpus (batch)", "corpus-accept-batch.txt");
}
