//! The 32-byte instruction: one command word and seven parameter words.
//!
//! ```text
//! word 0, the command word:
//!  31      26 25 24 23 22 21     17 16     11 10            0
//! +----------+--+--+-----+---------+---------+--------------+
//! |  opcode  |N |C |size |  count  | anchor  |    offset    |
//! +----------+--+--+-----+---------+---------+--------------+
//!    6 bits   1  1  2 bits  5 bits    6 bits      11 bits
//!
//! words 1..=7: parameters p1..p7 (operands, masks, ranges; layout per opcode)
//! ```
//!
//! * `N` negates the result. A fault (a load past the captured bytes) is not
//!   negated: like BPF, it rejects the packet.
//! * `C` marks an instruction `copied` from the parent pass: the engine reuses the
//!   parent's result for it instead of evaluating it again.
//! * `size` is the field width: 0 = 1 byte, 1 = 2 bytes, 2 = 4 bytes (3 is invalid
//!   for opcodes that load).
//! * `count` is the SIMD operand count; it is part of the opcode word, so decoding
//!   needs no loop to find it.
//! * The field is at `anchor + offset` (anchor 0 is the packet start).
//!
//! Operand packing: 32-bit operands take one parameter word each; 16-bit operands two
//! (low half first); 8-bit operands four (lowest byte first). Ranges of 8/16-bit
//! fields pack `lo` in the low half and `hi` in the high half of one word; ranges of
//! 32-bit fields take two words.
//!
//! | opcode | name | test | params | serves |
//! |---|---|---|---|---|
//! | 1 | EQ | `f ∈ {v..}` | p1..p7 values | `ether proto`, `ip proto`, `vlan N`, `byte N = M` |
//! | 2 | MEQ | `f & m ∈ {v..}` | p1 mask, p2..p7 values | `net`, flags, fragment tests, `tcp[13] & 2 != 0` |
//! | 3 | RANGE | `lo ≤ f & m ≤ hi` for any range | p1 mask, p2..p7 ranges | `portrange`, `byte N > M`, `f > k` |
//! | 4 | EQ2 | src-or-dst (or src-and-dst) `f & m ∈ {v..}` | p1 = delta to 2nd field \| ALL bit 31, p2 mask, p3..p7 values | `host`, `port`, `ether host`, `net` |
//! | 5 | RANGE2 | RANGE on two fields | p1 as EQ2, p2 mask, p3..p7 ranges | `portrange` without direction |
//! | 6 | PREFIX | the first `bits` bits of a multi-word field equal p1.. | p1..p6 words, p7 = bits \| delta<<8 \| ALL bit 31 | `ip6 host/net`, `ether host` |
//! | 7 | LEN | `lo ≤ wirelen ≤ hi` for any range | p(2i+1), p(2i+2) | `less`, `greater`, `len` relations |
//! | 8 | ARITH | `expr relop expr` | micro-ops and constants, see below | `tcp[13] & 3 = 2`, `ip[2:2] - hl > 40` |
//! | 9 | GROUP | any of sub-passes p1 .. p1+p2-1 accepts | p1 first, p2 count | nested OR that DNF would blow up |
//! | 10 | PROTOCHAIN | the IPv4/IPv6 header chain holds protocol p1 | p1 protocol, p2 IP version | `protochain`, `ip6 protochain` |
//! | 11 | SET | the key `(A & mA) << 32 \| (B & mB)` is in hash table p1 | p1 table, p2 field B, p3 deltas, p4 mA, p5 mB | tracked connections (live sets only) |
//! | 12 | CONT | alone: true; read by the ARITH before it | more micro-ops and constants | arithmetic longer than one slot |
//!
//! Any other opcode, a `count` above the opcode's capacity, or an invalid `size`
//! makes the instruction *invalid*: it evaluates false (and is not negated).
//!
//! ARITH: `count` micro-ops of 16 bits each are packed from p1 upward (two per word);
//! the `anchor` field's low two bits give the relation (0 `=`, 1 `>`, 2 `>=`). A
//! micro-op is `op:4 | imm:1 | arg:11`; its operand is `arg` itself when `arg < 2040`,
//! else parameter word `p(arg - 2039)`. The ops work on a stack of at most 16 values:
//! PUSH, LD1/LD2/LD4 (pop an index, push the field at anchor `arg` + index), ADD, SUB,
//! MUL, DIV, MOD, AND, OR, XOR, SHL, SHR (pop b — or take the operand when `imm` is
//! set — pop a, push `a op b`), NEG, and LEN (push the wire length). When the ops end,
//! the stack must hold exactly two values, compared with the relation. There are no
//! jumps and no stores; a division by zero is a fault, as in BPF. The `offset` field
//! counts CONT slots that follow in the pass: their micro-ops run after the head's, on
//! the same stack, each slot naming constants in its own words (see
//! [`build::arith_chain`]).
//!
//! SET: field A is the command word's field; p2 describes field B in the command
//! word's low bits (`size:2 << 22 | anchor:6 << 11 | offset:11`) with bit 31 set, or is
//! 0 for no field B (then B is 0). With `count` 2 a second pair is tried too: A at
//! `+ (p3 & 0xffff)`, B at `+ (p3 >> 16)` (src pair, then dst pair). `count` 1 tries
//! one pair. Tables belong to a live pass set (`engine::live`); an instruction naming
//! a table that does not exist is invalid. Lookups take bounded time: a table is
//! never more than half full, so a probe always reaches an empty slot.

