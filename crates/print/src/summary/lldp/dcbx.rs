//! LLDP's DCBX TLVs (OUI 00:1b:21, DCBX 1.01) as tcpdump 4.99's
//! `lldp_private_dcbx_print` prints them: control, priority groups, priority
//! flow control and application sub-TLVs.

use super::super::{g1, g2, g3, g4, out, PResult, Printer};

impl Printer<'_> {
    /// `Oper_Version`, `Max_Version`, the info block and the subtype, which
    /// the feature sub-TLVs share; `s` is the sub-TLV's value.
    fn dcbx_feature_head(&mut self, s: &[u8]) -> PResult {
        out!(self, "\n\t      Oper_Version: {}", g1(s, 0)?);
        out!(self, "\n\t      Max_Version: {}", g1(s, 1)?);
        let v = g1(s, 2)?;
        out!(
            self,
            "\n\t      Info block(0x{v:02X}): Enable bit: {}, Willing bit: {}, Error Bit: {}",
            (v >> 7) & 1,
            (v >> 6) & 1,
            (v >> 5) & 1
        );
        out!(self, "\n\t      SubType: {}", g1(s, 3)?);
        Ok(())
    }

    /// `lldp_private_dcbx_print`; `t` is the TLV from its OUI on. Like
    /// tcpdump, returns the hex-dump verdict of the last sub-TLV.
    pub(super) fn lldp_dcbx(&mut self, t: &[u8]) -> PResult<bool> {
        if t.len() < 4 {
            return Ok(false);
        }
        let sub = t[3];
        let name = match sub {
            1 => "DCB Capability Exchange Protocol Rev 1",
            2 => "DCB Capability Exchange Protocol Rev 1.01",
            _ => "unknown",
        };
        out!(self, "\n\t  {name} Subtype ({sub})");
        if sub == 1 {
            return Ok(true);
        }
        let mut hexdump = false;
        let mut at = 4usize;
        while t.len() - at >= 2 {
            let h = g2(t, at)?;
            let (ty, l) = (h >> 9, (h & 0x1ff) as usize);
            hexdump = false;
            at += 2;
            if ty == 0 || l == 0 {
                break;
            }
            if t.len() - at < l {
                // tcpdump's `goto trunc` here only ends the sub-TLVs.
                return Ok(hexdump);
            }
            let s = &t[at..at + l];
            match ty {
                1 => {
                    if l < 10 {
                        return Ok(hexdump);
                    }
                    out!(
                        self,
                        "\n\t    Control - Protocol Control (type 0x1, length {l})"
                    );
                    out!(self, "\n\t      Oper_Version: {}", s[0]);
                    out!(self, "\n\t      Max_Version: {}", s[1]);
                    out!(self, "\n\t      Sequence Number: {}", g4(s, 2)?);
                    out!(self, "\n\t      Acknowledgement Number: {}", g4(s, 6)?);
                }
                2 => {
                    if l < 17 {
                        return Ok(hexdump);
                    }
                    out!(
                        self,
                        "\n\t    Feature - Priority Group (type 0x2, length {l})"
                    );
                    self.dcbx_feature_head(s)?;
                    out!(self, "\n\t      Priority Allocation");
                    let pg = g4(s, 4)?;
                    for i in 0..8 {
                        out!(
                            self,
                            "\n\t          PgId_{i}: {}",
                            (pg >> (28 - 4 * i)) & 0xf
                        );
                    }
                    out!(self, "\n\t      Priority Group Allocation");
                    for i in 0..8 {
                        out!(self, "\n\t          Pg percentage[{i}]: {}", s[8 + i]);
                    }
                    out!(self, "\n\t      NumTCsSupported: {}", s[16]);
                }
                3 => {
                    if l < 6 {
                        return Ok(hexdump);
                    }
                    out!(
                        self,
                        "\n\t    Feature - Priority Flow Control (type 0x3, length {l})"
                    );
                    self.dcbx_feature_head(s)?;
                    let v = s[4];
                    out!(self, "\n\t      PFC Config (0x{v:02X})");
                    for i in 0..8 {
                        let on = if v & (1 << i) != 0 {
                            "Enabled"
                        } else {
                            "Disabled"
                        };
                        out!(self, "\n\t          Priority Bit {i}: {on}");
                    }
                    out!(self, "\n\t      NumTCPFCSupported: {}", s[5]);
                }
                4 => {
                    if l < 4 {
                        return Ok(hexdump);
                    }
                    out!(self, "\n\t    Feature - Application (type 0x4, length {l})");
                    self.dcbx_feature_head(s)?;
                    for a in s[4..].chunks_exact(6) {
                        out!(self, "\n\t      Application Value");
                        out!(
                            self,
                            "\n\t          Application Protocol ID: 0x{:04x}",
                            g2(a, 0)?
                        );
                        let u = g3(a, 2)?;
                        let sf = u >> 22;
                        let what = if sf != 0 {
                            "Socket Number"
                        } else {
                            "L2 EtherType"
                        };
                        out!(
                            self,
                            "\n\t          SF (0x{sf:x}) Application Protocol ID is {what}"
                        );
                        out!(self, "\n\t          OUI: 0x{:06x}", u & 0x3f_ffff);
                        out!(self, "\n\t          User Priority Map: 0x{:02x}", a[5]);
                    }
                }
                _ => hexdump = true,
            }
            if self.opts.verbose > 1 || hexdump {
                self.hex_print(s, "\n\t    ");
            }
            at += l;
        }
        Ok(hexdump)
    }
}
