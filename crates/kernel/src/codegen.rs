//! eBPF code from a decoded pass set: a packet filter for the kernel that accepts
//! at least what the user-space engine accepts.
//!
//! The program walks the root passes in order, as the engine does, each as a chain
//! of tests that jumps to the next pass on the first failure. A pass that gets to
//! its end accepts. Each test is the engine's [`Op`] compiled to straight-line code:
//! the field's address (the anchor chain worked out from the packet, then the
//! offset), a load, a mask and compares against the operands; GROUP runs its Sub
//! passes inline, and SET looks its key up in a BPF hash map.
//!
//! Loads are the legacy `LD_ABS`/`LD_IND` instructions: from `skb->data`, which is
//! the MAC header on a packet socket and in a `SCHED_CLS` test run; in network
//! order; reading paged data too; and ending the program with 0 past the packet,
//! which is what the engine's fault does to a static set (a pass that accepted
//! before it has already returned). The JIT inlines their fast path. The program
//! runs as a socket filter, and as `SCHED_CLS` in test runs (a socket filter's test
//! run starts `skb->data` at the network header instead).
//!
//! On a live socket the kernel has taken a received packet's VLAN tag out of the
//! data before the filter runs (`skb->vlan_present`), while the filter's offsets
//! count the tag where the capture shows it (user space puts it back, as libpcap
//! does). So the program is made twice: once for untagged packets, and once for
//! tagged ones, whose loads read byte 16 on at 4 bytes less, bytes 12 to 15 from
//! the tag the kernel keeps beside the packet, and whose length is 4 more.
//!
//! Two things keep the kernel's answer a superset of the engine's, which is what a
//! filter placed under the user-space one needs:
//!
//! - An operation the generator does not compile (PROTOCHAIN) counts as
//!   passed, and a pass holding one accepts with [`UNSURE`] instead of [`ACCEPT`].
//!   [`Generated::exact`] is false when any pass holds one.
//! - An anchor rule not compiled (Geneve) ends the program with [`UNSURE`], and so
//!   does an address past 64 KiB (what `LD_ABS` reaches) in a frame longer than
//!   that; in a shorter frame such a field is past the end, a fault.
//!
//! Both are accepts to the socket; they differ only so that a test run can tell a
//! sure answer from an unsure one. When neither can happen to a frame of at most
//! 64 KiB ([`Generated::decisive`]), the kernel's answer on such frames is the
//! engine's, and user space need not filter them again.

use crate::asm::{Alu, Asm, AsmError, Cond, Insn, Label, Reg, Width, R0, R1, R10, R2, R3, R4};
use crate::helpers::{XDP_GET_BUFF_LEN, XDP_LOAD_BYTES};
use crate::layout::{ADDR, ADDR2, ARITH_SLOTS, CTX, TABLE_KEY, VAL, XDP_LEN};
use crate::shared::Region;
use crate::table::{Key, Probe, Table, KEY_WORDS};
use netsift_engine::decoded::{
    group_range, DPass, Decoded, Field, Op, Operands, Pair, Step, BAD_OPERAND,
};
use netsift_isa::insn::Size;
use netsift_isa::insn::{ArithOp, IndexMode, ARITH_STACK};
use netsift_isa::{Anchor, AnchorRule, PassKind, PassSet};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};

mod wlan;

/// The program's return value for a sure accept: more than any packet, so the
/// socket keeps it whole.
pub const ACCEPT: u32 = 0x4_0000;
/// The return value of an accept the kernel is not sure of (see the module
/// documentation); also more than any packet.
pub const UNSURE: u32 = ACCEPT - 1;

/// Where the program will run.
#[derive(Clone, Copy, Debug)]
pub struct Env {
    /// What an accept returns: `None` for [`ACCEPT`] or [`UNSURE`], which a test
    /// run tells apart; `Some(snaplen)` on a socket, which then keeps at most that
    /// many bytes of each packet (the rest would only be cut in user space).
    pub keep: Option<u32>,
    /// Where a tag the kernel took out of the packet is found.
    pub vlan: Vlan,
    /// What the program is attached to.
    pub hook: Hook,
    /// `--follow`: the follower's listeners and the FTP prologue
    /// ([`crate::follow`]), run before the filter (socket buffers only).
    pub follow: Option<crate::follow::FollowHook>,
    /// Swift's update model for operand sets: every EQ and EQ2 looks its field up
    /// in a table in memory shared with the kernel ([`Generated::params`])
    /// instead of comparing it with its operands in line, so
    /// [`Generated::add_param`] and [`Generated::del_param`] are stores, with no
    /// reload and no system call.
    pub params: bool,
}

/// What the program is attached to, which decides how it loads and what it does
/// with its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// A socket buffer: a packet socket's filter, or a `SCHED_CLS` test run. Loads
    /// are `LD_ABS`/`LD_IND`, and the program returns its verdict.
    Skb,
    /// The XDP hook, before the kernel builds a socket buffer (FFPF's NIC level).
    /// Loads go through `bpf_xdp_load_bytes`. Every frame goes on to the host
    /// stack (`XDP_PASS`); one the filter accepts is first copied, up to `cap`
    /// bytes, into the ring buffer `ring` after a 16-byte header (captured
    /// length, wire length, `bpf_ktime_get_ns`), and `stats`, a per-CPU array of
    /// [`XDP_STATS`] u64 words, counts frames seen, accepted, and lost to a full
    /// ring.
    Xdp {
        /// The ring buffer map's descriptor.
        ring: i32,
        /// The counters' map descriptor.
        stats: i32,
        /// Bytes copied of an accepted frame at most.
        cap: u32,
        /// An XSKMAP ([`Env::xdp_redirect`]): an accepted frame is redirected
        /// to the AF_XDP socket at its receive queue's index (passed on if
        /// there is none) instead of copied into `ring`; a rejected one passes.
        redirect: Option<i32>,
    },
    /// The XDP hook's loads, with the verdict returned as on [`Hook::Skb`]:
    /// a block that a larger XDP program splices in and whose answer it reads
    /// ([`crate::graphs`]). The frame holds its VLAN tags.
    XdpVerdict,
}

impl Hook {
    /// Whether the program runs on the XDP hook (loads through
    /// `bpf_xdp_load_bytes`, the length from `bpf_xdp_get_buff_len`).
    pub fn is_xdp(self) -> bool {
        matches!(self, Hook::Xdp { .. } | Hook::XdpVerdict)
    }
}

/// Words of the XDP level's counters: frames seen, accepted, and accepted but
/// lost because the ring buffer was full.
pub const XDP_STATS: u32 = 3;
pub use crate::layout::XDP_HDR;
/// The most bytes the XDP level copies of a frame: a record is reserved whole.
pub const XDP_CAP_MAX: u32 = 16384;

/// Where the generated program finds a VLAN tag that is not in the packet's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vlan {
    /// Nowhere: every tag is in the data (a `SCHED_CLS` test run of a frame).
    InData,
    /// In the socket buffer (`__sk_buff.vlan_present`, `vlan_proto`, `vlan_tci`),
    /// where the kernel keeps the tag it took out of a received packet.
    Skb,
    /// For test runs of the tagged half: present when `__sk_buff.priority` is not
    /// 0, which then holds the tag protocol identifier, and `mark` the tag control
    /// information (the two words a test run lets a caller set).
    TestContext,
    /// In the socket buffer, as [`Vlan::Skb`]; but a frame the kernel took a
    /// tag out of is passed up unsure instead of filtered, for a user space
    /// that reads such frames otherwise (a live set of clauses compiled for
    /// the tag taken out, which no clause program here holds).
    SkbTaggedToUser,
    /// Still in the data, at the XDP hook, where the kernel has taken nothing out
    /// yet: a frame whose outermost EtherType is 802.1Q or 802.1ad is one it
    /// will take the tag out of on receive (`skb_vlan_untag`), and the tagged
    /// program of a [`Split`] reads it as it is.
    Ahead,
}

impl Env {
    /// A filter attached to a packet socket that keeps `snaplen` bytes.
    pub fn socket(snaplen: u32) -> Env {
        Env {
            keep: Some(snaplen.max(1)),
            vlan: Vlan::Skb,
            hook: Hook::Skb,
            follow: None,
            params: false,
        }
    }

    /// This environment with the follow prologue of `hook`.
    pub fn following(self, hook: crate::follow::FollowHook) -> Env {
        Env {
            follow: Some(hook),
            ..self
        }
    }

    /// This environment with operand sets in a map ([`Env::params`]).
    pub fn with_params(self) -> Env {
        Env {
            params: true,
            ..self
        }
    }

    /// An XDP program that copies what it accepts, up to `snaplen` bytes (at most
    /// [`XDP_CAP_MAX`]), into ring buffer `ring` and counts in `stats`. The frame
    /// holds its VLAN tags: nothing has taken them out yet.
    pub fn xdp(ring: i32, stats: i32, snaplen: u32) -> Env {
        Env {
            keep: None,
            vlan: Vlan::InData,
            hook: Hook::Xdp {
                ring,
                stats,
                cap: snaplen.clamp(1, XDP_CAP_MAX),
                redirect: None,
            },
            follow: None,
            params: false,
        }
    }

    /// An XDP program that redirects what it accepts (a sure or an unsure
    /// accept) to the AF_XDP socket in XSKMAP `xskmap` at the frame's
    /// receive queue, passes the rest on to the host stack, and counts in
    /// `stats` as [`Env::xdp`] does (its third word stays 0).
    pub fn xdp_redirect(xskmap: i32, stats: i32) -> Env {
        Env {
            hook: Hook::Xdp {
                ring: -1,
                stats,
                cap: 1,
                redirect: Some(xskmap),
            },
            ..Env::xdp(-1, stats, 1)
        }
    }

    /// This XDP environment for a [`Split`] by tag: frames the kernel will take
    /// a tag out of run the tagged program ([`Vlan::Ahead`]).
    pub fn tags_ahead(self) -> Env {
        Env {
            vlan: Vlan::Ahead,
            ..self
        }
    }

