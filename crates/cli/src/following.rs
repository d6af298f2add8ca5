//! `--follow`: a protocol follower as the command line runs it, the same way for a
//! file, a live interface and several workers.

use anyhow::{anyhow, Result};
use netsift_engine::live::Reader as LiveReader;
use netsift_follow::{Follower, Mode, Protocol, Timers};
use netsift_wire::LinkType;

/// A follower, and how many of its filter updates failed.
pub struct Following {
    follower: Follower,
    failed: u64,
}

impl Following {
    /// The follower `--follow PROTOCOLS` asks for on link type `lt`, with `expr` (if
    /// not empty) as its base filter, and the live set it edits.
    pub fn new(args: &crate::args::Args, lt: LinkType, expr: &str) -> Result<(Self, LiveReader)> {
        let list = args.follow.as_deref().unwrap_or_default();
        let protocols = Protocol::parse_list(list).map_err(|e| anyhow!(e))?;
        if !lt.is_supported() {
            anyhow::bail!("link type {lt} is not supported by the filter compiler");
        }
        let mode = if args.follow_set {
            Mode::Set
        } else {
            Mode::Passes
        };
        let base = (!expr.trim().is_empty()).then_some(expr);
        let (follower, live) = Follower::new(lt, &protocols, base, mode, Timers::default())
            .map_err(|e| anyhow!("bad filter expression: {e}"))?;
        Ok((
            Following {
                follower,
                failed: 0,
            },
            live,
        ))
    }

    /// Feeds the follower a packet the live set accepted, at `ts_ns`. A failed
    /// update (the live set is full) loses that flow, not the capture: the first
    /// few are reported, with `at` saying which packet, and the capture goes on.
    pub fn observe(&mut self, data: &[u8], ts_ns: u64, at: impl std::fmt::Display) {
        if let Err(e) = self.follower.observe(data, ts_ns) {
            self.failed += 1;
            if self.failed <= 5 {
                eprintln!("netsift: follow: {at}: {e}; continuing without this update");
            }
        }
    }

    /// The closing line: what was followed.
    pub fn summary(&self) -> String {
        let s = self.follower.stats();
        let failed = if self.failed > 0 {
            format!(", {} updates failed", self.failed)
        } else {
            String::new()
        };
        format!(
            "followed: {} announcements, {} flows added, {} removed, {} filter updates{failed}",
            s.announced, s.installed, s.removed, s.edits
        )
    }

    /// `-d`: the live set's passes.
    pub fn listing(&self) -> String {
        self.follower.tracker().listing()
    }
}
