//! ETSI GeoNetworking (EtherTypes 0x8947 and 0x0707) and CALM FAST (0x1111), as
//! tcpdump 4.99 prints them: the common header, the long position vector, and
//! BTP's ports and ITS PDU header; with `-v`, the rest as tcpdump's default
//! print.

use super::link::linkaddr;
use super::{g1, g2, g4, need, out, tail, PResult, Printer};

const COMMON_LEN: u32 = 36;

impl Printer<'_> {
    /// `geonet_print`: `len` bytes after the EtherType, `p` captured, `src` the
    /// frame's source address.
    pub(super) fn geonet(&mut self, p: &[u8], len: u32, src: Option<[u8; 6]>) -> PResult {
        self.proto = "geonet";
        self.its_source("GeoNet ", src);
        if len < COMMON_LEN {
            out!(
                self,
                " (common header length {len} < {COMMON_LEN}) (invalid)"
            );
            return Ok(());
        }
        let (first, second) = (g1(p, 0)?, g1(p, 1)?);
        let (next, kind, sub) = (first & 0x0f, second >> 4, second & 0x0f);
        let next_name = match next {
            0 => "Any",
            1 => "BTP-A",
            2 => "BTP-B",
            3 => "IPv6",
            _ => "Unknown",
        };
        let kind_name = match (kind, sub) {
            (0, _) => "Any",
            (1, _) => "Beacon",
            (2, _) => "GeoUnicast",
            (3, 0) => "GeoAnycastCircle",
            (3, 1) => "GeoAnycastRect",
            (3, 2) => "GeoAnycastElipse",
            (4, 0) => "GeoBroadcastCircle",
            (4, 1) => "GeoBroadcastRect",
            (4, 2) => "GeoBroadcastElipse",
            (5, 0) => "TopoScopeBcast-SH",
            (5, 1) => "TopoScopeBcast-MH",
            (6, 0) => "LocService-Request",
            (6, 1) => "LocService-Reply",
            _ => "Unknown",
        };
        out!(self, "v:{} NH:{next}-{next_name} ", first >> 4);
        out!(self, "HT:{kind}-{sub}-{kind_name} HopLim:{} ", g1(p, 7)?);
        out!(self, "Payload:{} ", g2(p, 4)?);
        // The long position vector: the GN address, latitude and longitude.
        need(p, 8, 8)?;
        let addr = linkaddr(&p[8..16]);
        out!(self, "GN_ADDR:{addr} lat:{} lon:{}", g4(p, 20)?, g4(p, 24)?);
        need(p, 0, COMMON_LEN as usize)?;
        let (mut at, mut len) = (COMMON_LEN as usize, len - COMMON_LEN);
        // The extended header's size where tcpdump knows it.
        let ext = match (kind, sub) {
            (0 | 1, _) | (5, 0) => Some(0),
            (5, 1) => Some(32),
            _ => None,
        };
        if let Some(size) = ext {
            if len < size {
                out!(self, " (header size {size} > {len}) (invalid)");
                return Ok(());
            }
            need(p, at, size as usize)?;
            at += size as usize;
            len -= size;
            if matches!(next, 1 | 2) {
                if len < 4 {
                    out!(self, " (BTP length {len} < 4) (invalid)");
                    return Ok(());
                }
                out!(self, "; BTP Dst:{} Src:{}", g2(p, at)?, g2(p, at + 2)?);
                at += 4;
                len -= 4;
                if len >= 2 {
                    let (version, t) = (g1(p, at)?, g1(p, at + 1)?);
                    out!(self, "; ItsPduHeader v:{version} t:{t}-");
                    match its_message(t) {
                        Some(n) => out!(self, "{n}"),
                        None => out!(self, "unknown ({t})"),
                    }
                }
            }
        }
        if self.opts.verbose > 0 {
            let rest = tail(p, at);
            self.default_print(&rest[..rest.len().min(len as usize)], false);
        }
        Ok(())
    }

    /// The protocol's name and the frame's source (`GeoNet src:...; `,
    /// `CALM FAST src:...; `).
    fn its_source(&mut self, name: &str, src: Option<[u8; 6]>) {
        out!(self, "{name}");
        if let Some(mac) = src {
            let sep = if name.ends_with(' ') { "" } else { " " };
            let s = self.ether_str(mac);
            out!(self, "{sep}src:{s}");
        }
        out!(self, "; ");
    }

    /// `calm_fast_print`.
    pub(super) fn calm_fast(&mut self, p: &[u8], len: u32, src: Option<[u8; 6]>) -> PResult {
        self.proto = "calm_fast";
        self.its_source("CALM FAST", src);
        if len < 2 {
            out!(self, " (length {len} < 2) (invalid)");
            return need(p, 0, len as usize);
        }
        out!(self, "SrcNwref:{}; DstNwref:{}; ", g1(p, 0)?, g1(p, 1)?);
        if self.opts.verbose > 0 {
            let rest = tail(p, 2);
            self.default_print(&rest[..rest.len().min(len as usize - 2)], false);
        }
        Ok(())
    }
}

/// The ITS message types tcpdump names.
fn its_message(t: u8) -> Option<&'static str> {
    Some(match t {
        0 => "CAM",
        1 => "DENM",
        101 => "TPEGM",
        102 => "TSPDM",
        103 => "VPM",
        104 => "SRM",
        105 => "SLAM",
        106 => "ecoCAM",
        107 => "ITM",
        150 => "SA",
        _ => return None,
    })
}