    /// A `SCHED_CLS` program run by `BPF_PROG_TEST_RUN` on an Ethernet frame, as
    /// the tests and benchmarks run it.
    pub const TEST_RUN: Env = Env {
        keep: None,
        vlan: Vlan::InData,
        hook: Hook::Skb,
        follow: None,
        params: false,
    };

    /// As [`Env::TEST_RUN`], for frames whose tag was taken out of the data and
    /// put in the context as [`Vlan::TestContext`] says.
    pub const TEST_RUN_TAGGED: Env = Env {
        keep: None,
        vlan: Vlan::TestContext,
        hook: Hook::Skb,
        follow: None,
        params: false,
    };

    fn accept(&self, sure: bool) -> i32 {
        match (self.keep, sure) {
            (Some(n), _) => n as i32,
            (None, true) => ACCEPT as i32,
            (None, false) => UNSURE as i32,
        }
    }
}

/// A generated program.
#[derive(Debug)]
pub struct Generated {
    /// The instructions.
    pub insns: Vec<Insn>,
    /// Whether every root pass was compiled whole: then an [`ACCEPT`] or a 0 is the
    /// engine's answer, and only an [`UNSURE`] (a load the kernel could not make)
    /// needs the user-space engine.
    pub exact: bool,
    /// The root passes holding an operation the generator does not compile.
    pub unsure_passes: Vec<usize>,
    /// Whether the program answers every frame of at most [`DECISIVE_LEN`] bytes
    /// (counting a tag the kernel took out) as the engine does: [`exact`](Self::exact),
    /// and no anchor rule or load left to user space. Then only longer frames can
    /// get [`UNSURE`].
    pub decisive: bool,
    /// The key tables, by clause and table index, each a shared table
    /// ([`crate::table`]) with keys as [`set_words`] makes them: a SET is one
    /// probe, and a key inserted or deleted here (stores, no system call) is seen
    /// by the next packet with no reload.
    pub tables: Vec<(usize, u32, Mutex<Table>)>,
    /// For a live set's clauses ([`generate_clauses`]): one word per clause in
    /// memory shared with the kernel, 1 to run it and 0 to skip it
    /// ([`Generated::set_enabled`], one store), which the program reads by
    /// address.
    pub enable: Option<Region>,
    /// With [`Env::params`]: the EQ and EQ2 operands in a shared table
    /// ([`crate::table`]), keyed by [`param_key`]'s three words (clause, pass and
    /// instruction, value) and two zero words, with room for [`PARAM_ROOM`] times
    /// as many as the set had; `add_param`/`del_param` are stores into it.
    pub params: Option<Mutex<Table>>,
}

/// A SET key (`netsift_isa::set_key`) as a key of [`Generated::tables`]: its
/// low word, its high word, then zeros, as the program lays it on its stack.
pub fn set_words(key: u64) -> Key {
    [key as u32, (key >> 32) as u32, 0, 0, 0]
}

/// Slots a SET lookup probes at most; its table is kept at most a quarter full.
pub const SET_PROBES: usize = 16;

/// How many times the operands a set has its parameter map holds.
pub const PARAM_ROOM: u32 = 4;
/// The least room of a parameter map.
pub const PARAM_MIN: u32 = 1024;
/// Slots an operand lookup probes at most (see [`crate::table::Probe::emit`]).
pub const PARAM_PROBES: usize = 8;

/// The table key of operand `value` of instruction `insn` of pass `pass` of
/// clause `clause` in [`Generated::params`], as the program builds it:
/// [`param_key`]'s words, then zeros.
fn param_words(clause: usize, pass: usize, insn: usize, value: u32) -> Key {
    let k = param_key(clause, pass, insn, value);
    let mut w = [0u32; KEY_WORDS];
    for (i, x) in w.iter_mut().take(3).enumerate() {
        *x = u32::from_ne_bytes([k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3]]);
    }
    w
}

/// The bytes of operand `value` of instruction `insn` of pass `pass` of clause
/// `clause` as the program lays them on its stack (the first three words of its
/// key in [`Generated::params`]).
pub fn param_key(clause: usize, pass: usize, insn: usize, value: u32) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&(clause as u32).to_ne_bytes());
    k[4..6].copy_from_slice(&(pass as u16).to_ne_bytes());
    k[6..8].copy_from_slice(&(insn as u16).to_ne_bytes());
    k[8..].copy_from_slice(&value.to_ne_bytes());
    k
}

impl Generated {
    /// Swift's `add_param` in the kernel: instruction `insn` (an EQ or EQ2) of
    /// pass `pass` of clause `clause` also accepts `value` (the field's bits under
    /// the instruction's mask), from the next packet on. One map write; an error
    /// without [`Env::params`] or when the map is full.
    pub fn add_param(
        &self,
        clause: usize,
        pass: usize,
        insn: usize,
        value: u32,
    ) -> Result<(), crate::sys::Error> {
        self.param_table()?
            .insert(&param_words(clause, pass, insn, value), 1)
            .map(|_| ())
            .map_err(|e| crate::sys::Error::full(format!("add_param: {e}")))
    }

    /// The operand table, locked (a poisoned lock still holds a whole table:
    /// each edit is complete before it returns).
    fn param_table(&self) -> Result<MutexGuard<'_, Table>, crate::sys::Error> {
        match &self.params {
            Some(m) => Ok(m.lock().unwrap_or_else(|p| p.into_inner())),
            None => Err(crate::sys::Error::invalid(
                "the program was made without parameter maps",
            )),
        }
    }

    /// Swift's `del_param`: the instruction no longer accepts `value`. False if it
    /// did not.
    pub fn del_param(
        &self,
        clause: usize,
        pass: usize,
        insn: usize,
        value: u32,
    ) -> Result<bool, crate::sys::Error> {
        Ok(self
            .param_table()?
            .remove(&param_words(clause, pass, insn, value)))
    }

    /// Turns clause `clause` of a [`generate_clauses`] program on or off: one
    /// store into shared memory (no system call), seen by the next packet, with
    /// no reload and no verifier run. (A release store: on x86-64 stores are
    /// seen in program order, so a packet judged after a later store of user
    /// space's, such as publishing its own edit, sees this one.)
    pub fn set_enabled(&self, clause: usize, on: bool) -> Result<(), crate::sys::Error> {
        match self.enable.as_ref().and_then(|r| r.words().get(clause)) {
            Some(w) => {
                w.store(u32::from(on), Ordering::Release);
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// Why no program was generated. `Display` says which step failed and the
/// underlying error's message.
#[derive(Debug)]
pub struct GenError {
    kind: GenErrorKind,
}

/// Which step of generating a program failed, with its error.
#[derive(Debug)]
#[non_exhaustive]
pub enum GenErrorKind {
    /// The jumps did not assemble (a program too long for 16-bit jump offsets).
    Asm(AsmError),
    /// A key table's map could not be made or filled.
    Map(crate::sys::Error),
    /// What was asked for has no program on this hook.
    Unsupported(String),
}

impl GenError {
    /// Which step failed, with its error.
    pub fn kind(&self) -> &GenErrorKind {
        &self.kind
    }

    fn map(e: crate::sys::Error) -> GenError {
        GenError {
            kind: GenErrorKind::Map(e),
        }
    }

    fn unsupported(what: &str) -> GenError {
        GenError {
            kind: GenErrorKind::Unsupported(what.to_string()),
        }
    }
}

impl From<AsmError> for GenError {
    fn from(e: AsmError) -> GenError {
        GenError {
            kind: GenErrorKind::Asm(e),
        }
    }
}

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            GenErrorKind::Asm(e) => write!(f, "generating the kernel program: {e}"),
            GenErrorKind::Map(e) => write!(f, "a key table for the kernel program: {e}"),
            GenErrorKind::Unsupported(what) => write!(f, "{what}"),
        }
    }
}

// No `source()`: the message holds the underlying error's, as pcapio's does, so
// that the CLI's `{:#}` prints it once; `kind()` gives the error itself.
impl std::error::Error for GenError {}

/// `__sk_buff.pkt_type` of a packet this host sent.
const PACKET_OUTGOING: i32 = 4;

/// The longest frame a [`Generated::decisive`] program is sure to decide: `LD_ABS`
/// reaches offsets up to 64 KiB.
pub const DECISIVE_LEN: u32 = MAX_OFFSET as u32;

/// Where a step's code goes: `yes` and `not` are its test's exits (swapped for a
/// negated step), `no` and `pass` the step's own labels, bound after it, and
/// `fail` the pass's failure.
#[derive(Clone, Copy)]
struct Exits {
    yes: Label,
    not: Label,
    no: Label,
    pass: Label,
    fail: Label,
}

/// What emitting a step's operation leaves [`Gen::step`] to do.
enum Emitted {
    /// A test that jumps to `yes` or `not`: the step binds `no` to the failure.
    Test,
    /// No code (a CONT slot): the step passes.
    Nothing,
    /// An operation with no kernel code: the step passes, and the program is not
    /// exact.
    NotCompiled,
    /// The operation bound the step's exits itself; `true` if it was compiled
    /// whole.
    Closed(bool),
}

/// Where ARITH stack entry `i` is kept: a word of the frame below the frame pointer.
fn arith_slot(i: usize) -> i16 {
    ARITH_SLOTS + 4 * i as i16
}

/// Whether `op` is an "either field" EQ2 on the same fields, mask and distance as
/// `first` (a run of such negated steps is fused).
fn same_fields(op: &Op, first: &Op) -> bool {
    match (op, first) {
        (
            Op::Eq2 { field, pair, .. },
            Op::Eq2 {
                field: f2,
                pair: p2,
                ..
            },
        ) => !pair.both && (field, pair) == (f2, p2),
        _ => false,
    }
}

