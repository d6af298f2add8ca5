//! The follow prologue (`netsift_kernel::follow`) run by the kernel
//! (`BPF_PROG_TEST_RUN`): its guesses from FTP announcements against the
//! follower's own parser and rules, and its verdicts on listeners and guesses.
//!
//! Needs root (CAP_BPF): skipped with a message without it, a failure under
//! `CI=true`.

use netsift_follow::ftp::{announcements, AnnounceKind};
use netsift_kernel::codegen::{generate, Env, ACCEPT};
use netsift_kernel::follow::Following;
use netsift_kernel::sys::{ProgKind, Program};
use netsift_testkit::frames::Frame;
use netsift_testkit::{require, skip, Need};
use netsift_wire::LinkType;
use proptest::prelude::*;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

/// CAP_BPF, found by making a map.
fn bpf() -> Need<'static> {
    Need::Check(
        netsift_kernel::sys::Map::create(netsift_kernel::sys::MapKind::Array, 4, 4, 1)
            .map(drop)
            .map_err(|e| format!("needs CAP_BPF: {e}")),
    )
}

/// An Ethernet, IPv4 and TCP (or UDP) frame with `payload`.
fn frame(
    src: (Ipv4Addr, u16),
    dst: (Ipv4Addr, u16),
    proto: u8,
    flags: u8,
    payload: &[u8],
) -> Vec<u8> {
    let f = Frame::ethernet([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4(src.0, dst.0)
        .with_ipv4(|ip| {
            ip.ident = 1;
            ip.dont_frag = true;
        });
    let f = if proto == 6 {
        f.tcp(src.1, dst.1, flags).with_tcp(|t| t.seq = 1)
    } else {
        f.udp(src.1, dst.1)
    };
    f.payload(payload).build()
}

/// An Ethernet, IPv6 and TCP frame with `payload`.
fn frame6(src: (Ipv6Addr, u16), dst: (Ipv6Addr, u16), flags: u8, payload: &[u8]) -> Vec<u8> {
    Frame::ethernet([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv6(src.0, dst.0)
        .tcp(src.1, dst.1, flags)
        .with_tcp(|t| t.seq = 1)
        .payload(payload)
        .build()
}

/// The base filter `tcp port 21` with the prologue, loaded for test runs.
fn program(maps: &Following, loose: bool) -> Program {
    let base = netsift_swift::compile("tcp port 21", LinkType::EN10MB).unwrap();
    let g = generate(&base, Env::TEST_RUN.following(maps.hook(true, loose))).unwrap();
    Program::load(ProgKind::SchedCls, "follow", &g.insns).expect("the verifier takes it")
}

/// Admits a listener into a table with room (a growth here is a test bug).
fn listen(maps: &Following, addr: IpAddr, port: u16, proto: u8) {
    maps.listen(addr, port, proto, |_| panic!("the listener table grew"))
        .unwrap();
}

fn run(p: &Program, f: &[u8]) -> u32 {
    p.test_run(f, 1).expect("test run").retval
}

/// The listener the follower would expect from the first line of `payload` sent
/// by the server (`from_server`) or the client, under its stateless rules: the
/// protocol's direction, and the sender's address (or 0.0.0.0, meaning it).
fn admitted(payload: &[u8], from_server: bool) -> Option<(IpAddr, u16)> {
    let first = payload
        .split_inclusive(|&b| b == b'\n')
        .next()
        .unwrap_or_default();
    let a = announcements(first).next()?;
    let sender = IpAddr::V4(if from_server { SERVER } else { CLIENT });
    if (a.kind == AnnounceKind::Passive) != from_server {
        return None;
    }
    let addr = a.addr.filter(|a| !a.is_unspecified()).unwrap_or(sender);
    (addr == sender).then_some((addr, a.port))
}

/// Runs the control packet carrying `payload` and returns whether the kernel
/// guessed `(addr, port)` (the guess is taken out again).
fn guessed(
    p: &Program,
    maps: &Following,
    payload: &[u8],
    from_server: bool,
    want: (IpAddr, u16),
) -> bool {
    let (s, c) = ((SERVER, 21), (CLIENT, 40000));
    let f = if from_server {
        frame(s, c, 6, 0x18, payload)
    } else {
        frame(c, s, 6, 0x18, payload)
    };
    assert_eq!(
        run(p, &f),
        ACCEPT,
        "the control packet itself is the base filter's"
    );
    let hit = maps.guessed(want.0, want.1).unwrap();
    maps.unguess(want.0, want.1).unwrap();
    hit
}

#[test]
fn the_kernel_guesses_what_real_servers_and_clients_announce() {
    require!(bpf());
    let maps = Following::new(64).unwrap();
    let p = program(&maps, false);
    let s = IpAddr::V4(SERVER);
    let c = IpAddr::V4(CLIENT);
    let yes: &[(&[u8], bool, (IpAddr, u16))] = &[
        (
            b"227 Entering Passive Mode (10,0,0,1,195,149).\r\n",
            true,
            (s, 50069),
        ),
        (
            b"227 Entering Passive Mode 10,0,0,1,195,80\r\n",
            true,
            (s, 50000),
        ),
        (b"227 =10,0,0,1,4,1\r\n", true, (s, 1025)),
        (
            b"227 Entering Passive Mode (0,0,0,0,4,1)\r\n",
            true,
            (s, 1025),
        ),
        (
            b"229 Entering Extended Passive Mode (|||6446|)\r\n",
            true,
            (s, 6446),
        ),
        (b"229 EPSV ok (!!!50001!)\r\n", true, (s, 50001)),
        (b"PORT 10,0,0,2,4,1\r\n", false, (c, 1025)),
        (b"port 10,0,0,2,195,80\r\n", false, (c, 50000)),
        (b"EPRT |1|10.0.0.2|6275|\r\n", false, (c, 6275)),
        (b"eprt !1!10.0.0.2!6276!\r\n", false, (c, 6276)),
    ];
    for &(line, from_server, want) in yes {
        assert_eq!(
            admitted(line, from_server),
            Some(want),
            "{line:?}: the follower's reading"
        );
        assert!(
            guessed(&p, &maps, line, from_server, want),
            "{line:?}: the kernel's guess"
        );
    }
    // Refused by the follower's stateless rules, or not announcements: no guess.
    let no: &[(&[u8], bool, (IpAddr, u16))] = &[
        // Another host than the sender: conntrack's loose=0.
        (
            b"227 Entering Passive Mode (10,0,0,9,195,149).\r\n",
            true,
            (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)), 50069),
        ),
        (
            b"PORT 10,0,0,9,4,1\r\n",
            false,
            (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)), 1025),
        ),
        // The wrong direction.
        (
            b"227 Entering Passive Mode (10,0,0,2,195,149).\r\n",
            false,
            (c, 50069),
        ),
        (b"PORT 10,0,0,1,4,1\r\n", true, (s, 1025)),
        // Port 0, a byte past 255, a digit as delimiter.
        (
            b"227 Entering Passive Mode (10,0,0,1,0,0).\r\n",
            true,
            (s, 0),
        ),
        (
            b"227 Entering Passive Mode (10,0,0,1,256,1).\r\n",
            true,
            (s, 1),
        ),
        (
            b"229 Entering Extended Passive Mode (11164461)\r\n",
            true,
            (s, 6446),
        ),
        (
            b"228 Entering Passive Mode (10,0,0,1,4,1).\r\n",
            true,
            (s, 1025),
        ),
    ];
    for &(line, from_server, want) in no {
        assert_eq!(
            admitted(line, from_server),
            None,
            "{line:?}: the follower's reading"
        );
        assert!(
            !guessed(&p, &maps, line, from_server, want),
            "{line:?}: no guess"
        );
    }
}

