//! TIPC (EtherType 0x88ca), as tcpdump's `tipc_print`: the header of a
//! payload, internal or neighbor-detection message; `-v` adds the second
//! line of link fields.

use super::{g4, out, PResult, Printer};

fn user_name(u: u32) -> &'static str {
    match u {
        0 => "Low Importance Data payload",
        1 => "Medium Importance Data payload",
        2 => "High Importance Data payload",
        3 => "Critical Importance Data payload",
        5 => "Broadcast Link Protocol internal",
        6 => "Message Bundler Protocol internal",
        7 => "Link State Protocol internal",
        8 => "Connection Manager internal",
        10 => "Link Changeover Protocol internal",
        11 => "Name Table Update Protocol internal",
        12 => "Message Fragmentation Protocol internal",
        13 => "Neighbor Detection Protocol internal",
        _ => "unknown",
    }
}

/// tcpdump's names, with DIRECT and MCAST swapped as its table has them.
fn mtype_name(m: u32) -> &'static str {
    match m {
        0 => "CONN_MSG",
        1 => "MCAST_MSG",
        2 => "NAMED_MSG",
        3 => "DIRECT_MSG",
        _ => "Unknown",
    }
}

/// `zone.cluster.node`.
fn node(a: u32) -> String {
    format!("{}.{}.{}", a >> 24, (a >> 12) & 0xfff, a & 0xfff)
}

impl Printer<'_> {
    /// `tipc_print`.
    pub(super) fn tipc(&mut self, bp: &[u8]) -> PResult {
        self.proto = "tipc";
        let w = |i: usize| g4(bp, 4 * i);
        let w0 = w(0)?;
        let user = (w0 >> 25) & 0x0f;
        let hsize = (w0 >> 21) & 0x0f;
        let head = |p: &mut Self, from: String, to: String, mtype: &str| {
            out!(
                p,
                "TIPC v{}.0 {from} > {to}, headerlength {} bytes, MessageSize {} bytes, {}, messageType {mtype}",
                w0 >> 29,
                hsize * 4,
                w0 & 0x1ffff,
                user_name(user)
            );
        };
        let v = self.opts.verbose > 0;
        match user {
            0..=3 | 8 | 11 => {
                let w1 = w(1)?;
                let prev = w(3)?;
                let (oport, dport) = (w(4)?, w(5)?);
                let mtype = mtype_name(w1 >> 29);
                if hsize <= 6 {
                    head(
                        self,
                        format!("{}:{oport}", node(prev)),
                        dport.to_string(),
                        mtype,
                    );
                } else {
                    let (on, dn) = (w(6)?, w(7)?);
                    head(
                        self,
                        format!("{}:{oport}", node(on)),
                        format!("{}:{dport}", node(dn)),
                        mtype,
                    );
                    if v {
                        let w2 = w(2)?;
                        out!(
                            self,
                            "\n\tPrevious Node {}, Broadcast Ack {}, Link Ack {}, Link Sequence {}",
                            node(prev),
                            w1 & 0xffff,
                            w2 >> 16,
                            w2 & 0xffff
                        );
                    }
                }
            }
            13 => {
                let w1 = w(1)?;
                let (dom, prev) = (w(2)?, w(3)?);
                let mtype = match w1 >> 29 {
                    0 => "Link request",
                    1 => "Link response",
                    _ => "Unknown",
                };
                head(self, node(prev), node(dom), mtype);
                if v {
                    out!(
                        self,
                        "\n\tNodeSignature {}, network_id {}, media_id {}",
                        w1 & 0xffff,
                        w(4)?,
                        w(5)? & 0xff
                    );
                }
            }
            5 | 6 | 7 | 10 | 12 => {
                let w1 = w(1)?;
                let (on, dn) = (w(6)?, w(7)?);
                let mtype = format!("{} (0x{w1:08x})", mtype_name(w1 >> 29));
                head(self, node(on), node(dn), &mtype);
                if v {
                    let (w2, prev, w4, w5) = (w(2)?, w(3)?, w(4)?, w(5)?);
                    let (seq, w9) = (w(8)?, w(9)?);
                    out!(
                        self,
                        "\n\tPrevious Node {}, Session No. {}, Broadcast Ack {}, Sequence Gap {},  \
                         Broadcast Gap After {}, Broadcast Gap To {}, Last Sent Packet No. {}, \
                         Next sent Packet No. {}, Transport Sequence {seq}, msg_count {}, Link Tolerance {}",
                        node(prev),
                        w5 >> 16,
                        w1 & 0xffff,
                        (w1 >> 16) & 0x1fff,
                        w2 >> 16,
                        w2 & 0xffff,
                        w4 >> 16,
                        w4 & 0xffff,
                        w9 >> 16,
                        w9 & 0xffff
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }
}
