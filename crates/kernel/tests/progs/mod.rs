//! Hand-assembled programs the kernel tests share.

use netsift_kernel::asm::{Alu, Asm, Cond, Width, R0, R1, R10, R2, R3, R4, R5, R6, R7};
use netsift_kernel::helpers::{HDR_START_MAC, MAP_LOOKUP_ELEM, SKB_LOAD_BYTES_RELATIVE};
use netsift_kernel::sys::{Map, ProgKind, Program};

/// Accepts a frame whose `width` bytes at `off` from the MAC header equal, byte for
/// byte, the first `width` bytes of slot 0 of the array `map` (4-byte values); a
/// frame too short for the load is dropped.
pub(crate) fn field_is_slot(map: &Map, off: i32, width: Width) -> Program {
    let len = match width {
        Width::B => 1,
        Width::H => 2,
        Width::W => 4,
        Width::DW => 8,
    };
    let mut a = Asm::new();
    let drop = a.label();
    a.mov64_reg(R6, R1);
    a.mov64_reg(R1, R6);
    a.mov64_imm(R2, off);
    a.mov64_reg(R3, R10);
    a.alu64_imm(Alu::Add, R3, -8);
    a.mov64_imm(R4, len);
    a.mov64_imm(R5, HDR_START_MAC);
    a.call(SKB_LOAD_BYTES_RELATIVE);
    a.jmp_imm(Cond::Ne, R0, 0, drop);
    a.ldx(width, R7, R10, -8);
    a.st(Width::W, R10, -16, 0);
    a.ld_map_fd(R1, map.fd());
    a.mov64_reg(R2, R10);
    a.alu64_imm(Alu::Add, R2, -16);
    a.call(MAP_LOOKUP_ELEM);
    a.jmp_imm(Cond::Eq, R0, 0, drop);
    a.ldx(width, R1, R0, 0);
    a.jmp_reg(Cond::Ne, R7, R1, drop);
    a.mov64_imm(R0, 0x40000);
    a.exit();
    a.bind(drop);
    a.mov64_imm(R0, 0);
    a.exit();
    Program::load(
        ProgKind::SocketFilter,
        "field_is_slot",
        &a.finish().unwrap(),
    )
    .expect("loads")
}