use std::fmt;

/// Operation selected by the opcode bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Opcode {
    /// `f ∈ {v..}`.
    Eq = 1,
    /// `f & m ∈ {v..}`.
    MEq = 2,
    /// `lo ≤ f & m ≤ hi` for any of the ranges.
    Range = 3,
    /// MEQ on two fields, either or both.
    Eq2 = 4,
    /// RANGE on two fields, either or both.
    Range2 = 5,
    /// The first bits of a multi-word field equal the operand words.
    Prefix = 6,
    /// The wire length lies in one of the ranges.
    Len = 7,
    /// `expr relop expr` as stack micro-ops.
    Arith = 8,
    /// Any of a range of later sub-passes accepts.
    Group = 9,
    /// The IPv4/IPv6 header chain holds a protocol.
    Protochain = 10,
    /// A key made of one or two fields is in a hash table.
    Set = 11,
    /// More micro-ops of the ARITH before it.
    ArithCont = 12,
}

impl Opcode {
    /// The opcode with number `v`; `None` for a number that names none.
    pub fn from_bits(v: u32) -> Option<Opcode> {
        Some(match v {
            1 => Opcode::Eq,
            2 => Opcode::MEq,
            3 => Opcode::Range,
            4 => Opcode::Eq2,
            5 => Opcode::Range2,
            6 => Opcode::Prefix,
            7 => Opcode::Len,
            8 => Opcode::Arith,
            9 => Opcode::Group,
            10 => Opcode::Protochain,
            11 => Opcode::Set,
            12 => Opcode::ArithCont,
            _ => return None,
        })
    }

    /// The opcode's name in the `-d` listing.
    pub fn name(self) -> &'static str {
        match self {
            Opcode::Eq => "eq",
            Opcode::MEq => "meq",
            Opcode::Range => "range",
            Opcode::Eq2 => "eq2",
            Opcode::Range2 => "range2",
            Opcode::Prefix => "prefix",
            Opcode::Len => "len",
            Opcode::Arith => "arith",
            Opcode::Group => "group",
            Opcode::Protochain => "protochain",
            Opcode::Set => "set",
            Opcode::ArithCont => "cont",
        }
    }
}

/// Field width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// One byte.
    B1,
    /// Two bytes, big-endian.
    B2,
    /// Four bytes, big-endian.
    B4,
}

impl Size {
    /// The width in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Size::B1 => 1,
            Size::B2 => 2,
            Size::B4 => 4,
        }
    }
    /// The size of `n` bytes, if there is one.
    pub fn from_bytes(n: u32) -> Option<Size> {
        match n {
            1 => Some(Size::B1),
            2 => Some(Size::B2),
            4 => Some(Size::B4),
            _ => None,
        }
    }
    /// The 2-bit code of the command word's size field.
    pub fn code(self) -> u32 {
        match self {
            Size::B1 => 0,
            Size::B2 => 1,
            Size::B4 => 2,
        }
    }
    /// Operands of this width that fit in `words` parameter words.
    pub fn per_words(self, words: usize) -> usize {
        words * (4 / self.bytes() as usize)
    }
    /// Largest value a field of this width holds.
    pub fn max(self) -> u32 {
        match self {
            Size::B1 => 0xff,
            Size::B2 => 0xffff,
            Size::B4 => u32::MAX,
        }
    }
}

/// Relation of an ARITH instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelOp {
    /// `a = b`.
    Eq = 0,
    /// `a > b` (unsigned).
    Gt = 1,
    /// `a ≥ b` (unsigned).
    Ge = 2,
}

