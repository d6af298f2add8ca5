//! sFlow's flow and counter samples and their records, as tcpdump 4.99.3's
//! `sflow_print_*_sample` and `print_sflow_*` print them with `-v`. Like
//! tcpdump, a record's decoder checks its structure against what is left of
//! the datagram, not of the record.

use super::super::{g1, g3, g4, g8, need, out, Printer};
use super::{fits, SResult};

/// What tcpdump's `GET_BE_U_*` reads for one printed field.
#[derive(Clone, Copy)]
enum F {
    U4,
    U8,
}

/// One counter record's lines: each a list of (label, width) printed as
/// `label value`, the labels carrying their own separators.
type Lines = &'static [&'static [(&'static str, F)]];

const GENERIC: Lines = &[
    &[
        ("ifindex ", F::U4),
        (", iftype ", F::U4),
        (", ifspeed ", F::U8),
    ],
    &[],
    &[
        ("In octets ", F::U8),
        (", unicast pkts ", F::U4),
        (", multicast pkts ", F::U4),
        (", broadcast pkts ", F::U4),
        (", discards ", F::U4),
    ],
    &[("In errors ", F::U4), (", unknown protos ", F::U4)],
    &[
        ("Out octets ", F::U8),
        (", unicast pkts ", F::U4),
        (", multicast pkts ", F::U4),
        (", broadcast pkts ", F::U4),
        (", discards ", F::U4),
    ],
    &[("Out errors ", F::U4), (", promisc mode ", F::U4)],
];

const ETHERNET: Lines = &[
    &[
        ("align errors ", F::U4),
        (", fcs errors ", F::U4),
        (", single collision ", F::U4),
        (", multiple collision ", F::U4),
        (", test error ", F::U4),
    ],
    &[
        ("deferred ", F::U4),
        (", late collision ", F::U4),
        (", excessive collision ", F::U4),
        (", mac trans error ", F::U4),
    ],
    &[
        ("carrier error ", F::U4),
        (", frames too long ", F::U4),
        (", mac receive errors ", F::U4),
        (", symbol errors ", F::U4),
    ],
];

const BASEVG: Lines = &[
    &[
        ("in high prio frames ", F::U4),
        (", in high prio octets ", F::U8),
    ],
    &[
        ("in norm prio frames ", F::U4),
        (", in norm prio octets ", F::U8),
    ],
    &[
        ("in ipm errors ", F::U4),
        (", oversized ", F::U4),
        (", in data errors ", F::U4),
        (", null addressed frames ", F::U4),
    ],
    &[
        ("out high prio frames ", F::U4),
        (", out high prio octets ", F::U8),
        (", trans into frames ", F::U4),
    ],
    &[
        ("in hc high prio octets ", F::U8),
        (", in hc norm prio octets ", F::U8),
        (", out hc high prio octets ", F::U8),
    ],
];

const VLAN: Lines = &[&[
    ("vlan_id ", F::U4),
    (", octets ", F::U8),
    (", unicast_pkt ", F::U4),
    (", multicast_pkt ", F::U4),
    (", broadcast_pkt ", F::U4),
    (", discards ", F::U4),
]];

// tcpdump labels the free memory `total_mem` too.
const PROCESSOR: Lines = &[&[
    ("5sec ", F::U4),
    (", 1min ", F::U4),
    (", 5min ", F::U4),
    (", total_mem ", F::U8),
    (", total_mem ", F::U8),
]];

impl Printer<'_> {
    /// `sflow_print_flow_sample` (`expanded`: the expanded one) at `at`, `tlen`
    /// bytes left in the datagram.
    pub(super) fn sflow_flow_sample(
        &mut self,
        p: &[u8],
        at: usize,
        tlen: u32,
        expanded: bool,
    ) -> SResult {
        let size = if expanded { 44 } else { 32 };
        fits(tlen, size)?;
        let n = g4(p, at + size as usize - 4)?;
        if expanded {
            out!(
                self,
                " seqnum {}, type {}, idx {}, rate {}, pool {}, drops {}, records {n}",
                g4(p, at)?,
                g4(p, at + 4)?,
                g4(p, at + 8)?,
                g4(p, at + 12)?,
                g4(p, at + 16)?,
                g4(p, at + 20)?
            );
        } else {
            out!(
                self,
                " seqnum {}, type {}, idx {}, rate {}, pool {}, drops {}, input {} output {} records {n}",
                g4(p, at)?,
                g1(p, at + 4)?,
                g3(p, at + 5)?,
                g4(p, at + 8)?,
                g4(p, at + 12)?,
                g4(p, at + 16)?,
                g4(p, at + 20)?,
                g4(p, at + 24)?
            );
        }
        self.sflow_records(p, at + size as usize, tlen - size, n, true)
    }

    /// `sflow_print_counter_sample` (`expanded`: the expanded one).
    pub(super) fn sflow_counter_sample(
        &mut self,
        p: &[u8],
        at: usize,
        tlen: u32,
        expanded: bool,
    ) -> SResult {
        let size = if expanded { 16 } else { 12 };
        fits(tlen, size)?;
        let n = g4(p, at + size as usize - 4)?;
        let (kind, idx) = if expanded {
            (g4(p, at + 4)?, g4(p, at + 8)?)
        } else {
            (u32::from(g1(p, at + 4)?), g3(p, at + 5)?)
        };
        out!(
            self,
            " seqnum {}, type {kind}, idx {idx}, records {n}",
            g4(p, at)?
        );
        self.sflow_records(p, at + size as usize, tlen - size, n, false)
    }

    /// `sflow_print_flow_records` (`flows`) or `sflow_print_counter_records`:
    /// `n` records in the `tlen` bytes from `at`.
    fn sflow_records(
        &mut self,
        p: &[u8],
        mut at: usize,
        mut tlen: u32,
        n: u32,
        flows: bool,
    ) -> SResult {
        for _ in 0..n {
            fits(tlen, 8)?;
            let format = g4(p, at)?;
            let kind = format & 0x0fff;
            // tcpdump shifts a flow record's format by 12 and a counter
            // record's by 20 to get the enterprise.
            let enterprise = format >> if flows { 12 } else { 20 };
            let rlen = g4(p, at + 4)?;
            let name = match enterprise {
                0 if flows => flow_name(kind),
                0 => counter_name(kind),
                _ => "Unknown",
            };
            let comma = if flows { "" } else { "," };
            out!(
                self,
                "\n\t    enterprise {enterprise}{comma} {name} ({kind}) length {rlen}"
            );
            at += 8;
            tlen -= 8;
            fits(tlen, rlen)?;
            if enterprise == 0 {
                if flows {
                    self.sflow_flow_record(p, at, tlen, kind, rlen)?;
                } else {
                    self.sflow_counter_record(p, at, tlen, kind, rlen)?;
                }
            }
            at += rlen as usize;
            tlen -= rlen;
        }
        Ok(())
    }

    fn sflow_flow_record(
        &mut self,
        p: &[u8],
        at: usize,
        tlen: u32,
        kind: u32,
        rlen: u32,
    ) -> SResult {
        match kind {
            1 => {
                fits(tlen, 16)?;
                let proto = g4(p, at)?;
                let name = match proto {
                    1 => "Ethernet",
                    11 => "IPv4",
                    12 => "IPv6",
                    _ => "Unknown",
                };
                out!(
                    self,
                    "\n\t      protocol {name} ({proto}), length {}, stripped bytes {}, header_size {}",
                    g4(p, at + 4)?,
                    g4(p, at + 8)?,
                    g4(p, at + 12)?
                );
            }
            2 => {
                fits(tlen, 24)?;
                out!(
                    self,
                    "\n\t      frame len {}, type {}",
                    g4(p, at)?,
                    g4(p, at + 20)?
                );
            }
            1001 => {
                fits(tlen, 16)?;
                out!(
                    self,
                    "\n\t      src vlan {}, src pri {}, dst vlan {}, dst pri {}",
                    g4(p, at)?,
                    g4(p, at + 4)?,
                    g4(p, at + 8)?,
                    g4(p, at + 12)?
                );
            }
            // Known types tcpdump has no decoder for.
            3 | 4 | 1002..=1012 => {}
            _ => self.sflow_unknown(p, at, rlen),
        }
        Ok(())
    }

    fn sflow_counter_record(
        &mut self,
        p: &[u8],
        at: usize,
        tlen: u32,
        kind: u32,
        rlen: u32,
    ) -> SResult {
        let (size, lines) = match kind {
            1 => (88, GENERIC),
            2 => (52, ETHERNET),
            3 => return Ok(()),
            4 => (80, BASEVG),
            5 => (28, VLAN),
            1001 => (28, PROCESSOR),
            _ => {
                self.sflow_unknown(p, at, rlen);
                return Ok(());
            }
        };
        fits(tlen, size)?;
        let mut o = at;
        for (i, line) in lines.iter().enumerate() {
            out!(self, "\n\t      ");
            if kind == 1 && i == 1 {
                // The generic counter's direction and status, decoded.
                let status = g4(p, at + 20)?;
                let updown = |b: u32| if b & 1 != 0 { "up" } else { "down" };
                out!(
                    self,
                    "ifstatus {status}, adminstatus: {}, operstatus: {}",
                    updown(status),
                    updown(status >> 1)
                );
                o += 8;
                continue;
            }
            // tcpdump reads a line's fields before printing it.
            let span: usize = line.iter().map(|&(_, f)| width(f)).sum();
            need(p, o, span + if kind == 1 && i == 0 { 4 } else { 0 })?;
            for &(label, f) in line.iter() {
                out!(self, "{label}");
                match f {
                    F::U4 => out!(self, "{}", g4(p, o)?),
                    F::U8 => out!(self, "{}", g8(p, o)?),
                }
                o += width(f);
            }
            if kind == 1 && i == 0 {
                let dir = g4(p, o)?;
                out!(self, ", ifdirection {dir} ({})", direction_name(dir));
            }
        }
        Ok(())
    }

    /// `print_unknown_data` of a record, which tcpdump prints only up to `-v`.
    fn sflow_unknown(&mut self, p: &[u8], at: usize, rlen: u32) {
        if self.opts.verbose <= 1 {
            self.unknown_data(p, at, rlen as usize, "\n\t\t");
        }
    }
}

fn width(f: F) -> usize {
    match f {
        F::U4 => 4,
        F::U8 => 8,
    }
}

fn flow_name(kind: u32) -> &'static str {
    match kind {
        1 => "Raw packet",
        2 => "Ethernet frame",
        3 => "IPv4 Data",
        4 => "IPv6 Data",
        1001 => "Extended Switch data",
        1002 => "Extended Router data",
        1003 => "Extended Gateway data",
        1004 => "Extended User data",
        1005 => "Extended URL data",
        1006 => "Extended MPLS data",
        1007 => "Extended NAT data",
        1008 => "Extended MPLS tunnel",
        1009 => "Extended MPLS VC",
        1010 => "Extended MPLS FEC",
        1011 => "Extended MPLS LVP FEC",
        1012 => "Extended VLAN Tunnel",
        _ => "Unknown",
    }
}

fn counter_name(kind: u32) -> &'static str {
    match kind {
        1 => "Generic counter",
        2 => "Ethernet counter",
        3 => "Token ring counter",
        4 => "100 BaseVG counter",
        5 => "Vlan counter",
        1001 => "Processor counter",
        _ => "Unknown",
    }
}

fn direction_name(d: u32) -> &'static str {
    match d {
        0 => "unknown",
        1 => "full-duplex",
        2 => "half-duplex",
        3 => "in",
        4 => "out",
        _ => "Unknown",
    }
}
