//! An assembler for eBPF: instructions by name, jumps to labels.
//!
//! netsift generates its kernel programs itself (nothing needs clang at run time),
//! so it needs the instruction encoding (`linux/bpf.h`, "eBPF instruction set") and
//! forward jumps whose distance is known only when the target is placed. Code is
//! emitted with [`Label`]s; [`Asm::finish`] patches every jump and refuses a label
//! never bound or a distance past the 16-bit jump field.

use std::fmt;

/// One eBPF instruction as the kernel reads it (`struct bpf_insn`).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// Opcode: class, size or operation, mode or source.
    pub code: u8,
    /// Destination register in the low nibble, source register in the high one.
    pub regs: u8,
    /// Signed offset: of a memory access, or of a jump (in instructions).
    pub off: i16,
    /// Signed immediate.
    pub imm: i32,
}

impl fmt::Debug for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:02x} r{} r{} {:+} {:#x}",
            self.code,
            self.regs & 0xf,
            self.regs >> 4,
            self.off,
            self.imm
        )
    }
}

/// A listing of a program, one instruction a line in the kernel's own notation
/// (`bpftool prog dump xlated` style), for `netsift -d --place kernel`. An
/// instruction [`mnemonic`] cannot read is shown raw, as `(code 0x..) ...`.
pub fn listing(insns: &[Insn]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < insns.len() {
        let (text, n) = mnemonic(insns, i).unwrap_or_else(|| (format!("(code {:?})", insns[i]), 1));
        out.push_str(&format!("{i:4}: {text}\n"));
        i += n;
    }
    out
}

/// Instruction `i` of `insns` as bpftool's `dump xlated` writes it (`r0 =
/// *(u16 *)skb[12]`, `if w7 == 0x800 goto 7`, `call bpf_map_lookup_elem#1`),
/// and how many instruction slots it takes (2 for a 64-bit immediate); `None`
/// for an opcode it does not know.
pub fn mnemonic(insns: &[Insn], i: usize) -> Option<(String, usize)> {
    let x = *insns.get(i)?;
    let (dst, src) = (x.regs & 0xf, x.regs >> 4);
    let class = x.code & 0x07;
    let size = |code: u8| match code & 0x18 {
        0x00 => "u32",
        0x08 => "u16",
        0x10 => "u8",
        _ => "u64",
    };
    let text = match class {
        ALU | ALU64 => {
            let r = if class == ALU { "w" } else { "r" };
            let rhs = if x.code & X != 0 {
                format!("{r}{src}")
            } else {
                format!("{}", x.imm)
            };
            match x.code & 0xf0 {
                0x80 => format!("{r}{dst} = -{r}{dst}"),
                0xd0 if class == ALU => {
                    let end = if x.code & X != 0 { "be" } else { "le" };
                    format!("r{dst} = {end}{} r{dst}", x.imm)
                }
                op => {
                    let sym = match op {
                        0x00 => "+=",
                        0x10 => "-=",
                        0x20 => "*=",
                        0x30 => "/=",
                        0x40 => "|=",
                        0x50 => "&=",
                        0x60 => "<<=",
                        0x70 => ">>=",
                        0x90 => "%=",
                        0xa0 => "^=",
                        0xb0 => "=",
                        0xc0 => "s>>=",
                        _ => return None,
                    };
                    format!("{r}{dst} {sym} {rhs}")
                }
            }
        }
        JMP | JMP32 => {
            let r = if class == JMP32 { "w" } else { "r" };
            let rhs = if x.code & X != 0 {
                format!("{r}{src}")
            } else {
                format!("{:#x}", x.imm)
            };
            let to = i as i64 + 1 + x.off as i64;
            match x.code & 0xf0 {
                0x00 if class == JMP => format!("goto {to}"),
                0x80 if class == JMP => match crate::helpers::name(x.imm) {
                    Some(name) => format!("call bpf_{name}#{}", x.imm),
                    None => format!("call #{}", x.imm),
                },
                0x90 if class == JMP => "exit".to_string(),
                op => {
                    let sym = match op {
                        0x10 => "==",
                        0x20 => ">",
                        0x30 => ">=",
                        0x40 => "&",
                        0x50 => "!=",
                        0x60 => "s>",
                        0x70 => "s>=",
                        0xa0 => "<",
                        0xb0 => "<=",
                        0xc0 => "s<",
                        0xd0 => "s<=",
                        _ => return None,
                    };
                    format!("if {r}{dst} {sym} {rhs} goto {to}")
                }
            }
        }
        LDX | STX | ST if x.code & 0xe0 == MEM => {
            let size = size(x.code);
            match class {
                LDX => format!("r{dst} = *({size} *)(r{src} {:+})", x.off),
                STX => format!("*({size} *)(r{dst} {:+}) = r{src}", x.off),
                _ => format!("*({size} *)(r{dst} {:+}) = {}", x.off, x.imm),
            }
        }
        // The legacy packet loads: r0 = the bytes at `imm` (plus `src`) of the
        // socket buffer, in network order.
        LD if x.code & 0xe0 == ABS => format!("r0 = *({} *)skb[{}]", size(x.code), x.imm),
        LD if x.code & 0xe0 == IND => {
            format!("r0 = *({} *)skb[r{src} + {}]", size(x.code), x.imm)
        }
        LD if x.code == LD | IMM | DW => {
            let hi = insns.get(i + 1).map_or(0, |n| n.imm as u32 as u64);
            let v = hi << 32 | x.imm as u32 as u64;
            let text = match src {
                1 => format!("r{dst} = map[id:fd {}]", x.imm),
                2 => format!("r{dst} = map[id:fd {}][0]+{hi}", x.imm),
                _ => format!("r{dst} = {v:#x} ll"),
            };
            return Some((text, 2));
        }
        _ => return None,
    };
    Some((text, 1))
}

