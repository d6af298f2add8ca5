//! `--follow`: a protocol follower as the command line runs it, the same way for a
//! file, a live interface and several workers.

use anyhow::{anyhow, Result};
use netsift_engine::live::Reader as LiveReader;
use netsift_follow::{Config, Follower, Mode, Protocol};
use netsift_wire::LinkType;

/// A follower, the kernel filter kept beside its live set (`--place kernel`),
/// and how many of its filter updates failed.
pub struct Following {
    follower: Follower,
    kernel: Option<crate::place::KernelFollow>,
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
        let mut config = Config {
            loose: args.follow_loose,
            ..Config::default()
        };
        let l = &mut config.limits;
        l.max_flows = args.follow_max_flows.unwrap_or(l.max_flows);
        l.max_per_owner = args.follow_max_per_session.unwrap_or(l.max_per_owner);
        l.max_sessions = args.follow_max_sessions.unwrap_or(l.max_sessions);
        let (follower, live) = Follower::new(lt, &protocols, base, mode, config)
            .map_err(|e| anyhow!("bad filter expression: {e}"))?;
        Ok((
            Following {
                follower,
                kernel: None,
                failed: 0,
            },
            live,
        ))
    }

    /// Keeps the kernel filter `k` in step with the live set from now on.
    pub fn set_kernel(&mut self, k: crate::place::KernelFollow) {
        self.follower.journal();
        self.kernel = Some(k);
    }

    /// How many listener endpoints the live set can hold (the kernel's map is
    /// made as large).
    pub fn capacity(&self) -> usize {
        self.follower.tracker().endpoint_capacity()
    }

    /// The follower's verdict on a packet the live set accepted, at `ts_ns`: keep
    /// it or not. A failed update (the live set is full) loses that flow, not the
    /// capture: the first few are reported, with `at` saying which packet, and the
    /// capture goes on with the packet's verdict.
    pub fn judge(
        &mut self,
        data: &[u8],
        wire_len: u32,
        ts_ns: u64,
        at: impl std::fmt::Display,
    ) -> bool {
        let (keep, edits) = self.follower.judge(data, wire_len, ts_ns);
        if let Err(e) = edits {
            self.fail(&at, &e);
        }
        if let Some(k) = &self.kernel {
            // In the order made: a listener goes in before the guess of it goes.
            let errors: Vec<String> = self
                .follower
                .take_changes()
                .into_iter()
                .filter_map(|c| k.apply(c).err())
                .collect();
            for e in errors {
                self.fail(&at, &e);
            }
        }
        keep
    }

    fn fail(&mut self, at: &impl std::fmt::Display, e: &dyn std::fmt::Display) {
        self.failed += 1;
        if self.failed <= 5 {
            eprintln!("netsift: follow: {at}: {e}; continuing without this update");
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
        let refused = s.refused.nonzero();
        let refused = if refused.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = refused.iter().map(|(k, n)| format!("{n} {k}")).collect();
            format!("; {} refused ({})", s.refused.total(), parts.join(", "))
        };
        let evicted = if s.table.evicted > 0 {
            format!(", {} unused expectations evicted", s.table.evicted)
        } else {
            String::new()
        };
        format!(
            "followed: {} announcements, {} flows added, {} removed, {} filter updates{evicted}{failed}{refused}",
            s.announced, s.table.flows, s.table.flows_removed, s.tracker.edits
        )
    }

    /// `-d`: the live set's passes.
    pub fn listing(&self) -> String {
        self.follower.tracker().listing()
    }
}
