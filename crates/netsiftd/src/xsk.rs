//! The XDP program that redirects an interface's frames to the AF_XDP
//! socket of its zero-copy group ([`netsift_ffpf::xsk::Xsk`], whose UMEM is
//! the group's PBuf).
//!
//! The program redirects every frame of queue 0 to the socket (the XSKMAP's
//! entry 0), or passes it on to the host stack while no socket is in the
//! map. It does not filter: the daemon runs each distinct filter once per
//! batch over the frames (as it does for a ring's batches), and a frame no
//! flow wants goes back to the kernel with the next refill. Putting the
//! union of the flows' filters in the program (the kernel crate's XDP
//! code generation copies into a BPF ring buffer and passes every frame,
//! it has no redirecting epilogue yet) would spare those frames the trip.

use netsift_ffpf::xsk::Xsk;
use netsift_kernel::asm::{Asm, Width, R1, R2, R3};
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use std::os::fd::OwnedFd;

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
    /// The program stays linked while this is open.
    _link: OwnedFd,
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
        Ok(Redirect { map, _link: link })
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