/// A register, r0 to r10 (r10 is the read-only frame pointer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg(pub u8);

/// r0: helper results and the program's return value.
pub const R0: Reg = Reg(0);
/// r1..r5: helper arguments (r1 holds the context at entry); clobbered by calls.
pub const R1: Reg = Reg(1);
/// Second helper argument.
pub const R2: Reg = Reg(2);
/// Third helper argument.
pub const R3: Reg = Reg(3);
/// Fourth helper argument.
pub const R4: Reg = Reg(4);
/// Fifth helper argument.
pub const R5: Reg = Reg(5);
/// r6..r9: kept across calls.
pub const R6: Reg = Reg(6);
/// Kept across calls.
pub const R7: Reg = Reg(7);
/// Kept across calls.
pub const R8: Reg = Reg(8);
/// Kept across calls.
pub const R9: Reg = Reg(9);
/// The frame pointer: the stack is the 512 bytes below it.
pub const R10: Reg = Reg(10);

// Classes.
const LD: u8 = 0x00;
const LDX: u8 = 0x01;
const ST: u8 = 0x02;
const STX: u8 = 0x03;
const ALU: u8 = 0x04;
const JMP: u8 = 0x05;
const JMP32: u8 = 0x06;
const ALU64: u8 = 0x07;
// Modes and sizes.
const IMM: u8 = 0x00;
const ABS: u8 = 0x20;
const IND: u8 = 0x40;
const MEM: u8 = 0x60;
const DW: u8 = 0x18;
// Sources.
const K: u8 = 0x00;
const X: u8 = 0x08;

/// Bytes of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 1 byte.
    B,
    /// 2 bytes.
    H,
    /// 4 bytes.
    W,
    /// 8 bytes.
    DW,
}

impl Width {
    fn code(self) -> u8 {
        match self {
            Width::W => 0x00,
            Width::H => 0x08,
            Width::B => 0x10,
            Width::DW => DW,
        }
    }
}

/// An arithmetic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    /// `dst += src`
    Add = 0x00,
    /// `dst -= src`
    Sub = 0x10,
    /// `dst *= src`
    Mul = 0x20,
    /// `dst /= src` (unsigned; division by zero gives 0)
    Div = 0x30,
    /// `dst |= src`
    Or = 0x40,
    /// `dst &= src`
    And = 0x50,
    /// `dst <<= src`
    Lsh = 0x60,
    /// `dst >>= src` (logical)
    Rsh = 0x70,
    /// `dst %= src` (unsigned; modulo zero leaves dst)
    Mod = 0x90,
    /// `dst ^= src`
    Xor = 0xa0,
    /// `dst = src`
    Mov = 0xb0,
}

