//! The filter classes, one entry each: adding a class is adding an entry here
//! (and a row in `docs/graphs.md`).

use super::types::{ArgKind, Class, Mbuf, Param, Role, MAX_MBUF};

const fn param(name: &'static str, kind: ArgKind) -> Param {
    Param {
        name,
        kind,
        optional: false,
    }
}

const fn range(default: u32, min: u32, max: u32) -> Mbuf {
    Mbuf::Range { default, min, max }
}

const NONE: Mbuf = range(0, 0, 0);
const PROTOCOLS: &[&str] = &["ftp", "sip", "rtsp"];

/// Every filter class, in the order `docs/graphs.md` lists them.
pub static CLASSES: &[Class] = &[
    Class {
        name: "device",
        aliases: &[],
        role: Role::Source,
        summary: "the packets of a network interface (`any`: all of them)",
        params: &[param("interface", ArgKind::Interface)],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "pcap",
        aliases: &[],
        role: Role::Filter,
        summary: "a tcpdump filter expression, compiled by netsift's pcap compiler",
        params: &[param("filter", ArgKind::Text)],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "bpf",
        aliases: &[],
        role: Role::Filter,
        summary: "classic BPF as `tcpdump -ddd` prints it, run safely",
        params: &[param("program", ArgKind::Bpf)],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "fpl",
        aliases: &["fpl-2", "fpl2"],
        role: Role::Filter,
        summary: "an FPL-2 program; MEM[] is its MBuf",
        params: &[param("program", ArgKind::NonEmpty)],
        variadic: false,
        mbuf: range(0, 0, MAX_MBUF),
        root_only: false,
    },
    Class {
        name: "sampler",
        aliases: &[],
        role: Role::Filter,
        summary: "passes one packet in `rate`, counting in a 4-byte MBuf",
        params: &[param("rate", ArgKind::Positive(u32::MAX as u64))],
        variadic: false,
        mbuf: range(4, 4, 4),
        root_only: false,
    },
    Class {
        name: "packetcount",
        aliases: &[],
        role: Role::Filter,
        summary: "counts packets in an 8-byte MBuf and passes none on",
        params: &[],
        variadic: false,
        mbuf: range(8, 8, 8),
        root_only: false,
    },
    Class {
        name: "bytecount",
        aliases: &[],
        role: Role::Filter,
        summary: "counts bytes in an 8-byte MBuf and passes none on",
        params: &[],
        variadic: false,
        mbuf: range(8, 8, 8),
        root_only: false,
    },
    Class {
        name: "follow",
        aliases: &[],
        role: Role::Filter,
        summary: "a protocol follower: the control connections and the flows they announce",
        params: &[param("protocol", ArgKind::Choice(PROTOCOLS))],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "native",
        aliases: &["c"],
        role: Role::Filter,
        summary: "a shared object with netsift's C filter ABI, loaded by the daemon",
        params: &[param("object", ArgKind::AbsolutePath)],
        variadic: false,
        mbuf: range(0, 0, MAX_MBUF),
        root_only: true,
    },
    Class {
        name: "aho_corasick",
        aliases: &["aho-corasick"],
        role: Role::External,
        summary: "passes packets whose payload holds one of the patterns",
        params: &[param("pattern", ArgKind::NonEmpty)],
        variadic: true,
        // netsift-externs' `aho_corasick:SET` writes the match's start and end
        // offsets, two MBuf slots (docs/externs.md).
        mbuf: range(0, 0, 16),
        root_only: false,
    },
    Class {
        name: "memmem",
        aliases: &["substring"],
        role: Role::External,
        summary: "passes packets whose payload holds the pattern (Boyer-Moore-style search)",
        params: &[param("pattern", ArgKind::NonEmpty)],
        variadic: false,
        mbuf: range(0, 0, 8),
        root_only: false,
    },
    Class {
        name: "hash",
        aliases: &[],
        role: Role::External,
        summary: "counts packets per bucket of a hash of the address pair and ports",
        params: &[param("buckets", ArgKind::Positive(1 << 16))],
        variadic: false,
        mbuf: Mbuf::PerEntry { base: 0, per: 8 },
        root_only: false,
    },
    Class {
        name: "checksum",
        aliases: &[],
        role: Role::External,
        summary: "passes packets whose IPv4, TCP and UDP checksums verify",
        params: &[],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "dynport",
        aliases: &[],
        role: Role::External,
        summary: "writes the ports a control connection announces into MBuf",
        params: &[param("protocol", ArgKind::Choice(PROTOCOLS))],
        variadic: false,
        // netsift-externs' `*_ports` write a count and seven ports, one 8-byte
        // slot each so FPL compares them as `MEM[i]`: 64 bytes, no more or less.
        mbuf: range(64, 64, 64),
        root_only: false,
    },
    Class {
        name: "topn",
        aliases: &[],
        role: Role::External,
        summary: "keeps the n most active TCP flows (address pair, ports, count) in MBuf",
        params: &[param("n", ArgKind::Positive(1024))],
        variadic: false,
        mbuf: Mbuf::PerEntry { base: 8, per: 16 },
        root_only: false,
    },
];

/// The class named `name` (or one of its aliases), in any case.
pub fn lookup(name: &str) -> Option<&'static Class> {
    CLASSES.iter().find(|c| {
        c.name.eq_ignore_ascii_case(name) || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}
