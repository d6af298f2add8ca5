//! The kernel-resident part of a running filter graph (FFPF's idea that the
//! work stays next to the packets and only results cross): one socket filter
//! that runs, per packet, each *sink* whose outcome is only MBuf state (a
//! packet or byte counter, an FPL program whose verdict nothing reads) on the
//! packets its upstream `pcap` filters pass, and always returns 0, so the
//! packet socket it sits under queues nothing and copies nothing to user
//! space (`packet_rcv` runs the filter before it clones anything).
//!
//! A socket filter cannot tell user space which instance passed a packet, so
//! no verdict leaves the program: a sink's reach is the OR over its paths
//! from the source of the AND of the filters on the path, decided by jumps.
//! The filters are stateless, so a filter on several paths is evaluated again
//! on each (the price of keeping no state between blocks); a sink with
//! stateful code runs at most once per packet.
//!
//! A `sampler` whose every reader is such a sink fed by it alone runs there
//! too ([`Action::Sample`]): an atomic fetch-and-add on its counter region
//! decides, per packet, whether the sinks behind it run.
//!
//! Each filter (a pass set, as [`crate::codegen::generate_clauses`] makes a
//! one-clause program: loads bounds-checked, so a short packet fails the
//! filter and does not end the program; with its program for frames the
//! kernel takes a VLAN tag out of, as libpcap's kernel filter reads them,
//! [`generate_tagged`]) and each FPL sink
//! ([`crate::fpl::generate`]) is generated as a program of its own and
//! spliced in: its `exit`s become jumps to its end, where `r0` holds its
//! answer. Both keep the context in `r6` from their first instruction on,
//! which the `LD_ABS`/`LD_IND` loads require, so `r1` is set from `r6` before
//! each block. Counters are an atomic add into their MBuf region
//! ([`Region`]), which the daemon maps and copies to its clients.
//!
//! On an AF_XDP source the same sub-graph runs on the XDP hook
//! ([`Level::Xdp`]): the filters and FPL sinks are generated for
//! `Hook::XdpVerdict` (loads through `bpf_xdp_load_bytes`, the frame with its
//! VLAN tags, as the daemon's UMEM holds it), a byte counter adds
//! `bpf_xdp_get_buff_len`, and the program ends in a tail call into slot 0 of
//! a `PROG_ARRAY`, where the daemon keeps its redirecting program (the union
//! of the flows' filters); with the slot empty the frame passes on to the
//! host stack. Composing two programs, each verified on its own, leaves the
//! redirecting program's generator as it is; docs/kernel.md says more.
//!
//! [`Attached`] is the program under an `AF_PACKET` socket of its own, bound
//! to one interface with the smallest receive buffer: [`Attached::swap`]
//! replaces the program in one step (`SO_ATTACH_BPF`), and dropping it closes
//! the socket, which detaches the program.

use crate::asm::{Alu, Asm, Insn, Width, R0, R1, R2, R3, R6};
use crate::codegen::{
    generate_clauses, generate_clauses_tagged, Env, Generated, Halves, Hook, Vlan,
};
use crate::helpers::{TAIL_CALL, XDP_GET_BUFF_LEN};
use crate::shared::Region;
use crate::sys::{Error, ProgKind, Program};
use netsift_isa::PassSet;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The most paths from the source to one sink the program evaluates; past it
/// the sink stays in the daemon (each path repeats its filters' code).
pub const MAX_PATHS: usize = 16;

