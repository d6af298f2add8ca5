//! The checked IR to one Cranelift function `fn(env: *mut Env) -> i64`.
//!
//! The function reads the packet's and MBuf's pointers and lengths from `env`
//! once, keeps the registers the program names in SSA variables (loaded on
//! entry, stored on leaving, whichever way it leaves), and turns the IR's
//! structured control flow into blocks as it comes: `IF` into a branch and a
//! merge, `FOR` into a header that tests the condition and counts the body's
//! runs against the bound; an `IF`'s or loop's test branches directly on its
//! comparisons, `!`, `&&` and `||`, which as values are a branch and a block
//! with the 0 or 1 as its parameter. Expressions are in [`expr`]. Every
//! run-time check of docs/fpl.md is a compare and a
//! branch to one block per fault kind, which jumps to the common exit with the
//! fault's code; every packet and MBuf access is dominated by such a check
//! against this run's length. Arithmetic follows [`crate::ops`]: Cranelift's
//! shifts already take their count modulo 64, and `/` and `%` select a divisor
//! that cannot trap, then the defined results for 0 and -1.

mod expr;

use super::{fault_code, Env};
use crate::externs::ExternFn;
use crate::hir::{Expr, Loop, Place, Program, Stmt, NUM_REGS};
use crate::interp::Fault;
use crate::ops::{BinOp, UnOp};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, Endianness, Function, InstBuilder, MemFlagsData, SigRef, Signature,
    Type, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::Module;
use std::mem::offset_of;

/// The code `Env::fault` gets when an external function panicked (never read:
/// `run` resumes the panic first).
const PANIC_CODE: i64 = 99;

/// Fills `func` (its signature already set) with `program`'s code; `externs`
/// are the functions `EXTERN` reaches, the program's then one per callee
/// (`super::callees`).
pub(super) fn function(
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    module: &JITModule,
    program: &Program,
    externs: &[ExternFn],
) {
    let ptr = module.target_config().pointer_type();
    let mut tramp_sig = Signature::new(module.isa().default_call_conv());
    tramp_sig.params = vec![
        AbiParam::new(ptr),
        AbiParam::new(I64),
        AbiParam::new(I64),
        AbiParam::new(I64),
    ];
    tramp_sig.returns = vec![AbiParam::new(I64)];
    let mut b = FunctionBuilder::new(func, fctx);
    let tramp = b.import_signature(tramp_sig);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let env = b.block_params(entry)[0];
    let trusted = MemFlagsData::trusted();
    // `Env`'s inputs do not change during the run: loads Cranelift may drop
    // when unused and move freely.
    let input = trusted.with_readonly().with_can_move();
    let field =
        |b: &mut FunctionBuilder<'_>, at: usize| b.ins().load(ptr, input, env, offset32(at));
    let pkt = field(&mut b, offset_of!(Env, packet));
    let pkt_len = field(&mut b, offset_of!(Env, packet_len));
    let mbuf = field(&mut b, offset_of!(Env, mbuf));
    let mbuf_len = field(&mut b, offset_of!(Env, mbuf_len));
    let regs_ptr = field(&mut b, offset_of!(Env, regs));
    let pkt_len = widen(&mut b, ptr, pkt_len);
    let mbuf_len = widen(&mut b, ptr, mbuf_len);
    // `MEM[i]` is in range iff `0 <= i < mbuf_len / 8`: one unsigned compare.
    let slots = b.ins().ushr_imm_s(mbuf_len, 3);
    // A load of `w` bytes at a computed offset is in range iff the offset,
    // unsigned, is below `pkt_len - w + 1` (0 when the packet is shorter).
    let limits = [1u8, 2, 4].map(|w| {
        let w = i64::from(w);
        let room = b.ins().iadd_imm_s(pkt_len, 1 - w);
        let fits = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, pkt_len, w);
        let zero = b.ins().iconst(I64, 0);
        b.ins().select(fits, room, zero)
    });

    let (read, written) = registers(program.body());
    let mut regs = [None; NUM_REGS];
    for (r, slot) in regs.iter_mut().enumerate() {
        if read[r] || written[r] {
            let var = b.declare_var(I64);
            let v = b.ins().load(I64, trusted, regs_ptr, offset32(8 * r));
            b.def_var(var, v);
            *slot = Some(var);
        }
    }

    let exit = b.create_block();
    b.append_block_param(exit, I64);
    b.append_block_param(exit, I64);
    let mut l = Lower {
        b,
        ptr,
        env,
        tramp,
        pkt,
        pkt_len,
        limits,
        mbuf,
        mbuf_len,
        slots,
        regs,
        little: module.isa().endianness() == Endianness::Little,
        exit,
        faults: Default::default(),
        breaks: Vec::new(),
        externs,
        callees_at: program.externs().len(),
    };
    if l.block(program.body()) {
        let zero = l.b.ins().iconst(I64, 0);
        l.leave(zero, 0);
    }
    l.fill_faults();

    // The exit: the fault's code to `env`, the registers written back.
    let mut b = l.b;
    b.switch_to_block(exit);
    let value = b.block_params(exit)[0];
    let code = b.block_params(exit)[1];
    b.ins()
        .store(trusted, code, env, offset32(offset_of!(Env, fault)));
    for (r, var) in regs.iter().enumerate() {
        if let (Some(var), true) = (var, written[r]) {
            let v = b.use_var(*var);
            b.ins().store(trusted, v, regs_ptr, offset32(8 * r));
        }
    }
    b.ins().return_(&[value]);
    b.seal_all_blocks();
    b.finalize(module.target_config());
}

