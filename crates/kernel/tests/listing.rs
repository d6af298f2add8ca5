//! `netsift -d --place kernel`: every instruction the generators emit is listed
//! in bpftool's notation (`r0 = *(u16 *)skb[12]`, `call bpf_map_lookup_elem#1`),
//! none as a raw opcode. No program is loaded: generating needs no privilege.

use netsift_kernel::asm::{listing, mnemonic, Insn};
use netsift_kernel::codegen::{generate, generate_split, Env, Halves, Split};
use netsift_kernel::fpl::{self, Maps};
use netsift_wire::LinkType;

/// Filters that make the generator use each of its loads, compares, jumps and
/// anchors: addresses, ports through the IPv4 header length, IPv6 words, a tag,
/// lengths, arithmetic with every operator, byte tests, protochain (unsure).
const FILTERS: &[&str] = &[
    "host 10.1.2.3 and port 80",
    "net 10.0.0.0/8 and portrange 1000-2000",
    "ip6 host fe80::1 and tcp",
    "vlan 12 and udp[8:4] < 500",
    "ether host 00:11:22:33:44:55 or ether broadcast",
    "greater 100 and less 1000",
    "ip[2:2] - ((ip[0] & 0xf) << 2) > 100",
    "tcp[tcpflags] & (tcp-syn|tcp-ack) != 0 and tcp[13] > 2",
    "(ip[1] * 3 / 2 % 7 | 1 ^ 2) >> 1 = len & 0xff",
    "ip proto 47 or arp or icmp6",
    "ip protochain 6",
    "ip multicast or ip6 multicast",
    "mpls 5 and ip",
    "ip[0] & 0xf0 = 0x40 and udp dst port 53",
];

/// Every line of `insns` read by [`mnemonic`], and the listing's lines.
fn all_named(what: &str, insns: &[Insn]) {
    let mut i = 0;
    while i < insns.len() {
        let Some((text, n)) = mnemonic(insns, i) else {
            panic!("{what}: instruction {i} ({:?}) has no mnemonic", insns[i]);
        };
        assert!(!text.is_empty() && n >= 1);
        i += n;
    }
    let l = listing(insns);
    assert!(!l.contains("(code "), "{what}: {l}");
}

#[test]
fn every_generated_instruction_lists_as_a_mnemonic() {
    for f in FILTERS {
        let set = netsift_swift::compile(f, LinkType::EN10MB).unwrap();
        for (env, name) in [
            (Env::socket(262144), "socket"),
            (Env::TEST_RUN, "test run"),
            (Env::TEST_RUN_TAGGED, "tagged test run"),
            (Env::xdp(-1, -1, 256), "xdp"),
            (Env::xdp_redirect(-1, -1), "xdp redirect"),
        ] {
            let g = generate(&set, env).unwrap();
            all_named(&format!("{f} ({name})"), &g.insns);
        }
        let received = Halves {
            untagged: &set,
            tagged: Some(&set),
        };
        let split = Split {
            received,
            sent: Some(received),
        };
        let g = generate_split(split, Env::socket(65535)).unwrap();
        all_named(&format!("{f} (split)"), &g.insns);
    }
}

#[test]
fn fpl_programs_list_as_mnemonics() {
    let opts = netsift_fpl::Options::default();
    let text = "IF (PKT.B[23] == 17) THEN R[0] = R[0] + 1; M[1] = PKT.W[26] FI; \
                FOR (R[1] = 0; R[1] < 4; R[1]++) R[2] = R[2] ^ PKT.B[R[1]] ROF; RETURN R[0] % 3";
    let p = netsift_fpl::compile(text, &opts, &netsift_fpl::externs::Externs::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let xdp = fpl::Hook::Xdp {
        ring: -1,
        stats: -1,
        cap: 64,
        redirect: None,
    };
    for hook in [fpl::Hook::Skb, xdp] {
        let insns = fpl::generate(&p, Some(text), Maps { mbuf: -1, regs: -1 }, hook)
            .unwrap_or_else(|e| panic!("{e}"));
        all_named(&format!("fpl {hook:?}"), &insns);
    }
}

#[test]
fn the_listing_reads_as_bpftool_writes() {
    let set = netsift_swift::compile("ip host 10.1.2.3", LinkType::EN10MB).unwrap();
    let l = listing(&generate(&set, Env::socket(262144)).unwrap().insns);
    // The EtherType and the addresses, loaded from the socket buffer.
    for want in [
        "r0 = *(u16 *)skb[12]",
        "r0 = *(u32 *)skb[26]",
        "r0 = *(u32 *)skb[30]",
        "r7 = *(u32 *)(r6 +20)",
        "exit",
    ] {
        assert!(l.contains(want), "no {want:?} in\n{l}");
    }
    let x = generate(&set, Env::xdp(-1, -1, 64)).unwrap();
    let l = listing(&x.insns);
    assert!(l.contains("call bpf_xdp_load_bytes#189"), "{l}");
    assert!(l.contains("call bpf_ringbuf_reserve#131"), "{l}");
}