/// ARITH micro-operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ArithOp {
    /// Push the operand.
    Push = 0,
    /// Replace the top (an index) with the byte at the anchor plus it.
    Ld1 = 1,
    /// As LD1, two bytes.
    Ld2 = 2,
    /// As LD1, four bytes.
    Ld4 = 3,
    /// `a + b`, wrapping.
    Add = 4,
    /// `a - b`, wrapping.
    Sub = 5,
    /// `a * b`, wrapping.
    Mul = 6,
    /// `a / b`; a fault when `b` is 0.
    Div = 7,
    /// `a % b`; a fault when `b` is 0.
    Mod = 8,
    /// `a & b`.
    And = 9,
    /// `a | b`.
    Or = 10,
    /// `a ^ b`.
    Xor = 11,
    /// `a << b`, 0 for shifts of 32 or more.
    Shl = 12,
    /// `a >> b`, 0 for shifts of 32 or more.
    Shr = 13,
    /// Two's-complement negation of the top.
    Neg = 14,
    /// Push the wire length.
    Len = 15,
}

impl ArithOp {
    /// The micro-op with number `v` (the top four bits of a micro-op).
    pub fn from_bits(v: u16) -> ArithOp {
        match v & 0xf {
            0 => ArithOp::Push,
            1 => ArithOp::Ld1,
            2 => ArithOp::Ld2,
            3 => ArithOp::Ld4,
            4 => ArithOp::Add,
            5 => ArithOp::Sub,
            6 => ArithOp::Mul,
            7 => ArithOp::Div,
            8 => ArithOp::Mod,
            9 => ArithOp::And,
            10 => ArithOp::Or,
            11 => ArithOp::Xor,
            12 => ArithOp::Shl,
            13 => ArithOp::Shr,
            14 => ArithOp::Neg,
            _ => ArithOp::Len,
        }
    }
    /// The micro-op's name in the `-d` listing.
    pub fn name(self) -> &'static str {
        [
            "push", "ld1", "ld2", "ld4", "add", "sub", "mul", "div", "mod", "and", "or", "xor",
            "shl", "shr", "neg", "len",
        ][self as usize]
    }
}

/// How an ARITH load adds its index `i` to its anchor. BPF's indexed load
/// `ld [x + k]` adds two unsigned 32-bit halves with a bounds check on each, and
/// libpcap splits `proto[i]` between them in two ways. With `o` the anchor's offset
/// field (libpcap's constant part `k`) and `v` the anchor's value:
///
/// * [`IndexMode::Plain`]: `v + i`, the whole offset in `k`.
/// * [`IndexMode::InX`]: `o + ((v - o + i) mod 2^32)`. A computed index goes into X
///   with the header's variable part (`udp[-ip[4]]` reads back into the IP header).
/// * [`IndexMode::InK`]: `(v - o) + ((o + i) mod 2^32)`. The optimizer folds a
///   constant index into `k` (`ip[-4]` on Ethernet reads byte 10, `udp[-24]` faults).
///
/// The outer addition never wraps: past 2^32 the load faults, as BPF's does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexMode {
    /// `v + i`: the index added to the anchor's value.
    Plain = 0,
    /// A computed index, as libpcap's `ld [x + k]` with the index in X.
    InX = 1,
    /// A constant index, folded into libpcap's `k`.
    InK = 2,
}

impl IndexMode {
    /// The mode of a load micro-op's `arg`; `None` for the invalid mode 3 or
    /// reserved bits 8-10 set.
    pub fn of_arg(arg: u16) -> Option<IndexMode> {
        match arg >> 6 {
            0 => Some(IndexMode::Plain),
            1 => Some(IndexMode::InX),
            2 => Some(IndexMode::InK),
            _ => None,
        }
    }

    /// The `arg` of a load micro-op from anchor `anchor` (below 64).
    pub fn arg(self, anchor: u8) -> u16 {
        (self as u16) << 6 | (anchor as u16 & 0x3f)
    }

    /// The field's offset from the anchor's value `v`, offset field `o` and index
    /// `i`; `None` when it is past 2^32 (a fault).
    #[inline]
    pub fn place(self, v: u32, o: u32, i: u32) -> Option<u32> {
        match self {
            IndexMode::Plain => v.checked_add(i),
            IndexMode::InX => o.checked_add(v.wrapping_sub(o).wrapping_add(i)),
            IndexMode::InK => v.wrapping_sub(o).checked_add(o.wrapping_add(i)),
        }
    }
}

