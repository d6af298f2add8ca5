//! The line of each packet, as tcpdump 4.99's `pretty_print_packet` prints it:
//! the packet number (`-#`), the time stamp (`-t`...), the summary (`-e`, `-S`)
//! and the dump (`-x`, `-X`, `-A`).
//!
//! [`Printer`] keeps what carries from one packet to the next (the TCP sequence
//! state of its [`Summarizer`], the reference time of `-ttt` and `-ttttt`, the
//! packet count) and one line buffer, reused for every packet.

use crate::dump::{link_header_len, Dump};
use crate::summary::{Summarizer, SummaryOptions};
use crate::time::{Clock, TimeFormat};
use netsift_wire::LinkType;
use std::fmt::Write as _;

/// How lines are printed: tcpdump's flags as values.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// How the summary after the time stamp is rendered (`-S`, `-e`, `-v`, `-q`).
    pub summary: SummaryOptions,
    /// Which time stamp starts the line (the count of `-t`).
    pub time: TimeFormat,
    /// Whether time stamps carry nanoseconds (9 digits) rather than microseconds
    /// (6): `--time-stamp-precision nano`. It also says the unit of
    /// [`Packet::frac`].
    pub nano: bool,
    /// The dump of the packet's bytes after the summary (`-x`, `-X`, `-A`), if any.
    pub dump: Option<Dump>,
    /// Whether each line starts with the packet's number (`-#`).
    pub number: bool,
}

/// One captured packet, as much of it as its line shows.
#[derive(Clone, Copy, Debug)]
pub struct Packet<'a> {
    /// Seconds of the time stamp, as libpcap's `struct timeval` gives them.
    pub sec: i64,
    /// The fraction of the time stamp: microseconds, or nanoseconds when
    /// [`PrintOptions::nano`] is set.
    pub frac: i64,
    /// The captured bytes, from the start of the link-level header.
    pub data: &'a [u8],
    /// The packet's length on the wire (the pcap record's `len`).
    pub wire_len: u32,
}

/// Turns packets into tcpdump's lines, one packet after another.
pub struct Printer {
    linktype: LinkType,
    opts: PrintOptions,
    summarizer: Summarizer,
    clock: Clock,
    /// Packets printed so far (tcpdump's `packets_captured`, for `-#`).
    count: u64,
    line: String,
}

impl Printer {
    /// A printer for packets of `linktype`, with no packet seen yet.
    pub fn new(linktype: LinkType, opts: PrintOptions) -> Printer {
        Printer {
            linktype,
            opts,
            summarizer: Summarizer::with_options(opts.summary),
            clock: Clock::new(opts.time, opts.nano),
            count: 0,
            line: String::with_capacity(256),
        }
    }

    /// The options this printer was made with.
    pub fn options(&self) -> &PrintOptions {
        &self.opts
    }

    /// The next file of `-V` has this link type (the TCP and time state carry on,
    /// as in tcpdump).
    pub fn set_linktype(&mut self, linktype: LinkType) {
        self.linktype = linktype;
    }

    /// The text tcpdump prints for the next packet, ending with a newline; a
    /// verbose summary or a dump makes it span several lines. The text is valid
    /// until the next call.
    pub fn line(&mut self, packet: &Packet<'_>) -> &str {
        self.count += 1;
        let line = &mut self.line;
        line.clear();
        if self.opts.number {
            let _ = write!(line, "{:5}  ", self.count);
        }
        let summary = self
            .summarizer
            .summarize(self.linktype, packet.data, packet.wire_len);
        // tcpdump checks the record's lengths before anything else: a bad one gets
        // its `[Invalid header: ...]` line without time stamp or dump.
        let invalid = summary.starts_with("[Invalid header");
        if !invalid {
            self.clock.stamp(line, packet.sec, packet.frac);
        }
        line.push_str(&summary);
        if let Some(dump) = self.opts.dump.filter(|_| !invalid) {
            // A marker its printer returned after leaves the header out as
            // no marker does.
            let marker = if self.summarizer.caught_trunc() {
                ""
            } else {
                &summary
            };
            let mesh = self.summarizer.options().mesh_headers;
            let link = link_header_len(self.linktype, packet.data, packet.wire_len, marker, mesh);
            dump.append(line, packet.data, link);
        }
        line.push('\n');
        line
    }
}
