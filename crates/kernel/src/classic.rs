//! Classic BPF (what libpcap's `pcap_compile` makes) as eBPF, one instruction for
//! one, the way the kernel itself converts a classic socket filter
//! (`bpf_convert_filter` in `net/core/filter.c`).
//!
//! This is how the benchmarks run libpcap's program through the same
//! `BPF_PROG_TEST_RUN` as netsift's generated one: A is r0, X is r7, the context
//! r6, the scratch memory `M[0..16]` sixteen words of stack. Packet loads stay the
//! legacy `LD_ABS`/`LD_IND` instructions, which load from `skb->data`, fetch in
//! network order and end the program with 0 past the packet, as the kernel's
//! converted programs do. A division or modulo by a zero X returns 0, as the
//! kernel's conversion makes it.

use crate::asm::{Alu, Asm, Cond, Insn, Label, Reg, Width, R0, R1, R10, R6, R7};
use std::fmt;

/// One classic instruction (`struct sock_filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classic {
    /// The opcode.
    pub code: u16,
    /// Jump offset if true.
    pub jt: u8,
    /// Jump offset if false.
    pub jf: u8,
    /// The operand.
    pub k: u32,
}

/// Why a classic program was not translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicError {
    /// Index of the instruction.
    pub at: usize,
    /// What is wrong with it.
    pub why: &'static str,
}

impl fmt::Display for ClassicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "classic instruction {}: {}", self.at, self.why)
    }
}

impl std::error::Error for ClassicError {}

const A: Reg = R0;
const X: Reg = R7;
/// Where a MSH load keeps A while it uses r0.
const TMP: Reg = Reg(8);
/// `M[0]` is at the frame pointer minus this; `M[i]` four bytes on.
const MEM: i16 = -64;

/// eBPF for the classic program `prog`.
pub fn translate(prog: &[Classic]) -> Result<Vec<Insn>, ClassicError> {
    let mut a = Asm::new();
    let labels: Vec<Label> = (0..=prog.len()).map(|_| a.label()).collect();
    let fail = |at: usize, why: &'static str| ClassicError { at, why };
    prologue(&mut a, prog);
    let ret0 = a.label();
    for (i, c) in prog.iter().enumerate() {
        a.bind(labels[i]);
        let class = c.code & 0x07;
        match class {
            0x00 | 0x01 => load(&mut a, c),
            0x02 | 0x03 => store(&mut a, c),
            0x04 => alu(&mut a, c, ret0),
            0x05 => jump(&mut a, c, &labels[i + 1..]),
            0x06 => ret(&mut a, c),
            _ => misc(&mut a, c),
        }
        .map_err(|why| fail(i, why))?;
    }
    // Falling off the end returns 0 (the kernel's checker refuses such programs;
    // pcap_compile never makes one).
    a.bind(labels[prog.len()]);
    a.bind(ret0);
    a.mov64_imm(R0, 0);
    a.exit();
    a.finish().map_err(|_| fail(prog.len(), "jumps"))
}

/// The registers and scratch words as classic BPF starts them: the context kept
/// in r6, A and X 0, and every scratch word the program reads 0 (the verifier
/// refuses a read of stack never written, which classic BPF's checker, run on a
/// socket filter before conversion, would have refused as well).
fn prologue(a: &mut Asm, prog: &[Classic]) {
    a.mov64_reg(R6, R1);
    a.mov64_imm(A, 0);
    a.mov64_imm(X, 0);
    let mut read = [false; 16];
    for c in prog {
        if matches!(c.code, 0x60 | 0x61) && c.k < 16 {
            read[c.k as usize] = true;
        }
    }
    for (m, _) in read.iter().enumerate().filter(|(_, r)| **r) {
        a.st(Width::W, R10, MEM + 4 * m as i16, 0);
    }
}

