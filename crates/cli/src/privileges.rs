//! `-Z USER`: once the capture (an interface, or the input file) is open and
//! before any output file is created, a run started as root becomes USER, with
//! USER's group and supplementary groups, as tcpdump's `droproot` does. Without
//! `-Z`, root becomes `tcpdump` when that user exists (Debian's tcpdump is built
//! so); `-Z root` keeps root. Output files are then created as that user.
//!
//! As tcpdump built with libcap-ng, the new user keeps one capability,
//! `CAP_DAC_OVERRIDE`, until the output file is open (so `-w` may still name a
//! directory only root can write), then gives it up: for good, or with `-C` or
//! `-G` only from its effective set, to raise it again for each new file.
//!
//! netsift keeps root, and refuses `-Z`, where the capture still needs it after
//! opening: `--control` and `--follow` load kernel programs while capturing, and
//! `--place xdp` must detach its program from the interface at the end.

use crate::args::Args;
use anyhow::{anyhow, bail, Result};
use caps::{CapSet, Capability};
use nix::unistd::{Uid, User};
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether this process dropped to a user and holds `CAP_DAC_OVERRIDE` in its
/// permitted set (see [`outputs_open`], [`with_override`]).
static HOLDS_OVERRIDE: AtomicBool = AtomicBool::new(false);

/// The user tcpdump drops to when `-Z` is not given.
const DEFAULT_USER: &str = "tcpdump";

/// Why the capture needs root after it is open, if it does.
fn needs_root(args: &Args) -> Option<&'static str> {
    if args.control.is_some() {
        Some("--control loads a new kernel filter at each edit")
    } else if args.follow.is_some() {
        Some("--follow updates its kernel filter while capturing")
    } else if crate::config::xdp(args) {
        Some("--place xdp detaches its program from the interface at the end")
    } else {
        None
    }
}

/// Refuses `-Z` where the capture needs root later; called before anything opens.
pub(crate) fn check(args: &Args) -> Result<()> {
    match (&args.user, needs_root(args)) {
        (Some(u), Some(why)) if u != "root" => bail!("-Z {u}: {why}, which needs root"),
        _ => Ok(()),
    }
}

/// Becomes the user of `-Z` (or `tcpdump`), once, if running as root.
pub(crate) fn drop(args: &Args) -> Result<()> {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) || !Uid::effective().is_root() {
        return Ok(());
    }
    let name = match &args.user {
        Some(u) => u.as_str(),
        None if needs_root(args).is_some() => return Ok(()),
        None => DEFAULT_USER,
    };
    let user = User::from_name(name).map_err(|e| anyhow!("looking up user '{name}': {e}"))?;
    let Some(user) = user else {
        if args.user.is_none() {
            // No `tcpdump` user on this machine: stay root, as a tcpdump built
            // without one does.
            return Ok(());
        }
        bail!("Couldn't find user '{name}'");
    };
    if user.uid.is_root() {
        return Ok(());
    }
    let cname = CString::new(name).map_err(|_| anyhow!("-Z: a user name holds a NUL byte"))?;
    let failed = |why: String| {
        anyhow!(
            "Couldn't change to '{name}' uid={} gid={}: {why}",
            user.uid,
            user.gid
        )
    };
    // Keep the permitted set through setuid, to keep CAP_DAC_OVERRIDE of it.
    caps::securebits::set_keepcaps(true).map_err(|e| failed(e.to_string()))?;
    // Groups first: once the user id is dropped they can no longer be changed.
    nix::unistd::initgroups(&cname, user.gid)
        .and_then(|()| nix::unistd::setgid(user.gid))
        .and_then(|()| nix::unistd::setuid(user.uid))
        .map_err(|e| failed(e.desc().to_string()))?;
    let only = [Capability::CAP_DAC_OVERRIDE].into_iter().collect();
    caps::set(None, CapSet::Effective, &only)
        .and_then(|()| caps::set(None, CapSet::Permitted, &only))
        .and_then(|()| caps::securebits::set_keepcaps(false))
        .map_err(|e| failed(e.to_string()))?;
    HOLDS_OVERRIDE.store(true, Ordering::SeqCst);
    Ok(())
}

/// The output files are open: `CAP_DAC_OVERRIDE` goes, from the effective set,
/// and unless `rotating` (`-C`, `-G`: more files to come) from the permitted.
pub(crate) fn outputs_open(rotating: bool) {
    if !HOLDS_OVERRIDE.load(Ordering::SeqCst) {
        return;
    }
    let cap = Capability::CAP_DAC_OVERRIDE;
    // Failing to drop a capability from our own thread cannot happen short of
    // a broken kernel; there is nothing better to do than go on.
    let _ = caps::drop(None, CapSet::Effective, cap);
    if !rotating {
        let _ = caps::drop(None, CapSet::Permitted, cap);
        HOLDS_OVERRIDE.store(false, Ordering::SeqCst);
    }
}

/// Runs `open` (the next file of `-C`/`-G`) with `CAP_DAC_OVERRIDE` raised, if
/// this thread still holds it, as tcpdump raises it to open each new file.
pub(crate) fn with_override<T>(open: impl FnOnce() -> T) -> T {
    let cap = Capability::CAP_DAC_OVERRIDE;
    let raised =
        HOLDS_OVERRIDE.load(Ordering::SeqCst) && caps::raise(None, CapSet::Effective, cap).is_ok();
    let r = open();
    if raised {
        let _ = caps::drop(None, CapSet::Effective, cap);
    }
    r
}