/// A field offset or register slot as Cranelift's immediate (all are small).
fn offset32(at: usize) -> i32 {
    i32::try_from(at).unwrap_or(i32::MAX)
}

/// A pointer-sized length as an `i64`.
fn widen(b: &mut FunctionBuilder<'_>, ptr: Type, v: Value) -> Value {
    if ptr == I64 {
        v
    } else {
        b.ins().uextend(I64, v)
    }
}

/// Which registers the program reads and which it writes.
fn registers(body: &[Stmt]) -> ([bool; NUM_REGS], [bool; NUM_REGS]) {
    fn expr(e: &Expr, read: &mut [bool; NUM_REGS]) {
        match e {
            Expr::Const(_) | Expr::Extern { .. } | Expr::Call { .. } => {}
            Expr::Reg(r) => read[usize::from(*r)] = true,
            Expr::Mem(i) | Expr::Load { offset: i, .. } | Expr::Hash { start: i, .. } => {
                expr(i, read)
            }
            Expr::Unary(_, a) => expr(a, read),
            Expr::Field { base, index, .. } => {
                expr(base, read);
                expr(index, read);
            }
            Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
                expr(a, read);
                expr(b, read);
            }
        }
    }
    fn stmts(body: &[Stmt], read: &mut [bool; NUM_REGS], written: &mut [bool; NUM_REGS]) {
        for s in body {
            match s {
                Stmt::Assign { target, op, value } => {
                    expr(value, read);
                    match target {
                        Place::Reg(r) => {
                            written[usize::from(*r)] = true;
                            read[usize::from(*r)] |= op.is_some();
                        }
                        Place::Mem(i) => expr(i, read),
                    }
                }
                Stmt::If { cond, then, els } => {
                    expr(cond, read);
                    stmts(then, read, written);
                    stmts(els, read, written);
                }
                Stmt::Loop(l) => {
                    stmts(&l.init, read, written);
                    if let Some(c) = &l.cond {
                        expr(c, read);
                    }
                    stmts(&l.body, read, written);
                    stmts(&l.step, read, written);
                }
                Stmt::Break => {}
                Stmt::Return(e) | Stmt::Eval(e) => expr(e, read),
            }
        }
    }
    let (mut read, mut written) = ([false; NUM_REGS], [false; NUM_REGS]);
    stmts(body, &mut read, &mut written);
    (read, written)
}