/// LD and LDX: a constant, a packet load (the legacy `LD_ABS`/`LD_IND`), a
/// scratch word, the packet length, or MSH's header length.
fn load(a: &mut Asm, c: &Classic) -> Result<(), &'static str> {
    let class = c.code & 0x07;
    let k = c.k as i32;
    let dst = if class == 0 { A } else { X };
    let size = c.code & 0x18;
    match c.code & 0xe0 {
        0x00 => a.mov64_imm(dst, k), // IMM
        0x20 | 0x40 if class == 0 => {
            // ABS / IND: the legacy packet loads, into r0.
            let w = match size {
                0x00 => 0x00,
                0x08 => 0x08,
                0x10 => 0x10,
                _ => return Err("load size"),
            };
            let mode = c.code & 0xe0;
            a.raw(mode as u8 | w, if mode == 0x40 { X } else { R0 }, 0, k);
        }
        0x60 => {
            // MEM: M[k].
            if c.k >= 16 {
                return Err("scratch memory index");
            }
            a.ldx(Width::W, dst, R10, MEM + 4 * c.k as i16);
        }
        0x80 => a.ldx(Width::W, dst, R6, 0), // LEN: skb->len
        0xa0 if class == 1 && size == 0x10 => {
            // MSH: X = 4 * (P[k] & 0xf).
            a.mov64_reg(TMP, A);
            a.raw(0x20 | 0x10, R0, 0, k);
            a.alu32_imm(Alu::And, A, 0x0f);
            a.alu32_imm(Alu::Lsh, A, 2);
            a.mov64_reg(X, A);
            a.mov64_reg(A, TMP);
        }
        _ => return Err("load mode"),
    }
    Ok(())
}

/// ST and STX: `M[k]` = A or X.
fn store(a: &mut Asm, c: &Classic) -> Result<(), &'static str> {
    if c.k >= 16 {
        return Err("scratch memory index");
    }
    let src = if c.code & 0x07 == 2 { A } else { X };
    a.stx(Width::W, R10, MEM + 4 * c.k as i16, src);
    Ok(())
}

/// ALU, on 32 bits; a division or modulo by a zero X returns 0 (`ret0`), as the
/// kernel's conversion makes it.
fn alu(a: &mut Asm, c: &Classic, ret0: Label) -> Result<(), &'static str> {
    let by_x = c.code & 0x08 != 0;
    let op = match c.code & 0xf0 {
        0x00 => Alu::Add,
        0x10 => Alu::Sub,
        0x20 => Alu::Mul,
        0x30 => Alu::Div,
        0x40 => Alu::Or,
        0x50 => Alu::And,
        0x60 => Alu::Lsh,
        0x70 => Alu::Rsh,
        0x80 => {
            a.alu32_imm(Alu::Mul, A, -1); // NEG
            return Ok(());
        }
        0x90 => Alu::Mod,
        0xa0 => Alu::Xor,
        _ => return Err("ALU operation"),
    };
    if by_x {
        if matches!(op, Alu::Div | Alu::Mod) {
            a.jmp32_imm(Cond::Eq, X, 0, ret0);
        }
        a.alu32_reg(op, A, X);
    } else {
        if matches!(op, Alu::Div | Alu::Mod) && c.k == 0 {
            return Err("division by the constant 0");
        }
        a.alu32_imm(op, A, c.k as i32);
    }
    Ok(())
}

/// JMP: `JA` k instructions on, or a conditional jump to `jt`/`jf` on; `next`
/// holds the labels of the instructions after this one (the last, the end).
fn jump(a: &mut Asm, c: &Classic, next: &[Label]) -> Result<(), &'static str> {
    let to = |off: u32| next.get(off as usize).copied().ok_or("jump past the end");
    if c.code & 0xf0 == 0x00 {
        a.ja(to(c.k)?);
        return Ok(());
    }
    let cond = match c.code & 0xf0 {
        0x10 => Cond::Eq,
        0x20 => Cond::Gt,
        0x30 => Cond::Ge,
        0x40 => Cond::Set,
        _ => return Err("jump condition"),
    };
    let (t, f) = (to(c.jt.into())?, to(c.jf.into())?);
    if c.code & 0x08 != 0 {
        a.jmp32_reg(cond, A, X, t);
    } else {
        a.jmp32_imm(cond, A, c.k, t);
    }
    a.ja(f);
    Ok(())
}

/// RET: k, or A (already in r0).
fn ret(a: &mut Asm, c: &Classic) -> Result<(), &'static str> {
    match c.code & 0x18 {
        0x00 => a.mov64_imm(R0, c.k as i32), // K
        0x10 => {}                           // A: r0 already
        _ => return Err("return source"),
    }
    a.exit();
    Ok(())
}

/// MISC: TAX, TXA.
fn misc(a: &mut Asm, c: &Classic) -> Result<(), &'static str> {
    match c.code & 0xf8 {
        0x00 => a.mov64_reg(X, A),
        0x80 => a.mov64_reg(A, X),
        _ => return Err("misc operation"),
    }
    Ok(())
}
