//! A step-bounded copy of libpcap's BPF interpreter (`pcap_filter_with_aux_data` in
//! bpf_filter.c of libpcap 1.10), for programs with backward jumps.
//!
//! libpcap compiles `protochain` into a loop (a `ja` with a negative offset), and on
//! some packets that loop never ends: its IPv4 and IPv6 AH steps set X to the AH
//! header's length instead of adding it, so a packet whose bytes at that absolute
//! offset name AH again sends `pcap_offline_filter` round forever.
//!
//! libpcap's interpreter also leaves its scratch memory (`mem[16]`) uninitialised,
//! and some programs read a slot on a path that never stored it: `geneve` stores the
//! inner offsets in M[] only when the Geneve header matched, yet a test ORed after it
//! (`geneve or sctp`) reads them on the other path too. The verdict then depends on
//! stack garbage, so there is none to compare with.
//!
//! [`Filter`] runs programs that can loop or that read scratch memory here first, with
//! a step budget and tracking which slots were stored; only when this gives a defined
//! result does it ask libpcap (which then terminates and is deterministic), and it
//! checks both agree.
//!
//! [`Filter`]: crate::Filter

use crate::BpfInsn;

// Instruction classes and fields, from pcap/bpf.h.
const BPF_LD: u16 = 0x00;
const BPF_LDX: u16 = 0x01;
const BPF_ST: u16 = 0x02;
const BPF_STX: u16 = 0x03;
const BPF_ALU: u16 = 0x04;
const BPF_JMP: u16 = 0x05;
const BPF_RET: u16 = 0x06;
const BPF_MISC: u16 = 0x07;

const BPF_W: u16 = 0x00;
const BPF_H: u16 = 0x08;
const BPF_B: u16 = 0x10;

const BPF_IMM: u16 = 0x00;
const BPF_ABS: u16 = 0x20;
const BPF_IND: u16 = 0x40;
const BPF_MEM: u16 = 0x60;
const BPF_LEN: u16 = 0x80;
const BPF_MSH: u16 = 0xa0;

const BPF_ADD: u16 = 0x00;
const BPF_SUB: u16 = 0x10;
const BPF_MUL: u16 = 0x20;
const BPF_DIV: u16 = 0x30;
const BPF_OR: u16 = 0x40;
const BPF_AND: u16 = 0x50;
const BPF_LSH: u16 = 0x60;
const BPF_RSH: u16 = 0x70;
const BPF_NEG: u16 = 0x80;
const BPF_MOD: u16 = 0x90;
const BPF_XOR: u16 = 0xa0;

const BPF_JA: u16 = 0x00;
const BPF_JEQ: u16 = 0x10;
const BPF_JGT: u16 = 0x20;
const BPF_JGE: u16 = 0x30;
const BPF_JSET: u16 = 0x40;

const BPF_K: u16 = 0x00;
const BPF_X: u16 = 0x08;
const BPF_A: u16 = 0x10;

const BPF_TAX: u16 = 0x00;
const BPF_TXA: u16 = 0x80;

const BPF_MEMWORDS: usize = 16;

/// Why [`interpret`] gave no verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoVerdict {
    /// The step budget ran out: the program loops (libpcap would hang).
    Loops,
    /// The program read a scratch memory slot it had not stored on this path:
    /// libpcap's result depends on uninitialised stack memory.
    UninitializedMemory,
    /// The program counter left the program or met an unknown opcode (libpcap would
    /// read out of bounds or abort()).
    Invalid,
    /// The verdict is defined, but it comes from a Geneve offset read out of a scratch
    /// slot that, on this path, an arithmetic relation stored last: gencode's
    /// registers are reused once freed, `geneve` takes the ones a relation before it
    /// used, and the code after `geneve` reads them on paths where `geneve` never
    /// ran. netsift does not reproduce that reuse (docs/status.md).
    SlotReuse,
}

/// The scratch slots gen_geneve_offsets keeps its offsets in (a bit each), and which
/// instructions are its stores. Its code is never optimized (`geneve` turns the
/// optimizer off), so its stores keep their neighbours: `stx M[c]`, which nothing else
/// in gencode emits; `st M[a]` before `ldb [x + 0]` and `st M[b]` before `ldh [x + 2]`;
/// and `add #12; st M[a]; add #2` on the Ethernet-in-Geneve path.
fn geneve_stores(insns: &[BpfInsn]) -> (u32, Vec<bool>) {
    let mut slots = 0u32;
    let mut is_store = vec![false; insns.len()];
    for (pc, ins) in insns.iter().enumerate() {
        let next = insns.get(pc + 1).map(|i| (i.code, i.k));
        let prev = pc
            .checked_sub(1)
            .and_then(|p| insns.get(p))
            .map(|i| (i.code, i.k));
        let geneve = match ins.code {
            c if c == BPF_STX => true,
            // 802.11's header length (`txa; add #24; st M[k]; ldb [x + 0]`) is
            // stored the way a Geneve offset is, but is not one.
            c if c == BPF_ST => {
                (matches!(next, Some((c, 0)) if c == BPF_LD | BPF_B | BPF_IND)
                    && !matches!(prev, Some((c, 24)) if c == BPF_ALU | BPF_ADD | BPF_K))
                    || matches!(next, Some((c, 2)) if c == BPF_LD | BPF_H | BPF_IND)
                    || (matches!(prev, Some((c, 12)) if c == BPF_ALU | BPF_ADD | BPF_K)
                        && matches!(next, Some((c, 2)) if c == BPF_ALU | BPF_ADD | BPF_K))
            }
            _ => false,
        };
        if geneve && (ins.k as usize) < BPF_MEMWORDS {
            is_store[pc] = true;
            slots |= 1 << ins.k;
        }
    }
    (slots, is_store)
}