/// The translation's state.
struct Lower<'f, 'p> {
    b: FunctionBuilder<'f>,
    ptr: Type,
    env: Value,
    tramp: SigRef,
    pkt: Value,
    pkt_len: Value,
    /// For loads of 1, 2 and 4 bytes at computed offsets (see `function`).
    limits: [Value; 3],
    mbuf: Value,
    mbuf_len: Value,
    slots: Value,
    regs: [Option<Variable>; NUM_REGS],
    /// The host is little-endian (packet fields are swapped, MBuf is not).
    little: bool,
    /// Parameters: the result, the fault's code.
    exit: Block,
    /// One block per fault kind and its code, made on first use.
    faults: [Option<(Block, i64)>; 6],
    /// The blocks after the enclosing loops, innermost last.
    breaks: Vec<Block>,
    /// The functions `EXTERN` reaches, for their region sizes: the program's,
    /// then from `callees_at` on its filter calls.
    externs: &'p [ExternFn],
    callees_at: usize,
}

impl Lower<'_, '_> {
    /// Jumps to the exit with `value` and fault code `code`.
    fn leave(&mut self, value: Value, code: i64) {
        let code = self.b.ins().iconst(I64, code);
        let exit = self.exit;
        self.b
            .ins()
            .jump(exit, &[BlockArg::Value(value), BlockArg::Value(code)]);
    }

    /// The block that leaves with fault code `code` (slot `i` of `faults`),
    /// filled by `fill_faults` at the end.
    fn fault_block(&mut self, i: usize, code: i64) -> Block {
        self.faults[i]
            .get_or_insert_with(|| (self.b.create_block(), code))
            .0
    }

    /// Fills the fault blocks made: each leaves with its code.
    fn fill_faults(&mut self) {
        for (block, code) in self.faults.into_iter().flatten() {
            self.b.switch_to_block(block);
            let zero = self.b.ins().iconst(I64, 0);
            self.leave(zero, code);
        }
    }

    /// Goes on when `ok` (an `i8` or `i64`) is non-zero, else faults with `f`.
    fn check(&mut self, ok: Value, f: Fault) {
        let code = fault_code(f);
        let fail = self.fault_block(code as usize - 1, code);
        self.branch_on(ok, fail);
    }