/// `mask` as the compare needs it after a load of `size`: none (`u32::MAX`) when
/// it keeps every bit the load gives, since every load zero-extends its value.
fn loaded_mask(mask: u32, size: Size) -> u32 {
    let bits = match size {
        Size::B1 => 0xff,
        Size::B2 => 0xffff,
        Size::B4 => u32::MAX,
    };
    if mask & bits == bits {
        u32::MAX
    } else {
        mask
    }
}

/// Where a field is: known when the program is made, or in a register, with the
/// least value the register can hold (anchors only move forwards).
#[derive(Clone, Copy)]
enum Addr {
    Const(u32),
    Reg(Reg, u32),
}

/// `BPF_LD | BPF_ABS` and `BPF_LD | BPF_IND`, before the size bits.
const LD_ABS: u8 = 0x20;
const LD_IND: u8 = 0x40;
/// Stack slot of the tag the kernel took out, as the four bytes 12 to 15 of the
/// frame would read (tag protocol identifier, then tag control information).
const TAG: i16 = -4;
/// Stack slot a `bpf_xdp_load_bytes` load lands in.
const LOADBUF: i16 = -8;
/// Where a tag starts in an Ethernet frame, and its length.
const TAG_AT: i64 = 12;
const TAG_LEN: i64 = 4;
/// Stack slot of a fused run's first field while the second is loaded (every
/// register kept across a load holds something else then).
const SAVED: i16 = -24;
/// Offsets past this cannot be loaded (the helper's own limit).
const MAX_OFFSET: i32 = 0xffff;

struct Gen<'a> {
    a: Asm,
    /// The clause being generated: its set, decoded passes and operands.
    set: &'a PassSet,
    passes: &'a [DPass],
    pool: &'a [u32],
    /// Its index, which names its key tables.
    clause: usize,
    unsure: Label,
    /// Where a fault goes: for one static set, the end (0), as the engine's fault
    /// rejects the packet; for a clause of a live set, the next clause, as a
    /// fault there rejects only its own clause.
    reject: Label,
    /// Bounds-check loads against `skb->len` first and fault to `reject`, instead
    /// of leaving it to `LD_ABS`, which ends the whole program with 0.
    checked: bool,
    /// Generating the half for packets whose tag the kernel took out.
    tagged: bool,
    /// Where a field past 64 KiB goes: [`UNSURE`] in a longer frame, else the
    /// clause's fault (one block per clause and half).
    far: Label,
    /// Whether some path ends [`UNSURE`] for a reason other than a far field.
    maybe_unsure: bool,
    hook: Hook,
    /// On the XDP hook, where every verdict goes (in r0) instead of an exit.
    epilogue: Label,
    tables: Vec<(usize, u32, Table)>,
    map_error: Option<crate::sys::Error>,
    /// [`Env::params`]' table, which clauses look their operands up there, and
    /// the instruction index of the step being made.
    params: Option<Table>,
    editable: &'a [bool],
    insn: usize,
}

/// The program for the static set `set` in `env`.
pub fn generate(set: &PassSet, env: Env) -> Result<Generated, GenError> {
    emit(&[set], None, env, false, &[env.params])
}

/// The program for a static filter that tests the packets' direction on a link
/// header without one (`inbound`, `outbound`; `netsift_pcapc::Meta`): `received`
/// for the packets the socket buffer's type says were received, `sent` for those
/// this host sent (`__sk_buff.pkt_type` is `PACKET_OUTGOING`). On a socket only.
pub fn generate_directed(
    received: &PassSet,
    sent: &PassSet,
    env: Env,
) -> Result<Generated, GenError> {
    generate_split(Split::directed(received, sent), env)
}

/// A static filter's programs by what the socket says of a packet
/// (`netsift_pcapc::Meta`): its direction, and whether the kernel took its VLAN
/// tag out (`skb->vlan_present`).
#[derive(Clone, Copy, Debug)]
pub struct Split<'s> {
    /// For received packets, then for packets this host sent; `None`: the
    /// received packets' programs.
    pub received: Halves<'s>,
    /// For packets this host sent, when they differ.
    pub sent: Option<Halves<'s>>,
}

/// The programs of one direction: for frames with no tag taken out, and for
/// frames whose tag the kernel took out (read with the tag put back, as
/// [`Vlan::Skb`] says); `None`: the first for both.
#[derive(Clone, Copy, Debug)]
pub struct Halves<'s> {
    /// Frames the kernel took no tag out of.
    pub untagged: &'s PassSet,
    /// Frames it took a tag out of, when their program differs.
    pub tagged: Option<&'s PassSet>,
}

impl<'s> Split<'s> {
    /// `received` and `sent`, the same program with and without a tag.
    pub fn directed(received: &'s PassSet, sent: &'s PassSet) -> Split<'s> {
        let one = |untagged| Halves {
            untagged,
            tagged: None,
        };
        Split {
            received: one(received),
            sent: Some(one(sent)),
        }
    }
}

/// The program for a static filter split as [`Split`] says: on a socket, or
/// by tag alone at the XDP hook ([`Env::tags_ahead`]).
pub fn generate_split(split: Split<'_>, env: Env) -> Result<Generated, GenError> {
    let xdp_by_tag = env.hook.is_xdp() && env.vlan == Vlan::Ahead && split.sent.is_none();
    if !(env.hook == Hook::Skb || xdp_by_tag) || env.follow.is_some() {
        return Err(GenError::unsupported(
            "a filter that tests what the socket says of packets runs on a socket only",
        ));
    }
    let n = 1 + usize::from(split.sent.is_some());
    emit(
        &[split.received.untagged],
        Some(split),
        env,
        false,
        &vec![env.params; 2 * n],
    )
}

/// The program for a live set's clauses: it accepts what any clause accepts, and
/// a fault in one clause rejects only that clause (loads are bounds-checked, so
/// a short packet goes on to the next clause). A clause's passes are numbered
/// after the earlier clauses' in [`Generated::unsure_passes`].
pub fn generate_clauses(clauses: &[&PassSet], env: Env) -> Result<Generated, GenError> {
    emit(clauses, None, env, true, &vec![env.params; clauses.len()])
}

/// As [`generate_clauses`], with each clause's program for frames the kernel
/// takes (or, at the XDP hook, will take) a VLAN tag out of: `tagged[c]` is
/// clause `c` compiled as libpcap's kernel filter reads such frames
/// (`netsift_pcapc::Meta::tag_stripped`), and runs on them where the
/// environment tells them apart ([`Vlan::Skb`], [`Vlan::Ahead`],
/// [`Vlan::TestContext`]); elsewhere the untagged programs judge every frame.
/// The tagged clauses are numbered after the untagged ones, and only the
/// untagged ones have enable words.
pub fn generate_clauses_tagged(
    clauses: &[&PassSet],
    tagged: &[&PassSet],
    env: Env,
) -> Result<Generated, GenError> {
    if tagged.len() != clauses.len() {
        return Err(GenError::unsupported(
            "a tagged program for each clause, no more and no fewer",
        ));
    }
    let n = 2 * clauses.len();
    emit_tagged(clauses, tagged, env, &vec![env.params; n])
}

/// As [`generate_clauses`], with operand maps ([`Env::params`]) for the clauses
/// marked `true` only: a clause whose values change pays a map lookup per EQ and
/// EQ2, the others keep their compares in line.
pub fn generate_clauses_editable(
    clauses: &[(&PassSet, bool)],
    env: Env,
) -> Result<Generated, GenError> {
    let sets: Vec<&PassSet> = clauses.iter().map(|(s, _)| *s).collect();
    let editable: Vec<bool> = clauses.iter().map(|(_, e)| *e).collect();
    emit(&sets, None, env, true, &editable)
}

/// The program; `editable[c]` says whether clause `c` keeps its operands in the
/// parameter map. With `split` (a static filter, `clauses` being its received
/// untagged program), each of its programs is numbered as one clause more:
/// received tagged, sent untagged, sent tagged.
fn emit<'s>(
    clauses: &[&'s PassSet],
    split: Option<Split<'s>>,
    env: Env,
    checked: bool,
    editable: &[bool],
) -> Result<Generated, GenError> {
    emit_all(clauses, (split, &[]), env, checked, editable)
}

