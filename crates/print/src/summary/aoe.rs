//! ATA over Ethernet (EtherType 0x88a2), as tcpdump 4.99's `aoe_print` prints
//! it without `-v`: the length, the version and version 1's flags. The commands
//! `-v` adds are not decoded yet.

use super::{bit_names, g1, need, out, PResult, Printer};

/// Version 1's common header: flags and version, error, major, minor, command,
/// tag.
const V1_HEADER_LEN: u32 = 10;

const V1_FLAGS: [(u32, &str); 4] = [
    (0x8, "Response"),
    (0x4, "Error"),
    (0x2, "MBZ-1"),
    (0x1, "MBZ-0"),
];

impl Printer<'_> {
    /// `aoe_print`: `len` bytes on the wire after the EtherType, `p` captured.
    pub(super) fn aoe(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "aoe";
        out!(self, "AoE length {len}");
        if len < 1 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let first = g1(p, 0)?;
        let version = first >> 4;
        out!(self, ", Ver {version}");
        if version == 1 {
            if len < V1_HEADER_LEN {
                out!(self, " (invalid)");
                return need(p, 0, len as usize);
            }
            let flags = bit_names(u32::from(first & 0x0f), &V1_FLAGS);
            out!(self, ", Flags: [{flags}]");
        }
        Ok(())
    }
}
