//! Readable listing of a pass set (`netsift -d`).

mod notation;

use crate::insn::{
    ArithOp, Decoded, IndexMode, Instruction, Opcode, Size, ARITH_POOL_BASE, BOTH_FIELDS,
};
use crate::{AnchorRule, PassKind, PassSet};
pub use notation::LinkFields;
use notation::{Notation, Operands};
use std::fmt::{self, Write};

impl fmt::Display for PassSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_listing(f, None)
    }
}

impl PassSet {
    /// The `-d` listing, with the values compared with fields whose meaning
    /// `link` tells (addresses, ports, EtherTypes, IP protocols) written as a
    /// tcpdump user reads them; `None` writes every value in hexadecimal, as
    /// `Display` does.
    pub fn listing(&self, link: Option<LinkFields>) -> String {
        let mut s = String::new();
        self.write_listing(&mut s, link).ok();
        s
    }

    fn write_listing(&self, f: &mut impl Write, link: Option<LinkFields>) -> fmt::Result {
        let notation = link.map(|l| Notation::new(self, l));
        self.write_anchors(f)?;
        if self.passes().is_empty() {
            return writeln!(f, "(no passes: rejects every packet)");
        }
        for (i, p) in self.passes().iter().enumerate() {
            let kind = match p.kind {
                PassKind::Root => "pass",
                PassKind::Sub => "sub",
            };
            write!(f, "{kind} {i}")?;
            if let Some(parent) = p.parent {
                write!(f, " (child of {parent})")?;
            }
            if p.is_empty() {
                write!(f, ": true")?;
            }
            writeln!(f)?;
            for (j, insn) in p.instructions().iter().enumerate() {
                let d = insn.decode();
                let kind = match (&notation, d.size) {
                    (Some(n), Some(size)) => n.kind(self, i, (d.anchor, d.offset, size)),
                    _ => None,
                };
                let notation = notation.as_ref();
                writeln!(f, "  {j:2}: {}", insn.listed(Operands { kind, notation }))?;
            }
        }
        if !self.tables().is_empty() {
            writeln!(f, "tables:")?;
        }
        for (i, t) in self.tables().iter().enumerate() {
            // A table may hold 100,000 keys: its size and the first few say what it is.
            write!(f, "  #{i}: {} keys {{", t.len())?;
            for (j, &k) in t.keys().iter().take(TABLE_KEYS_SHOWN).enumerate() {
                let sep = if j == 0 { "" } else { ", " };
                let (a, b) = ((k >> 32) as u32, k as u32);
                // SET without field B makes keys whose low half is 0.
                if b == 0 {
                    write!(f, "{sep}{a:#x}")?;
                } else {
                    write!(f, "{sep}{a:#x}:{b:#x}")?;
                }
            }
            if t.len() > TABLE_KEYS_SHOWN {
                write!(f, ", …")?;
            }
            writeln!(f, "}}")?;
        }
        Ok(())
    }
}

impl PassSet {
    /// The anchor table, one line an anchor; a chain of `const` anchors each
    /// adding the same offset to the one before (how an offset past 64 KiB is
    /// built: libpcap's loads of the kernel's ancillary data at 0xfffff000 on
    /// are such offsets) on one line, with where it ends.
    fn write_anchors(&self, f: &mut impl Write) -> fmt::Result {
        let anchors = self.anchors();
        if anchors.len() <= 1 {
            return Ok(());
        }
        writeln!(f, "anchors:")?;
        let mut i = 1;
        while i < anchors.len() {
            let a = anchors[i];
            let rule = a.rule().map_or("invalid", |r| r.name());
            // How far a chain of equal const steps from this one runs.
            let step = |k: usize| {
                let b = anchors[k];
                b.rule() == Some(AnchorRule::Const)
                    && b.offset() == a.offset()
                    && usize::from(b.parent()) == k - 1
            };
            let end = if step(i) {
                (i..anchors.len())
                    .take_while(|&k| step(k))
                    .last()
                    .unwrap_or(i)
            } else {
                i
            };
            if end - i >= 2 {
                let total = (end - i + 1) as u64 * u64::from(a.offset());
                writeln!(
                    f,
                    "  @{i}..@{end} = const(@previous + {}): @{end} = @{} + {total}",
                    a.offset(),
                    a.parent()
                )?;
                i = end + 1;
                continue;
            }
            writeln!(f, "  @{i} = {rule}(@{} + {})", a.parent(), a.offset())?;
            i += 1;
        }
        Ok(())
    }
}

