//! `--place`: where the filter runs. `user` filters in the ring, in user space.
//! `kernel` also generates an eBPF socket filter from the filter
//! (`netsift_kernel::codegen`) and attaches it under every ring, so the kernel
//! drops what the filter surely rejects before it costs a copy. The kernel's
//! answer is a superset of the engine's; when the program is decisive (every
//! operation compiled, no anchor rule left to user space), it is exact on every
//! frame up to 64 KiB, and user space filters again only longer frames. (The
//! kernel reads the whole packet, as tcpdump's kernel filter does, even where the
//! snap length cuts what user space sees.) Otherwise
//! user space filters everything the kernel lets through. `auto` is `kernel`
//! where the program loads, and `user` otherwise, saying which; without
//! `--place`, the same without a word, as tcpdump filters in the kernel and says
//! nothing of it.
//!
//! With `--follow`, the kernel holds the follower's first stage
//! ([`KernelFollow`]): the base filter's code after a prologue that accepts the
//! listener endpoints in a map (written as the follower's tracker changes) and
//! reads FTP announcements itself, so a data connection's first packets pass
//! before user space has seen the announcement (`netsift_kernel::follow`). The
//! follower in user space still decides every packet exactly.
//!
//! With `--control`, the kernel holds the live set's clauses ([`KernelClauses`]):
//! each edit generates the clauses' program anew and swaps it in under every ring
//! (`SO_ATTACH_BPF` replaces a socket's filter in one step). Edits are ordered so
//! that no packet is lost: an added clause widens the kernel before user space,
//! and a removed one narrows user space before the kernel.

use anyhow::{bail, Result};
use netsift_follow::{Change, Endpoint, Transport};
use netsift_isa::PassSet;
use netsift_kernel::codegen::{generate, generate_directed, Env, Generated};
use netsift_kernel::follow::Following as Maps;
use netsift_kernel::placed::{attach, PlacedClauses};
use netsift_wire::LinkType;
use std::os::fd::OwnedFd;

/// What to say about a program placed in the kernel.
fn describe(g: &Generated) -> String {
    if g.decisive {
        format!(
            "filtering in the kernel (eBPF, {} instructions); it decides every frame up to 64 KiB",
            g.insns.len()
        )
    } else if g.exact {
        format!(
            "filtering in the kernel (eBPF, {} instructions); user space checks what it passes",
            g.insns.len()
        )
    } else {
        format!(
            "filtering in the kernel (eBPF, {} instructions; passes {:?} are decided in user space)",
            g.insns.len(),
            g.unsure_passes
        )
    }
}

/// Why the filter cannot go into the kernel, if it cannot: the generator reads
/// frames from their MAC header, which only an Ethernet packet socket has.
fn unplaceable(lt: LinkType) -> Option<String> {
    (lt != LinkType::EN10MB).then(|| format!("the kernel program reads Ethernet frames, not {lt}"))
}

/// How `--place` asks for the kernel.
#[derive(Clone, Copy, Debug)]
struct Ask {
    /// Fall back to user space where the program cannot go (`auto`, and the
    /// default); else fail.
    auto: bool,
    /// Say nothing of where the filter runs: the default, as tcpdump says nothing
    /// of its kernel filter.
    quiet: bool,
}

/// What `--place` asks for: the kernel (`Some`), or user space (`None`). Without
/// `--place`, the kernel where the program loads, quietly, as tcpdump filters in
/// the kernel.
fn wanted(args: &crate::args::Args) -> Option<Ask> {
    match args.place.as_deref() {
        Some("user") => None,
        Some("auto") => Some(Ask {
            auto: true,
            quiet: false,
        }),
        Some(_) => Some(Ask {
            auto: false,
            quiet: false,
        }),
        None => Some(Ask {
            auto: true,
            quiet: true,
        }),
    }
}

/// `auto` (and the default) falls back to user space, `auto` saying why; `kernel`
/// fails.
fn refuse<T>(ask: Ask, why: String) -> Result<Option<T>> {
    if ask.auto {
        if !ask.quiet {
            eprintln!("netsift: filtering in user space: {why}");
        }
        Ok(None)
    } else {
        bail!("--place kernel: {why}")
    }
}

/// Says `what` on stderr unless the placement was not asked for.
fn say(ask: Ask, what: impl FnOnce() -> String) {
    if !ask.quiet {
        eprintln!("{}", what());
    }
}