/// ARITH micro-op operands at or above this value name a parameter word.
pub const ARITH_POOL_BASE: u16 = 2040;
/// Most micro-ops one ARITH (or CONT) slot holds.
pub const ARITH_MAX_OPS: usize = 14;
/// Deepest ARITH stack: libpcap's 16 scratch registers (BPF_MEMWORDS). libpcap holds
/// every pending value of an expression in a register and refuses an expression that
/// needs more, and netsift's stack never holds more values than libpcap's registers
/// do, so this depth takes every expression libpcap compiles.
pub const ARITH_STACK: usize = 16;
/// Largest offset the command word holds; larger ones go through a Const anchor.
pub const MAX_OFFSET: u32 = (1 << 11) - 1;
/// Flag in p1 of EQ2/RANGE2 and p7 of PREFIX: both fields must match.
pub const BOTH_FIELDS: u32 = 1 << 31;
/// Flag in p2 of SET: a field B is described.
pub const SET_FIELD_B: u32 = 1 << 31;

/// One instruction image: the command word and seven parameters. Any value is a valid
/// `Instruction` to store and run; [`Instruction::decode`] says what it does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(32))]
pub struct Instruction(pub [u32; 8]);

const _: () = assert!(std::mem::size_of::<Instruction>() == 32);

/// The command word's fields, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The opcode; `None` for bits that name none.
    pub opcode: Option<Opcode>,
    /// The N flag: the result is negated (a fault is not).
    pub negate: bool,
    /// The C flag: the parent pass's result is reused.
    pub copied: bool,
    /// The field width; `None` for the invalid code 3.
    pub size: Option<Size>,
    /// The SIMD operand count (micro-ops for ARITH).
    pub count: u8,
    /// The anchor the field is addressed from (ARITH: the relation).
    pub anchor: u8,
    /// Bytes from the anchor to the field (ARITH: its CONT slots).
    pub offset: u16,
}

impl Instruction {
    /// Builds a command word. `count` and `offset` must fit their fields.
    pub fn command(op: Opcode, size: Size, count: usize, anchor: u8, offset: u32) -> u32 {
        debug_assert!(count < 32 && anchor < 64 && offset <= MAX_OFFSET);
        (op as u32) << 26
            | size.code() << 22
            | (count as u32 & 0x1f) << 17
            | (anchor as u32 & 0x3f) << 11
            | (offset & MAX_OFFSET)
    }

    /// The instruction with command word `command` and parameters p1..p7.
    pub fn new(command: u32, params: [u32; 7]) -> Instruction {
        let mut w = [0u32; 8];
        w[0] = command;
        w[1..].copy_from_slice(&params);
        Instruction(w)
    }

    /// The command word's fields.
    pub fn decode(&self) -> Decoded {
        let c = self.0[0];
        Decoded {
            opcode: Opcode::from_bits(c >> 26),
            negate: c & (1 << 25) != 0,
            copied: c & (1 << 24) != 0,
            size: match (c >> 22) & 3 {
                0 => Some(Size::B1),
                1 => Some(Size::B2),
                2 => Some(Size::B4),
                _ => None,
            },
            count: ((c >> 17) & 0x1f) as u8,
            anchor: ((c >> 11) & 0x3f) as u8,
            offset: (c & MAX_OFFSET) as u16,
        }
    }

    /// Parameter word `i`, 1-based as in the documentation (p1..p7).
    #[inline]
    pub fn p(&self, i: usize) -> u32 {
        self.0[i]
    }

    /// Whether the N flag is set.
    pub fn negated(&self) -> bool {
        self.0[0] & (1 << 25) != 0
    }
    /// The same image with the N flag set to `on`.
    pub fn with_negate(mut self, on: bool) -> Instruction {
        self.0[0] = (self.0[0] & !(1 << 25)) | (on as u32) << 25;
        self
    }
    /// Whether the C flag is set.
    pub fn copied(&self) -> bool {
        self.0[0] & (1 << 24) != 0
    }
    /// The same image with the C flag set to `on`.
    pub fn with_copied(mut self, on: bool) -> Instruction {
        self.0[0] = (self.0[0] & !(1 << 24)) | (on as u32) << 24;
        self
    }

