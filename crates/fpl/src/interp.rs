//! The reference interpreter: the checked IR walked as written, for clarity
//! rather than speed. It is the oracle the JIT and the eBPF back end are tested
//! against, so every rule here is the language's rule (docs/fpl.md, "Run
//! time").
//!
//! A filter call runs its callee with this interpreter, on its window of MBuf
//! ([`crate::calls`]).
//!
//! A run never panics: packet loads, MBuf slots, `EXTERN` regions and
//! run-time selector indexes are checked, loops count against their bounds, and
//! arithmetic is [`crate::ops`]'. A failed check ends the run with a
//! [`Fault`], whose value is 0 (a reject, as an out-of-range load is in BPF);
//! MBuf and register writes made before it stay.

use crate::calls::{self, RESULT_BYTES};
use crate::externs::Call;
use crate::hash::hash;
use crate::hir::{Expr, Loop, Place, Program, Stmt, Width, NUM_REGS, SLOT_BYTES};

/// The registers, owned by the caller: a filter instance keeps them from one
/// packet to the next (Figure 7 counts in `R[0]`), or zeroes them per packet.
pub type Registers = [i64; NUM_REGS];

/// Why a run ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// A packet load or `HASH` reached past the packet, or before it.
    PacketBounds,
    /// `MEM[i]` with slot `i` outside MBuf.
    MemBounds,
    /// An `EXTERN` region outside the MBuf the run was given (the program was
    /// checked against a larger one).
    ExternBounds,
    /// A selector's run-time index past its base.
    Selector,
    /// A loop tried to run its body more times than its bound.
    LoopBound,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// `RETURN v`, or the end of the program (`0`).
    Return(i64),
    /// A run-time check failed.
    Fault(Fault),
}

impl Verdict {
    /// The filter's result: the returned value, or 0 after a fault.
    pub fn value(self) -> i64 {
        match self {
            Verdict::Return(v) => v,
            Verdict::Fault(_) => 0,
        }
    }

    /// Whether the packet passes (a non-zero result).
    pub fn accepts(self) -> bool {
        self.value() != 0
    }
}

/// Runs `program` on `packet` with the filter's `mbuf` and registers.
pub fn run(program: &Program, packet: &[u8], mbuf: &mut [u8], regs: &mut Registers) -> Verdict {
    let mut m = Machine {
        program,
        packet,
        mbuf,
        regs,
    };
    match m.block(&program.body) {
        Ok(Flow::Return(v)) => Verdict::Return(v),
        Ok(Flow::Next | Flow::Break) => Verdict::Return(0),
        Err(f) => Verdict::Fault(f),
    }
}

/// Where control goes after a statement.
enum Flow {
    Next,
    Break,
    Return(i64),
}

struct Machine<'p, 'b> {
    program: &'p Program,
    packet: &'b [u8],
    mbuf: &'b mut [u8],
    regs: &'b mut Registers,
}

impl Machine<'_, '_> {
    fn block(&mut self, body: &[Stmt]) -> Result<Flow, Fault> {
        for s in body {
            match self.stmt(s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Flow, Fault> {
        match s {
            Stmt::Assign { target, op, value } => {
                let v = self.expr(value)?;
                match target {
                    Place::Reg(r) => {
                        let reg = &mut self.regs[usize::from(*r)];
                        *reg = op.map_or(v, |op| op.apply(*reg, v));
                    }
                    Place::Mem(i) => {
                        let at = self.slot(i)?;
                        let old = self.load_slot(at);
                        self.store_slot(at, op.map_or(v, |op| op.apply(old, v)));
                    }
                }
            }
            Stmt::If { cond, then, els } => {
                let branch = if self.expr(cond)? != 0 { then } else { els };
                return self.block(branch);
            }
            Stmt::Loop(l) => return self.run_loop(l),
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Return(e) => return Ok(Flow::Return(self.expr(e)?)),
            Stmt::Eval(e) => {
                self.expr(e)?;
            }
        }
        Ok(Flow::Next)
    }

    fn run_loop(&mut self, l: &Loop) -> Result<Flow, Fault> {
        if let Flow::Return(v) = self.block(&l.init)? {
            return Ok(Flow::Return(v));
        }
        let mut runs = 0u32;
        loop {
            if let Some(c) = &l.cond {
                if self.expr(c)? == 0 {
                    return Ok(Flow::Next);
                }
            }
            if runs == l.bound {
                return Err(Fault::LoopBound);
            }
            runs += 1;
            match self.block(&l.body)? {
                Flow::Next => {}
                Flow::Break => return Ok(Flow::Next),
                Flow::Return(v) => return Ok(Flow::Return(v)),
            }
            if let Flow::Return(v) = self.block(&l.step)? {
                return Ok(Flow::Return(v));
            }
        }
    }

    /// The byte offset of `MEM[i]`, checked.
    fn slot(&mut self, i: &Expr) -> Result<usize, Fault> {
        let i = self.expr(i)?;
        let at = usize::try_from(i)
            .ok()
            .and_then(|i| i.checked_mul(SLOT_BYTES));
        match at {
            Some(at)
                if at
                    .checked_add(SLOT_BYTES)
                    .is_some_and(|end| end <= self.mbuf.len()) =>
            {
                Ok(at)
            }
            _ => Err(Fault::MemBounds),
        }
    }

    fn load_slot(&self, at: usize) -> i64 {
        let mut b = [0u8; SLOT_BYTES];
        b.copy_from_slice(&self.mbuf[at..at + SLOT_BYTES]);
        i64::from_le_bytes(b)
    }

    fn store_slot(&mut self, at: usize, v: i64) {
        self.mbuf[at..at + SLOT_BYTES].copy_from_slice(&v.to_le_bytes());
    }

    /// The packet bytes `start .. start + len`, checked.
    fn bytes(&self, start: i64, len: usize) -> Result<&[u8], Fault> {
        let start = usize::try_from(start).map_err(|_| Fault::PacketBounds)?;
        let end = start.checked_add(len).ok_or(Fault::PacketBounds)?;
        self.packet.get(start..end).ok_or(Fault::PacketBounds)
    }

    fn expr(&mut self, e: &Expr) -> Result<i64, Fault> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Reg(r) => self.regs[usize::from(*r)],
            Expr::Mem(i) => {
                let at = self.slot(i)?;
                self.load_slot(at)
            }
            Expr::Load { width, offset } => {
                let off = self.expr(offset)?;
                let b = self.bytes(off, width.bytes())?;
                match width {
                    Width::Byte => i64::from(b[0]),
                    Width::Word => i64::from(u16::from_be_bytes([b[0], b[1]])),
                    Width::DWord => i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
                }
            }
            Expr::Field {
                base,
                base_bits,
                bits,
                signed,
                index,
            } => {
                let v = self.expr(base)?;
                let m = self.expr(index)?;
                field(v, *base_bits, *bits, *signed, m).ok_or(Fault::Selector)?
            }
            Expr::Unary(op, a) => op.apply(self.expr(a)?),
            Expr::Binary(op, a, b) => {
                let a = self.expr(a)?;
                op.apply(a, self.expr(b)?)
            }
            Expr::And(a, b) => i64::from(self.expr(a)? != 0 && self.expr(b)? != 0),
            Expr::Or(a, b) => i64::from(self.expr(a)? != 0 || self.expr(b)? != 0),
            Expr::Hash { start, len, size } => {
                let start = self.expr(start)?;
                hash(self.bytes(start, *len as usize)?, *size)
            }
            Expr::Extern {
                func,
                input,
                output,
            } => self.call(*func, *input as usize, *output as usize)?,
            Expr::Call {
                filter,
                input,
                output,
            } => self.call_filter(*filter, *input as usize, *output as usize)?,
        })
    }