/// A conditional jump's comparison (unsigned unless named signed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `==`
    Eq = 0x10,
    /// `>`
    Gt = 0x20,
    /// `>=`
    Ge = 0x30,
    /// `dst & src != 0`
    Set = 0x40,
    /// `!=`
    Ne = 0x50,
    /// `<`
    Lt = 0xa0,
    /// `<=`
    Le = 0xb0,
    /// signed `<`
    Slt = 0xc0,
}

/// A place in the code that jumps may name before it is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label(u32);

/// Why a program could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsmError {
    /// A jump names a label that was never bound.
    Unbound(u32),
    /// A jump's distance does not fit the 16-bit offset.
    TooFar {
        /// Index of the jump instruction.
        at: usize,
    },
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmError::Unbound(l) => write!(f, "label {l} is jumped to but never placed"),
            AsmError::TooFar { at } => write!(f, "the jump at instruction {at} is too far"),
        }
    }
}

impl std::error::Error for AsmError {}

/// Instructions under construction.
#[derive(Default)]
pub struct Asm {
    insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    fixups: Vec<(usize, Label)>,
}

fn regs(dst: Reg, src: Reg) -> u8 {
    dst.0 | src.0 << 4
}

impl Asm {
    /// An empty program.
    pub fn new() -> Asm {
        Asm::default()
    }

    /// Instructions emitted so far.
    pub fn len(&self) -> usize {
        self.insns.len()
    }

    /// Whether nothing was emitted.
    pub fn is_empty(&self) -> bool {
        self.insns.is_empty()
    }

    fn emit(&mut self, code: u8, dst: Reg, src: Reg, off: i16, imm: i32) {
        self.insns.push(Insn {
            code,
            regs: regs(dst, src),
            off,
            imm,
        });
    }

    /// A new, unplaced label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    /// Places `l` at the next instruction.
    pub fn bind(&mut self, l: Label) {
        self.labels[l.0 as usize] = Some(self.insns.len());
    }

    /// `dst op= imm` on 64 bits.
    pub fn alu64_imm(&mut self, op: Alu, dst: Reg, imm: i32) {
        self.emit(ALU64 | op as u8 | K, dst, R0, 0, imm);
    }

    /// `dst op= src` on 64 bits.
    pub fn alu64_reg(&mut self, op: Alu, dst: Reg, src: Reg) {
        self.emit(ALU64 | op as u8 | X, dst, src, 0, 0);
    }

    /// `dst op= imm` on 32 bits (the upper half becomes 0).
    pub fn alu32_imm(&mut self, op: Alu, dst: Reg, imm: i32) {
        self.emit(ALU | op as u8 | K, dst, R0, 0, imm);
    }

    /// `dst op= src` on 32 bits (the upper half becomes 0).
    pub fn alu32_reg(&mut self, op: Alu, dst: Reg, src: Reg) {
        self.emit(ALU | op as u8 | X, dst, src, 0, 0);
    }

    /// `dst = imm` (sign-extended to 64 bits).
    pub fn mov64_imm(&mut self, dst: Reg, imm: i32) {
        self.alu64_imm(Alu::Mov, dst, imm);
    }

    /// `dst = src`.
    pub fn mov64_reg(&mut self, dst: Reg, src: Reg) {
        self.alu64_reg(Alu::Mov, dst, src);
    }

    /// `dst = *(width *)(src + off)`.
    pub fn ldx(&mut self, w: Width, dst: Reg, src: Reg, off: i16) {
        self.emit(LDX | MEM | w.code(), dst, src, off, 0);
    }

    /// `*(width *)(dst + off) = src`.
    pub fn stx(&mut self, w: Width, dst: Reg, off: i16, src: Reg) {
        self.emit(STX | MEM | w.code(), dst, src, off, 0);
    }

