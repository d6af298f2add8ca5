//! The verdict comparison the `compile` and `links` targets share: netsift's
//! compiled filter against libpcap's on one packet, with the cases libpcap leaves
//! undefined or netsift does not reproduce set aside (see each target's header).

use netsift_engine::{Compiled, Scratch};
use netsift_oracle::Filter;
use netsift_wire::LinkType;

/// Whether `text`'s verdicts are compared at all: `byte N & M` tests whatever
/// libpcap's previous instruction left in the accumulator, and libpcap reuses an
/// arithmetic comparison's scratch slot for `geneve` and `protochain` offsets.
pub fn comparable(text: &str, oracle: &Filter) -> bool {
    let t = text.to_ascii_lowercase();
    if t.contains("byte") {
        return false;
    }
    !(oracle.reads_memory() && (t.contains("geneve") || t.contains("protochain")))
}

/// Whether a difference on `text` for link type `lt` is one docs/status.md lists
/// as not reproduced: on `PFLOG` libpcap keeps the link payload's offset in a
/// scratch register that an arithmetic relation may have used and freed before,
/// and where the relation stores a packet value or runs on only some paths,
/// netsift does not follow what the offset then becomes.
pub fn set_aside(text: &str, lt: LinkType) -> bool {
    lt == LinkType::PFLOG && text.contains(['<', '>', '='])
}

/// One expression compiled both ways, run on packets.
pub struct Differ<'a> {
    pub text: &'a str,
    pub linktype: LinkType,
    pub oracle: &'a Filter,
    pub ours: &'a Compiled,
    pub scratch: Scratch,
}

impl Differ<'_> {
    /// Panics when the verdicts on `p` differ, unless libpcap has no defined
    /// verdict there or either side's verdict came from a load past the captured
    /// bytes (libpcap's verdict then depends on which loads its optimiser kept).
    pub fn check(&mut self, p: &[u8], wire_len: u32) {
        let Ok(want) = self.oracle.try_run(p, wire_len) else {
            return;
        };
        let got = self.ours.matches(&mut self.scratch, p, wire_len);
        if got == (want != 0) {
            return;
        }
        let oob = netsift_oracle::bpf::interpret_traced(self.oracle.insns(), p, wire_len, 1 << 24)
            .is_ok_and(|(_, oob)| oob);
        if oob || self.scratch.faulted() || set_aside(self.text, self.linktype) {
            return;
        }
        panic!(
            "verdicts differ on {:?} ({}): libpcap {want}, netsift {got}, caplen {}, wire {wire_len}, packet {p:02x?}",
            self.text,
            self.linktype,
            p.len()
        );
    }
}