/// What a kernel-resident sink does to a packet that reaches it.
pub enum Action<'a> {
    /// `packetcount`: adds 1 to the native-endian `u64` at byte 0 of `mbuf`.
    Packets(&'a Region),
    /// `bytecount`: adds the packet's length on the wire (with a tag the
    /// kernel took out) to the `u64` at byte 0 of `mbuf`.
    Bytes(&'a Region),
    /// An FPL program over its MBuf and register regions; its verdict is
    /// dropped.
    Fpl(&'a netsift_fpl::Program, crate::fpl::Maps),
    /// `sampler`: adds 1 to the native-endian `u64` at byte 0 of `counter`
    /// and runs `then` (actions of their own, no sampler) on the packet that
    /// makes it a multiple of `rate`: with the counter started at the
    /// daemon's count since the last packet passed, the `rate`-th packet
    /// since passes, as in the daemon (a rate of 0 passes every packet).
    Sample {
        /// Its counter region.
        counter: &'a Region,
        /// 1 in `rate` passes.
        rate: u32,
        /// What runs on a packet it passes.
        then: Vec<Action<'a>>,
    },
}

/// Where the program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// A socket filter under a packet socket of its own ([`Attached`]), over
    /// the packets the host received and, with `sent`, those it sent
    /// (`__sk_buff.pkt_type` `PACKET_OUTGOING`; on loopback a capture keeps
    /// only the copy that comes back in). It returns 0 for every packet.
    Socket {
        /// Whether sent packets count too.
        sent: bool,
    },
    /// An XDP program, over the frames the interface receives (XDP sees no
    /// others), ending in a tail call into slot 0 of the `PROG_ARRAY` map
    /// `then` (`XDP_PASS` when the slot is empty).
    Xdp {
        /// The `PROG_ARRAY` map's descriptor.
        then: i32,
    },
}

/// `XDP_PASS`.
const XDP_PASS: i32 = 2;

/// A kernel-resident sink: its action and, per path from the source, the
/// filters (indices into the program's filters) a packet must pass, in order.
/// An empty path is the source itself: every packet reaches the sink.
pub struct Sink<'a> {
    /// What it does.
    pub action: Action<'a>,
    /// Its paths, at most [`MAX_PATHS`].
    pub paths: Vec<Vec<usize>>,
}

/// Why the program could not be made.
#[derive(Debug)]
pub enum GraphError {
    /// A filter is not exact in the kernel (an operation or anchor left to
    /// user space), so a count could differ from the daemon's.
    NotExact(usize),
    /// Generating a filter or an FPL block failed.
    Generate(String),
    /// A path names a filter that is not there, or a sink has too many paths.
    Shape(String),
    /// A system call failed (a map, the load with the verifier's log, the
    /// socket).
    Sys(Error),
}

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphError::NotExact(i) => write!(
                f,
                "filter {i} is not exact in the kernel (an operation or anchor is left to \
                 user space)"
            ),
            GraphError::Generate(e) | GraphError::Shape(e) => write!(f, "{e}"),
            GraphError::Sys(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GraphError {}

impl From<Error> for GraphError {
    fn from(e: Error) -> GraphError {
        GraphError::Sys(e)
    }
}

/// A generated graph program: its instructions and the filters' programs,
/// whose maps (enable words, key tables) must live until it is loaded.
pub struct GraphProgram {
    /// The instructions.
    pub insns: Vec<Insn>,
    _filters: Vec<Generated>,
}

/// `BPF_JMP | BPF_JA`, `BPF_JMP | BPF_JEQ | BPF_K`, `BPF_JMP | BPF_JNE |
/// BPF_K`, `BPF_JMP | BPF_EXIT`.
const JA: u8 = 0x05;
const JEQ_K: u8 = 0x15;
const JNE_K: u8 = 0x55;
const EXIT: u8 = 0x95;
/// `BPF_STX | BPF_ATOMIC | BPF_DW` with `imm = BPF_ADD` (and `BPF_FETCH`:
/// `src` gets the old value).
const ATOMIC_ADD_DW: u8 = 0xdb;
const FETCH: i32 = 0x01;
/// `__sk_buff.len`, `pkt_type` and `vlan_present`, bytes of the context.
const SKB_LEN: i16 = 0;
const SKB_PKT_TYPE: i16 = 4;
/// `BPF_LDX | BPF_MEM | BPF_W`; `PACKET_OUTGOING`.
const LDX_W: u8 = 0x61;
const PACKET_OUTGOING: i32 = 4;
const SKB_VLAN_PRESENT: i16 = 20;

fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn {
        code,
        regs: dst | (src << 4),
        off,
        imm,
    }
}

/// A forward jump to fill in once its target is known.
struct Fixup {
    at: usize,
    label: usize,
}