/// Places the static filter `set` (`None`: none, or `--follow`'s, which stays in
/// user space) under the rings `socks`, as `--place` asks. True when the program
/// placed is decisive ([`Generated::decisive`]): user space then need not filter
/// the frames of at most 64 KiB it passes.
pub fn place(
    args: &crate::args::Args,
    set: Option<&PassSet>,
    lt: LinkType,
    snaplen: u32,
    socks: &[OwnedFd],
) -> Result<bool> {
    // No filter: every packet is wanted, and there is nothing to place.
    match (wanted(args), set) {
        (Some(ask), Some(set)) => placed(ask, lt, socks, || generate(set, Env::socket(snaplen))),
        _ => Ok(false),
    }
}

/// Places a static filter that tests the packets' direction (`inbound`,
/// `outbound` on an Ethernet interface): `received` judges the packets the
/// socket buffer says were received, `sent` those this host sent
/// ([`netsift_kernel::codegen::generate_directed`]). As [`place`] otherwise.
pub fn place_directed(
    args: &crate::args::Args,
    (received, sent): (&PassSet, &PassSet),
    lt: LinkType,
    snaplen: u32,
    socks: &[OwnedFd],
) -> Result<bool> {
    match wanted(args) {
        Some(ask) => placed(ask, lt, socks, || {
            generate_directed(received, sent, Env::socket(snaplen))
        }),
        None => Ok(false),
    }
}

/// The program `make` makes, attached under `socks` if it can be; whether it is
/// decisive. Else `ask` decides: user space, or an error.
fn placed(
    ask: Ask,
    lt: LinkType,
    socks: &[OwnedFd],
    make: impl FnOnce() -> Result<Generated, netsift_kernel::codegen::GenError>,
) -> Result<bool> {
    let why = match unplaceable(lt) {
        Some(why) => why,
        None => match make() {
            Err(e) => e.to_string(),
            Ok(g) => match attach(&g, socks).map_err(|e| e.to_string()) {
                // The sockets hold the program now; this handle may go.
                Ok(_) => {
                    say(ask, || describe(&g));
                    return Ok(g.decisive);
                }
                Err(why) => why,
            },
        },
    };
    refuse::<()>(ask, why).map(|_| false)
}

/// The kernel's side of `--follow`: the maps its program reads.
pub struct KernelFollow {
    maps: Maps,
}

impl KernelFollow {
    /// Applies one change of the follower's filter to the kernel's.
    pub fn apply(&self, c: Change) -> Result<(), String> {
        let proto = |ep: &Endpoint| match ep.transport {
            Transport::Tcp => 6,
            Transport::Udp => 17,
        };
        match c {
            Change::Listen(ep) => self.maps.listen(ep.addr, ep.port, proto(&ep)),
            Change::Unlisten(ep) => self.maps.unlisten(ep.addr, ep.port, proto(&ep)),
            Change::Announced(ep) => self.maps.unguess(ep.addr, ep.port),
        }
        .map_err(|e| format!("the kernel filter: {e}"))
    }
}

/// The program `--follow` places in the kernel: the follower's base filter
/// `base` (compiled for `lt`) after the follow prologue, over fresh maps for
/// `listeners` endpoints; it reads FTP announcements if `ftp`.
fn follow_program(
    base: &str,
    lt: LinkType,
    snaplen: u32,
    listeners: u32,
    (ftp, loose): (bool, bool),
) -> Result<(Generated, Maps), String> {
    let set = netsift_swift::compile(base, lt).map_err(|e| e.to_string())?;
    let maps = Maps::new(listeners).map_err(|e| e.to_string())?;
    let env = Env::socket(snaplen).following(maps.hook(ftp, loose));
    let g = generate(&set, env).map_err(|e| e.to_string())?;
    Ok((g, maps))
}

/// What `--follow` reads: its base filter and whether FTP is followed.
fn follow_plan(args: &crate::args::Args, expr: &str) -> Result<(String, bool)> {
    let protocols =
        netsift_follow::Protocol::parse_list(args.follow.as_deref().unwrap_or_default())
            .map_err(|e| anyhow::anyhow!(e))?;
    let base = if expr.trim().is_empty() {
        netsift_follow::follower::base_expression(&protocols)
    } else {
        expr.to_string()
    };
    Ok((base, protocols.contains(&netsift_follow::Protocol::Ftp)))
}

