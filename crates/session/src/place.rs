//! Where the filter runs. In user space it filters in the ring. In the kernel an
//! eBPF socket filter generated from it (`netsift_kernel::codegen`) is attached
//! under every ring, so the kernel drops what the filter surely rejects before
//! it costs a copy. The kernel's answer is a superset of the engine's; when the
//! program is decisive (every operation compiled, no anchor rule left to user
//! space), it is exact on every frame up to 64 KiB, and user space filters again
//! only longer frames. (The kernel reads the whole packet, as tcpdump's kernel
//! filter does, even where the snap length cuts what user space sees.)
//! Otherwise user space filters everything the kernel lets through.
//!
//! A follower's first stage ([`KernelFollow`]) is the base filter's code after
//! a prologue that accepts the listener endpoints in a map (written as the
//! follower's tracker changes) and reads FTP announcements itself, so a data
//! connection's first packets pass before user space has seen the announcement.
//! The follower in user space still decides every packet exactly.
//!
//! A live set's clauses ([`KernelClauses`]) are regenerated at each edit and
//! swapped in under every ring; [`crate::Clauses`] orders the edits.

use crate::config::{FollowSpec, Placement};
use crate::event::{Event, Events, Placed};
use crate::SplitSets;
use crate::{Error, ErrorKind};
use netsift_follow::{Change, Endpoint, Transport};
use netsift_isa::PassSet;
use netsift_kernel::codegen::{
    generate, generate_split, Env, GenError, Generated, Halves, Split, Vlan,
};
use netsift_kernel::follow::Following as Maps;
use netsift_kernel::placed::{attach, PlacedClauses};
use netsift_wire::LinkType;
use std::os::fd::OwnedFd;

/// The kernel would not take a program or a map.
fn placement_error(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::with_source(ErrorKind::Placement, e.to_string(), e)
}

/// Why the filter cannot go into the kernel, if it cannot: the generator reads
/// frames from their MAC header, which only an Ethernet packet socket has.
fn unplaceable(lt: LinkType) -> Option<String> {
    (lt != LinkType::EN10MB).then(|| format!("the kernel program reads Ethernet frames, not {lt}"))
}

/// Where the kernel could not take the filter: [`Placement::Auto`] goes on in
/// user space, saying why; [`Placement::Kernel`] fails.
fn refuse<T>(placement: Placement, why: String, events: &Events) -> Result<Option<T>, Error> {
    match placement {
        Placement::Kernel => Err(Error::new(ErrorKind::Placement, why)),
        _ => {
            events(Event::UserSpace { why });
            Ok(None)
        }
    }
}

/// What to say of a static filter's program.
fn socket_placed(g: &Generated) -> Placed {
    Placed::Socket {
        insns: g.insns.len(),
        decisive: g.decisive,
        exact: g.exact,
        unsure_passes: g.unsure_passes.clone(),
    }
}

/// Places a static filter under the rings `socks`: `received` alone, or with
/// `sent` where the expression tests the packets' direction (`inbound`,
/// `outbound` on an Ethernet interface, judged by what the socket buffer says).
/// True when the program placed is decisive ([`Generated::decisive`]): user
/// space then need not filter the frames of at most 64 KiB it passes.
pub(crate) fn place_static(
    placement: Placement,
    [[received, received_tagged], [sent, sent_tagged]]: &SplitSets,
    (lt, snaplen): (LinkType, u32),
    socks: &[OwnedFd],
    events: &Events,
) -> Result<bool, Error> {
    if placement == Placement::User {
        return Ok(false);
    }
    let halves = |untagged, tagged| Halves {
        untagged,
        tagged: (tagged != untagged).then_some(tagged),
    };
    let received = halves(received, received_tagged);
    let sent = halves(sent, sent_tagged);
    let made = unplaceable(lt).map_or_else(
        || {
            let env = Env::socket(snaplen);
            let g: Result<Generated, GenError> =
                if sent.untagged == received.untagged && sent.tagged == received.tagged {
                    match received.tagged {
                        None => generate(received.untagged, env),
                        Some(_) => generate_split(
                            Split {
                                received,
                                sent: None,
                            },
                            env,
                        ),
                    }
                } else {
                    let sent = Some(sent);
                    generate_split(Split { received, sent }, env)
                };
            g.map_err(|e| e.to_string())
                .and_then(|g| attach(&g, socks).map(|_| g).map_err(|e| e.to_string()))
        },
        Err,
    );
    match made {
        // The sockets hold the program now; its handle may go.
        Ok(g) => {
            events(Event::Placed(socket_placed(&g)));
            Ok(g.decisive)
        }
        Err(why) => refuse::<()>(placement, why, events).map(|_| false),
    }
}