    /// The filter call's regions checked against this run's MBuf, then the
    /// callee run by this interpreter on its window ([`calls::invoke`]).
    fn call_filter(&mut self, filter: usize, input: usize, output: usize) -> Result<i64, Fault> {
        let program = self.program;
        let callee = &program.filters[filter].program;
        let call = self.regions(input, callee.mbuf_len(), output, RESULT_BYTES)?;
        Ok(calls::invoke(call, |packet, window, regs| {
            run(callee, packet, window, regs).value()
        }))
    }

    /// The [`Call`] with the regions `input .. input + input_len` and
    /// `output .. output + output_len`, or `ExternBounds` when one is outside
    /// this run's MBuf.
    fn regions(
        &mut self,
        input: usize,
        input_len: usize,
        output: usize,
        output_len: usize,
    ) -> Result<Call<'_>, Fault> {
        let fits = |at: usize, len: usize| {
            at.checked_add(len)
                .is_some_and(|end| end <= self.mbuf.len())
        };
        if !fits(input, input_len) || !fits(output, output_len) {
            return Err(Fault::ExternBounds);
        }
        Ok(Call {
            packet: self.packet,
            mbuf: self.mbuf,
            input,
            output,
            input_len,
            output_len,
        })
    }

    fn call(&mut self, func: usize, input: usize, output: usize) -> Result<i64, Fault> {
        let f = &self.program.externs[func];
        let call = self.regions(input, f.input_len(), output, f.output_len())?;
        Ok(f.call(call))
    }
}

/// The `m`-th `bits`-wide field of the `base_bits`-wide value `v`, from the most
/// significant end; `None` when `m` is past the value.
pub fn field(v: i64, base_bits: u8, bits: u8, signed: bool, m: i64) -> Option<i64> {
    let fields = i64::from(base_bits / bits.max(1));
    if !(0..fields).contains(&m) {
        return None;
    }
    let shift = u32::from(base_bits) - u32::from(bits) * (m as u32 + 1);
    let raw = (v as u64) >> shift & (u64::MAX >> (64 - u32::from(bits)));
    Some(if signed {
        // Move the field's top bit to bit 63, then shift back arithmetically.
        ((raw << (64 - u32::from(bits))) as i64) >> (64 - u32::from(bits))
    } else {
        raw as i64
    })
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn fields_count_from_the_top() {
        assert_eq!(field(0x1234, 16, 8, false, 0), Some(0x12));
        assert_eq!(field(0x1234, 16, 8, false, 1), Some(0x34));
        assert_eq!(field(0x80, 8, 1, false, 0), Some(1));
        assert_eq!(field(0x80, 8, 1, true, 0), Some(-1));
        assert_eq!(field(0xf0, 8, 4, true, 0), Some(-1));
        assert_eq!(field(0xf0, 8, 4, false, 1), Some(0));
        assert_eq!(field(-1, 64, 32, false, 1), Some(0xffff_ffff));
        assert_eq!(field(0xff, 8, 8, false, 1), None);
        assert_eq!(field(0xff, 8, 8, false, -1), None);
    }
}