    /// Goes on when `ok` is non-zero, else jumps to `fail`.
    fn branch_on(&mut self, ok: Value, fail: Block) {
        let next = self.b.create_block();
        self.b.ins().brif(ok, next, &[], fail, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }

    /// Jumps to `yes` when `e` is non-zero, else to `no`, without computing
    /// `e`'s 0 or 1 where it is a comparison, a negation or a short-circuit
    /// (an `IF`'s or a loop's test). The caller seals `yes` and `no`.
    fn branch(&mut self, e: &Expr, yes: Block, no: Block) {
        let cc = |op| {
            Some(match op {
                BinOp::Eq => IntCC::Equal,
                BinOp::Ne => IntCC::NotEqual,
                BinOp::Lt => IntCC::SignedLessThan,
                BinOp::Le => IntCC::SignedLessThanOrEqual,
                BinOp::Gt => IntCC::SignedGreaterThan,
                BinOp::Ge => IntCC::SignedGreaterThanOrEqual,
                _ => return None,
            })
        };
        match e {
            Expr::And(a, b) | Expr::Or(a, b) => {
                let mid = self.b.create_block();
                if matches!(e, Expr::And(..)) {
                    self.branch(a, mid, no);
                } else {
                    self.branch(a, yes, mid);
                }
                self.b.seal_block(mid);
                self.b.switch_to_block(mid);
                self.branch(b, yes, no);
            }
            Expr::Unary(UnOp::Not, a) => self.branch(a, no, yes),
            Expr::Binary(op, a, b) if cc(*op).is_some() => {
                let a = self.expr(a);
                let b = self.expr(b);
                let c = self.b.ins().icmp(cc(*op).unwrap_or(IntCC::Equal), a, b);
                self.b.ins().brif(c, yes, &[], no, &[]);
            }
            _ => {
                let v = self.expr(e);
                self.b.ins().brif(v, yes, &[], no, &[]);
            }
        }
    }

    /// Lowers `body`; whether control can reach its end.
    fn block(&mut self, body: &[Stmt]) -> bool {
        body.iter().all(|s| self.stmt(s))
    }

    /// Lowers `s`; whether control can go on after it.
    fn stmt(&mut self, s: &Stmt) -> bool {
        match s {
            Stmt::Assign { target, op, value } => {
                let v = self.expr(value);
                match target {
                    Place::Reg(r) => {
                        let var = self.reg(*r);
                        let v = match op {
                            Some(op) => {
                                let old = self.b.use_var(var);
                                self.binary(*op, old, v)
                            }
                            None => v,
                        };
                        self.b.def_var(var, v);
                    }
                    Place::Mem(i) => {
                        let at = self.slot(i);
                        let v = match op {
                            Some(op) => {
                                let old = self.load_slot(at);
                                self.binary(*op, old, v)
                            }
                            None => v,
                        };
                        self.store_slot(at, v);
                    }
                }
                true
            }
            Stmt::If { cond, then, els } => {
                let (tb, eb) = (self.b.create_block(), self.b.create_block());
                self.branch(cond, tb, eb);
                self.b.seal_block(tb);
                self.b.seal_block(eb);
                // The merge block only if a branch reaches its end.
                let mut merge = None;
                for (block, body) in [(tb, then), (eb, els)] {
                    self.b.switch_to_block(block);
                    if self.block(body) {
                        let m = *merge.get_or_insert_with(|| self.b.create_block());
                        self.b.ins().jump(m, &[]);
                    }
                }
                match merge {
                    Some(m) => {
                        self.b.seal_block(m);
                        self.b.switch_to_block(m);
                        true
                    }
                    None => false,
                }
            }
            Stmt::Loop(l) => self.lower_loop(l),
            Stmt::Break => {
                let after = *self.breaks.last().expect("BREAK inside a loop (checked)");
                self.b.ins().jump(after, &[]);
                false
            }
            Stmt::Return(e) => {
                let v = self.expr(e);
                self.leave(v, 0);
                false
            }
            Stmt::Eval(e) => {
                self.expr(e);
                true
            }
        }
    }

    fn lower_loop(&mut self, l: &Loop) -> bool {
        if !self.block(&l.init) {
            return false;
        }
        let runs = self.b.declare_var(I64);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(runs, zero);
        let (header, after) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        if let Some(c) = &l.cond {
            let body = self.b.create_block();
            self.branch(c, body, after);
            self.b.seal_block(body);
            self.b.switch_to_block(body);
        }
        let n = self.b.use_var(runs);
        let below = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, n, i64::from(l.bound));
        self.check(below, Fault::LoopBound);
        let n = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(runs, n);
        self.breaks.push(after);
        let mut open = self.block(&l.body);
        self.breaks.pop();
        if open {
            open = self.block(&l.step);
        }
        if open {
            self.b.ins().jump(header, &[]);
        }
        self.b.seal_block(header);
        self.b.seal_block(after);
        // `after` may have no predecessor (a loop without a test whose body
        // never breaks); code after it is then unreachable, which Cranelift
        // removes.
        self.b.switch_to_block(after);
        true
    }

    /// `R[r]`'s variable (declared for every register the program names).
    fn reg(&mut self, r: u8) -> Variable {
        self.regs[usize::from(r)].expect("register collected by `registers`")
    }
}

/// A packet or MBuf access after its bounds check: unaligned, in the host's
/// byte order, and not trapping.
fn checked() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}
