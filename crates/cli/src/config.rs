//! The command line's flags as a session's typed configuration: the one place
//! where `-i`, `--place`, `-Q`, `--workers`, `--follow` and their company become
//! `netsift_session` values.

use crate::args::Args;
use anyhow::{anyhow, bail, Result};
use netsift_follow::{Mode, Protocol};
use netsift_session::{Config, Direction, FilterSpec, FollowSpec, Placement, Source};

/// Where `--place` asks the filter to run, `xdp` aside (a source of its own).
pub(crate) fn placement(args: &Args) -> Placement {
    match args.place.as_deref() {
        Some("user") => Placement::User,
        Some("kernel") => Placement::Kernel,
        _ => Placement::Auto,
    }
}

/// Whether `--place xdp` was asked for.
pub(crate) fn xdp(args: &Args) -> bool {
    args.place.as_deref() == Some("xdp")
}

/// Whether placement was asked for out loud: only then is it reported, as
/// tcpdump says nothing of its kernel filter.
pub(crate) fn says_where(args: &Args) -> bool {
    matches!(args.place.as_deref(), Some("auto" | "kernel" | "xdp"))
}

/// `--follow` and its options, with `expr` (if not empty) as the base filter.
pub(crate) fn follow(args: &Args, expr: &str) -> Result<Option<FollowSpec>> {
    let Some(list) = &args.follow else {
        return Ok(None);
    };
    let protocols = Protocol::parse_list(list).map_err(|e| anyhow!(e))?;
    let mut config = netsift_follow::Config {
        loose: args.follow_loose,
        ..netsift_follow::Config::default()
    };
    let l = &mut config.limits;
    l.max_flows = args.follow_max_flows.unwrap_or(l.max_flows);
    l.max_per_owner = args.follow_max_per_session.unwrap_or(l.max_per_owner);
    l.max_sessions = args.follow_max_sessions.unwrap_or(l.max_sessions);
    Ok(Some(FollowSpec {
        protocols,
        base: (!expr.trim().is_empty()).then(|| expr.to_string()),
        mode: if args.follow_set {
            Mode::Set
        } else {
            Mode::Passes
        },
        config,
    }))
}

/// The filter the flags ask for: a follower, a live set of clauses
/// (`--control`), or a static expression.
pub(crate) fn filter(args: &Args, expr: &str) -> Result<FilterSpec> {
    if let Some(spec) = follow(args, expr)? {
        return Ok(FilterSpec::Follow(spec));
    }
    if args.control.is_some() {
        return Ok(FilterSpec::Clauses(expr.to_string()));
    }
    Ok(FilterSpec::Static(expr.to_string()))
}

/// The live capture of `-i IFACE`.
pub(crate) fn live(args: &Args, iface: &str, expr: &str) -> Result<Config> {
    let source = if xdp(args) {
        // What the XDP level cannot do, named by the flags that ask for it.
        let why = if args.follow.is_some() || args.control.is_some() {
            Some("--follow and --control edit the filter in user space")
        } else if args.workers.is_some() {
            Some("--workers splits a capture ring, and the XDP level has none")
        } else if matches!(args.direction.as_deref(), Some("out" | "inout")) {
            Some("the XDP hook sees received frames only (-Q in)")
        } else {
            None
        };
        if let Some(why) = why {
            bail!("--place xdp: {why}");
        }
        Source::Xdp(iface.to_string())
    } else {
        Source::Ring(iface.to_string())
    };
    let mut cfg = Config::new(source);
    cfg.placement = placement(args);
    cfg.direction = match args.direction.as_deref() {
        Some("in") => Direction::In,
        Some("out") => Direction::Out,
        _ => Direction::InOut,
    };
    cfg.workers = args.workers.map_or(1, usize::from);
    if let Some(s) = args.snaplen {
        cfg.snaplen = s;
    }
    cfg.buffer = args.buffer_kib.map(|k| k as usize * 1024);
    cfg.promiscuous = !args.no_promiscuous;
    cfg.immediate = args.immediate;
    cfg.tags_as_file = args.vlan_as_file;
    cfg.count = args.count;
    cfg.filter = filter(args, expr)?;
    Ok(cfg)
}