/// Places `--follow`'s first stage under the rings `socks`, as `--place` asks;
/// `None` for user space. `listeners` sizes the endpoint map.
pub fn follow(
    args: &crate::args::Args,
    expr: &str,
    lt: LinkType,
    snaplen: u32,
    listeners: u32,
    socks: &[OwnedFd],
) -> Result<Option<KernelFollow>> {
    let Some(ask) = wanted(args) else {
        return Ok(None);
    };
    if let Some(why) = unplaceable(lt) {
        return refuse(ask, why);
    }
    let (base, ftp) = follow_plan(args, expr)?;
    let placed = follow_program(&base, lt, snaplen, listeners, (ftp, args.follow_loose)).and_then(
        |(g, maps)| {
            attach(&g, socks)
                .map(|_| (g, maps))
                .map_err(|e| e.to_string())
        },
    );
    match placed {
        Ok((g, maps)) => {
            say(ask, || {
                format!(
                "filtering in the kernel (eBPF, {} instructions): the follower's base filter and listeners{}; user space decides each packet it passes",
                g.insns.len(),
                if ftp { ", FTP announcements read in the kernel" } else { "" }
            )
            });
            Ok(Some(KernelFollow { maps }))
        }
        Err(why) => refuse(ask, why),
    }
}

/// `-d --place kernel --follow`: the program `--follow` would place.
pub fn follow_listing(
    args: &crate::args::Args,
    expr: &str,
    lt: LinkType,
    snaplen: u32,
) -> Result<String> {
    if let Some(why) = unplaceable(lt) {
        bail!("--place kernel: {why}");
    }
    let (base, ftp) = follow_plan(args, expr)?;
    let (g, _) = follow_program(&base, lt, snaplen, 1, (ftp, args.follow_loose))
        .map_err(|e| anyhow::anyhow!("--place kernel: {e}"))?;
    let mut out = format!(
        "; eBPF socket filter, {} instructions: the follow prologue (listener endpoints in a map{}), then the base filter `{base}`; user space decides each packet it passes\n",
        g.insns.len(),
        if ftp { ", FTP announcements read in the kernel" } else { "" }
    );
    out.push_str(&netsift_kernel::asm::listing(&g.insns));
    Ok(out)
}

/// The kernel's side of `--control`'s live set: the program of its clauses, by
/// number, under every ring (descriptors duplicated, so a socket stays valid
/// while the control thread may still edit).
pub type KernelClauses = PlacedClauses<u64>;

/// The kernel side `--control` gets from `--place` (`None`: user space only).
/// It starts with no clause, so the kernel passes nothing until one is added.
pub fn clauses(
    args: &crate::args::Args,
    lt: LinkType,
    snaplen: u32,
    socks: Vec<OwnedFd>,
) -> Result<Option<KernelClauses>> {
    let Some(ask) = wanted(args) else {
        return Ok(None);
    };
    if let Some(why) = unplaceable(lt) {
        return refuse(ask, why);
    }
    let mut k = KernelClauses::new(socks, Env::socket(snaplen));
    match k.install(&[]).map_err(|e| e.to_string()) {
        Ok(()) => {
            say(ask, || {
                "filtering in the kernel: the control socket's clauses, regenerated at each edit"
                    .to_string()
            });
            Ok(Some(k))
        }
        Err(why) => refuse(ask, why),
    }
}

/// `-d --place kernel`: the generated program and which passes it leaves to user
/// space.
pub fn listing(set: &PassSet, lt: LinkType, snaplen: u32) -> Result<String> {
    if let Some(why) = unplaceable(lt) {
        bail!("--place kernel: {why}");
    }
    let g = generate(set, Env::socket(snaplen)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut out = format!(
        "; eBPF socket filter, {} instructions; {}\n",
        g.insns.len(),
        if g.decisive {
            "decisive: every frame up to 64 KiB gets the engine's answer".to_string()
        } else if g.exact {
            "every pass compiled; user space checks what it passes".to_string()
        } else {
            format!("passes {:?} are decided in user space", g.unsure_passes)
        }
    );
    out.push_str(&netsift_kernel::asm::listing(&g.insns));
    Ok(out)
}