    /// How many CONT slots follow this instruction as part of it: an ARITH's offset
    /// field; 0 for every other opcode.
    #[inline]
    pub fn arith_ext(&self) -> usize {
        match self.decode().opcode {
            Some(Opcode::Arith) => (self.0[0] & MAX_OFFSET) as usize,
            _ => 0,
        }
    }

    /// Whether instruction `i` of a pass may reuse its parent's result: it is marked
    /// `copied` and, for an ARITH that continues in CONT slots, so is every slot it
    /// reads. A child whose head is the parent's but whose continuation is its own
    /// computes something else.
    pub fn reusable(insns: &[Instruction], i: usize) -> bool {
        let Some(head) = insns.get(i) else {
            return false;
        };
        let ext = head.arith_ext();
        head.copied()
            && insns
                .get(i + 1..=i + ext)
                .is_some_and(|c| c.iter().all(Instruction::copied))
    }

    /// The image as 32 little-endian bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for (i, w) in self.0.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
    /// The image from 32 little-endian bytes ([`Instruction::to_bytes`]).
    pub fn from_bytes(b: &[u8; 32]) -> Instruction {
        let mut w = [0u32; 8];
        for (i, x) in w.iter_mut().enumerate() {
            *x = u32::from_le_bytes([b[i * 4], b[i * 4 + 1], b[i * 4 + 2], b[i * 4 + 3]]);
        }
        Instruction(w)
    }

    /// Operand `i` of width `size` packed into the parameter words starting at `first`.
    #[inline]
    pub fn operand(&self, first: usize, size: Size, i: usize) -> u32 {
        match size {
            Size::B4 => self.0[first + i],
            Size::B2 => (self.0[first + i / 2] >> (16 * (i % 2))) & 0xffff,
            Size::B1 => (self.0[first + i / 4] >> (8 * (i % 4))) & 0xff,
        }
    }

    /// The most operands this instruction's opcode and size allow (0 if invalid).
    pub fn capacity(op: Opcode, size: Size) -> usize {
        match op {
            Opcode::Eq => size.per_words(7),
            Opcode::MEq => size.per_words(6),
            Opcode::Range => match size {
                Size::B4 => 3,
                _ => 6,
            },
            Opcode::Eq2 => size.per_words(5),
            Opcode::Range2 => match size {
                Size::B4 => 2,
                _ => 5,
            },
            Opcode::Prefix => 6,
            Opcode::Len => 3,
            Opcode::Arith | Opcode::ArithCont => ARITH_MAX_OPS,
            Opcode::Group | Opcode::Protochain => 0,
            Opcode::Set => 2,
        }
    }

    /// Where the equality operands of an EQ, MEQ or EQ2 image live: the first
    /// parameter word, the operand width, how many there are and how many fit. `None`
    /// for other opcodes and invalid images. This is what the seeds' `add_param` and
    /// `del_param` edit.
    pub fn operand_slots(&self) -> Option<(usize, Size, usize, usize)> {
        let d = self.decode();
        let first = match d.opcode? {
            Opcode::Eq => 1,
            Opcode::MEq => 2,
            Opcode::Eq2 => 3,
            _ => return None,
        };
        let size = d.size?;
        let cap = Instruction::capacity(d.opcode?, size);
        (d.count as usize <= cap).then_some((first, size, d.count as usize, cap))
    }

    /// The same image with operand `i` (of the layout [`Self::operand_slots`] gives)
    /// set to `v`, truncated to the operand width.
    pub fn with_operand(mut self, first: usize, size: Size, i: usize, v: u32) -> Instruction {
        let (word, shift, mask) = match size {
            Size::B4 => (first + i, 0, u32::MAX),
            Size::B2 => (first + i / 2, 16 * (i % 2), 0xffff),
            Size::B1 => (first + i / 4, 8 * (i % 4), 0xff),
        };
        if word < 8 {
            self.0[word] = (self.0[word] & !(mask << shift)) | (v & mask) << shift;
        }
        self
    }

    /// The same image with the SIMD operand count set to `n` (at most 31).
    pub fn with_count(mut self, n: usize) -> Instruction {
        self.0[0] = (self.0[0] & !(0x1f << 17)) | ((n as u32 & 0x1f) << 17);
        self
    }