/// Keys of a table shown by the listing.
const TABLE_KEYS_SHOWN: usize = 4;

fn field(d: &Decoded, size: Size) -> String {
    let at = if d.anchor == 0 {
        String::new()
    } else {
        format!("@{}+", d.anchor)
    };
    format!("{at}{}:{}", d.offset, size.bytes())
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.listed(Operands::default()))
    }
}

impl Instruction {
    /// The instruction's line, its operands written as `k` says.
    fn listed(&self, kind: Operands<'_>) -> String {
        let d = self.decode();
        let mut s = String::new();
        if d.copied {
            s.push_str("[copied] ");
        }
        if d.negate {
            s.push_str("not ");
        }
        let n = d.count as usize;
        match (d.opcode, d.size) {
            (Some(op @ (Opcode::Eq | Opcode::MEq)), Some(size))
                if n <= Instruction::capacity(op, size) =>
            {
                self.write_eq(&mut s, &d, (op, size), kind)
            }
            (Some(op @ (Opcode::Range | Opcode::Range2)), Some(size))
                if n <= Instruction::capacity(op, size) =>
            {
                self.write_range(&mut s, &d, (op, size), kind)
            }
            (Some(Opcode::Eq2), Some(size)) if n <= Instruction::capacity(Opcode::Eq2, size) => {
                self.write_eq2(&mut s, &d, size, kind)
            }
            (Some(Opcode::Prefix), _) if (1..=6).contains(&n) => self.write_prefix(&mut s, &d),
            (Some(Opcode::Len), _) if (1..=3).contains(&n) => {
                s.push_str("len in");
                for i in 0..n {
                    write!(s, " [{}, {}]", self.p(1 + 2 * i), self.p(2 + 2 * i)).ok();
                }
            }
            (Some(Opcode::Arith), _) if (1..=crate::insn::ARITH_MAX_OPS).contains(&n) => {
                s.push_str("arith");
                self.micro_ops(&mut s, n);
                let rel = ["=", ">", ">=", "?"][(d.anchor & 3) as usize];
                match d.offset {
                    0 => write!(s, " {rel}").ok(),
                    k => write!(s, " ... {k} cont slot(s), then {rel}").ok(),
                };
            }
            (Some(Opcode::ArithCont), _) if (1..=crate::insn::ARITH_MAX_OPS).contains(&n) => {
                s.push_str("cont");
                self.micro_ops(&mut s, n);
            }
            (Some(Opcode::Group), _) => {
                write!(
                    s,
                    "group subs {}..{}",
                    self.p(1),
                    self.p(1) as u64 + self.p(2) as u64
                )
                .ok();
            }
            (Some(Opcode::Protochain), _) => {
                write!(
                    s,
                    "protochain ip{} [{}] has {}",
                    self.p(2),
                    field(&d, Size::B1),
                    self.p(1)
                )
                .ok();
            }
            (Some(Opcode::Set), Some(size)) if (1..=2).contains(&n) => {
                self.write_set(&mut s, &d, size)
            }
            _ => {
                write!(s, "invalid {:?}", self).ok();
            }
        }
        s
    }
}

/// "and" for a two-field test whose fields must both pass, "or" for either.
fn joiner(word: u32) -> &'static str {
    if word & BOTH_FIELDS != 0 {
        "and"
    } else {
        "or"
    }
}

impl Instruction {
    /// EQ or MEQ (`op`): `eq [field] in {values}`, with `& mask` for MEQ.
    fn write_eq(&self, s: &mut String, d: &Decoded, (op, size): (Opcode, Size), k: Operands<'_>) {
        let (first, mask) = if op == Opcode::Eq {
            (1, None)
        } else {
            (2, Some(self.p(1)))
        };
        let vals: Vec<String> = (0..d.count as usize)
            .map(|i| k.value(self.operand(first, size, i)))
            .collect();
        write!(s, "{} [{}]", op.name(), field(d, size)).ok();
        if let Some(m) = mask {
            write!(s, " & {}", k.mask(m)).ok();
        }
        write!(s, " in {{{}}}", vals.join(", ")).ok();
    }

