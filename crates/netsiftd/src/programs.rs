//! A compiled pcap filter as the daemon runs it: one program, or one per
//! direction where the expression tests it, and how a chunk of up to
//! [`LANES`] packets takes each packet's own direction's verdict. Flows'
//! filters ([`crate::dispatch`]) and graphs' `pcap` elements
//! ([`crate::graph`]) both run through [`Programs::run_chunk`], over
//! batches of [`Packet`]s.

use netsift_engine::{BatchScratch, Compiled, LANES};

/// One packet of a batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packet<'a> {
    /// The captured bytes.
    pub(crate) data: &'a [u8],
    /// Its length on the wire.
    pub(crate) wirelen: u32,
    /// Nanoseconds since the epoch.
    pub(crate) ts_ns: u64,
    /// Sent by the host (`PACKET_OUTGOING`), not received: what `inbound`,
    /// `outbound` and a flow's
    /// [`Direction`](netsift_ffpf::proto::Direction) test. False for a file's packets.
    pub(crate) outgoing: bool,
    /// The kernel took a VLAN tag out of it, which the ring put back at byte
    /// 12 (`netsift_capture::Frame::tag_put_back`): a flow's filter reads it
    /// as libpcap's kernel filter does ([`Programs::tag_out`]).
    pub(crate) tag_out: bool,
}

/// A filter's programs: one, or one for each direction where the expression
/// tests it (`inbound`, `outbound` on an interface), as a live capture
/// compiles it (`netsift_session::directed_sets`).
pub(crate) struct Programs {
    /// For received packets (all packets, where `sent` is `None`).
    pub(crate) received: Compiled,
    /// For packets the host sent, where that program differs.
    pub(crate) sent: Option<Compiled>,
    /// For packets the kernel took a VLAN tag out of ([`Packet::tag_out`]),
    /// compiled as libpcap's kernel filter reads them
    /// (`netsift_pcapc::Meta::tag_stripped`), where they differ; `None`: the
    /// programs above read them (as a capture file holds them).
    pub(crate) tag_out: Option<Box<Programs>>,
}

impl Programs {
    /// The accept mask of one chunk (`data`, `wire`: at most [`LANES`]
    /// packets), `out` marking those the host sent and `tagged` those the
    /// kernel took a VLAN tag out of: each program runs only if the chunk
    /// holds packets it judges.
    pub(crate) fn run_chunk(
        &self,
        scratch: &mut BatchScratch,
        (data, wire): (&[&[u8]], &[u32]),
        (out, tagged): (u32, u32),
    ) -> u32 {
        if data.is_empty() {
            return 0;
        }
        if let Some(t) = self.tag_out.as_deref().filter(|_| tagged != 0) {
            let all = u32::MAX >> (LANES - data.len());
            let untagged = if tagged & all != all {
                self.by_direction(scratch, (data, wire), out)
            } else {
                0
            };
            let by_tag = t.by_direction(scratch, (data, wire), out);
            return (untagged & !tagged) | (by_tag & tagged);
        }
        self.by_direction(scratch, (data, wire), out)
    }

    /// [`Programs::run_chunk`] for the untagged programs.
    fn by_direction(
        &self,
        scratch: &mut BatchScratch,
        (data, wire): (&[&[u8]], &[u32]),
        out: u32,
    ) -> u32 {
        let Some(sent) = &self.sent else {
            return self.received.filter_batch(scratch, data, wire);
        };
        let all = u32::MAX >> (LANES - data.len());
        let received = if out & all != all {
            self.received.filter_batch(scratch, data, wire)
        } else {
            0
        };
        let by_host = if out != 0 {
            sent.filter_batch(scratch, data, wire)
        } else {
            0
        };
        (received & !out) | (by_host & out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_pcapc::{Meta, Target};
    use netsift_wire::LinkType;

    /// A UDP/IPv4 frame, inside an 802.1Q tag (at byte 12, as a ring puts
    /// back one the kernel took out) if `tagged`.
    fn udp(tagged: bool) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        if tagged {
            f.extend_from_slice(&[0x81, 0, 0, 5]);
        }
        f.extend_from_slice(&[8, 0, 0x45]);
        f.extend_from_slice(&[0; 8]);
        f.push(17);
        f.resize(f.len() + 30, 0);
        f
    }

    fn compiled(tag_stripped: bool) -> Compiled {
        let meta = Meta {
            outgoing: false,
            ifindex: 1,
            tag_stripped,
        };
        let t = Target::new(LinkType::EN10MB).meta(meta);
        Compiled::new(netsift_pcapc::compile_for("udp", t).unwrap())
    }

    #[test]
    fn a_frame_with_a_tag_taken_out_takes_the_tag_out_programs_verdict() {
        let (plain, tagged) = (udp(false), udp(true));
        let data: [&[u8]; 3] = [&plain, &tagged, &tagged];
        let wire = [60u32; 3];
        let mut s = BatchScratch::new();
        let mut p = Programs {
            received: compiled(false),
            sent: None,
            tag_out: None,
        };
        // As a file holds them, a tagged frame is VLAN, not UDP.
        assert_eq!(p.run_chunk(&mut s, (&data, &wire), (0, 0b010)), 0b001);
        p.tag_out = Some(Box::new(Programs {
            received: compiled(true),
            sent: None,
            tag_out: None,
        }));
        // The second frame is marked as one the kernel took its tag out of:
        // read without the tag it is UDP; the third, not marked, is not.
        assert_eq!(p.run_chunk(&mut s, (&data, &wire), (0, 0b010)), 0b011);
        // Every frame marked: the untagged program does not run, and the
        // first frame (no tag in its data) is no UDP to the tag-out program.
        assert_eq!(p.run_chunk(&mut s, (&data, &wire), (0, 0b111)), 0b110);
    }
}