#[test]
fn listeners_and_guesses_open_the_kernel_filter_and_leave_it() {
    require!(bpf());
    let maps = Following::new(64).unwrap();
    let p = program(&maps, false);
    let syn = frame((CLIENT, 40001), (SERVER, 50069), 6, 0x02, b"");
    let reply = frame((SERVER, 50069), (CLIENT, 40001), 6, 0x12, b"");
    let other = frame((CLIENT, 40001), (SERVER, 50070), 6, 0x02, b"");
    assert_eq!(run(&p, &syn), 0, "nothing announced yet");
    // The 227 reply: the kernel guesses, and the data connection's first SYN and
    // the server's answer pass before user space has seen the announcement.
    let pasv = frame(
        (SERVER, 21),
        (CLIENT, 40000),
        6,
        0x18,
        b"227 Entering Passive Mode (10,0,0,1,195,149).\r\n",
    );
    assert_eq!(run(&p, &pasv), ACCEPT);
    assert_eq!(
        run(&p, &syn),
        ACCEPT,
        "the guess covers the listener's side"
    );
    assert_eq!(run(&p, &reply), ACCEPT);
    assert_eq!(run(&p, &other), 0, "only the announced port");
    // User space takes over: a listener entry, then the guess goes.
    listen(&maps, IpAddr::V4(SERVER), 50069, 6);
    maps.unguess(IpAddr::V4(SERVER), 50069).unwrap();
    assert_eq!(run(&p, &syn), ACCEPT);
    maps.unlisten(IpAddr::V4(SERVER), 50069, 6).unwrap();
    assert_eq!(run(&p, &syn), 0, "gone with the listener");
    // UDP and IPv6 listeners come from user space only.
    let rtp = frame((CLIENT, 7078), (SERVER, 9000), 17, 0, b"rtp");
    assert_eq!(run(&p, &rtp), 0);
    listen(&maps, IpAddr::V4(SERVER), 9000, 17);
    assert_eq!(run(&p, &rtp), ACCEPT);
    listen(&maps, IpAddr::V4(SERVER), 9001, 6);
    let tcp9000 = frame((CLIENT, 7078), (SERVER, 9000), 6, 0x02, b"");
    assert_eq!(run(&p, &tcp9000), 0, "a UDP listener does not open TCP");
    // Frames too short for some of the prologue's loads still get the base
    // filter's answer: a load past the end would have ended the program with 0.
    let cut = &pasv[..50];
    assert_eq!(run(&p, cut), ACCEPT, "port 21, cut inside the TCP header");
    let arp = [&pasv[..12], &[0x08, 0x06], &[0u8; 6][..]].concat();
    assert_eq!(run(&p, &arp), 0);
}