/// The program under construction: instructions, labels and forward jumps.
#[derive(Default)]
struct Out {
    insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    fixups: Vec<Fixup>,
}

impl Out {
    fn label(&mut self) -> usize {
        self.labels.push(None);
        self.labels.len() - 1
    }

    fn bind(&mut self, l: usize) {
        self.labels[l] = Some(self.insns.len());
    }

    fn jump(&mut self, code: u8, dst: u8, imm: i32, label: usize) {
        self.fixups.push(Fixup {
            at: self.insns.len(),
            label,
        });
        self.insns.push(insn(code, dst, 0, 0, imm));
    }

    /// `block`, a whole program of its own, with each `exit` turned into a
    /// jump to its end (its jumps are relative and stay within it).
    fn splice(&mut self, block: &[Insn]) {
        let n = block.len();
        for (i, b) in block.iter().enumerate() {
            if b.code == EXIT {
                let off = i16::try_from(n - 1 - i).unwrap_or(i16::MAX);
                self.insns.push(insn(JA, 0, 0, off, 0));
            } else {
                self.insns.push(*b);
            }
        }
    }

    /// `r1 = r6`: the context, as a block's first instruction expects it.
    fn ctx(&mut self) {
        self.insns.push(insn(0xbf, R1.0, R6.0, 0, 0));
    }

    fn finish(mut self) -> Result<Vec<Insn>, GraphError> {
        for f in &self.fixups {
            let to = self.labels[f.label].ok_or_else(|| GraphError::Shape("a label".into()))?;
            let off = i16::try_from(to as i64 - f.at as i64 - 1)
                .map_err(|_| GraphError::Shape("the program is too long for a jump".into()))?;
            self.insns[f.at].off = off;
        }
        Ok(self.insns)
    }
}

/// The instructions adding to the `u64` at byte 0 of `mbuf`: 1, or the
/// packet's length on the wire (at `level`).
fn count(mbuf: &Region, bytes: bool, level: Level) -> Result<Vec<Insn>, GraphError> {
    let mut a = Asm::new();
    match (bytes, level) {
        (false, _) => a.mov64_imm(R1, 1),
        (true, Level::Socket { .. }) => {
            // The length the ring reports, and 4 for a tag the kernel took
            // out of the data (the capture puts it back).
            a.ldx(Width::W, R1, R6, SKB_LEN);
            a.ldx(Width::W, R0, R6, SKB_VLAN_PRESENT);
            a.alu64_imm(Alu::Lsh, R0, 2);
            a.alu64_reg(Alu::Add, R1, R0);
        }
        (true, Level::Xdp { .. }) => {
            // Nothing has taken a tag out of the frame yet: its length is
            // what the UMEM holds, fragments included.
            a.mov64_reg(R1, R6);
            a.call(XDP_GET_BUFF_LEN);
            a.mov64_reg(R1, R0);
        }
    }
    a.ld_map_value(R0, mbuf.map().fd(), 0);
    a.raw(ATOMIC_ADD_DW, R1, 0, 0);
    a.finish().map_err(|e| GraphError::Generate(e.to_string()))
}

/// `action` on a packet that reached it; a sampler that does not pass it
/// goes on to `next`.
fn act(
    o: &mut Out,
    action: &Action<'_>,
    level: Level,
    hook: Hook,
    next: usize,
) -> Result<(), GraphError> {
    match action {
        Action::Packets(r) => o.insns.extend(count(r, false, level)?),
        Action::Bytes(r) => o.insns.extend(count(r, true, level)?),
        Action::Fpl(p, maps) => {
            let insns = crate::fpl::generate(p, None, *maps, hook)
                .map_err(|e| GraphError::Generate(e.to_string()))?;
            o.ctx();
            o.splice(&insns);
        }
        Action::Sample {
            counter,
            rate,
            then,
        } => {
            // One atomic fetch-and-add: each packet gets a count of its own
            // however many CPUs run the program, so exactly 1 in `rate`
            // passes.
            let mut a = Asm::new();
            a.mov64_imm(R1, 1);
            a.ld_map_value(R0, counter.map().fd(), 0);
            a.raw(ATOMIC_ADD_DW, R1, 0, FETCH);
            a.alu64_imm(Alu::Add, R1, 1);
            a.ld_imm64(R2, u64::from((*rate).max(1)));
            a.alu64_reg(Alu::Mod, R1, R2);
            o.insns.extend(
                a.finish()
                    .map_err(|e| GraphError::Generate(e.to_string()))?,
            );
            o.jump(JNE_K, R1.0, 0, next);
            for t in then {
                if matches!(t, Action::Sample { .. }) {
                    return Err(GraphError::Shape("a sampler behind a sampler".into()));
                }
                act(o, t, level, hook, next)?;
            }
        }
    }
    Ok(())
}

