//! The registers and stack slots the generated programs use, shared by the filter
//! (`codegen`) and the XDP epilogue (`xdp`), so neither depends on the other's
//! internals.

use crate::asm::Reg;
use netsift_isa::insn::ARITH_STACK;

/// r6: the context.
pub(crate) const CTX: Reg = Reg(6);
/// r7: the loaded value.
pub(crate) const VAL: Reg = Reg(7);
/// r8: an address.
pub(crate) const ADDR: Reg = Reg(8);
/// r9: a second address (an EQ2's second field).
pub(crate) const ADDR2: Reg = Reg(9);
/// Stack slot of a SET's 64-bit key (and of a map key in general).
pub(crate) const KEY: i16 = -16;
/// The ARITH stack's bottom word; the others follow upwards.
pub(crate) const ARITH_SLOTS: i16 = -24 - 4 * ARITH_STACK as i16;
/// Stack slot of the frame's length on the XDP hook (`bpf_xdp_get_buff_len`).
pub(crate) const XDP_LEN: i16 = ARITH_SLOTS - 8;
/// Record sizes the XDP epilogue reserves (the smallest that fits), then `cap`.
pub(crate) const XDP_CLASSES: [u32; 3] = [128, 512, 2048];
/// The XDP level's record header: captured length (u32), wire length (u32), time
/// (u64, `bpf_ktime_get_ns`, CLOCK_MONOTONIC).
pub const XDP_HDR: u32 = 16;
/// The follow prologue's map key (20 bytes: `follow::KEY_LEN`).
pub(crate) const FOLLOW_KEY: i16 = XDP_LEN - 24;
/// The address of its scratch word (`follow::announce`).
pub(crate) const FOLLOW_ACC: i16 = FOLLOW_KEY - 8;
/// Its RFC 2428 delimiter.
pub(crate) const FOLLOW_DELIM: i16 = FOLLOW_ACC - 8;
/// A guess's time stamp, read or written.
pub(crate) const FOLLOW_STAMP: i16 = FOLLOW_DELIM - 8;
/// A shared table's key (20 bytes): an operand lookup's (`codegen::param_key`'s
/// 12, then zeros) or a SET's (its 64-bit key as two words, then zeros).
pub(crate) const TABLE_KEY: i16 = FOLLOW_STAMP - 24;
