//! Kernel placement: netsift's filters as eBPF programs in the Linux kernel.
//!
//! Swift ran its filter in the kernel and changed it in microseconds without a
//! verifier pass on the update. On today's Linux that is an eBPF program whose
//! static parts are straight-line code, checked by the verifier once at load, and
//! whose updatable parts (operand sets, SET tables, pass enable bits) live in BPF
//! maps, where an edit is one map write (docs/architecture.md §6, issue 16).
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
//! - [`codegen`]: a static pass set, decoded by the engine, compiled to a socket
//!   filter that accepts at least what the engine accepts (exactly, where it
//!   compiles every operation and every load can be made).
//!
//! Not yet: operands and SET tables in maps (Swift's updates as map writes), the
//! operations left to user space (ARITH, PROTOCHAIN, SET, GROUP), VLAN tags the
//! kernel strips before a live socket filter runs, `--place`, and XDP.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod asm;
pub mod classic;
pub mod codegen;
pub mod sys;

/// Kernel helper functions (`enum bpf_func_id`) and their constants.
pub mod helpers {
    /// `void *bpf_map_lookup_elem(map, key)`: the value's address, or NULL.
    pub const MAP_LOOKUP_ELEM: i32 = 1;
    /// `long bpf_skb_load_bytes(skb, offset, to, len)`: from `skb->data`, which a
    /// packet socket sees at the MAC header and a test run at the network header.
    pub const SKB_LOAD_BYTES: i32 = 26;
    /// `long bpf_skb_load_bytes_relative(skb, offset, to, len, start)`: from the
    /// MAC (or network) header wherever `skb->data` is; linear data only.
    pub const SKB_LOAD_BYTES_RELATIVE: i32 = 68;
    /// `start` of [`SKB_LOAD_BYTES_RELATIVE`]: offsets from the MAC header.
    pub const HDR_START_MAC: i32 = 0;
}