/// The program for `filters` (pass sets compiled for received packets) and
/// `sinks` at `level`; every frame is read as a capture file holds it.
pub fn generate(
    filters: &[&PassSet],
    sinks: &[Sink<'_>],
    level: Level,
) -> Result<GraphProgram, GraphError> {
    let halves: Vec<Halves<'_>> = filters
        .iter()
        .map(|&untagged| Halves {
            untagged,
            tagged: None,
        })
        .collect();
    generate_tagged(&halves, sinks, level)
}

/// [`generate`], with each filter's program for frames the kernel takes a
/// VLAN tag out of where it has one (`Halves::tagged`, compiled as libpcap's
/// kernel filter reads such frames): on a socket a frame whose tag is in the
/// socket buffer runs it ([`Vlan::Skb`]), at XDP a frame whose outermost
/// EtherType is 802.1Q or 802.1ad, the tag still in its data
/// ([`Vlan::Ahead`]).
pub fn generate_tagged(
    filters: &[Halves<'_>],
    sinks: &[Sink<'_>],
    level: Level,
) -> Result<GraphProgram, GraphError> {
    let env = match level {
        Level::Socket { .. } => Env {
            keep: None,
            ..Env::socket(1)
        },
        Level::Xdp { .. } => Env {
            keep: None,
            vlan: Vlan::Ahead,
            hook: Hook::XdpVerdict,
            follow: None,
            params: false,
        },
    };
    let mut made = Vec::with_capacity(filters.len());
    for (i, f) in filters.iter().enumerate() {
        let g = match f.tagged {
            None => generate_clauses(&[f.untagged], env),
            Some(t) => generate_clauses_tagged(&[f.untagged], &[t], env),
        };
        let g = g.map_err(|e| GraphError::Generate(e.to_string()))?;
        if !g.decisive {
            return Err(GraphError::NotExact(i));
        }
        made.push(g);
    }
    let mut o = Out::default();
    // r6 holds the context throughout, as every block expects.
    o.insns.push(insn(0xbf, R6.0, R1.0, 0, 0));
    let end = o.label();
    if let Level::Socket { sent: false } = level {
        o.insns.push(insn(LDX_W, R0.0, R6.0, SKB_PKT_TYPE, 0));
        o.jump(JEQ_K, R0.0, PACKET_OUTGOING, end);
    }
    for s in sinks {
        if s.paths.len() > MAX_PATHS {
            return Err(GraphError::Shape(format!(
                "a sink with {} paths from the source (at most {MAX_PATHS})",
                s.paths.len()
            )));
        }
        if s.paths.is_empty() {
            // Nothing reaches it (and its code would be unreachable).
            continue;
        }
        let next = o.label();
        // A sink fed by the source itself takes every packet.
        if !s.paths.iter().any(Vec::is_empty) {
            let act = o.label();
            for p in &s.paths {
                let fail = o.label();
                for &f in p {
                    let g = made
                        .get(f)
                        .ok_or_else(|| GraphError::Shape(format!("no filter {f}")))?;
                    o.ctx();
                    o.splice(&g.insns);
                    o.jump(JEQ_K, R0.0, 0, fail);
                }
                o.jump(JA, 0, 0, act);
                o.bind(fail);
            }
            o.jump(JA, 0, 0, next);
            o.bind(act);
        }
        act(&mut o, &s.action, level, env.hook, next)?;
        o.bind(next);
    }
    o.bind(end);
    match level {
        // Nothing is queued: every packet's answer is 0.
        Level::Socket { .. } => o.insns.push(insn(0xb7, R0.0, 0, 0, 0)),
        Level::Xdp { then } => {
            // On to the redirecting program; back here only without one.
            let mut a = Asm::new();
            a.mov64_reg(R1, R6);
            a.ld_map_fd(R2, then);
            a.mov64_imm(R3, 0);
            a.call(TAIL_CALL);
            a.mov64_imm(R0, XDP_PASS);
            o.insns.extend(
                a.finish()
                    .map_err(|e| GraphError::Generate(e.to_string()))?,
            );
        }
    }
    o.insns.push(insn(EXIT, 0, 0, 0, 0));
    Ok(GraphProgram {
        insns: o.finish()?,
        _filters: made,
    })
}

/// A graph program under an `AF_PACKET` socket of its own on one interface.
#[derive(Debug)]
pub struct Attached {
    sock: OwnedFd,
    prog: Program,
}

impl Attached {
    /// Loads `p` and attaches it under a new packet socket bound to interface
    /// `ifindex` (every protocol, both directions, as a capture ring sees
    /// them), with the smallest receive buffer: the program returns 0, so
    /// nothing is ever queued there.
    pub fn open(ifindex: u32, p: &GraphProgram) -> Result<Attached, GraphError> {
        let prog = Program::load(ProgKind::SocketFilter, "netsift_graph", &p.insns)?;
        // Protocol 0: no packet reaches the socket until the filter is on and
        // it is bound.
        // SAFETY: socket(2) with constant arguments; the result is checked.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(Error::last("opening the graph program's packet socket").into());
        }
        // SAFETY: a new descriptor that nothing else owns.
        let sock = unsafe { OwnedFd::from_raw_fd(fd) };
        let one: libc::c_int = 1;
        // SAFETY: an int option whose size is passed; the socket is ours.
        // A failure only leaves the default buffer, which stays empty anyway.
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVBUF,
                (&one as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        prog.attach(fd)?;
        let mut sll: libc::sockaddr_ll = {
            // SAFETY: sockaddr_ll is plain data; all zeros is a valid value.
            unsafe { std::mem::zeroed() }
        };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex as i32;
        // SAFETY: `sll` is a live sockaddr_ll whose size is passed.
        let rc = unsafe {
            libc::bind(
                fd,
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(Error::last(format!("binding to interface {ifindex}")).into());
        }
        Ok(Attached { sock, prog })
    }

    /// Loads `p` and puts it in place of the program under the socket, in
    /// one step; on an error the old one stays.
    pub fn swap(&mut self, p: &GraphProgram) -> Result<(), GraphError> {
        let prog = Program::load(ProgKind::SocketFilter, "netsift_graph", &p.insns)?;
        prog.attach(self.sock.as_raw_fd())?;
        self.prog = prog;
        Ok(())
    }

    /// Packets the socket queued and dropped (`PACKET_STATISTICS`, which
    /// resets them): both stay 0 while the program returns 0.
    pub fn queued(&self) -> Result<(u32, u32), Error> {
        let mut st = [0u32; 2];
        let mut len = std::mem::size_of_val(&st) as libc::socklen_t;
        // SAFETY: `st` is `struct tpacket_stats` (two u32), its size passed.
        let rc = unsafe {
            libc::getsockopt(
                self.sock.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                st.as_mut_ptr().cast(),
                &mut len,
            )
        };
        if rc != 0 {
            return Err(Error::last("reading the graph socket's statistics"));
        }
        Ok((st[0], st[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spliced_block_ends_where_its_exits_were() {
        let mut o = Out::default();
        let exit = insn(EXIT, 0, 0, 0, 0);
        let mov = insn(0xb7, 0, 0, 0, 1);
        o.splice(&[mov, exit, mov, exit]);
        let got: Vec<(u8, i16)> = o.insns.iter().map(|i| (i.code, i.off)).collect();
        assert_eq!(got, [(0xb7, 0), (JA, 2), (0xb7, 0), (JA, 0)]);
    }
}
