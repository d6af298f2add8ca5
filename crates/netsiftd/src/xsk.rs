//! The XDP program that redirects an interface's frames to the AF_XDP
//! socket of its zero-copy group ([`netsift_ffpf::xsk::Xsk`], whose UMEM is
//! the group's PBuf).
//!
//! The program holds the union of the active flows' filters, one clause per
//! distinct filter text (`netsift_kernel::codegen`, `Env::xdp_redirect`; a
//! frame the kernel will take a VLAN tag out of runs each clause as
//! compiled for such frames, as `tcpdump -i` reads them): a
//! frame some clause accepts (or may accept: an unsure verdict) is redirected
//! to the socket (the XSKMAP's entry for its queue), any other passes on to
//! the host stack, as does every frame while no socket is in the map. When
//! the set changes the new program replaces the old in one step
//! (`BPF_LINK_UPDATE`), so no frame meets neither; the clause goes in before
//! its flow is dispatched to and out after. The daemon still runs each
//! distinct filter once per batch over what is redirected (exact; the
//! kernel's answer is a superset), and a frame no flow wants after all is
//! handed back with the next refill. Before the first flow is active the
//! program redirects every frame of queue 0.
//!
//! Graph elements placed at XDP (`graph/kernel.rs`) run in a program of
//! their own linked in front ([`Redirect::set_graph`]): it ends in a tail
//! call into slot 0 of a `PROG_ARRAY`, which holds the clauses' program while
//! the graph's is linked (and is empty before the first clause: the frames
//! then pass, so a graph that only counts takes no frame from the host). A
//! change of clauses is then a map update of that slot, a change of graph a
//! `BPF_LINK_UPDATE`; either way each frame meets one whole composition.

use netsift_ffpf::xsk::Xsk;
use netsift_isa::PassSet;
use netsift_kernel::asm::Insn;
use netsift_kernel::asm::{Asm, Width, R1, R2, R3};
use netsift_kernel::codegen::{
    generate_clauses, generate_clauses_tagged, Env, Generated, XDP_STATS,
};
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use std::os::fd::OwnedFd;
use std::sync::Mutex;

/// `bpf_redirect_map(map, key, flags)`; the low bits of `flags` are the
/// action when the map has no entry at `key`.
const REDIRECT_MAP: i32 = 51;
/// `XDP_PASS`.
const XDP_PASS: i32 = 2;
/// `xdp_md.rx_queue_index`.
const RX_QUEUE_INDEX: i16 = 16;

/// The redirecting program, linked to an interface, and its XSKMAP.
pub(crate) struct Redirect {
    map: Map,
    /// The programs' counters (frames seen, redirected).
    stats: Map,
    /// The program stays linked while this is open.
    link: OwnedFd,
    /// Slot 0: where the graph's program goes on to (the clauses' program).
    then: Map,
    programs: Mutex<Programs>,
}

/// The programs the link may run.
struct Programs {
    /// The first: every frame of queue 0 to the socket.
    first: Program,
    /// The clauses' program now, with the tables it reads.
    clauses: Option<(Program, Generated)>,
    /// The graph's program, linked in front of the clauses' while some graph
    /// element runs at XDP.
    graph: Option<Program>,
}

