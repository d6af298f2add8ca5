//! The 802.11 anchor rules (docs/isa.md §3, the engine's `wlan.rs`) in eBPF, so
//! that a socket filter on a monitor-mode interface decides 802.11 filters in the
//! kernel instead of passing every frame up as unsure. Each reads what the
//! engine's rule reads, in the same order, so a frame too short for one of its
//! loads faults here where it faults there.

use super::{Addr, Gen, MAX_OFFSET};
use crate::asm::{Alu, Cond, Reg, R1};
use crate::layout::VAL;
use netsift_isa::insn::Size;
use netsift_isa::AnchorRule;

/// The radiotap presence bits and the flag the padded-payload rule reads; the
/// same values as the engine's, loaded big-endian as its loads are.
const RT_FLAGS: i32 = 0x0200_0000;
const RT_EXT: i32 = 0x0000_0080;
const RT_TSFT: i32 = 0x0100_0000;
const RT_DATAPAD: i32 = 0x20;

impl Gen<'_> {
    /// Applies 802.11 rule `rule` to the header at `dst` (at least `min`);
    /// `wraps` as [`Gen::anchor`] takes it. Returns false for a rule that is not
    /// one of them.
    pub(super) fn wlan_rule(&mut self, rule: AnchorRule, dst: Reg, min: u32, wraps: bool) -> bool {
        match rule {
            AnchorRule::RadiotapHdr => {
                // The length is little-endian at +2: one 16-bit load needs the
                // same two bytes the engine's two byte loads need.
                self.load(Size::B2, Addr::Reg(dst, min), 2);
                self.a.mov64_reg(R1, VAL);
                self.a.alu64_imm(Alu::Rsh, R1, 8);
                self.a.alu64_imm(Alu::And, VAL, 0xff);
                self.a.alu64_imm(Alu::Lsh, VAL, 8);
                self.a.alu64_reg(Alu::Or, VAL, R1);
                self.a.alu64_reg(Alu::Add, dst, VAL);
            }
            AnchorRule::AvsHdr => {
                self.load(Size::B4, Addr::Reg(dst, min), 4);
                self.a.alu64_reg(Alu::Add, dst, VAL);
                self.beyond_reach(dst, wraps);
            }
            AnchorRule::PrismHdr => {
                let (fixed, done) = (self.a.label(), self.a.label());
                self.load(Size::B4, Addr::Reg(dst, min), 0);
                self.a.alu64_imm(Alu::And, VAL, 0xffff_f000_u32 as i32);
                // A 32-bit compare: the mask's immediate is sign-extended.
                self.a.jmp32_imm(Cond::Ne, VAL, 0x8021_1000, fixed);
                self.load(Size::B4, Addr::Reg(dst, min), 4);
                self.a.alu64_reg(Alu::Add, dst, VAL);
                self.a.ja(done);
                self.a.bind(fixed);
                self.a.alu64_imm(Alu::Add, dst, 144);
                self.a.bind(done);
                self.beyond_reach(dst, wraps);
            }
            AnchorRule::WlanPayload | AnchorRule::WlanPayloadPadded => {
                self.wlan_payload(rule == AnchorRule::WlanPayloadPadded, dst, min);
            }
            _ => return false,
        }
        true
    }

    /// The payload after the 802.11 header at `dst`: 24 bytes, 26 for a QoS data
    /// frame, and for `padded` a data frame's payload rounded up to 4 bytes when
    /// radiotap's flags (when present and no extended presence word follows) say
    /// the header was padded.
    fn wlan_payload(&mut self, padded: bool, dst: Reg, min: u32) {
        let (not_data, qos, data, done) = (
            self.a.label(),
            self.a.label(),
            self.a.label(),
            self.a.label(),
        );
        self.load(Size::B1, Addr::Reg(dst, min), 0);
        // A data frame: the type bits (0x0c) are 0x08.
        self.a.mov64_reg(R1, VAL);
        self.a.alu64_imm(Alu::And, R1, 0x0c);
        self.a.jmp_imm(Cond::Ne, R1, 0x08, not_data);
        self.a.jmp_imm(Cond::Set, VAL, 0x80, qos);
        self.a.alu64_imm(Alu::Add, dst, 24);
        self.a.ja(data);
        self.a.bind(qos);
        self.a.alu64_imm(Alu::Add, dst, 26);
        self.a.ja(data);
        self.a.bind(not_data);
        self.a.alu64_imm(Alu::Add, dst, 24);
        self.a.ja(done);
        self.a.bind(data);
        if padded {
            let (tsft, flags, pad) = (self.a.label(), self.a.label(), self.a.label());
            self.load(Size::B4, Addr::Const(4), 0);
            self.a.mov64_reg(R1, VAL);
            self.a.alu64_imm(Alu::And, R1, RT_FLAGS);
            self.a.jmp_imm(Cond::Eq, R1, 0, done);
            self.a.jmp_imm(Cond::Set, VAL, RT_EXT, done);
            // The flags byte follows the 8-byte TSFT field when that is present.
            self.a.jmp_imm(Cond::Set, VAL, RT_TSFT, tsft);
            self.load(Size::B1, Addr::Const(8), 0);
            self.a.ja(flags);
            self.a.bind(tsft);
            self.load(Size::B1, Addr::Const(16), 0);
            self.a.bind(flags);
            self.a.jmp_imm(Cond::Set, VAL, RT_DATAPAD, pad);
            self.a.ja(done);
            self.a.bind(pad);
            self.a.alu64_imm(Alu::Add, dst, 3);
            self.a.alu64_imm(Alu::And, dst, !3);
        }
        self.a.bind(done);
    }

    /// A header length read from the frame may put the anchor past anything a
    /// load reaches, or past 2^31 where an indirect load would take it for one of
    /// the kernel's special offsets: every load after it faults.
    fn beyond_reach(&mut self, dst: Reg, wraps: bool) {
        if wraps {
            self.maybe_unsure = true;
            self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.unsure);
        } else {
            self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.far);
        }
    }
}