    /// The same image with every anchor it names passed through `f`: the command
    /// word's anchor for opcodes that load, ARITH's load micro-ops, SET's field B.
    /// Used when a pass moves into a pass set with another anchor numbering.
    pub fn map_anchors(&self, f: impl Fn(u8) -> u8) -> Instruction {
        let mut w = self.0;
        let anchor_of = |word: u32| ((word >> 11) & 0x3f) as u8;
        let with_anchor = |word: u32, a: u8| (word & !(0x3f << 11)) | ((a as u32 & 0x3f) << 11);
        match self.decode().opcode {
            None | Some(Opcode::Group) | Some(Opcode::Len) => {}
            Some(Opcode::Arith | Opcode::ArithCont) => {
                let n = (self.decode().count as usize).min(ARITH_MAX_OPS);
                for i in 0..n {
                    let shift = 16 * (i % 2);
                    let m = (w[1 + i / 2] >> shift) as u16;
                    let op = ArithOp::from_bits(m >> 12);
                    if matches!(op, ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4) {
                        let arg = (m & !0x3f) | (f((m & 0x3f) as u8) as u16 & 0x3f);
                        w[1 + i / 2] = (w[1 + i / 2] & !(0xffff << shift)) | (arg as u32) << shift;
                    }
                }
            }
            Some(op) => {
                w[0] = with_anchor(w[0], f(anchor_of(w[0])));
                if op == Opcode::Set && w[2] & SET_FIELD_B != 0 {
                    w[2] = with_anchor(w[2], f(anchor_of(w[2])));
                }
            }
        }
        Instruction(w)
    }
}

impl fmt::Debug for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Instruction({:08x}", self.0[0])?;
        for w in &self.0[1..] {
            write!(f, " {w:08x}")?;
        }
        write!(f, ")")
    }
}

/// Packs operands of `size` into parameter words starting at index `first` (1-based).
pub fn pack_operands(params: &mut [u32; 8], first: usize, size: Size, values: &[u32]) {
    for (i, &v) in values.iter().enumerate() {
        match size {
            Size::B4 => params[first + i] = v,
            Size::B2 => params[first + i / 2] |= (v & 0xffff) << (16 * (i % 2)),
            Size::B1 => params[first + i / 4] |= (v & 0xff) << (8 * (i % 4)),
        }
    }
}

/// Builders for well-formed instructions. Each returns `None` if the operands do not
/// fit (too many values, offset too large), so callers can split or re-anchor.
pub mod build {
    use super::*;

    fn cmd_ok(count: usize, anchor: u8, offset: u32) -> bool {
        count < 32 && anchor < 64 && offset <= MAX_OFFSET
    }

    /// EQ or MEQ: `field & mask ∈ values` (EQ when `mask` is all ones for `size`).
    pub fn eq(
        anchor: u8,
        offset: u32,
        size: Size,
        mask: u32,
        values: &[u32],
    ) -> Option<Instruction> {
        let full = mask & size.max() == size.max();
        let op = if full { Opcode::Eq } else { Opcode::MEq };
        if values.is_empty()
            || values.len() > Instruction::capacity(op, size)
            || !cmd_ok(values.len(), anchor, offset)
        {
            return None;
        }
        let mut w = [0u32; 8];
        w[0] = Instruction::command(op, size, values.len(), anchor, offset);
        if full {
            pack_operands(&mut w, 1, size, values);
        } else {
            w[1] = mask;
            pack_operands(&mut w, 2, size, values);
        }
        Some(Instruction(w))
    }

    /// The image of an instruction with `n` operands, its command word written, if the
    /// operands and the address fit.
    fn start(op: Opcode, size: Size, n: usize, anchor: u8, offset: u32) -> Option<[u32; 8]> {
        if n == 0 || n > Instruction::capacity(op, size) || !cmd_ok(n, anchor, offset) {
            return None;
        }
        let mut w = [0u32; 8];
        w[0] = Instruction::command(op, size, n, anchor, offset);
        Some(w)
    }

    /// RANGE: `field & mask` in any of `ranges` (inclusive).
    pub fn range(
        anchor: u8,
        offset: u32,
        size: Size,
        mask: u32,
        ranges: &[(u32, u32)],
    ) -> Option<Instruction> {
        let mut w = start(Opcode::Range, size, ranges.len(), anchor, offset)?;
        w[1] = mask;
        pack_ranges(&mut w, 2, size, ranges);
        Some(Instruction(w))
    }

    fn pack_ranges(w: &mut [u32; 8], first: usize, size: Size, ranges: &[(u32, u32)]) {
        for (i, &(lo, hi)) in ranges.iter().enumerate() {
            match size {
                Size::B4 => {
                    w[first + 2 * i] = lo;
                    w[first + 2 * i + 1] = hi;
                }
                _ => w[first + i] = (lo & 0xffff) | (hi & 0xffff) << 16,
            }
        }
    }

