//! ATA over Ethernet (EtherType 0x88a2), as tcpdump 4.99's `aoe_print` prints
//! it: the length, the version and version 1's flags; with `-v` the common
//! header and the argument of each of the four commands.

use super::{bit_names, g1, g2, g4, gmac, need, out, print_char, PResult, Printer};

/// Version 1's common header: flags and version, error, major, minor, command,
/// tag.
const V1_HEADER_LEN: u32 = 10;

const V1_FLAGS: [(u32, &str); 4] = [
    (0x8, "Response"),
    (0x4, "Error"),
    (0x2, "MBZ-1"),
    (0x1, "MBZ-0"),
];

const AFLAGS: [(u32, &str); 8] = [
    (0x80, "MBZ-7"),
    (0x40, "Ext48"),
    (0x20, "MBZ-5"),
    (0x10, "Device"),
    (0x08, "MBZ-3"),
    (0x04, "MBZ-2"),
    (0x02, "Async"),
    (0x01, "Write"),
];

/// A command's argument is invalid: tcpdump's `goto invalid`.
struct Invalid;

impl Printer<'_> {
    /// `aoe_print`: `len` bytes on the wire after the EtherType, `p` captured.
    pub(super) fn aoe(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "aoe";
        out!(self, "AoE length {len}");
        if len < 1 {
            return self.aoe_invalid(p, 0, len);
        }
        let first = g1(p, 0)?;
        let version = first >> 4;
        out!(self, ", Ver {version}");
        if version != 1 {
            return Ok(());
        }
        if len < V1_HEADER_LEN {
            return self.aoe_invalid(p, 0, len);
        }
        let flags = u32::from(first & 0x0f);
        out!(self, ", Flags: [{}]", bit_names(flags, &V1_FLAGS));
        if self.opts.verbose < 1 {
            return Ok(());
        }
        if flags & 0x4 != 0 {
            let e = g1(p, 1)?;
            out!(self, "\n\tError: ");
            match ERRORS.get(usize::from(e).wrapping_sub(1)) {
                Some(name) => out!(self, "{name}"),
                None => out!(self, "Invalid ({e})"),
            }
        }
        out!(self, "\n\tMajor: 0x{:04x}", g2(p, 2)?);
        out!(self, ", Minor: 0x{:02x}", g1(p, 4)?);
        let command = g1(p, 5)?;
        out!(self, ", Command: ");
        match COMMANDS.get(usize::from(command)) {
            Some(name) => out!(self, "{name}"),
            None => out!(self, "Unknown (0x{command:02x})"),
        }
        out!(self, ", Tag: 0x{:08x}", g4(p, 6)?);
        let (at, len) = (V1_HEADER_LEN as usize, len - V1_HEADER_LEN);
        let r = match command {
            0 => self.aoe_issue(p, at, len),
            1 => self.aoe_query(p, at, len),
            2 => self.aoe_mac(p, at, len),
            3 => self.aoe_reserve(p, at, len),
            _ => Ok(Ok(())),
        };
        match r? {
            Ok(()) => Ok(()),
            // tcpdump checks from where the argument starts.
            Err(Invalid) => self.aoe_invalid(p, at, len),
        }
    }

    /// ` (invalid)`, then the check that the `len` bytes from `at` are captured.
    fn aoe_invalid(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        out!(self, " (invalid)");
        need(p, at, len as usize)
    }

    /// `aoev1_issue_print`: an ATA command's argument.
    fn aoe_issue(&mut self, p: &[u8], at: usize, len: u32) -> PResult<Result<(), Invalid>> {
        if len < 12 {
            return Ok(Err(Invalid));
        }
        out!(
            self,
            "\n\tAFlags: [{}]",
            bit_names(g1(p, at)?.into(), &AFLAGS)
        );
        out!(self, ", Err/Feature: {}", g1(p, at + 1)?);
        out!(self, ", Sector Count: {}", g1(p, at + 2)?);
        out!(self, ", Cmd/Status: {}", g1(p, at + 3)?);
        for i in 0..6 {
            let sep = if i == 0 { "\n\t" } else { ", " };
            out!(self, "{sep}lba{i}: {}", g1(p, at + 4 + i)?);
        }
        need(p, at + 10, 2)?;
        if len > 12 {
            out!(self, "\n\tData: {} bytes", len - 12);
        }
        Ok(Ok(()))
    }

    /// `aoev1_query_print`: a configuration query's argument.
    fn aoe_query(&mut self, p: &[u8], at: usize, len: u32) -> PResult<Result<(), Invalid>> {
        if len < 8 {
            return Ok(Err(Invalid));
        }
        out!(self, "\n\tBuffer Count: {}", g2(p, at)?);
        out!(self, ", Firmware Version: {}", g2(p, at + 2)?);
        out!(self, ", Sector Count: {}", g1(p, at + 4)?);
        let b = g1(p, at + 5)?;
        const CCMDS: [&str; 5] = [
            "read config string",
            "test config string",
            "test config string prefix",
            "set config string",
            "force set config string",
        ];
        // tcpdump's format for an unknown CCmd lacks its `%`.
        let ccmd = CCMDS
            .get(usize::from(b & 0x0f))
            .unwrap_or(&"Unknown (0x02x)");
        out!(self, ", AoE: {}, CCmd: {ccmd}", b >> 4);
        let cslen = u32::from(g2(p, at + 6)?);
        if cslen > 1024 || cslen > len - 8 {
            return Ok(Err(Invalid));
        }
        if cslen > 0 {
            out!(self, "\n\tConfig String (length {cslen}): ");
            for i in 0..cslen as usize {
                print_char(&mut self.out, g1(p, at + 8 + i)?);
            }
        }
        Ok(Ok(()))
    }

    /// `aoev1_mac_print`: a MAC mask list command's argument.
    fn aoe_mac(&mut self, p: &[u8], at: usize, len: u32) -> PResult<Result<(), Invalid>> {
        if len < 4 {
            return Ok(Err(Invalid));
        }
        let m = g1(p, at + 1)?;
        let mcmd = ["Read Mac Mask List", "Edit Mac Mask List"].get(usize::from(m));
        out!(self, "\n\tMCmd: ");
        self.aoe_tok(mcmd.copied(), m);
        let e = g1(p, at + 2)?;
        let merror = ["Unspecified Error", "Bad DCmd directive", "Mask list full"]
            .get(usize::from(e).wrapping_sub(1));
        out!(self, ", MError: ");
        self.aoe_tok(merror.copied(), e);
        let dircount = g1(p, at + 3)?;
        out!(self, ", Dir Count: {dircount}");
        if u32::from(dircount) * 8 > len - 4 {
            return Ok(Err(Invalid));
        }
        for i in 0..usize::from(dircount) {
            let d = at + 4 + 8 * i;
            let dcmd = [
                "No Directive",
                "Add mac address to mask list",
                "Delete mac address from mask list",
            ];
            let c = g1(p, d + 1)?;
            out!(self, "\n\t DCmd: ");
            self.aoe_tok(dcmd.get(usize::from(c)).copied(), c);
            let mac = self.aoe_mac_str(p, d + 2)?;
            out!(self, ", Ethernet Address: {mac}");
        }
        Ok(Ok(()))
    }

    /// `aoev1_reserve_print`: a reserve/release command's argument.
    fn aoe_reserve(&mut self, p: &[u8], at: usize, len: u32) -> PResult<Result<(), Invalid>> {
        if len < 2 || !(len - 2).is_multiple_of(6) {
            return Ok(Err(Invalid));
        }
        let r = g1(p, at)?;
        let rcmd = [
            "Read reserve list",
            "Set reserve list",
            "Force set reserve list",
        ];
        out!(self, "\n\tRCmd: ");
        self.aoe_tok(rcmd.get(usize::from(r)).copied(), r);
        let nmacs = g1(p, at + 1)?;
        out!(self, ", NMacs: {nmacs}");
        if u32::from(nmacs) * 6 != len - 2 {
            return Ok(Err(Invalid));
        }
        for i in 0..usize::from(nmacs) {
            let mac = self.aoe_mac_str(p, at + 2 + 6 * i)?;
            out!(self, "\n\tEthernet Address {i}: {mac}");
        }
        Ok(Ok(()))
    }

    /// `tok2str(..., "Unknown (0x%02x)", v)`.
    fn aoe_tok(&mut self, name: Option<&str>, v: u8) {
        match name {
            Some(n) => out!(self, "{n}"),
            None => out!(self, "Unknown (0x{v:02x})"),
        }
    }

    fn aoe_mac_str(&self, p: &[u8], at: usize) -> PResult<String> {
        Ok(self.ether_str(gmac(p, at)?))
    }
}

const ERRORS: [&str; 6] = [
    "Unrecognized command code",
    "Bad argument parameter",
    "Device unavailable",
    "Config string present",
    "Unsupported version",
    "Target is reserved",
];

const COMMANDS: [&str; 4] = [
    "Issue ATA Command",
    "Query Config Information",
    "MAC Mask List",
    "Reserve/Release",
];