    /// RANGE or RANGE2 (`op`): the field (and the second's distance), the mask,
    /// then each `[lo, hi]`.
    fn write_range(
        &self,
        s: &mut String,
        d: &Decoded,
        (op, size): (Opcode, Size),
        k: Operands<'_>,
    ) {
        let (first, mask) = if op == Opcode::Range {
            (2, self.p(1))
        } else {
            (3, self.p(2))
        };
        write!(s, "{} [{}]", op.name(), field(d, size)).ok();
        if op == Opcode::Range2 {
            write!(s, " {} [+{}]", joiner(self.p(1)), self.p(1) & 0xffff).ok();
        }
        write!(s, " & {mask:#x} in").ok();
        for i in 0..d.count as usize {
            let (lo, hi) = match size {
                Size::B4 => (self.p(first + 2 * i), self.p(first + 2 * i + 1)),
                _ => (self.p(first + i) & 0xffff, self.p(first + i) >> 16),
            };
            if k.is_address() {
                write!(s, " [{}, {}]", k.value(lo), k.value(hi)).ok();
            } else {
                write!(s, " [{lo}, {hi}]").ok();
            }
        }
    }

    /// EQ2: `eq2 [field] and|or [+delta] & mask in {values}`.
    fn write_eq2(&self, s: &mut String, d: &Decoded, size: Size, k: Operands<'_>) {
        let vals: Vec<String> = (0..d.count as usize)
            .map(|i| k.value(self.operand(3, size, i)))
            .collect();
        write!(
            s,
            "eq2 [{}] {} [+{}] & {} in {{{}}}",
            field(d, size),
            joiner(self.p(1)),
            self.p(1) & 0xffff,
            k.mask(self.p(2)),
            vals.join(", ")
        )
        .ok();
    }

    /// PREFIX: `prefix [field] /bits = words`, and the second field if any.
    fn write_prefix(&self, s: &mut String, d: &Decoded) {
        let p7 = self.p(7);
        let words: Vec<String> = (1..=d.count as usize)
            .map(|i| format!("{:08x}", self.p(i)))
            .collect();
        write!(
            s,
            "prefix [{}] /{} = {}",
            field(d, Size::B4),
            p7 & 0xff,
            words.join(":")
        )
        .ok();
        let delta = (p7 >> 8) & 0xffff;
        if delta != 0 {
            write!(s, " {} [+{delta}]", joiner(p7)).ok();
        }
    }

    /// SET: the table, field A (and B) with their masks, and the second pair's
    /// distances when there are two.
    fn write_set(&self, s: &mut String, d: &Decoded, size: Size) {
        write!(
            s,
            "set #{} key [{}] & {:#x}",
            self.p(1),
            field(d, size),
            self.p(4)
        )
        .ok();
        let p2 = self.p(2);
        let b = Instruction::new(p2 & 0x00ff_ffff, [0; 7]).decode();
        if p2 & crate::insn::SET_FIELD_B != 0 {
            match b.size {
                Some(bs) => write!(s, ", [{}] & {:#x}", field(&b, bs), self.p(5)).ok(),
                None => write!(s, ", [invalid]").ok(),
            };
        }
        if d.count == 2 {
            write!(
                s,
                " or pair at [+{}], [+{}]",
                self.p(3) & 0xffff,
                self.p(3) >> 16
            )
            .ok();
        }
    }

    /// The `n` micro-ops of an ARITH or CONT slot, each as ` op operand;`.
    fn micro_ops(&self, s: &mut String, n: usize) {
        for i in 0..n {
            let m = (self.p(1 + i / 2) >> (16 * (i % 2))) as u16;
            let op = ArithOp::from_bits(m >> 12);
            let imm = m & 0x800 != 0;
            let arg = m & 0x7ff;
            let operand = if arg >= ARITH_POOL_BASE {
                // 2047 names no word: the engine treats the slot as invalid.
                match self.0.get((arg - ARITH_POOL_BASE + 1) as usize) {
                    Some(w) => format!("{w:#x}"),
                    None => "?".to_string(),
                }
            } else {
                format!("{arg}")
            };
            match op {
                ArithOp::Push => write!(s, " push {operand};"),
                ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4 => {
                    let mode = match IndexMode::of_arg(arg) {
                        Some(IndexMode::Plain) => "",
                        Some(IndexMode::InX) => " index-in-x",
                        Some(IndexMode::InK) => " index-in-k",
                        None => " ?",
                    };
                    write!(s, " {} @{}{mode};", op.name(), arg & 0x3f)
                }
                ArithOp::Neg | ArithOp::Len => write!(s, " {};", op.name()),
                _ if imm => write!(s, " {} {operand};", op.name()),
                _ => write!(s, " {};", op.name()),
            }
            .ok();
        }
    }
}