/// [`emit`] for checked clauses, each with its tagged program
/// ([`generate_clauses_tagged`]).
fn emit_tagged<'s>(
    clauses: &[&'s PassSet],
    tagged: &[&'s PassSet],
    env: Env,
    editable: &[bool],
) -> Result<Generated, GenError> {
    emit_all(clauses, (None, tagged), env, true, editable)
}

/// [`emit`], or with `tagged` (one program for each clause, no split) the
/// clauses' programs for tagged frames.
fn emit_all<'s>(
    clauses: &[&'s PassSet],
    (split, tagged_clauses): (Option<Split<'s>>, &[&'s PassSet]),
    env: Env,
    checked: bool,
    editable: &[bool],
) -> Result<Generated, GenError> {
    let tagged = |h: Halves<'s>| h.tagged.unwrap_or(h.untagged);
    let more: Vec<&PassSet> = match split {
        None => tagged_clauses.to_vec(),
        Some(Split { received, sent }) => std::iter::once(tagged(received))
            .chain(sent.into_iter().flat_map(|h| [h.untagged, tagged(h)]))
            .collect(),
    };
    let all: Vec<&PassSet> = clauses.iter().chain(&more).copied().collect();
    let decoded: Vec<Decoded> = all.iter().map(|s| Decoded::new(s)).collect();
    let (decoded, decoded_more) = decoded.split_at(clauses.len());
    let mut a = Asm::new();
    let unsure = a.label();
    let end = a.label();
    let far = a.label();
    let empty = PassSet::new();
    let mut g = Gen {
        a,
        set: &empty,
        passes: &[],
        pool: &[],
        clause: 0,
        unsure,
        reject: end,
        checked,
        tagged: false,
        far,
        maybe_unsure: false,
        hook: env.hook,
        epilogue: far,
        tables: Vec::new(),
        map_error: None,
        params: None,
        editable,
        insn: 0,
    };
    if editable.iter().any(|&e| e) {
        g.params = Some(params_table(decoded, editable)?);
    }
    g.epilogue = g.a.label();
    g.a.mov64_reg(CTX, R1);
    if env.hook.is_xdp() {
        // The frame's length (with fragments), once.
        g.a.call(XDP_GET_BUFF_LEN);
        g.a.stx(Width::W, R10, XDP_LEN, R0);
    }
    if let (Some(f), Hook::Skb) = (env.follow, env.hook) {
        // A kernel-stripped tag is not in the data, so the prologue's offsets
        // hold for tagged and untagged frames alike.
        crate::follow::prologue(&mut g.a, f, env.accept(true));
    }
    let outgoing = g.a.label();
    let sent = split.and_then(|s| s.sent);
    if sent.is_some() {
        // __sk_buff.pkt_type, the context's second word.
        g.a.ldx(Width::W, VAL, CTX, 4);
        g.a.jmp_imm(Cond::Eq, VAL, PACKET_OUTGOING, outgoing);
    }
    // A live set's clauses each have an enable word in an array map: turning one
    // off is one map write, seen by the next packet, with no reload.
    let enable = if checked {
        let r =
            Region::create(clauses.len().max(1).next_multiple_of(2) * 4).map_err(GenError::map)?;
        for w in r.words() {
            w.store(1, Ordering::Relaxed);
        }
        Some(r)
    } else {
        None
    };
    let numbered = |d: &[Decoded]| d.iter().map(|d| d.passes.len()).sum::<usize>();
    // A tagged program is numbered (its tables made) only where it differs.
    let t = match split {
        Some(s) => s.received.tagged.map(|_| (&more[..1], &decoded_more[..1])),
        None => (!more.is_empty()).then_some((&more[..], decoded_more)),
    };
    let mut unsure_passes = g.both_tags((clauses, decoded), t, 0, enable.as_ref(), env);
    if let Some(h) = sent {
        g.a.bind(outgoing);
        let first = clauses.len() + 1;
        let u = (&more[1..2], &decoded_more[1..2]);
        let t = h.tagged.map(|_| (&more[2..3], &decoded_more[2..3]));
        let sent = g.both_tags(u, t, first, None, env);
        let before = numbered(decoded) + numbered(&decoded_more[..1]);
        unsure_passes.extend(sent.into_iter().map(|p| before + p));
    }
    // No pass accepted; a fault in a static set comes here too.
    g.a.bind(end);
    g.ret(0);
    g.a.bind(g.unsure);
    g.ret(env.accept(false));
    if let Hook::Xdp {
        ring,
        stats,
        cap,
        redirect,
    } = env.hook
    {
        g.a.bind(g.epilogue);
        match redirect {
            None => crate::xdp::epilogue(&mut g.a, ring, stats, cap),
            Some(map) => crate::xdp::redirect_epilogue(&mut g.a, map, stats),
        }
    }
    if let Some(e) = g.map_error {
        return Err(GenError::map(e));
    }
    let exact = unsure_passes.is_empty();
    Ok(Generated {
        insns: g.a.finish()?,
        exact,
        decisive: exact && !g.maybe_unsure,
        unsure_passes,
        tables: g
            .tables
            .into_iter()
            .map(|(c, t, table)| (c, t, Mutex::new(table)))
            .collect(),
        enable,
        params: g.params.map(Mutex::new),
    })
}

/// The instruction index of each step (what `add_param` names): an ARITH spans
/// its CONT slots too.
fn insn_indexes(steps: &[Step]) -> Vec<usize> {
    steps
        .iter()
        .scan(0, |at, s| {
            let i = *at;
            *at += usize::from(s.span.max(1));
            Some(i)
        })
        .collect()
}

/// The parameter table of [`Env::params`], holding every EQ and EQ2 operand of
/// the editable clauses' passes.
fn params_table(decoded: &[Decoded], editable: &[bool]) -> Result<Table, GenError> {
    let mut keys = Vec::new();
    for (c, d) in decoded.iter().enumerate() {
        if !editable.get(c).copied().unwrap_or(false) {
            continue;
        }
        for (p, pass) in d.passes.iter().enumerate() {
            for (s, insn) in pass.steps.iter().zip(insn_indexes(&pass.steps)) {
                if let Op::Eq { ops, .. } | Op::Eq2 { ops, .. } = s.op {
                    for &v in ops.values(&d.pool) {
                        keys.push(param_words(c, p, insn, v));
                    }
                }
            }
        }
    }
    let room = (keys.len() as u32)
        .saturating_mul(PARAM_ROOM)
        .max(PARAM_MIN);
    // Every EQ and EQ2 of an editable clause probes this table, so its probe
    // is short (the program's size is charged to its socket), and it is kept
    // at most a quarter full (twice the room) so no operand misses a slot.
    let mut t = Table::with_probes(2 * room as usize, PARAM_PROBES).map_err(GenError::map)?;
    for k in &keys {
        t.insert(k, 1)
            .map_err(|e| GenError::map(crate::sys::Error::invalid(e.to_string())))?;
    }
    Ok(t)
}