    /// EQ2: two fields `delta` bytes apart; `both` asks for both to match.
    pub fn eq2(
        anchor: u8,
        offset: u32,
        delta: u16,
        both: bool,
        size: Size,
        mask: u32,
        values: &[u32],
    ) -> Option<Instruction> {
        let mut w = start(Opcode::Eq2, size, values.len(), anchor, offset)?;
        w[1] = delta as u32 | if both { BOTH_FIELDS } else { 0 };
        w[2] = mask;
        pack_operands(&mut w, 3, size, values);
        Some(Instruction(w))
    }

    /// RANGE2: two fields `delta` bytes apart.
    pub fn range2(
        anchor: u8,
        offset: u32,
        delta: u16,
        both: bool,
        size: Size,
        mask: u32,
        ranges: &[(u32, u32)],
    ) -> Option<Instruction> {
        let mut w = start(Opcode::Range2, size, ranges.len(), anchor, offset)?;
        w[1] = delta as u32 | if both { BOTH_FIELDS } else { 0 };
        w[2] = mask;
        pack_ranges(&mut w, 3, size, ranges);
        Some(Instruction(w))
    }

    /// PREFIX: the first `bits` bits at the field equal `words` (big-endian words);
    /// with `delta` != 0 a second field `delta` bytes later is tried too.
    pub fn prefix(
        anchor: u8,
        offset: u32,
        words: &[u32],
        bits: u32,
        delta: u16,
        both: bool,
    ) -> Option<Instruction> {
        let n = words.len();
        if n == 0
            || n > 6
            || bits > 32 * n as u32
            || bits <= 32 * (n as u32 - 1)
            || !cmd_ok(n, anchor, offset)
        {
            return None;
        }
        let mut w = [0u32; 8];
        w[0] = Instruction::command(Opcode::Prefix, Size::B4, n, anchor, offset);
        w[1..=n].copy_from_slice(words);
        w[7] = bits | (delta as u32) << 8 | if both { BOTH_FIELDS } else { 0 };
        Some(Instruction(w))
    }

    /// LEN: wire length in any of `ranges`.
    pub fn len(ranges: &[(u32, u32)]) -> Option<Instruction> {
        if ranges.is_empty() || ranges.len() > 3 {
            return None;
        }
        let mut w = [0u32; 8];
        w[0] = Instruction::command(Opcode::Len, Size::B4, ranges.len(), 0, 0);
        for (i, &(lo, hi)) in ranges.iter().enumerate() {
            w[1 + 2 * i] = lo;
            w[2 + 2 * i] = hi;
        }
        Some(Instruction(w))
    }

    /// GROUP: any of the sub-passes `first .. first + count` accepts.
    pub fn group(first: u32, count: u32) -> Instruction {
        let mut w = [0u32; 8];
        w[0] = Instruction::command(Opcode::Group, Size::B4, 0, 0, 0);
        w[1] = first;
        w[2] = count;
        Instruction(w)
    }

    /// PROTOCHAIN: the header chain of the IP header at `anchor + offset` holds `proto`.
    pub fn protochain(anchor: u8, offset: u32, version: u32, proto: u32) -> Option<Instruction> {
        if !cmd_ok(0, anchor, offset) {
            return None;
        }
        let mut w = [0u32; 8];
        w[0] = Instruction::command(Opcode::Protochain, Size::B1, 0, anchor, offset);
        w[1] = proto;
        w[2] = version;
        Some(Instruction(w))
    }