/// The kernel's side of a follower: the maps its program reads, and what it
/// takes to make the program again over a grown listener table.
pub(crate) struct KernelFollow {
    maps: Maps,
    /// The base filter, compiled for the rings' link type.
    set: PassSet,
    env: Env,
    /// The rings' sockets (descriptors of their own).
    socks: Vec<OwnedFd>,
}

impl KernelFollow {
    /// Applies one change of the follower's filter to the kernel's. A
    /// listener the table has no room for grows it: the program is made again
    /// over the new table and swapped in under every ring, off the packet path
    /// (the rings go on with the old program until each swap).
    pub(crate) fn apply(&mut self, c: Change) -> Result<(), netsift_kernel::sys::Error> {
        let proto = |ep: &Endpoint| match ep.transport {
            Transport::Tcp => 6,
            Transport::Udp => 17,
        };
        match c {
            Change::Listen(ep) => {
                let (set, socks, env) = (&self.set, &self.socks, &mut self.env);
                self.maps.listen(ep.addr, ep.port, proto(&ep), |probe| {
                    let grown = Env {
                        follow: env.follow.map(|h| h.with_listeners(probe)),
                        ..*env
                    };
                    let g = generate(set, grown)
                        .map_err(|e| netsift_kernel::sys::Error::invalid(e.to_string()))?;
                    attach(&g, socks)
                        .map_err(|e| netsift_kernel::sys::Error::invalid(e.to_string()))?;
                    *env = grown;
                    Ok(())
                })
            }
            Change::Unlisten(ep) => self.maps.unlisten(ep.addr, ep.port, proto(&ep)),
            Change::Announced(ep) => self.maps.unguess(ep.addr, ep.port),
        }
    }

    /// Programs swapped in for a grown listener table.
    pub(crate) fn swaps(&self) -> u64 {
        self.maps.swaps()
    }
}

/// The program a follower places in the kernel: its base filter (compiled for
/// `lt`) after the follow prologue, over fresh maps for `listeners` endpoints.
fn follow_program(
    (spec, tagged_to_user): (&FollowSpec, bool),
    lt: LinkType,
    snaplen: u32,
    listeners: u32,
) -> Result<(Generated, KernelFollow), Error> {
    let set = netsift_swift::compile(&spec.base_expression(), lt).map_err(Error::filter)?;
    let maps = Maps::new(listeners).map_err(placement_error)?;
    let mut env = Env::socket(snaplen).following(maps.hook(spec.ftp(), spec.config.loose));
    if tagged_to_user {
        env.vlan = Vlan::SkbTaggedToUser;
    }
    let g = generate(&set, env).map_err(placement_error)?;
    Ok((
        g,
        KernelFollow {
            maps,
            set,
            env,
            socks: Vec::new(),
        },
    ))
}