#[test]
fn an_epsv_reply_over_ipv6_opens_its_port_in_the_kernel() {
    require!(bpf());
    let maps = Following::new(64).unwrap();
    let p = program(&maps, false);
    let (server, client): (Ipv6Addr, Ipv6Addr) = (
        "2001:db8::1".parse().unwrap(),
        "2001:db8::2".parse().unwrap(),
    );
    let syn = frame6((client, 40001), (server, 6446), 0x02, b"");
    assert_eq!(run(&p, &syn), 0, "nothing announced yet");
    let epsv = b"229 Entering Extended Passive Mode (|||6446|)\r\n";
    let from_client = frame6((client, 40000), (server, 21), 0x18, epsv);
    assert_eq!(run(&p, &from_client), ACCEPT);
    assert!(
        !maps.guessed(IpAddr::V6(server), 6446).unwrap(),
        "a 229 counts only from the server's port"
    );
    let reply = frame6((server, 21), (client, 40000), 0x18, epsv);
    assert_eq!(run(&p, &reply), ACCEPT);
    assert!(
        maps.guessed(IpAddr::V6(server), 6446).unwrap(),
        "the sender's port guessed"
    );
    assert_eq!(run(&p, &syn), ACCEPT, "the data connection's SYN passes");
    maps.unguess(IpAddr::V6(server), 6446).unwrap();
    assert_eq!(run(&p, &syn), 0);
    // An IPv6 listener from user space.
    listen(&maps, IpAddr::V6(server), 6446, 6);
    assert_eq!(run(&p, &syn), ACCEPT);
    maps.unlisten(IpAddr::V6(server), 6446, 6).unwrap();
    assert_eq!(run(&p, &syn), 0);
}

/// Numbers as servers may write them: up to three digits, leading zeros too.
fn num(max: u32) -> impl Strategy<Value = String> {
    (0..=max, 0usize..3).prop_map(|(n, zeros)| {
        let s = n.to_string();
        let pad = zeros.min(3usize.saturating_sub(s.len()));
        format!("{}{s}", "0".repeat(pad))
    })
}

