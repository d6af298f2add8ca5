//! A session's typed configuration: where packets come from, where the filter
//! runs, which filter, how many workers. Front ends build it from their own
//! arguments (the CLI from its flags); nothing here knows of them.

use netsift_follow::{Mode, Protocol};
use std::time::Duration;

pub use netsift_capture::Direction;

/// tcpdump's default snap length, which live captures take when given none.
pub const DEFAULT_SNAPLEN: u32 = 262_144;

/// Where packets come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// An interface's AF_PACKET ring (`any` for every interface).
    Ring(String),
    /// An interface's XDP hook: a program there copies what it accepts into a
    /// BPF ring buffer, before the kernel builds a socket buffer (received
    /// frames only).
    Xdp(String),
}

impl Source {
    /// The interface's name.
    pub fn interface(&self) -> &str {
        match self {
            Source::Ring(i) | Source::Xdp(i) => i,
        }
    }
}

/// Where a ring's filter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// In user space only, in the ring.
    User,
    /// In the kernel too, under every ring; opening fails if it cannot go there.
    Kernel,
    /// In the kernel where the program loads, else in user space (an
    /// [`crate::Event::UserSpace`] says why). tcpdump's behaviour.
    Auto,
}

/// What decides which packets are kept.
#[derive(Clone, Debug)]
pub enum FilterSpec {
    /// One pcap expression, compiled once (empty: every packet).
    Static(String),
    /// A live set of clauses edited while the capture runs
    /// ([`crate::Clauses`]); the expression, if not empty, is clause 0.
    Clauses(String),
    /// A protocol follower that edits the filter as it reads announcements.
    Follow(FollowSpec),
}

/// A follower's configuration.
#[derive(Clone, Debug)]
pub struct FollowSpec {
    /// The control protocols followed.
    pub protocols: Vec<Protocol>,
    /// The base filter; `None` for the protocols' control ports.
    pub base: Option<String>,
    /// One pass per server, or a hash-table (SET) instruction.
    pub mode: Mode,
    /// Its safety options and limits.
    pub config: netsift_follow::Config,
}

impl FollowSpec {
    /// The base filter's text: the one given, or the protocols' control ports.
    pub fn base_expression(&self) -> String {
        match &self.base {
            Some(b) if !b.trim().is_empty() => b.clone(),
            _ => netsift_follow::follower::base_expression(&self.protocols),
        }
    }

    /// Whether FTP is among the protocols (its announcements can be read in the
    /// kernel).
    pub fn ftp(&self) -> bool {
        self.protocols.contains(&Protocol::Ftp)
    }
}

/// A live capture's configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where packets come from.
    pub source: Source,
    /// Where the filter runs (a ring source; the XDP source is its own level).
    pub placement: Placement,
    /// Which packets the ring takes: received, sent, or both.
    pub direction: Direction,
    /// Capture threads, each with a ring of its own in one fanout group (1: one
    /// ring, filtered on the calling thread).
    pub workers: usize,
    /// At most this many bytes of each packet are kept.
    pub snaplen: u32,
    /// The ring's size in bytes (`None`: the capture crate's default; for the
    /// XDP source, 4 MiB).
    pub buffer: Option<usize>,
    /// Put the interface into promiscuous mode.
    pub promiscuous: bool,
    /// Hand each packet over as it arrives: a 1 ms block timeout.
    pub immediate: bool,
    /// Stop after this many accepted packets.
    pub count: Option<u64>,
    /// The filter.
    pub filter: FilterSpec,
    /// With [`FilterSpec::Clauses`]: the clauses only narrow what the kernel
    /// passes, and user space keeps every frame it passes, for a caller that
    /// filters each packet exactly itself (`netsiftd` runs each flow's filter
    /// on every batch; judging the union first would be a second pass over
    /// every packet). Where the kernel cannot take the program, every frame
    /// is kept.
    pub kernel_prefilter_only: bool,
    /// Filter a frame whose VLAN tag the kernel took out with the tag in place,
    /// as a capture file holds it, instead of as libpcap's kernel filter (and so
    /// `tcpdump -i`) reads it: without the tag, `vlan` testing the tag the socket
    /// keeps (`netsift_pcapc::Meta::tag_stripped`). Static filters, live
    /// clauses (a second live set judges tagged frames) and followers (the
    /// follower alone judges tagged frames, past its live set) alike; the
    /// kernel leaves such frames to user space for the last two.
    pub tags_as_file: bool,
}

impl Config {
    /// A capture of every packet on `source`, with tcpdump's defaults: both
    /// directions, one worker, the default snap length, promiscuous mode, the
    /// filter in the kernel where it loads.
    pub fn new(source: Source) -> Config {
        Config {
            source,
            placement: Placement::Auto,
            direction: Direction::InOut,
            workers: 1,
            snaplen: DEFAULT_SNAPLEN,
            buffer: None,
            promiscuous: true,
            immediate: false,
            count: None,
            filter: FilterSpec::Static(String::new()),
            kernel_prefilter_only: false,
            tags_as_file: false,
        }
    }

    /// The capture ring's configuration for this session.
    pub(crate) fn ring(&self) -> netsift_capture::Config {
        let mut cfg = netsift_capture::Config::new(self.source.interface());
        cfg.snaplen = self.snaplen;
        if let Some(b) = self.buffer {
            cfg.buffer_size = b;
        }
        cfg.promiscuous = self.promiscuous;
        cfg.direction = self.direction;
        if self.immediate {
            cfg.block_timeout = Duration::from_millis(1);
        }
        cfg
    }
}