/// Places a follower's first stage under the rings `socks`; `None` for user
/// space. `listeners` sizes the endpoint map. With `tagged_to_user`, a frame
/// the kernel took a VLAN tag out of and no listener accepts is passed up
/// unsure, for the follower that reads such frames as libpcap's kernel filter
/// does.
pub(crate) fn place_follow(
    placement: Placement,
    (spec, tagged_to_user): (&FollowSpec, bool),
    (lt, snaplen): (LinkType, u32),
    listeners: u32,
    socks: &[OwnedFd],
    events: &Events,
) -> Result<Option<KernelFollow>, Error> {
    if placement == Placement::User {
        return Ok(None);
    }
    if let Some(why) = unplaceable(lt) {
        return refuse(placement, why, events);
    }
    let placed =
        follow_program((spec, tagged_to_user), lt, snaplen, listeners).and_then(|(g, mut k)| {
            attach(&g, socks).map_err(placement_error)?;
            k.socks = socks
                .iter()
                .map(OwnedFd::try_clone)
                .collect::<Result<_, _>>()
                .map_err(|e| Error::with_source(ErrorKind::Io, "duplicating a ring's socket", e))?;
            Ok((g, k))
        });
    match placed {
        Ok((g, k)) => {
            events(Event::Placed(Placed::Follow {
                insns: g.insns.len(),
                ftp: spec.ftp(),
            }));
            Ok(Some(k))
        }
        Err(e) => refuse(placement, e.to_string(), events),
    }
}

/// The kernel's side of a live set: the program of its clauses, by number,
/// under every ring (descriptors duplicated, so a socket stays valid while an
/// editor may still edit).
pub(crate) type KernelClauses = PlacedClauses<u64>;

/// The kernel side of a live set of clauses (`None`: user space only). It
/// starts with no clause, so the kernel passes nothing until one is added.
/// With `tagged_to_user`, a frame the kernel took a VLAN tag out of is passed
/// up unsure, for the live set that reads such frames as libpcap's kernel
/// filter does.
pub(crate) fn place_clauses(
    placement: Placement,
    (lt, snaplen): (LinkType, u32),
    tagged_to_user: bool,
    socks: Vec<OwnedFd>,
    events: &Events,
) -> Result<Option<KernelClauses>, Error> {
    if placement == Placement::User {
        return Ok(None);
    }
    if let Some(why) = unplaceable(lt) {
        return refuse(placement, why, events);
    }
    let mut env = Env::socket(snaplen);
    if tagged_to_user {
        env.vlan = Vlan::SkbTaggedToUser;
    }
    let mut k = KernelClauses::new(socks, env);
    match k.install(&[]) {
        Ok(()) => {
            events(Event::Placed(Placed::Clauses));
            Ok(Some(k))
        }
        Err(e) => refuse(placement, e.to_string(), events),
    }
}

/// The eBPF socket filter a static filter `set` would be placed as, listed:
/// its length, which passes it leaves to user space, its instructions.
pub fn kernel_listing(set: &PassSet, lt: LinkType, snaplen: u32) -> Result<String, Error> {
    if let Some(why) = unplaceable(lt) {
        return Err(Error::new(ErrorKind::Placement, why));
    }
    let g = generate(set, Env::socket(snaplen))
        .map_err(|e| Error::new(ErrorKind::Placement, e.to_string()))?;
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

/// The program a follower would place in the kernel, listed.
pub fn follow_listing(spec: &FollowSpec, lt: LinkType, snaplen: u32) -> Result<String, Error> {
    if let Some(why) = unplaceable(lt) {
        return Err(Error::new(ErrorKind::Placement, why));
    }
    let (g, _) = follow_program((spec, false), lt, snaplen, 1)?;
    let mut out = format!(
        "; eBPF socket filter, {} instructions: the follow prologue (listener endpoints in a map{}), then the base filter `{}`; user space decides each packet it passes\n",
        g.insns.len(),
        if spec.ftp() { ", FTP announcements read in the kernel" } else { "" },
        spec.base_expression()
    );
    out.push_str(&netsift_kernel::asm::listing(&g.insns));
    Ok(out)
}