    /// `*(width *)(dst + off) = imm`.
    pub fn st(&mut self, w: Width, dst: Reg, off: i16, imm: i32) {
        self.emit(ST | MEM | w.code(), dst, R0, off, imm);
    }

    /// `dst = imm` with a full 64-bit immediate (two instruction slots).
    pub fn ld_imm64(&mut self, dst: Reg, imm: u64) {
        self.emit(LD | IMM | DW, dst, R0, 0, imm as u32 as i32);
        self.emit(0, R0, R0, 0, (imm >> 32) as u32 as i32);
    }

    /// `dst = the map whose file descriptor is fd` (`BPF_PSEUDO_MAP_FD`): the
    /// loader swaps the descriptor for the map's address.
    pub fn ld_map_fd(&mut self, dst: Reg, fd: i32) {
        self.emit(LD | IMM | DW, dst, Reg(1), 0, fd);
        self.emit(0, R0, R0, 0, 0);
    }

    /// `dst = the address of byte off of the value of map fd`
    /// (`BPF_PSEUDO_MAP_VALUE`): an array map of one element, whose value the
    /// loader addresses directly, so reaching it costs no lookup.
    pub fn ld_map_value(&mut self, dst: Reg, fd: i32, off: u32) {
        self.emit(LD | IMM | DW, dst, Reg(2), 0, fd);
        self.emit(0, R0, R0, 0, off as i32);
    }

    /// `if dst cond imm goto l`.
    pub fn jmp_imm(&mut self, c: Cond, dst: Reg, imm: i32, l: Label) {
        self.fixups.push((self.insns.len(), l));
        self.emit(JMP | c as u8 | K, dst, R0, 0, imm);
    }

    /// `if (u32)dst cond (u32)imm goto l`: the low halves only, so a 32-bit field
    /// compares with an operand whose top bit is set as an unsigned number (the
    /// 64-bit form would sign-extend the immediate).
    pub fn jmp32_imm(&mut self, c: Cond, dst: Reg, imm: u32, l: Label) {
        self.fixups.push((self.insns.len(), l));
        self.emit(JMP32 | c as u8 | K, dst, R0, 0, imm as i32);
    }

    /// `dst = be(dst)` of its low `bits` (16, 32 or 64): a value loaded from the
    /// packet in memory order becomes the number it spells in network order.
    pub fn to_be(&mut self, dst: Reg, bits: i32) {
        self.emit(ALU | 0xd0 | 0x08, dst, R0, 0, bits);
    }

    /// `if (u32)dst cond (u32)src goto l`.
    pub fn jmp32_reg(&mut self, c: Cond, dst: Reg, src: Reg, l: Label) {
        self.fixups.push((self.insns.len(), l));
        self.emit(JMP32 | c as u8 | X, dst, src, 0, 0);
    }

    /// An instruction given by its opcode (the legacy packet loads, which only
    /// [`crate::classic`] emits): `src` and `off` as the opcode reads them.
    pub fn raw(&mut self, code: u8, src: Reg, off: i16, imm: i32) {
        self.emit(code, R0, src, off, imm);
    }

    /// `if dst cond src goto l`.
    pub fn jmp_reg(&mut self, c: Cond, dst: Reg, src: Reg, l: Label) {
        self.fixups.push((self.insns.len(), l));
        self.emit(JMP | c as u8 | X, dst, src, 0, 0);
    }

    /// `goto l`.
    pub fn ja(&mut self, l: Label) {
        self.fixups.push((self.insns.len(), l));
        self.emit(JMP, R0, R0, 0, 0);
    }

    /// Calls kernel helper `id`: arguments in r1..r5, result in r0.
    pub fn call(&mut self, id: i32) {
        self.emit(JMP | 0x80, R0, R0, 0, id);
    }

    /// Returns r0.
    pub fn exit(&mut self) {
        self.emit(JMP | 0x90, R0, R0, 0, 0);
    }