    /// A field for [`set`]: `size` bytes at `anchor + offset`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Field {
        /// The anchor the field is addressed from.
        pub anchor: u8,
        /// Bytes from the anchor to the field.
        pub offset: u32,
        /// The field width.
        pub size: Size,
    }

    /// SET: the key made of field `a` (masked by `mask_a`) and optionally field `b`
    /// (masked by `mask_b`) is in hash table `table`. With `alt = Some((da, db))` the
    /// pair at `a + da`, `b + db` is tried as well (source pair, then destination).
    pub fn set(
        table: u32,
        a: Field,
        mask_a: u32,
        b: Option<Field>,
        mask_b: u32,
        alt: Option<(u16, u16)>,
    ) -> Option<Instruction> {
        let count = if alt.is_some() { 2 } else { 1 };
        let mut w = start(Opcode::Set, a.size, count, a.anchor, a.offset)?;
        w[1] = table;
        if let Some(b) = b {
            if !cmd_ok(0, b.anchor, b.offset) {
                return None;
            }
            w[2] = SET_FIELD_B | b.size.code() << 22 | (b.anchor as u32) << 11 | b.offset;
        }
        if let Some((da, db)) = alt {
            w[3] = da as u32 | (db as u32) << 16;
        }
        w[4] = mask_a;
        w[5] = mask_b;
        Some(Instruction(w))
    }

    /// One ARITH micro-op.
    pub fn micro(op: ArithOp, imm: bool, arg: u16) -> u16 {
        (op as u16) << 12 | (imm as u16) << 11 | (arg & 0x7ff)
    }

    /// An ARITH micro-op before packing ([`arith_chain`]): `arg` is the operand's
    /// value (a constant, or a load's anchor and index mode), which the packer keeps
    /// in the micro-op or moves to the slot's pool.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Micro {
        /// The operation.
        pub op: ArithOp,
        /// Whether the operand is `arg` (or a pool word) rather than the stack.
        pub imm: bool,
        /// The operand, or the anchor and index mode of a load.
        pub arg: u32,
    }

    /// ARITH from micro-ops and a constant pool (pool entry `k` is named by [`pool_ref`]).
    /// Returns `None` when ops and pool do not fit in seven words together.
    pub fn arith(rel: RelOp, ops: &[u16], pool: &[u32]) -> Option<Instruction> {
        slot(Opcode::Arith, rel as u8, 0, ops, pool)
    }

    /// One ARITH or CONT slot: micro-ops from p1 upward, the pool from p7 backward.
    fn slot(op: Opcode, anchor: u8, offset: u32, ops: &[u16], pool: &[u32]) -> Option<Instruction> {
        let op_words = ops.len().div_ceil(2);
        if ops.is_empty() || ops.len() > ARITH_MAX_OPS || op_words + pool.len() > 7 {
            return None;
        }
        let mut w = [0u32; 8];
        w[0] = Instruction::command(op, Size::B4, ops.len(), anchor, offset);
        for (i, &m) in ops.iter().enumerate() {
            w[1 + i / 2] |= (m as u32) << (16 * (i % 2));
        }
        // Pool entry k lives in parameter word p(7 - k), filled from the end so that
        // a micro-op can name it before the number of micro-ops is known.
        for (k, &c) in pool.iter().enumerate() {
            w[7 - k] = c;
        }
        Some(Instruction(w))
    }

    /// `lhs rel rhs` from micro-ops in execution order, as one ARITH slot followed by
    /// the CONT slots its micro-ops and constants need (the head's offset field
    /// counts them). Each slot keeps its own constant pool, so an operand at or above
    /// [`ARITH_POOL_BASE`] goes to a pool word of the slot that uses it. `None` if the
    /// chain would be longer than a pass ([`crate::MAX_INSNS`]).
    pub fn arith_chain(rel: RelOp, ops: &[Micro]) -> Option<Vec<Instruction>> {
        let mut slots: Vec<(Vec<u16>, Vec<u32>)> = vec![(Vec::new(), Vec::new())];
        for m in ops {
            let big = m.arg >= ARITH_POOL_BASE as u32;
            let (o, p) = slots.last().expect("never empty");
            let words = p.len() + (big && !p.contains(&m.arg)) as usize;
            if o.len() == ARITH_MAX_OPS || (o.len() + 1).div_ceil(2) + words > 7 {
                slots.push((Vec::new(), Vec::new()));
            }
            let (o, p) = slots.last_mut().expect("never empty");
            let arg = if big {
                let k = match p.iter().position(|&c| c == m.arg) {
                    Some(k) => k,
                    None => {
                        p.push(m.arg);
                        p.len() - 1
                    }
                };
                pool_ref(k)
            } else {
                m.arg as u16
            };
            o.push(micro(m.op, m.imm, arg));
        }
        if ops.is_empty() || slots.len() > crate::MAX_INSNS {
            return None;
        }
        let ext = slots.len() as u32 - 1;
        slots
            .iter()
            .enumerate()
            .map(|(i, (o, p))| match i {
                0 => slot(Opcode::Arith, rel as u8, ext, o, p),
                _ => slot(Opcode::ArithCont, 0, 0, o, p),
            })
            .collect()
    }

    /// The operand value naming pool entry `k` (parameter word p(7 - k)).
    pub fn pool_ref(k: usize) -> u16 {
        ARITH_POOL_BASE + (6 - k as u16)
    }
}