impl Redirect {
    /// Loads the program and links it to `ifindex` (the driver's hook where
    /// it has one). Until [`Redirect::bind`], every frame passes.
    pub(crate) fn link(ifindex: u32) -> Result<Redirect, String> {
        let map = Map::create(MapKind::XskMap, 4, 4, 1).map_err(|e| e.to_string())?;
        let mut a = Asm::new();
        a.ldx(Width::W, R2, R1, RX_QUEUE_INDEX);
        a.ld_map_fd(R1, map.fd());
        a.mov64_imm(R3, XDP_PASS);
        a.call(REDIRECT_MAP);
        a.exit();
        let insns = a.finish().map_err(|e| e.to_string())?;
        let prog =
            Program::load(ProgKind::Xdp, "netsift_xsk", &insns).map_err(|e| e.to_string())?;
        let link = prog.link_xdp(ifindex, 0).map_err(|e| e.to_string())?;
        let stats =
            Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).map_err(|e| e.to_string())?;
        let then = Map::create(MapKind::ProgArray, 4, 4, 1).map_err(|e| e.to_string())?;
        Ok(Redirect {
            map,
            stats,
            link,
            then,
            programs: Mutex::new(Programs {
                first: prog,
                clauses: None,
                graph: None,
            }),
        })
    }

    /// The `PROG_ARRAY` a graph's program tail-calls into (slot 0).
    pub(crate) fn then_fd(&self) -> i32 {
        self.then.fd()
    }

    fn programs(&self) -> std::sync::MutexGuard<'_, Programs> {
        self.programs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Slot 0 holds `p`'s program, or nothing.
    fn set_then(&self, p: Option<&Program>) -> Result<(), String> {
        let key = 0u32.to_ne_bytes();
        match p {
            Some(p) => self.then.update(&key, &(p.fd() as u32).to_ne_bytes()),
            None => self.then.delete(&key).map(drop),
        }
        .map_err(|e| format!("the graph program's next program: {e}"))
    }

    /// A graph's XDP program (`netsift_kernel::graphs`, `Level::Xdp` over
    /// [`Redirect::then_fd`]) in front of the clauses' from now on, in place
    /// of the one there; `None`: the clauses' program alone again.
    pub(crate) fn set_graph(&self, insns: Option<&[Insn]>) -> Result<(), String> {
        let mut ps = self.programs();
        let Some(insns) = insns else {
            if ps.graph.is_none() {
                return Ok(());
            }
            let alone = ps.clauses.as_ref().map_or(&ps.first, |(p, _)| p);
            alone.update_link(&self.link).map_err(|e| e.to_string())?;
            ps.graph = None;
            return self.set_then(None);
        };
        let g = Program::load(ProgKind::Xdp, "netsift_graph", insns).map_err(|e| e.to_string())?;
        if ps.graph.is_none() {
            self.set_then(ps.clauses.as_ref().map(|(p, _)| p))?;
        }
        g.update_link(&self.link).map_err(|e| e.to_string())?;
        ps.graph = Some(g);
        Ok(())
    }

    /// The program becomes the union of `clauses` (each flow's filter, as
    /// compiled for received frames, with its program for frames the kernel
    /// will take a VLAN tag out of where the source has one: a frame whose
    /// outermost EtherType is 802.1Q or 802.1ad runs those, `Vlan::Ahead`);
    /// with none, it stays as it is.
    pub(crate) fn set_clauses(
        &self,
        clauses: &[(&PassSet, Option<&PassSet>)],
    ) -> Result<(), String> {
        if clauses.is_empty() {
            return Ok(());
        }
        let env = Env::xdp_redirect(self.map.fd(), self.stats.fd());
        let untagged: Vec<&PassSet> = clauses.iter().map(|(s, _)| *s).collect();
        let g = if clauses.iter().any(|(_, t)| t.is_some()) {
            let tagged: Vec<&PassSet> = clauses.iter().map(|(s, t)| t.unwrap_or(s)).collect();
            generate_clauses_tagged(&untagged, &tagged, env.tags_ahead())
        } else {
            generate_clauses(&untagged, env)
        };
        let g = g.map_err(|e| e.to_string())?;
        let prog =
            Program::load(ProgKind::Xdp, "netsift_xsk", &g.insns).map_err(|e| e.to_string())?;
        let mut ps = self.programs();
        if ps.graph.is_some() {
            self.set_then(Some(&prog))?;
        } else {
            prog.update_link(&self.link).map_err(|e| e.to_string())?;
        }
        ps.clauses = Some((prog, g));
        Ok(())
    }

    /// Frames of queue 0 go to `xsk` from now on.
    pub(crate) fn bind(&self, xsk: &Xsk) -> Result<(), String> {
        let fd = xsk.fd() as u32;
        self.map
            .update(&0u32.to_ne_bytes(), &fd.to_ne_bytes())
            .map_err(|e| e.to_string())
    }

    /// Frames pass to the host stack again.
    pub(crate) fn unbind(&self) {
        let _ = self.map.delete(&0u32.to_ne_bytes());
    }
}