/// A 227 reply or PORT command the prologue reads (text without digits before
/// the numbers, numbers of at most three digits), with values in and out of range
/// and addresses that are the sender's or not.
fn line() -> impl Strategy<Value = (Vec<u8>, bool)> {
    let text = "[A-Za-z ().=:]{0,40}";
    let addr = prop_oneof![
        Just("10,0,0,1".to_string()),
        Just("10,0,0,2".to_string()),
        Just("0,0,0,0".to_string()),
        (num(300), num(300), num(300), num(300))
            .prop_map(|(a, b, c, d)| format!("{a},{b},{c},{d}")),
    ];
    let end = prop_oneof![Just(")\r\n"), Just(").\r\n"), Just("\r\n"), Just(" x\r\n")];
    (
        0..3u8,
        text,
        addr,
        num(300),
        num(300),
        end,
        any::<bool>(),
        0usize..3,
    )
        .prop_map(|(kind, text, addr, p1, p2, end, from_server, blanks)| {
            let l = match kind {
                0 => format!("227 {text}{addr},{p1},{p2}{end}"),
                1 => format!("PORT {}{addr},{p1},{p2}\r\n", " ".repeat(blanks)),
                _ => format!("pOrT {addr},{p1},{p2}\r\n"),
            };
            (l.into_bytes(), from_server)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// On lines it reads, the kernel guesses exactly what the follower admits
    /// under its stateless rules, and never another host than the sender.
    #[test]
    fn the_kernel_guesses_exactly_what_the_follower_admits((l, from_server) in line()) {
        if !skip::all_met(&[bpf()]) {
            return Ok(());
        }
        thread_local! {
            static MAPS: Following = Following::new(64).unwrap();
            static PROG: Program = MAPS.with(|m| program(m, false));
        }
        let want = admitted(&l, from_server);
        // What the line names, sender's or not, and the sender with that port.
        let named = announcements(&l).next().and_then(|a| a.addr.map(|x| (x, a.port)));
        MAPS.with(|maps| PROG.with(|p| {
            // The maps are shared by every case (and by proptest's shrinking
            // runs, some of which stop before their checks clean up): start
            // with none of this case's keys guessed.
            let sender = IpAddr::V4(if from_server { SERVER } else { CLIENT });
            for k in want.into_iter().chain(named).chain(named.map(|(_, port)| (sender, port))) {
                let _ = maps.unguess(k.0, k.1);
            }
            if let Some(w) = want {
                prop_assert!(guessed(p, maps, &l, from_server, w), "{:?}: not guessed", String::from_utf8_lossy(&l));
            }
            for cand in named.into_iter().chain(named.map(|(_, port)| (IpAddr::V4(if from_server { SERVER } else { CLIENT }), port))) {
                if Some(cand) != want {
                    prop_assert!(!guessed(p, maps, &l, from_server, cand), "{:?}: guessed {cand:?}", String::from_utf8_lossy(&l));
                }
            }
            Ok(())
        }))?;
    }

    /// Whatever follows a verb (or no verb): junk, numbers in the shapes of the
    /// four announcements with values in and out of range, more junk. The prologue
    /// never ends the program before the base filter (the control packet is
    /// accepted), and every guess it writes names the sender, never another host.
    #[test]
    fn any_payload_guesses_only_the_sender(
        verb in prop_oneof![Just(&b"227 "[..]), Just(&b"229 "[..]), Just(&b"PORT "[..]), Just(&b"EPRT "[..]), Just(&b"pOrT "[..]), Just(&b""[..])],
        junk in proptest::collection::vec(prop_oneof![
            3 => any::<u8>(),
            4 => proptest::sample::select(b"0123456789,.|()! ".to_vec()),
        ], 0..24),
        middle in prop_oneof![
            (num(300), num(300), num(300), num(300), num(300), num(300))
                .prop_map(|(a, b, c, d, e, f)| format!("{a},{b},{c},{d},{e},{f}")),
            num(70000).prop_map(|p| format!("(|||{p}|)")),
            (num(300), num(300), num(300), num(300), num(70000))
                .prop_map(|(a, b, c, d, p)| format!("|1|{a}.{b}.{c}.{d}|{p}|")),
            Just(String::new()),
        ],
        tail in proptest::collection::vec(any::<u8>(), 0..24),
        from_server in any::<bool>(),
    ) {
        if !skip::all_met(&[bpf()]) {
            return Ok(());
        }
        thread_local! {
            static MAPS: Following = Following::new(64).unwrap();
            static PROG: Program = MAPS.with(|m| program(m, false));
        }
        let payload = [verb, &junk[..], middle.as_bytes(), &tail[..]].concat();
        let (s, c) = ((SERVER, 21), (CLIENT, 40000));
        let f = if from_server {
            frame(s, c, 6, 0x18, &payload)
        } else {
            frame(c, s, 6, 0x18, &payload)
        };
        let sender = u32::from(if from_server { SERVER } else { CLIENT });
        MAPS.with(|maps| PROG.with(|p| {
            prop_assert_eq!(run(p, &f), ACCEPT);
            for k in maps.guesses.keys().unwrap() {
                let addr = u32::from_ne_bytes(k[4..8].try_into().unwrap());
                maps.guesses.delete(&k).unwrap();
                prop_assert_eq!(addr, sender, "{:?}: a guess of another host", String::from_utf8_lossy(&payload));
            }
            Ok(())
        }))?;
    }
}

#[test]
fn a_full_listener_table_grows_and_the_program_over_it_is_swapped() {
    require!(bpf());
    // Room for 16 listeners: a table of 64 slots, refusing its 33rd key.
    let maps = Following::new(16).unwrap();
    assert_eq!(maps.listener_slots(), 64);
    let mut p = program(&maps, false);
    let syn = |port: u16| frame((CLIENT, 40000), (SERVER, port), 6, 0x02, b"");
    let mut swapped = Vec::new();
    // Taken before: `listen` holds the table's lock while it calls `swap`.
    let hook = maps.hook(true, false);
    for port in 5000..5100u16 {
        let mut fresh = None;
        maps.listen(IpAddr::V4(SERVER), port, 6, |probe| {
            // What an owner does: a program over the new table, in place.
            let base = netsift_swift::compile("tcp port 21", LinkType::EN10MB).unwrap();
            let g = generate(&base, Env::TEST_RUN.following(hook.with_listeners(probe))).unwrap();
            fresh = Some(Program::load(ProgKind::SchedCls, "follow", &g.insns).unwrap());
            Ok(())
        })
        .unwrap();
        if let Some(new) = fresh {
            // The old program still answers for every listener but the new one
            // until the swap: it is never narrower than before.
            assert!((5000..port).all(|q| run(&p, &syn(q)) == ACCEPT));
            p = new;
            swapped.push(port);
        }
        assert_eq!(
            run(&p, &syn(port)),
            ACCEPT,
            "listener {port}, just admitted"
        );
    }
    assert_eq!(swapped, [5032, 5064], "grown at half full, twice");
    assert_eq!(maps.swaps(), 2);
    assert_eq!(maps.listener_slots(), 256);
    for port in 5000..5100u16 {
        assert_eq!(run(&p, &syn(port)), ACCEPT, "listener {port} after growth");
        assert!(maps.listening(IpAddr::V4(SERVER), port, 6));
    }
    assert_eq!(run(&p, &syn(5100)), 0, "nothing else");
    // A swap that fails leaves the old table and program, without the listener.
    let before = maps.listener_slots();
    for port in 5100..5200u16 {
        let r = maps.listen(IpAddr::V4(SERVER), port, 6, |_| {
            Err(netsift_kernel::sys::Error::invalid("no program today"))
        });
        if r.is_err() {
            assert!(!maps.listening(IpAddr::V4(SERVER), port, 6));
            assert_eq!(run(&p, &syn(port)), 0);
            assert_eq!(maps.listener_slots(), before);
            assert!((5000..port).all(|q| run(&p, &syn(q)) == ACCEPT));
            return;
        }
    }
    panic!("the table never filled");
}