    /// The program, every jump pointed at its label, without the instructions no
    /// path reaches: the verifier refuses a program with any, and a generator that
    /// emits code per case would otherwise have to know which cases jump where.
    pub fn finish(self) -> Result<Vec<Insn>, AsmError> {
        let n = self.insns.len();
        let mut target = vec![None; n];
        for &(at, l) in &self.fixups {
            target[at] = Some(self.labels[l.0 as usize].ok_or(AsmError::Unbound(l.0))?);
        }
        // A jump to a `goto` goes straight to where that leads (generated code
        // chains them: a test's "no" label, then the pass's failure label).
        for i in 0..n {
            let mut hops = 0;
            while let Some(t) = target[i] {
                let chained = t < n && self.insns[t].code == JMP && target[t].is_some();
                if !chained || target[t] == Some(t) || hops > n {
                    break;
                }
                target[i] = target[t];
                hops += 1;
            }
        }
        // Reachability from the first instruction.
        let mut reach = vec![false; n];
        let mut work = vec![0usize];
        while let Some(i) = work.pop() {
            if i >= n || reach[i] {
                continue;
            }
            reach[i] = true;
            let code = self.insns[i].code;
            if code == LD | IMM | DW {
                // The second slot of a 64-bit immediate goes with the first.
                if i + 1 < n {
                    reach[i + 1] = true;
                }
                work.push(i + 2);
                continue;
            }
            if let Some(t) = target[i] {
                work.push(t);
            }
            let exit = code == JMP | 0x90;
            let always = code == JMP && target[i].is_some();
            if !exit && !always {
                work.push(i + 1);
            }
        }
        // New positions, and labels bound past the end land on the end.
        let mut new_at = vec![0usize; n + 1];
        let mut k = 0;
        for i in 0..n {
            new_at[i] = k;
            k += usize::from(reach[i]);
        }
        new_at[n] = k;
        let mut out = Vec::with_capacity(k);
        for i in (0..n).filter(|&i| reach[i]) {
            let mut insn = self.insns[i];
            if let Some(t) = target[i] {
                let off = new_at[t] as i64 - new_at[i] as i64 - 1;
                insn.off = i16::try_from(off).map_err(|_| AsmError::TooFar { at: i })?;
            }
            out.push(insn);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_land_on_their_labels_and_encodings_match_the_kernel() {
        let mut a = Asm::new();
        let (yes, end) = (a.label(), a.label());
        a.mov64_imm(R0, 0);
        a.jmp_imm(Cond::Eq, R1, 7, yes);
        a.ja(end);
        a.bind(yes);
        a.mov64_imm(R0, 1);
        a.bind(end);
        a.exit();
        let p = a.finish().unwrap();
        // Encodings as linux/bpf.h builds them: BPF_MOV64_IMM, BPF_JMP_IMM(BPF_JEQ),
        // BPF_JMP_A, BPF_EXIT_INSN.
        assert_eq!((p[0].code, p[0].regs, p[0].imm), (0xb7, 0, 0));
        assert_eq!((p[1].code, p[1].regs, p[1].off, p[1].imm), (0x15, 1, 1, 7));
        assert_eq!((p[2].code, p[2].off), (0x05, 1));
        assert_eq!(p[4].code, 0x95);
    }

    #[test]
    fn unreachable_instructions_are_left_out() {
        let mut a = Asm::new();
        let (l, m) = (a.label(), a.label());
        a.jmp_imm(Cond::Eq, R1, 1, l);
        a.mov64_imm(R0, 0);
        a.exit();
        a.mov64_imm(R0, 7); // unreachable
        a.bind(l);
        a.ld_imm64(R2, 1 << 40);
        a.ja(m);
        a.mov64_imm(R0, 8); // unreachable
        a.bind(m);
        a.mov64_imm(R0, 1);
        a.exit();
        let p = a.finish().unwrap();
        assert_eq!(p.len(), 8);
        assert_eq!(p[0].off, 2, "the jump lands on the 64-bit load");
        assert_eq!(p[5].off, 0, "the goto lands on the next instruction");
        assert!(!p.iter().any(|i| i.imm == 7 || i.imm == 8));
    }

    #[test]
    fn an_unbound_label_is_an_error() {
        let mut a = Asm::new();
        let l = a.label();
        a.ja(l);
        assert_eq!(a.finish(), Err(AsmError::Unbound(0)));
    }
}