/// Whether the program reads scratch memory (`ld M[k]` or `ldx M[k]`).
pub fn reads_memory(insns: &[BpfInsn]) -> bool {
    insns
        .iter()
        .any(|i| i.code == BPF_LD | BPF_MEM || i.code == BPF_LDX | BPF_MEM)
}

/// Whether the program has a backward jump (a `ja` whose offset is negative as a
/// signed 32-bit value). Only such programs can fail to terminate.
pub fn has_backward_jump(insns: &[BpfInsn]) -> bool {
    insns
        .iter()
        .any(|i| i.code == BPF_JMP | BPF_JA && (i.k as i32) < 0)
}

fn ld(p: &[u8], k: usize, n: usize) -> u32 {
    p[k..k + n].iter().fold(0u32, |a, &b| (a << 8) | b as u32)
}

/// Runs the program like libpcap does, for at most `budget` instructions.
pub fn interpret(insns: &[BpfInsn], p: &[u8], wirelen: u32, budget: u64) -> Result<u32, NoVerdict> {
    interpret_traced(insns, p, wirelen, budget).map(|(v, _)| v)
}

/// Like [`interpret`], and also says whether the result came from a load past the
/// captured bytes (BPF's implicit `return 0`) rather than from a `ret` instruction.
pub fn interpret_traced(
    insns: &[BpfInsn],
    p: &[u8],
    wirelen: u32,
    budget: u64,
) -> Result<(u32, bool), NoVerdict> {
    let buflen = p.len() as u32;
    let (mut a, mut x): (u32, u32) = (0, 0);
    let mut mem = [0u32; BPF_MEMWORDS];
    let mut stored = [false; BPF_MEMWORDS];
    // For each slot, whether its last store was another construct's, made before the
    // last jump taken (a relation's stores and reads share one block): a Geneve offset
    // read of such a slot depends on the reuse (`NoVerdict::SlotReuse`).
    let (geneve_slots, geneve_store) = geneve_stores(insns);
    let mut foreign = [false; BPF_MEMWORDS];
    let mut foreign_since_jump = [false; BPF_MEMWORDS];
    let mut pc: i64 = 0;
    let mut steps = 0u64;
    loop {
        steps += 1;
        if steps > budget {
            return Err(NoVerdict::Loops);
        }
        let Some(ins) = usize::try_from(pc).ok().and_then(|i| insns.get(i)) else {
            return Err(NoVerdict::Invalid);
        };
        let k = ins.k;
        pc += 1;
        if ins.code & 0x07 == BPF_JMP {
            foreign_since_jump = [false; BPF_MEMWORDS];
        }
        let (jt, jf) = (ins.jt as i64, ins.jf as i64);
        match ins.code {
            c if c == BPF_RET | BPF_K => return Ok((k, false)),
            c if c == BPF_RET | BPF_A => return Ok((a, false)),
            c if c == BPF_LD | BPF_W | BPF_ABS => {
                if k > buflen || 4 > buflen - k {
                    return Ok((0, true));
                }
                a = ld(p, k as usize, 4);
            }
            c if c == BPF_LD | BPF_H | BPF_ABS => {
                if k > buflen || 2 > buflen - k {
                    return Ok((0, true));
                }
                a = ld(p, k as usize, 2);
            }
            c if c == BPF_LD | BPF_B | BPF_ABS => {
                if k >= buflen {
                    return Ok((0, true));
                }
                a = p[k as usize] as u32;
            }
            c if c == BPF_LD | BPF_W | BPF_LEN => a = wirelen,
            c if c == BPF_LDX | BPF_W | BPF_LEN => x = wirelen,
            c if c == BPF_LD | BPF_W | BPF_IND => {
                if k > buflen || x > buflen - k || 4 > buflen - (x + k) {
                    return Ok((0, true));
                }
                a = ld(p, (x + k) as usize, 4);
            }
            c if c == BPF_LD | BPF_H | BPF_IND => {
                if x > buflen || k > buflen - x || 2 > buflen - (x + k) {
                    return Ok((0, true));
                }
                a = ld(p, (x + k) as usize, 2);
            }
            c if c == BPF_LD | BPF_B | BPF_IND => {
                if k >= buflen || x >= buflen - k {
                    return Ok((0, true));
                }
                a = p[(x + k) as usize] as u32;
            }
            c if c == BPF_LDX | BPF_MSH | BPF_B => {
                if k >= buflen {
                    return Ok((0, true));
                }
                x = ((p[k as usize] & 0xf) as u32) << 2;
            }
            c if c == BPF_LD | BPF_IMM => a = k,
            c if c == BPF_LDX | BPF_IMM => x = k,
            c if c == BPF_LD | BPF_MEM || c == BPF_LDX | BPF_MEM => {
                let k = k as usize;
                if k >= BPF_MEMWORDS {
                    return Err(NoVerdict::Invalid);
                }
                if !stored[k] {
                    return Err(NoVerdict::UninitializedMemory);
                }
                if geneve_slots & (1 << k) != 0 && foreign[k] && !foreign_since_jump[k] {
                    return Err(NoVerdict::SlotReuse);
                }
                if c == BPF_LD | BPF_MEM {
                    a = mem[k];
                } else {
                    x = mem[k];
                }
            }
            c if c == BPF_ST || c == BPF_STX => {
                let k = k as usize;
                if k >= BPF_MEMWORDS {
                    return Err(NoVerdict::Invalid);
                }
                mem[k] = if c == BPF_ST { a } else { x };
                stored[k] = true;
                let at = (pc - 1) as usize;
                foreign[k] = !geneve_store[at];
                foreign_since_jump[k] = foreign[k];
            }
            c if c == BPF_JMP | BPF_JA => pc += (k as i32) as i64,
            c if c == BPF_JMP | BPF_JGT | BPF_K => pc += if a > k { jt } else { jf },
            c if c == BPF_JMP | BPF_JGE | BPF_K => pc += if a >= k { jt } else { jf },
            c if c == BPF_JMP | BPF_JEQ | BPF_K => pc += if a == k { jt } else { jf },
            c if c == BPF_JMP | BPF_JSET | BPF_K => pc += if a & k != 0 { jt } else { jf },
            c if c == BPF_JMP | BPF_JGT | BPF_X => pc += if a > x { jt } else { jf },
            c if c == BPF_JMP | BPF_JGE | BPF_X => pc += if a >= x { jt } else { jf },
            c if c == BPF_JMP | BPF_JEQ | BPF_X => pc += if a == x { jt } else { jf },
            c if c == BPF_JMP | BPF_JSET | BPF_X => pc += if a & x != 0 { jt } else { jf },
            c if c == BPF_ALU | BPF_ADD | BPF_X => a = a.wrapping_add(x),
            c if c == BPF_ALU | BPF_SUB | BPF_X => a = a.wrapping_sub(x),
            c if c == BPF_ALU | BPF_MUL | BPF_X => a = a.wrapping_mul(x),
            c if c == BPF_ALU | BPF_DIV | BPF_X => {
                if x == 0 {
                    return Ok((0, true));
                }
                a /= x;
            }
            c if c == BPF_ALU | BPF_MOD | BPF_X => {
                if x == 0 {
                    return Ok((0, true));
                }
                a %= x;
            }
            c if c == BPF_ALU | BPF_AND | BPF_X => a &= x,
            c if c == BPF_ALU | BPF_OR | BPF_X => a |= x,
            c if c == BPF_ALU | BPF_XOR | BPF_X => a ^= x,
            c if c == BPF_ALU | BPF_LSH | BPF_X => a = if x < 32 { a << x } else { 0 },
            c if c == BPF_ALU | BPF_RSH | BPF_X => a = if x < 32 { a >> x } else { 0 },
            c if c == BPF_ALU | BPF_ADD | BPF_K => a = a.wrapping_add(k),
            c if c == BPF_ALU | BPF_SUB | BPF_K => a = a.wrapping_sub(k),
            c if c == BPF_ALU | BPF_MUL | BPF_K => a = a.wrapping_mul(k),
            c if c == BPF_ALU | BPF_DIV | BPF_K => {
                a = a.checked_div(k).ok_or(NoVerdict::Invalid)?
            }
            c if c == BPF_ALU | BPF_MOD | BPF_K => {
                a = a.checked_rem(k).ok_or(NoVerdict::Invalid)?
            }
            c if c == BPF_ALU | BPF_AND | BPF_K => a &= k,
            c if c == BPF_ALU | BPF_OR | BPF_K => a |= k,
            c if c == BPF_ALU | BPF_XOR | BPF_K => a ^= k,
            // C's `A <<= k` with k >= 32 is undefined; x86 masks the count to 5 bits.
            c if c == BPF_ALU | BPF_LSH | BPF_K => a = a.wrapping_shl(k),
            c if c == BPF_ALU | BPF_RSH | BPF_K => a = a.wrapping_shr(k),
            c if c == BPF_ALU | BPF_NEG => a = 0u32.wrapping_sub(a),
            c if c == BPF_MISC | BPF_TAX => x = a,
            c if c == BPF_MISC | BPF_TXA => a = x,
            _ => return Err(NoVerdict::Invalid),
        }
    }
}
