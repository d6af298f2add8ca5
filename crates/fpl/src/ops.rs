//! FPL's operators and the one place their arithmetic is written. Values are
//! 64-bit two's-complement integers (`i64`); every executor (this crate's
//! interpreter, the compiler's constant folding, and the JIT and eBPF back ends
//! later) must give these results:
//!
//! - `+`, `-`, `*`, unary `-` wrap around;
//! - `/` and `%` are signed and truncate toward zero; `x / 0` is `0` and
//!   `x % 0` is `x` (as in eBPF); `i64::MIN / -1` wraps to `i64::MIN` and
//!   `i64::MIN % -1` is `0`;
//! - `<<` and `>>` use the shift count modulo 64; `>>` is arithmetic (it copies
//!   the sign bit, as C's `>>` on a signed value does on every compiler);
//! - comparisons are signed and give `1` or `0`; `!x` is `1` when `x` is `0`.

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (signed; `x / 0 == 0`)
    Div,
    /// `%` (signed; `x % 0 == x`)
    Rem,
    /// `<<` (count modulo 64)
    Shl,
    /// `>>` (arithmetic; count modulo 64)
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<` (signed)
    Lt,
    /// `<=` (signed)
    Le,
    /// `>` (signed)
    Gt,
    /// `>=` (signed)
    Ge,
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x` (wrapping)
    Neg,
    /// `!x`: `1` if `x == 0`, else `0`
    Not,
    /// `~x`
    BitNot,
}

impl BinOp {
    /// The result of `a op b`.
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div if b == 0 => 0,
            BinOp::Div => a.wrapping_div(b),
            BinOp::Rem if b == 0 => a,
            BinOp::Rem => a.wrapping_rem(b),
            BinOp::Shl => a.wrapping_shl((b & 63) as u32),
            BinOp::Shr => a.wrapping_shr((b & 63) as u32),
            BinOp::BitAnd => a & b,
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            BinOp::Eq => i64::from(a == b),
            BinOp::Ne => i64::from(a != b),
            BinOp::Lt => i64::from(a < b),
            BinOp::Le => i64::from(a <= b),
            BinOp::Gt => i64::from(a > b),
            BinOp::Ge => i64::from(a >= b),
        }
    }

    /// The operator as FPL writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

impl UnOp {
    /// The result of `op a`.
    pub fn apply(self, a: i64) -> i64 {
        match self {
            UnOp::Neg => a.wrapping_neg(),
            UnOp::Not => i64::from(a == 0),
            UnOp::BitNot => !a,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_edge_cases() {
        assert_eq!(BinOp::Div.apply(7, 0), 0);
        assert_eq!(BinOp::Rem.apply(7, 0), 7);
        assert_eq!(BinOp::Div.apply(i64::MIN, -1), i64::MIN);
        assert_eq!(BinOp::Rem.apply(i64::MIN, -1), 0);
        assert_eq!(BinOp::Div.apply(-7, 2), -3);
        assert_eq!(BinOp::Shl.apply(1, 65), 2);
        assert_eq!(BinOp::Shr.apply(-8, 1), -4);
        assert_eq!(BinOp::Lt.apply(-1, 0), 1);
        assert_eq!(UnOp::Neg.apply(i64::MIN), i64::MIN);
    }
}