impl<'a> Gen<'a> {
    /// The clauses' code for an untagged frame, then, where the kernel may have
    /// taken a tag out, for a tagged one: the same clauses, or `tagged`'s, which
    /// are numbered from `first + clauses.len()` and whose passes are numbered
    /// after the clauses'. Returns the passes that accept unsure. Clause `c` is
    /// numbered `first + c` (its key tables and operand map entries).
    fn both_tags(
        &mut self,
        (clauses, decoded): (&[&'a PassSet], &'a [Decoded]),
        tagged_sets: Option<(&[&'a PassSet], &'a [Decoded])>,
        first: usize,
        enable: Option<&Region>,
        env: Env,
    ) -> Vec<usize> {
        let end = self.reject;
        let tagged = self.a.label();
        match env.vlan {
            Vlan::InData => {}
            Vlan::Ahead => {
                if let Some((sets, d)) = tagged_sets {
                    return self.ahead(((clauses, decoded), (sets, d)), first, env);
                }
            }
            Vlan::Skb => {
                // __sk_buff.vlan_present, the context's sixth word.
                self.a.ldx(Width::W, VAL, CTX, 20);
                self.a.jmp_imm(Cond::Ne, VAL, 0, tagged);
            }
            // With no clause there is nothing user space could want of a
            // tagged frame either: it is rejected with the rest.
            Vlan::SkbTaggedToUser if !clauses.is_empty() => {
                let untagged = self.a.label();
                self.a.ldx(Width::W, VAL, CTX, 20);
                self.a.jmp_imm(Cond::Eq, VAL, 0, untagged);
                self.give_up();
                self.a.bind(untagged);
            }
            Vlan::SkbTaggedToUser => {}
            Vlan::TestContext => {
                // __sk_buff.priority, the ninth word.
                self.a.ldx(Width::W, VAL, CTX, 32);
                self.a.jmp_imm(Cond::Ne, VAL, 0, tagged);
            }
        }
        self.tagged = false;
        let mut unsure_passes = self.body(clauses, decoded, first, enable, env);
        self.a.ja(end);
        if !matches!(env.vlan, Vlan::InData | Vlan::Ahead | Vlan::SkbTaggedToUser) {
            self.a.bind(tagged);
            // The tag as bytes 12 to 15 would read, kept on the stack for the loads.
            if env.vlan == Vlan::Skb {
                // vlan_proto is the socket buffer's big-endian field read as it lies,
                // vlan_tci a host-order number.
                self.a.ldx(Width::W, R2, CTX, 28);
                self.a.to_be(R2, 16);
                self.a.ldx(Width::W, R3, CTX, 24);
            } else {
                self.a.ldx(Width::W, R2, CTX, 32);
                self.a.ldx(Width::W, R3, CTX, 8);
            }
            self.a.alu64_imm(Alu::And, R2, 0xffff);
            self.a.alu64_imm(Alu::Lsh, R2, 16);
            self.a.alu64_imm(Alu::And, R3, 0xffff);
            self.a.alu64_reg(Alu::Or, R2, R3);
            self.a.stx(Width::W, R10, TAG, R2);
            self.tagged = true;
            match tagged_sets {
                None => {
                    self.body(clauses, decoded, first, enable, env);
                }
                Some((sets, d)) => {
                    let before: usize = decoded.iter().map(|d| d.passes.len()).sum();
                    let more = self.body(sets, d, first + clauses.len(), None, env);
                    unsure_passes.extend(more.into_iter().map(|p| before + p));
                }
            }
            self.a.ja(end);
        }
        unsure_passes
    }

    /// [`Vlan::Ahead`]'s halves: the untagged program, and the tagged one for a
    /// frame whose outermost EtherType (bytes 12 and 13) is 802.1Q or 802.1ad,
    /// read as it is (the tag is in its data). A frame too short to have one
    /// is untagged.
    #[allow(clippy::type_complexity)]
    fn ahead(
        &mut self,
        ((clauses, decoded), (sets, d)): (
            (&[&'a PassSet], &'a [Decoded]),
            (&[&'a PassSet], &'a [Decoded]),
        ),
        first: usize,
        env: Env,
    ) -> Vec<usize> {
        let (end, tagged, untagged) = (self.reject, self.a.label(), self.a.label());
        self.a.mov64_reg(R1, CTX);
        self.a.mov64_imm(R2, TAG_AT as i32);
        self.a.mov64_reg(R3, R10);
        self.a.alu64_imm(Alu::Add, R3, LOADBUF as i32);
        self.a.mov64_imm(R4, 2);
        self.a.call(XDP_LOAD_BYTES);
        self.a.jmp_imm(Cond::Ne, R0, 0, untagged);
        self.a.ldx(Width::H, VAL, R10, LOADBUF);
        self.a.to_be(VAL, 16);
        self.a.jmp_imm(Cond::Eq, VAL, 0x8100, tagged);
        self.a.jmp_imm(Cond::Eq, VAL, 0x88a8, tagged);
        self.a.bind(untagged);
        self.tagged = false;
        let mut unsure_passes = self.body(clauses, decoded, first, None, env);
        self.a.ja(end);
        self.a.bind(tagged);
        let before: usize = decoded.iter().map(|d| d.passes.len()).sum();
        let more = self.body(sets, d, first + clauses.len(), None, env);
        unsure_passes.extend(more.into_iter().map(|p| before + p));
        self.a.ja(end);
        unsure_passes
    }

    /// Every clause's root passes in order (one half of the program). Returns the
    /// passes, numbered across clauses, that hold an operation not compiled.
    fn body(
        &mut self,
        clauses: &[&'a PassSet],
        decoded: &'a [Decoded],
        first: usize,
        enable: Option<&Region>,
        env: Env,
    ) -> Vec<usize> {
        let end = self.reject;
        let mut unsure_passes = Vec::new();
        let mut numbered = 0;
        for (c, (set, d)) in clauses.iter().zip(decoded).enumerate() {
            let c = first + c;
            let next_clause = self.a.label();
            if let Some(r) = enable {
                // The clause's word in shared memory, by address: no lookup.
                self.a.ld_map_value(R0, r.map().fd(), 4 * c as u32);
                self.a.ldx(Width::W, R1, R0, 0);
                self.a.jmp_imm(Cond::Eq, R1, 0, next_clause);
            }
            self.set = set;
            self.passes = &d.passes;
            self.pool = &d.pool;
            self.clause = c;
            self.reject = if self.checked { next_clause } else { end };
            self.far = self.a.label();
            for (i, p) in d.passes.iter().enumerate() {
                if p.kind != PassKind::Root {
                    continue;
                }
                let next = self.a.label();
                let whole = self.steps(&p.steps, next, i, 0);
                self.ret(env.accept(whole));
                self.a.bind(next);
                if !whole {
                    unsure_passes.push(numbered + i);
                }
            }
            // A field past what LD_ABS reaches: unsure in a frame that long, else
            // past the end, the clause's fault.
            self.a.ja(next_clause);
            self.a.bind(self.far);
            self.frame_len(R3);
            self.a.jmp_imm(Cond::Gt, R3, MAX_OFFSET, self.unsure);
            self.a.ja(self.reject);
            self.a.bind(next_clause);
            numbered += d.passes.len();
        }
        self.reject = end;
        unsure_passes
    }

    /// `dst` = the frame's length as the capture shows it: `__sk_buff.len` (the
    /// whole frame, `skb->data` being at the MAC header), and the tag's 4 bytes
    /// in the tagged half.
    fn frame_len(&mut self, dst: Reg) {
        if self.hook.is_xdp() {
            self.a.ldx(Width::W, dst, R10, XDP_LEN);
            return;
        }
        self.a.ldx(Width::W, dst, CTX, 0);
        if self.tagged {
            self.a.alu64_imm(Alu::Add, dst, TAG_LEN as i32);
        }
    }

    /// The program's verdict `v`: returned, or on the XDP hook handed to the
    /// epilogue in r0.
    fn ret(&mut self, v: i32) {
        self.a.mov64_imm(R0, v);
        match self.hook {
            Hook::Skb | Hook::XdpVerdict => self.a.exit(),
            Hook::Xdp { .. } => self.a.ja(self.epilogue),
        }
    }

    /// A jump to [`UNSURE`] for a reason other than a far field.
    fn give_up(&mut self) {
        self.maybe_unsure = true;
        self.a.ja(self.unsure);
    }

    /// The steps of pass `pass` in order, as [`Gen::step`] makes each, except that
    /// a run of negated EQ2s on the same pair of fields ("neither field is any of
    /// these", as `not host (A or B or ...)` compiles) loads the two fields once.
    fn steps(&mut self, steps: &[Step], fail: Label, pass: usize, depth: usize) -> bool {
        let mut whole = true;
        let mut k = 0;
        let insns = insn_indexes(steps);
        while k < steps.len() {
            let run = steps[k..]
                .iter()
                .take_while(|s| s.negate && same_fields(&s.op, &steps[k].op))
                .count();
            // With operands in a map, each step looks its own up.
            if run >= 2 && self.operand_map().is_none() {
                self.negated_pairs(&steps[k..k + run], fail);
                k += run;
            } else {
                self.insn = insns[k];
                whole &= self.step(&steps[k], fail, pass, depth);
                k += 1;
            }
        }
        whole
    }

    /// A run of negated "either field" EQ2s on one pair of fields. Each step would
    /// load the first field, and the second unless the first is one of its values;
    /// so the second is loaded (and may fault) exactly when the first is none of
    /// the first step's values, as the steps one by one would. Then the run fails
    /// if either field is any value of any step.
    fn negated_pairs(&mut self, run: &[Step], fail: Label) {
        let Op::Eq2 { field, pair, .. } = run[0].op else {
            unreachable!("same_fields admits only EQ2");
        };
        let Field {
            anchor,
            size,
            off,
            mask,
        } = field;
        let vals = |g: &Self, s: &Step| match s.op {
            Op::Eq2 { ops, .. } => ops.values(g.pool).to_vec(),
            _ => Vec::new(),
        };
        let mask = loaded_mask(mask, size);
        let first = vals(self, &run[0]);
        let all: Vec<u32> = run.iter().flat_map(|s| vals(self, s)).collect();
        let at = self.field(anchor, off, ADDR);
        let at2 = self.offset(at, pair.delta.into(), ADDR2);
        let (hit, miss) = (self.a.label(), self.a.label());
        // The first field against the first step's values, then load the second.
        self.load(size, at, 0);
        self.a.stx(Width::W, R10, SAVED, VAL);
        self.equals(mask, &first, fail, miss);
        self.a.bind(miss);
        self.load(size, at2, 0);
        // No load follows, so r2 keeps the second field.
        self.a.mov64_reg(R2, VAL);
        // The first field against the rest of the run's values (it is none of
        // the first step's, or the run failed above), the second against all.
        let rest = &all[first.len()..];
        if !rest.is_empty() {
            self.a.ldx(Width::W, VAL, R10, SAVED);
            let second = self.a.label();
            self.equals(mask, rest, hit, second);
            self.a.bind(second);
        }
        self.a.mov64_reg(VAL, R2);
        let pass = self.a.label();
        self.equals(mask, &all, hit, pass);
        self.a.bind(hit);
        self.a.ja(fail);
        self.a.bind(pass);
    }

    /// One step of pass `pass`, at GROUP nesting `depth`: falls through if it
    /// passes, jumps to `fail` if not. Returns false if an operation was not
    /// compiled (it then passes).
    fn step(&mut self, s: &Step, fail: Label, pass: usize, depth: usize) -> bool {
        let (pass_label, no) = (self.a.label(), self.a.label());
        // The test jumps to `yes`/`no`; a negated one has them swapped. An invalid
        // operation is false either way.
        let (yes, not) = if s.negate {
            (no, pass_label)
        } else {
            (pass_label, no)
        };
        let x = Exits {
            yes,
            not,
            no,
            pass: pass_label,
            fail,
        };
        let (tested, compiled) = match self.operation(s.op, pass, depth, x) {
            Emitted::Test => (true, true),
            Emitted::Nothing => (false, true),
            Emitted::NotCompiled => (false, false),
            Emitted::Closed(whole) => return whole,
        };
        self.a.bind(no);
        if tested {
            self.a.ja(fail);
        }
        self.a.bind(pass_label);
        compiled
    }

    /// The code of operation `op` of pass `pass`, at GROUP nesting `depth`, with
    /// the step's exits `x`, and what the step still has to bind.
    fn operation(&mut self, op: Op, pass: usize, depth: usize, x: Exits) -> Emitted {
        let Exits { yes, not, fail, .. } = x;
        match op {
            Op::Eq { field, ops, .. } => self.eq(field, ops, None, pass, x),
            Op::Eq2 {
                field, pair, ops, ..
            } => self.eq(field, ops, Some(pair), pass, x),
            Op::Range { field, ops } => self.range(field, ops, None, x),
            Op::Range2 { field, pair, ops } => self.range(field, ops, Some(pair), x),
            Op::Len { ops } => {
                let ranges = ops.ranges(self.pool);
                self.frame_len(VAL);
                self.in_ranges(u32::MAX, ranges, yes, not);
                Emitted::Test
            }
            Op::Prefix {
                anchor,
                off,
                bits,
                pair,
                ops,
            } => self.prefix_op(anchor, off, bits, pair, ops, x),
            Op::Invalid => {
                self.a.ja(fail);
                Emitted::Test
            }
            Op::InvalidAt { anchor, off } => {
                // The address is worked out (it may fault), then the test is false.
                let _ = self.field(anchor, off, ADDR);
                self.a.ja(fail);
                Emitted::Test
            }
            Op::True => Emitted::Nothing,
            Op::Group { first, count } => self.group(first, count, pass, depth, x),
            Op::Set {
                anchor,
                off,
                size,
                n,
                start,
            } => {
                let p: [u32; 9] = self.pool[start as usize..][..9]
                    .try_into()
                    .expect("decode writes nine words");
                let Some(probe) = self.table(p[0]) else {
                    // No such table: the SET is invalid, so false.
                    let _ = self.field(anchor, off, ADDR);
                    self.a.ja(fail);
                    return Emitted::Closed(true);
                };
                self.set_lookup(probe, anchor, off, size, n, p, yes, not);
                Emitted::Test
            }
            Op::Arith { rel, start, n } => {
                let m = &self.pool[start as usize..][..2 * n as usize];
                self.arith(rel, m, fail, yes, not);
                Emitted::Test
            }
            Op::Protochain { .. } => Emitted::NotCompiled,
        }
    }

    /// EQ/MEQ (`pair` `None`) or EQ2: the field (and the pair's second) against
    /// the operands, or against the operand map when the clause's operands are
    /// kept in one.
    fn eq(
        &mut self,
        field: Field,
        ops: Operands,
        pair: Option<Pair>,
        pass: usize,
        x: Exits,
    ) -> Emitted {
        let mask = loaded_mask(field.mask, field.size);
        let vals = ops.values(self.pool);
        let params = self.operand_map();
        let test = |g: &mut Self, y, n| match params {
            Some(probe) => g.param_lookup(probe, mask, pass, y, n),
            None => g.equals(mask, vals, y, n),
        };
        self.fields(field, pair, x.yes, x.not, test);
        Emitted::Test
    }

    /// RANGE (`pair` `None`) or RANGE2: the field (and the pair's second) against
    /// the operands' ranges.
    fn range(&mut self, field: Field, ops: Operands, pair: Option<Pair>, x: Exits) -> Emitted {
        let mask = loaded_mask(field.mask, field.size);
        let ranges = ops.ranges(self.pool);
        let test = |g: &mut Self, y, n| g.in_ranges(mask, ranges, y, n);
        self.fields(field, pair, x.yes, x.not, test);
        Emitted::Test
    }

    /// PREFIX: the words at anchor `anchor` + `off`, and with a pair's distance
    /// the words that far on, decided as EQ2 is.
    fn prefix_op(
        &mut self,
        anchor: u8,
        off: u32,
        bits: u32,
        pair: Pair,
        ops: Operands,
        x: Exits,
    ) -> Emitted {
        let words = ops.values(self.pool);
        let at = self.field(anchor, off, ADDR);
        if pair.delta == 0 {
            self.prefix(at, words, bits, x.yes, x.not);
        } else {
            let at2 = self.offset(at, pair.delta.into(), ADDR2);
            let (first_yes, first_no) = (self.a.label(), self.a.label());
            self.prefix(at, words, bits, first_yes, first_no);
            self.decide_pair(pair.both, first_yes, first_no, x.yes, x.not);
            self.prefix(at2, words, bits, x.yes, x.not);
        }
        Emitted::Test
    }

    /// GROUP: each Sub pass of the range in turn, as the walks try them; the first
    /// that gets to its end makes the GROUP true. An invalid range is false. Binds
    /// the step's exits itself.
    fn group(&mut self, first: u32, count: u32, pass: usize, depth: usize, x: Exits) -> Emitted {
        let Some(range) = group_range(first, count, pass, self.passes.len(), depth) else {
            self.a.ja(x.fail);
            return Emitted::Closed(true);
        };
        let mut whole = true;
        for j in range {
            if self.passes[j].kind != PassKind::Sub {
                continue;
            }
            let next_sub = self.a.label();
            whole &= self.steps(&self.passes[j].steps, next_sub, j, depth + 1);
            self.a.ja(x.yes);
            self.a.bind(next_sub);
        }
        self.a.ja(x.not);
        self.a.bind(x.no);
        self.a.ja(x.fail);
        self.a.bind(x.pass);
        Emitted::Closed(whole)
    }

    /// The address of the field at anchor `anchor` + `off`: a constant for the
    /// packet's start (most fields), else `dst` worked out from the packet, or a
    /// jump to [`UNSURE`] when a load on the way cannot be made or the address
    /// leaves the loadable range.
    fn field(&mut self, anchor: u8, off: u32, dst: Reg) -> Addr {
        if anchor == 0 {
            return self.constant(off);
        }
        self.anchor(anchor as usize, dst, 0, false);
        let min = self.anchor_min(anchor as usize, 0);
        self.offset(Addr::Reg(dst, min), off, dst)
    }

    /// The least value anchor `a` can take: its offsets from the packet start
    /// (every rule adds a length to its parent's value plus offset).
    fn anchor_min(&self, a: usize, depth: usize) -> u32 {
        match self.set.anchors().get(a) {
            Some(x) if a != 0 && (x.parent() as usize) < a && depth <= netsift_isa::MAX_ANCHORS => {
                (x.offset() as u32).saturating_add(self.anchor_min(x.parent() as usize, depth + 1))
            }
            _ => 0,
        }
    }

    /// A constant address, or the far-field exit if no load can reach it.
    fn constant(&mut self, at: u32) -> Addr {
        if at > MAX_OFFSET as u32 {
            self.a.ja(self.far);
        }
        Addr::Const(at.min(MAX_OFFSET as u32))
    }

    /// `at + delta`, in `dst` when `at` is not a constant.
    fn offset(&mut self, at: Addr, delta: u32, dst: Reg) -> Addr {
        match at {
            Addr::Const(c) => self.constant(c.saturating_add(delta)),
            Addr::Reg(r, min) => {
                if r != dst {
                    self.a.mov64_reg(dst, r);
                }
                if delta != 0 {
                    self.a
                        .alu64_imm(Alu::Add, dst, delta.min(MAX_OFFSET as u32 + 1) as i32);
                    self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.far);
                }
                Addr::Reg(dst, min.saturating_add(delta))
            }
        }
    }

    /// ARITH: the micro-ops `m` (two words each: the micro-op, its operand) on a
    /// stack of [`ARITH_STACK`] words kept on the eBPF stack, then `a rel b`. The
    /// stack's depth at each micro-op is known here, so stack misuse and a bad
    /// operand become a jump to `fail` where the engine would find them (after the
    /// loads before them, which may fault first).
    fn arith(&mut self, rel: u8, m: &[u32], fail: Label, yes: Label, no: Label) {
        let mut sp = 0usize;
        for op in m.chunks_exact(2) {
            let next = match op[0] & BAD_OPERAND {
                0 => self.micro_op(op[0] as u16, op[1], sp),
                _ => None,
            };
            match next {
                Some(depth) => sp = depth,
                None => {
                    self.a.ja(fail);
                    return;
                }
            }
        }
        if sp != 2 {
            self.a.ja(fail);
            return;
        }
        self.a.ldx(Width::W, VAL, R10, arith_slot(0));
        self.a.ldx(Width::W, R2, R10, arith_slot(1));
        let c = match rel {
            0 => Cond::Eq,
            1 => Cond::Gt,
            _ => Cond::Ge,
        };
        self.a.jmp32_reg(c, VAL, R2, yes);
        self.a.ja(no);
    }

    /// One ARITH micro-op on a stack `sp` deep: returns the new depth, or `None`
    /// if the micro-op is invalid there (the caller fails the test).
    fn micro_op(&mut self, micro: u16, operand: u32, sp: usize) -> Option<usize> {
        let kind = ArithOp::from_bits(micro >> 12);
        match kind {
            ArithOp::Push | ArithOp::Len => {
                if sp == ARITH_STACK {
                    return None;
                }
                if kind == ArithOp::Len {
                    self.frame_len(VAL);
                    self.a.stx(Width::W, R10, arith_slot(sp), VAL);
                } else {
                    self.a.st(Width::W, R10, arith_slot(sp), operand as i32);
                }
                Some(sp + 1)
            }
            ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4 => {
                self.arith_load(kind, micro & 0x7ff, sp)?;
                Some(sp)
            }
            ArithOp::Neg => {
                if sp == 0 {
                    return None;
                }
                self.a.ldx(Width::W, VAL, R10, arith_slot(sp - 1));
                self.a.alu32_imm(Alu::Mul, VAL, -1);
                self.a.stx(Width::W, R10, arith_slot(sp - 1), VAL);
                Some(sp)
            }
            _ => self.arith_binary(kind, micro, operand, sp),
        }
    }

    /// LD1/LD2/LD4: replaces the top of the stack (`sp` deep) by the packet field
    /// it indexes, in the index mode of `arg`. `None` if invalid here.
    fn arith_load(&mut self, kind: ArithOp, arg: u16, sp: usize) -> Option<()> {
        let size = match kind {
            ArithOp::Ld1 => Size::B1,
            ArithOp::Ld2 => Size::B2,
            _ => Size::B4,
        };
        let (Some(mode), true) = (IndexMode::of_arg(arg), sp > 0) else {
            return None;
        };
        let a = (arg & 0x3f) as u8;
        let o = match (mode, a) {
            (IndexMode::Plain, _) | (_, 0) => 0,
            _ => self.set.anchors().get(a as usize)?.offset() as u32,
        };
        // The anchor's value in ADDR, the index in R2, then the place
        // as `IndexMode::place` works it out: wrapping inside, and a
        // fault past 2^32 outside.
        // The index may wrap the place back below an anchor past
        // 64 KiB, so such an anchor is not a fault here.
        self.anchor(a as usize, ADDR, 0, mode != IndexMode::Plain);
        self.a.ldx(Width::W, R2, R10, arith_slot(sp - 1));
        match mode {
            IndexMode::Plain => self.a.alu64_reg(Alu::Add, ADDR, R2),
            IndexMode::InX => {
                self.a.alu32_imm(Alu::Sub, ADDR, o as i32);
                self.a.alu32_reg(Alu::Add, ADDR, R2);
                self.a.alu64_imm(Alu::Add, ADDR, o as i32);
            }
            IndexMode::InK => {
                self.a.alu32_imm(Alu::Sub, ADDR, o as i32);
                self.a.alu32_imm(Alu::Add, R2, o as i32);
                self.a.alu64_reg(Alu::Add, ADDR, R2);
            }
        }
        // Past 2^32: a fault. Past 64 KiB: not loadable here.
        self.a.mov64_reg(R3, ADDR);
        self.a.alu64_imm(Alu::Rsh, R3, 32);
        self.a.jmp_imm(Cond::Ne, R3, 0, self.reject);
        self.a.jmp_imm(Cond::Gt, ADDR, MAX_OFFSET, self.far);
        self.load(size, Addr::Reg(ADDR, 0), 0);
        self.a.stx(Width::W, R10, arith_slot(sp - 1), VAL);
        Some(())
    }

    /// A binary micro-op: `b` is the operand (immediate) or popped, `a` the new
    /// top, replaced by `a op b` as BPF computes it (a division by zero faults, a
    /// shift of 32 or more gives 0). Returns the new depth, `None` if invalid here.
    fn arith_binary(
        &mut self,
        kind: ArithOp,
        micro: u16,
        operand: u32,
        sp: usize,
    ) -> Option<usize> {
        let mut sp = sp;
        // b: the operand, or popped.
        if micro & 0x800 != 0 {
            self.a.mov64_imm(R2, operand as i32);
        } else {
            if sp == 0 {
                return None;
            }
            sp -= 1;
            self.a.ldx(Width::W, R2, R10, arith_slot(sp));
        }
        if sp == 0 {
            return None;
        }
        self.a.ldx(Width::W, VAL, R10, arith_slot(sp - 1));
        let op = match kind {
            ArithOp::Add => Alu::Add,
            ArithOp::Sub => Alu::Sub,
            ArithOp::Mul => Alu::Mul,
            ArithOp::Div => Alu::Div,
            ArithOp::Mod => Alu::Mod,
            ArithOp::And => Alu::And,
            ArithOp::Or => Alu::Or,
            ArithOp::Xor => Alu::Xor,
            ArithOp::Shl => Alu::Lsh,
            ArithOp::Shr => Alu::Rsh,
            _ => return None,
        };
        if matches!(op, Alu::Div | Alu::Mod) {
            // A division by zero faults.
            self.a.jmp32_imm(Cond::Eq, R2, 0, self.reject);
        }
        if matches!(op, Alu::Lsh | Alu::Rsh) {
            // BPF yields 0 for a shift of 32 or more.
            let (shift, done) = (self.a.label(), self.a.label());
            self.a.jmp32_imm(Cond::Lt, R2, 32, shift);
            self.a.mov64_imm(VAL, 0);
            self.a.ja(done);
            self.a.bind(shift);
            self.a.alu32_reg(op, VAL, R2);
            self.a.bind(done);
        } else {
            self.a.alu32_reg(op, VAL, R2);
        }
        self.a.stx(Width::W, R10, arith_slot(sp - 1), VAL);
        Some(sp)
    }

    /// The probe of key table `t` (made and filled on first use), or `None` if
    /// the set has no such table (or it could not be made: the error is kept
    /// and the program is not returned).
    fn table(&mut self, t: u32) -> Option<Probe> {
        if let Some((_, _, table)) = self
            .tables
            .iter()
            .find(|(c, i, _)| (*c, *i) == (self.clause, t))
        {
            return Some(table.probe());
        }
        let keys = self.set.tables().get(t as usize)?.keys();
        // Room for as many keys again (at least 1,024), for the updates to come,
        // at most a quarter full so that every key lies within its short probe.
        let room = (keys.len() * 2).max(1024);
        let made = Table::with_probes(2 * room, SET_PROBES).and_then(|mut table| {
            for k in keys {
                table
                    .insert(&set_words(*k), 1)
                    .map_err(|e| crate::sys::Error::invalid(format!("a SET table: {e}")))?;
            }
            Ok(table)
        });
        match made {
            Ok(table) => {
                let probe = table.probe();
                self.tables.push((self.clause, t, table));
                Some(probe)
            }
            Err(e) => {
                self.map_error.get_or_insert(e);
                None
            }
        }
    }

    /// SET: the key `(A & ma) << 32 | (B & mb)` of field A (and B, if the SET has
    /// one) is in the table `probe` reads; with `n` 2 the pair `da`/`db` bytes on
    /// is tried when the first is not. The key is built on the stack as
    /// [`set_words`] lays it out.
    #[allow(clippy::too_many_arguments)]
    fn set_lookup(
        &mut self,
        probe: Probe,
        anchor: u8,
        off: u32,
        size: Size,
        n: u32,
        p: [u32; 9],
        yes: Label,
        no: Label,
    ) {
        let [_, has_b, b_anchor, b_off, b_size, da, db, ma, mb] = p;
        // A's address, then B's, as the engine works them out.
        let at = self.field(anchor, off, ADDR);
        let b_at = if has_b != 0 {
            let Some(bsize) = Size::from_bytes(1 << b_size) else {
                self.a.ja(no);
                return;
            };
            Some((self.field(b_anchor as u8, b_off, ADDR2), bsize))
        } else {
            None
        };
        for pair in 0..n.min(2) {
            let a_at = self.offset(at, pair * da, ADDR);
            self.load(size, a_at, 0);
            if ma != u32::MAX {
                self.a.alu32_imm(Alu::And, VAL, ma as i32);
            }
            self.a.stx(Width::W, R10, TABLE_KEY + 4, VAL);
            match b_at {
                Some((b, bsize)) => {
                    let b2 = self.offset(b, pair * db, ADDR2);
                    self.load(bsize, b2, 0);
                    if mb != u32::MAX {
                        self.a.alu32_imm(Alu::And, VAL, mb as i32);
                    }
                    self.a.stx(Width::W, R10, TABLE_KEY, VAL);
                }
                None => self.a.st(Width::W, R10, TABLE_KEY, 0),
            }
            for w in 2..5 {
                self.a.st(Width::W, R10, TABLE_KEY + 4 * w, 0);
            }
            probe.emit(&mut self.a, TABLE_KEY, yes);
        }
        self.a.ja(no);
    }

    /// `dst = the value of anchor a`. Anchors are worked out again at each use: a
    /// cache would be stack slots the verifier has to follow through every path.
    /// An anchor past 64 KiB is a far field (a rule that loads there faults, and
    /// so does any field after it), unless `wraps`: an ARITH index may bring the
    /// place back from a constant-rule anchor that far.
    fn anchor(&mut self, a: usize, dst: Reg, depth: usize, wraps: bool) {
        if a == 0 || depth > netsift_isa::MAX_ANCHORS {
            self.a.mov64_imm(dst, 0);
            if a != 0 {
                self.give_up();
            }
            return;
        }
        let Some(anchor) = self.set.anchors().get(a).copied() else {
            // An anchor that does not exist never resolves: its tests are false
            // in the engine; unsure here keeps the kernel's side a superset.
            self.give_up();
            return;
        };
        let Some(rule) = anchor.rule() else {
            self.give_up();
            return;
        };
        if anchor.parent() as usize >= a {
            self.give_up();
            return;
        }
        let c = anchor.offset() as u32;
        if anchor.parent() == 0 && rule == AnchorRule::Ipv4Payload && c < MAX_OFFSET as u32 {
            // The header's place is known: its first byte is a constant load, and
            // `dst` is that place plus the header's length (IPv4 after a link
            // header, the usual case).
            self.load(Size::B1, Addr::Const(c), 0);
            self.a.alu64_imm(Alu::And, VAL, 0x0f);
            self.a.alu64_imm(Alu::Lsh, VAL, 2);
            self.a.mov64_reg(dst, VAL);
            self.a.alu64_imm(Alu::Add, dst, c as i32);
            return;
        }
        self.anchor(anchor.parent() as usize, dst, depth + 1, wraps);
        self.a.alu64_imm(Alu::Add, dst, anchor.offset() as i32);
        let min = self.anchor_min(a, 0);
        if min > MAX_OFFSET as u32 || anchor.parent() != 0 {
            if wraps && rule == AnchorRule::Const {
                self.maybe_unsure = true;
                self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.unsure);
            } else {
                self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.far);
            }
        }
        self.rule(rule, anchor, dst, min, wraps);
    }

    /// Applies an anchor rule to `h` in `dst` (the engine's `apply_rule`); `min`
    /// is the least value `dst` holds.
    fn rule(&mut self, rule: AnchorRule, _anchor: Anchor, dst: Reg, min: u32, wraps: bool) {
        let ipv4 = |g: &mut Self| {
            g.load(Size::B1, Addr::Reg(dst, min), 0);
            g.a.alu64_imm(Alu::And, VAL, 0x0f);
            g.a.alu64_imm(Alu::Lsh, VAL, 2);
            g.a.alu64_reg(Alu::Add, dst, VAL);
        };
        match rule {
            AnchorRule::Const => {}
            AnchorRule::Ipv4Payload => ipv4(self),
            AnchorRule::TcpPayload => {
                self.load(Size::B1, Addr::Reg(dst, min), 12);
                self.a.alu64_imm(Alu::Rsh, VAL, 4);
                self.a.alu64_imm(Alu::Lsh, VAL, 2);
                self.a.alu64_reg(Alu::Add, dst, VAL);
            }
            AnchorRule::IpPayloadByVersion => {
                let (v6, done) = (self.a.label(), self.a.label());
                self.load(Size::B1, Addr::Reg(dst, min), 0);
                self.a.alu64_imm(Alu::Rsh, VAL, 4);
                self.a.jmp_imm(Cond::Ne, VAL, 4, v6);
                ipv4(self);
                self.a.ja(done);
                self.a.bind(v6);
                self.a.alu64_imm(Alu::Add, dst, 40);
                self.a.bind(done);
            }
            // The Geneve and link-type-selected rules are left to user space.
            rule => {
                if !self.wlan_rule(rule, dst, min, wraps) {
                    self.give_up();
                }
            }
        }
    }

    /// `VAL = the size-wide big-endian field at addr + k`, or a jump to
    /// [`UNSURE`]. Clobbers r0-r5.
    fn load(&mut self, size: Size, addr: Addr, k: i32) {
        // The legacy packet loads: from `skb->data` (the MAC header on a packet
        // socket and in a SCHED_CLS test run), in network order, reading paged
        // data too, and ending the program with 0 past the packet, which is what
        // the engine's fault does to a static set. The JIT inlines the fast path.
        let width = match size {
            Size::B1 => 0x10,
            Size::B2 => 0x08,
            Size::B4 => 0x00,
        };
        let n = size.bytes() as i64;
        if self.checked {
            // The field must end within the frame, or the clause faults.
            self.frame_len(R3);
            match addr {
                Addr::Const(c) => {
                    let end = (c as i64 + k as i64 + n).min(i32::MAX as i64);
                    self.a.jmp32_imm(Cond::Lt, R3, end as u32, self.reject);
                }
                Addr::Reg(r, _) => {
                    self.a.mov64_reg(R4, r);
                    self.a.alu64_imm(Alu::Add, R4, k + n as i32);
                    self.a.jmp_reg(Cond::Gt, R4, R3, self.reject);
                }
            }
        }
        if self.hook.is_xdp() {
            self.xdp_load(size, addr, k);
            return;
        }
        match addr {
            Addr::Const(c) => {
                let at = c as i64 + k as i64;
                if at > MAX_OFFSET as i64 {
                    self.a.ja(self.far);
                }
                let at = at.min(MAX_OFFSET as i64);
                if self.tagged {
                    self.tagged_const(width, at, n);
                } else {
                    self.a.raw(LD_ABS | width, R0, 0, at as i32);
                }
            }
            // The register holds at most MAX_OFFSET (checked where it was made),
            // so `r + k` cannot turn negative, which LD_IND would read as one of
            // the kernel's special offsets.
            Addr::Reg(r, min) if self.tagged && (min as i64 + k as i64) < TAG_AT + TAG_LEN => {
                // Where the field lies against the tag is known only now: past
                // it, before it, or at one of the few places that touch it.
                let (hi, lo, done) = (self.a.label(), self.a.label(), self.a.label());
                self.a.mov64_reg(R4, r);
                self.a.alu64_imm(Alu::Add, R4, k);
                self.a
                    .jmp_imm(Cond::Gt, R4, (TAG_AT + TAG_LEN - 1) as i32, hi);
                self.a.jmp_imm(Cond::Le, R4, (TAG_AT - n) as i32, lo);
                let first = TAG_AT - n + 1;
                let cases: Vec<(i64, Label)> = (first..TAG_AT + TAG_LEN)
                    .map(|at| (at, self.a.label()))
                    .collect();
                for &(at, l) in &cases[..cases.len() - 1] {
                    self.a.jmp_imm(Cond::Eq, R4, at as i32, l);
                }
                // The two tests above leave only these places.
                self.a.ja(cases[cases.len() - 1].1);
                for (at, l) in cases {
                    self.a.bind(l);
                    self.tagged_const(width, at, n);
                    self.a.ja(done);
                }
                self.a.bind(hi);
                self.a.raw(LD_IND | width, r, 0, k - TAG_LEN as i32);
                self.a.ja(done);
                self.a.bind(lo);
                self.a.raw(LD_IND | width, r, 0, k);
                self.a.bind(done);
            }
            Addr::Reg(r, _) if self.tagged => {
                // At or past the tag's end however the packet reads.
                self.a.raw(LD_IND | width, r, 0, k - TAG_LEN as i32);
            }
            Addr::Reg(r, _) => self.a.raw(LD_IND | width, r, 0, k),
        }
        self.a.mov64_reg(VAL, R0);
    }

    /// `VAL` = the field at `addr + k` on the XDP hook, through
    /// `bpf_xdp_load_bytes` into a stack slot (it reads fragments too, and fails
    /// past the frame: the fault), in network order like `LD_ABS`.
    fn xdp_load(&mut self, size: Size, addr: Addr, k: i32) {
        let n = size.bytes() as i32;
        self.a.mov64_reg(R1, CTX);
        match addr {
            Addr::Const(c) => {
                let at = c as i64 + k as i64;
                if at > MAX_OFFSET as i64 {
                    self.a.ja(self.far);
                }
                self.a.mov64_imm(R2, at.min(MAX_OFFSET as i64) as i32);
            }
            Addr::Reg(r, _) => {
                self.a.mov64_reg(R2, r);
                if k != 0 {
                    self.a.alu64_imm(Alu::Add, R2, k);
                }
            }
        }
        self.a.mov64_reg(R3, R10);
        self.a.alu64_imm(Alu::Add, R3, LOADBUF as i32);
        self.a.mov64_imm(R4, n);
        self.a.call(XDP_LOAD_BYTES);
        self.a.jmp_imm(Cond::Ne, R0, 0, self.reject);
        let w = match size {
            Size::B1 => Width::B,
            Size::B2 => Width::H,
            Size::B4 => Width::W,
        };
        self.a.ldx(w, VAL, R10, LOADBUF);
        if n > 1 {
            self.a.to_be(VAL, 8 * n);
        }
    }

    /// `R0` = the `n` bytes at `at` of a frame whose tag the kernel took out: read
    /// 4 bytes back past the tag, from the stacked tag inside it, and byte by byte
    /// where the field straddles one of its edges.
    fn tagged_const(&mut self, width: u8, at: i64, n: i64) {
        let end = at + n;
        if end <= TAG_AT {
            self.a.raw(LD_ABS | width, R0, 0, at as i32);
        } else if at >= TAG_AT + TAG_LEN {
            self.a.raw(LD_ABS | width, R0, 0, (at - TAG_LEN) as i32);
        } else if at >= TAG_AT && end <= TAG_AT + TAG_LEN {
            self.a.ldx(Width::W, R0, R10, TAG);
            let shift = 8 * (TAG_AT + TAG_LEN - end);
            if shift != 0 {
                self.a.alu64_imm(Alu::Rsh, R0, shift as i32);
            }
            if n < 4 {
                self.a
                    .alu64_imm(Alu::And, R0, ((1i64 << (8 * n)) - 1) as i32);
            }
        } else {
            // Each byte on its own, gathered in VAL, which the load overwrites
            // anyway (byte loads clobber r0-r5).
            self.a.mov64_imm(VAL, 0);
            for b in at..end {
                self.tagged_const(0x10, b, 1);
                self.a.alu64_imm(Alu::Lsh, VAL, 8);
                self.a.alu64_reg(Alu::Or, VAL, R0);
            }
            self.a.mov64_reg(R0, VAL);
        }
    }

    /// `VAL & mask` is one of `vals`: jump to `yes` or `no`.
    fn equals(&mut self, mask: u32, vals: &[u32], yes: Label, no: Label) {
        if mask != u32::MAX {
            self.a.alu32_imm(Alu::And, VAL, mask as i32);
        }
        for &v in vals {
            self.a.jmp32_imm(Cond::Eq, VAL, v, yes);
        }
        self.a.ja(no);
    }

    /// The parameter table's probe if the clause being made looks its operands
    /// up there.
    fn operand_map(&self) -> Option<Probe> {
        let on = self.editable.get(self.clause).copied().unwrap_or(false);
        self.params.as_ref().filter(|_| on).map(|t| t.probe())
    }

    /// `VAL & mask` is an operand of the step being made, looked up in the
    /// parameter table under [`param_key`]'s words. The probe leaves r6 to r9
    /// alone.
    fn param_lookup(&mut self, probe: Probe, mask: u32, pass: usize, yes: Label, no: Label) {
        if mask != u32::MAX {
            self.a.alu32_imm(Alu::And, VAL, mask as i32);
        }
        self.a.st(Width::W, R10, TABLE_KEY, self.clause as i32);
        self.a.st(Width::H, R10, TABLE_KEY + 4, pass as i32);
        self.a.st(Width::H, R10, TABLE_KEY + 6, self.insn as i32);
        self.a.stx(Width::W, R10, TABLE_KEY + 8, VAL);
        self.a.st(Width::W, R10, TABLE_KEY + 12, 0);
        self.a.st(Width::W, R10, TABLE_KEY + 16, 0);
        probe.emit(&mut self.a, TABLE_KEY, yes);
        self.a.ja(no);
    }

    /// `VAL & mask` lies in one of the inclusive `(lo, hi)` pairs of `ranges`.
    fn in_ranges(&mut self, mask: u32, ranges: &[u32], yes: Label, no: Label) {
        if mask != u32::MAX {
            self.a.alu32_imm(Alu::And, VAL, mask as i32);
        }
        for r in ranges.chunks(2) {
            let next = self.a.label();
            self.a.jmp32_imm(Cond::Lt, VAL, r[0], next);
            self.a.jmp32_imm(Cond::Le, VAL, r[1], yes);
            self.a.bind(next);
        }
        self.a.ja(no);
    }

    /// The first `bits` bits of the words at `addr` equal `words`.
    fn prefix(&mut self, addr: Addr, words: &[u32], bits: u32, yes: Label, no: Label) {
        for (i, &w) in words.iter().enumerate() {
            let used = bits.saturating_sub(32 * i as u32).min(32);
            if used == 0 {
                break;
            }
            let mask = if used == 32 {
                u32::MAX
            } else {
                !(u32::MAX >> used)
            };
            self.load(Size::B4, addr, 4 * i as i32);
            if mask != u32::MAX {
                self.a.alu32_imm(Alu::And, VAL, mask as i32);
            }
            self.a.jmp32_imm(Cond::Ne, VAL, w & mask, no);
        }
        self.a.ja(yes);
    }

    /// After a two-field test's first field decided `first_yes` or `first_no`:
    /// "either" (`!both`) is decided by a hit, "both" by a miss; otherwise the code
    /// that follows tests the second field.
    fn decide_pair(
        &mut self,
        both: bool,
        first_yes: Label,
        first_no: Label,
        yes: Label,
        no: Label,
    ) {
        let second = self.a.label();
        self.a.bind(first_yes);
        if both {
            self.a.ja(second);
        } else {
            self.a.ja(yes);
        }
        self.a.bind(first_no);
        if both {
            self.a.ja(no);
        }
        self.a.bind(second);
    }

    /// `test` on `field` (unmasked), then with a `pair` (EQ2, RANGE2), unless the
    /// first decides, on the pair's second field. Both addresses are worked out
    /// before either load, as the engine does.
    fn fields(
        &mut self,
        field: Field,
        pair: Option<Pair>,
        yes: Label,
        no: Label,
        test: impl Fn(&mut Self, Label, Label),
    ) {
        let at = self.field(field.anchor, field.off, ADDR);
        let Some(pair) = pair else {
            self.load(field.size, at, 0);
            test(self, yes, no);
            return;
        };
        let at2 = self.offset(at, pair.delta.into(), ADDR2);
        let (first_yes, first_no) = (self.a.label(), self.a.label());
        self.load(field.size, at, 0);
        test(self, first_yes, first_no);
        self.decide_pair(pair.both, first_yes, first_no, yes, no);
        self.load(field.size, at2, 0);
        test(self, yes, no);
    }
}
