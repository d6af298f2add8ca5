//! Kernel placement: netsift's filters as eBPF programs in the Linux kernel.
//!
//! Swift ran its filter in the kernel and changed it in microseconds without a
//! verifier pass on the update. On today's Linux that is an eBPF program whose
//! static parts are straight-line code, checked by the verifier once at load, and
//! whose updatable parts live where user space can change them: operand sets,
//! SET key tables, clause enable bits and the follower's listeners in memory
//! shared with the kernel ([`shared`], [`table`]), where an edit is a few stores
//! and no system call; the follower's guesses, which the program writes, in a
//! BPF map, where user space's delete is one `bpf(2)` call (docs/architecture.md,
//! `kernel`).
//!
//! This crate is built bottom up:
//!
//! - [`asm`]: the eBPF instruction encoding and an assembler with labels, since
//!   netsift generates its programs itself (no clang at run time);
//! - [`sys`]: the `bpf(2)` system call: maps, loading (with the verifier's log on a
//!   refusal), `BPF_PROG_TEST_RUN`, and `SO_ATTACH_BPF`;
//! - [`helpers`]: the kernel helper functions the generated code calls;
//! - [`classic`]: libpcap's classic programs as eBPF, one instruction for one as
//!   the kernel converts them, so benchmarks run both through the same test run;
//! - [`codegen`]: a static pass set (or a live set's clauses), decoded by the
//!   engine, compiled to a socket filter or an XDP program that accepts at least
//!   what the engine accepts (exactly, where it is decisive); SET tables are
//!   shared tables, clause enable bits words of a shared region, and (if asked)
//!   operand sets a shared table;
//! - [`fpl`]: FFPF's FPL programs compiled to a socket filter whose MBuf and
//!   registers live in shared regions;
//! - [`graphs`]: the kernel-resident part of a running filter graph (counters
//!   and FPL sinks behind pcap filters) as one socket filter that returns 0;
//! - [`follow`]: `--follow` in the kernel: the follower's listener endpoints in a
//!   shared table, and FTP announcements read by the program itself;
//! - [`placed`]: programs attached under capture sockets, and a live set's
//!   clauses kept in the kernel in step with user space;
//! - [`ringbuf`]: the user-space side of the ring buffer the XDP program copies
//!   accepted frames into;
//! - [`shared`]: memory shared with the kernel (a `BPF_F_MMAPABLE` array map
//!   mapped into the process), written with plain stores;
//! - [`table`]: a versioned open-addressing hash table in such memory, which the
//!   generated program probes and user space edits without a system call.
//!
//! With `codegen::Env::params`, EQ and EQ2 operand sets live in a shared table,
//! so Swift's `add_param`/`del_param` are stores, with no system call.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod asm;
pub mod classic;
pub mod codegen;
pub mod follow;
pub mod fpl;
pub mod graphs;
mod layout;
pub mod placed;
pub mod ringbuf;
pub mod shared;
pub mod sys;
pub mod table;
mod xdp;

/// Kernel helper functions (`enum bpf_func_id`) and their constants.
pub mod helpers {
    /// `void *bpf_map_lookup_elem(map, key)`: the value's address, or NULL.
    pub const MAP_LOOKUP_ELEM: i32 = 1;
    /// `long bpf_map_update_elem(map, key, value, flags)`.
    pub const MAP_UPDATE_ELEM: i32 = 2;
    /// `long bpf_skb_load_bytes(skb, offset, to, len)`: from `skb->data`, which a
    /// packet socket sees at the MAC header and a test run at the network header.
    pub const SKB_LOAD_BYTES: i32 = 26;
    /// `long bpf_skb_load_bytes_relative(skb, offset, to, len, start)`: from the
    /// MAC (or network) header wherever `skb->data` is; linear data only.
    pub const SKB_LOAD_BYTES_RELATIVE: i32 = 68;
    /// `start` of [`SKB_LOAD_BYTES_RELATIVE`]: offsets from the MAC header.
    pub const HDR_START_MAC: i32 = 0;
    /// `long bpf_tail_call(ctx, prog_array, index)`: on to the program at
    /// `index`, not returning; falls through when there is none.
    pub const TAIL_CALL: i32 = 12;
    /// `u64 bpf_ktime_get_ns()`: CLOCK_MONOTONIC.
    pub const KTIME_GET_NS: i32 = 5;
    /// `void *bpf_ringbuf_reserve(ringbuf, size, flags)`: room for a record, or NULL.
    pub const RINGBUF_RESERVE: i32 = 131;
    /// `void bpf_ringbuf_submit(data, flags)`: hands a reserved record over.
    pub const RINGBUF_SUBMIT: i32 = 132;
    /// `void bpf_ringbuf_discard(data, flags)`: gives a reserved record back.
    pub const RINGBUF_DISCARD: i32 = 133;
    /// `u64 bpf_xdp_get_buff_len(xdp_md)`: the frame's length, fragments included.
    pub const XDP_GET_BUFF_LEN: i32 = 188;
    /// `long bpf_xdp_load_bytes(xdp_md, offset, to, len)`: fragments too; an
    /// error past the frame.
    pub const XDP_LOAD_BYTES: i32 = 189;
    /// `long bpf_redirect_map(map, key, flags)`: an XDP verdict that sends the
    /// frame where the map's entry `key` says.
    pub const REDIRECT_MAP: i32 = 51;
    /// `long bpf_skb_vlan_push(skb, proto, tci)`: tags the packet.
    pub const SKB_VLAN_PUSH: i32 = 18;

    /// The name of helper `id` without its `bpf_` prefix, for listings: the
    /// helpers netsift's programs call.
    pub fn name(id: i32) -> Option<&'static str> {
        Some(match id {
            MAP_LOOKUP_ELEM => "map_lookup_elem",
            MAP_UPDATE_ELEM => "map_update_elem",
            KTIME_GET_NS => "ktime_get_ns",
            TAIL_CALL => "tail_call",
            SKB_VLAN_PUSH => "skb_vlan_push",
            SKB_LOAD_BYTES => "skb_load_bytes",
            REDIRECT_MAP => "redirect_map",
            SKB_LOAD_BYTES_RELATIVE => "skb_load_bytes_relative",
            RINGBUF_RESERVE => "ringbuf_reserve",
            RINGBUF_SUBMIT => "ringbuf_submit",
            RINGBUF_DISCARD => "ringbuf_discard",
            XDP_GET_BUFF_LEN => "xdp_get_buff_len",
            XDP_LOAD_BYTES => "xdp_load_bytes",
            _ => return None,
        })
    }
}
