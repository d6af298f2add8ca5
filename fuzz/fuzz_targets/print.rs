//! The printer on hostile bytes: any frame under any link type and any display
//! flags (`-v` to `-vvv`, `-q`, `-e`, `-S`, `-T`, `-u`, names, tcpdump's default
//! print), whole or with a wire length longer than what was captured. It never
//! panics, never prints a `\r` or an empty continuation line (the line itself may
//! be empty, as tcpdump's is for an ARCNET frame too short for its header), and
//! prints a bounded amount for what it was given (a printer that loops on a
//! length field it trusts would print without end, or time out).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_print::{DefaultPrint, Names, PacketType, Summarizer, SummaryOptions};
use netsift_wire::LinkType;

/// Names for some ports and hosts, so that name look-ups run too.
fn names() -> &'static Names {
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        Names::new()
            .with_services("domain 53/udp\nhttp 80/tcp\nbgp 179/tcp\n")
            .with_hosts("10.0.0.1 one.example\n::1 six\n")
            .with_ethers("00:11:22:33:44:55 router\n")
    })
}

fuzz_target!(|data: &[u8]| {
    let [lt_hi, lt_lo, flags, more, frame @ ..] = data else {
        return;
    };
    // Link types up to 299: every one libpcap names, and numbers no printer knows.
    let lt = LinkType(u32::from(u16::from_be_bytes([*lt_hi, *lt_lo]) % 300));
    let opts = SummaryOptions {
        verbose: flags & 3,
        quiet: flags & 4 != 0,
        link_header: flags & 8 != 0,
        absolute_tcp_seq: flags & 16 != 0,
        default_print: match flags >> 5 & 3 {
            0 => DefaultPrint::Off,
            1 => DefaultPrint::On,
            _ => DefaultPrint::Suppressed,
        },
        // `-T`: one of the forced types, or none.
        packet_type: (flags & 0x80 != 0)
            .then(|| PacketType::ALL[usize::from(more >> 3) % PacketType::ALL.len()].1),
        nfs_handles: more & 4 != 0,
        names: (more & 2 != 0).then(names),
        interface_name: Some(|i| (i % 2 == 0).then(|| format!("if{i}"))),
        asdot: more & 2 != 0,
        mesh_headers: more & 1 != 0,
        // `-X`, which telnet reads at -vvv.
        hex_ascii: more & 5 == 5,
        ..SummaryOptions::default()
    };
    // A frame cut short by the snap length: its wire length is longer.
    let wire = frame.len() as u32 + u32::from(more >> 2) * 64;
    let mut s = Summarizer::with_options(opts);
    // Twice: the second sees the state the first left (TCP's relative numbers).
    for _ in 0..2 {
        let out = s.summarize(lt, frame, wire);
        assert!(!out.contains('\r'), "a carriage return in {out:?}");
        // tcpdump's ForCES printer ends its own lines with a newline, and its
        // SOME/IP line ends with one: those empty lines are tcpdump's too.
        let body = out.strip_suffix('\n').unwrap_or(&out);
        assert!(
            out.contains("ForCES") || body.split('\n').skip(1).all(|l| !l.is_empty()),
            "an empty continuation line in {out:?}"
        );
        // tcpdump's densest output is a hex dump with -vv: about 4 characters
        // a byte, plus the indentation of each line and fixed text.
        let bound = 64 * frame.len() + 4096;
        assert!(
            out.len() <= bound,
            "{} characters for {} bytes",
            out.len(),
            frame.len()
        );
    }
});
