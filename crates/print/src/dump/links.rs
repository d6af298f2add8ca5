//! Link-level header lengths (what `-x` leaves out) of the link types whose
//! printers are one small header before a packet: switch tags in Ethernet,
//! IPoIB, NFLOG, vsock, PKTAP and PPI (with the header of the packet inside), Frame
//! Relay and FRF.16, PPP in HDLC framing, SunATM, Juniper's encapsulations, ARCnet, SLIP and
//! Solaris ipnet. Each follows the value the tcpdump 4.99.3
//! printer adds to `ndo_ll_hdr_len`; the flag says it returned early.

use super::ppi_header::{ppi_start, PpiStart};
use super::{ethernet, layer_len};
use netsift_wire::LinkType;

fn le16(d: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(u16::from_le_bytes([
        *d.get(at)?,
        *d.get(at + 1)?,
    ])))
}

fn le32(d: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?) as usize)
}

/// The header length for the link types above, `None` for the others.
pub(super) fn header_len(
    lt: LinkType,
    data: &[u8],
    wire_len: usize,
    mesh: bool,
) -> Option<(usize, bool)> {
    let caplen = data.len();
    Some(match lt.0 {
        // DSA, EDSA and Broadcom tags inside the Ethernet header.
        284 | 281 => switch_tagged(data, wire_len, 4),
        285 => switch_tagged(data, wire_len, 8),
        // A Broadcom tag before the Ethernet header.
        282 => match data.get(4..) {
            Some(rest) => {
                let (len, early) = ethernet(rest, wire_len.saturating_sub(4));
                (len + 4, early)
            }
            None => (0, true),
        },
        // IPOIB
        242 => (caplen.min(wire_len).min(44), caplen < 44 || wire_len < 44),
        // NFLOG
        239 => (nflog(data), false),
        // VSOCK
        271 => (caplen.min(32), caplen < 32),
        // PKTAP, and Darwin's DLT_USER2 for it.
        258 | 149 => pktap(data, wire_len, mesh),
        // PPI
        192 => ppi(data, wire_len, mesh),
        // FRELAY
        107 => match fr(data, wire_len) {
            Some(len) => (len, false),
            None => (0, true),
        },
        // PPP: `ppp_if_print` counts its 4-byte header, or what was captured.
        9 if caplen < 4 => (caplen, true),
        9 => (4, false),
        // PPP_SERIAL: address and control, then the protocol.
        50 => match data.first() {
            _ if caplen < 2 => (caplen, true),
            Some(0x0f | 0x8f) => (4, false),
            _ if caplen < 4 => (caplen, true),
            Some(0xff) => (4, false),
            _ => (2, false),
        },
        // SUNATM: direction, VPI, VCI, read with GET_ (a longjmp if short).
        123 if caplen >= 4 => (4, false),
        123 => (0, true),
        // MFR: 3 bytes of a control frame, 2 of a first fragment (the Frame
        // Relay header inside is not counted).
        182 => match data {
            _ if caplen < 2 => (caplen, true),
            _ if wire_len < 4 => (wire_len, false),
            [a, b, ..] if a & 0xe0 == 0xe0 && *b == 0 => (3, false),
            [a, ..] if a & 0xe0 == 0xc0 || a & 0xe0 == 0x80 => (2, false),
            _ => (0, false),
        },
        // IEEE 802.15.4: tcpdump 4.99.3's printer returns 0 (the whole frame
        // is dumped) where it stops at the addresses; netsift decodes no
        // further, so it dumps every frame whole.
        195 | 230 => (if caplen < 2 { caplen } else { 0 }, caplen < 2),
        // The Juniper encapsulations netsift prints.
        132 | 137 | 164 | 178 => juniper(lt.0, data, wire_len),
        // ARCNET and Linux ARCNET.
        7 => arcnet(data),
        129 => arcnet_linux(data),
        // SLIP and BSD/OS SLIP: a 16-byte header (`ND_TCHECK_LEN`).
        8 | 15 if caplen < 16 => (0, true),
        8 | 15 => (16, false),
        // Solaris ipnet: a 24-byte header (`ND_TCHECK_LEN`).
        226 if caplen < 24 => (0, true),
        226 => (24, false),
        _ => return None,
    })
}

/// ARCnet types whose frames have the short header (RFC 1051 IP and ARP,
/// and diagnostics); the others have the RFC 1201 header, with the
/// fragmentation flag and sequence number.
fn arcnet_old_type(t: u8) -> bool {
    matches!(t, 240 | 241 | 0x80)
}

/// `arcnet_if_print`'s `archdrlen`: 3 bytes for the old types; 6 with the
/// flag and sequence number, 10 for an exception frame (flag 0xff). A frame
/// shorter than its header is a truncation (`nd_trunc_longjmp`): dumped whole.
fn arcnet(p: &[u8]) -> (usize, bool) {
    let len = match (p.get(2), p.get(3)) {
        (None, _) => return (0, true),
        (Some(&t), _) if arcnet_old_type(t) => 3,
        (_, Some(0xff)) if p.len() >= 10 => 10,
        (_, Some(0xff)) => return (0, true),
        _ if p.len() >= 6 => 6,
        _ => return (0, true),
    };
    (len, false)
}

/// `arcnet_linux_if_print`'s `archdrlen`: source, destination, a 2-byte
/// offset and the type (5 bytes) for the old types, then the flag and the
/// sequence number for the others (8).
fn arcnet_linux(p: &[u8]) -> (usize, bool) {
    match p.get(4) {
        None => (0, true),
        Some(&t) if arcnet_old_type(t) => (5, false),
        Some(_) if p.len() >= 8 => (8, false),
        Some(_) => (0, true),
    }
}

/// `juniper_parse_header`'s `header_len` (and, for Ethernet, the frame's).
fn juniper(lt: u32, p: &[u8], wire_len: usize) -> (usize, bool) {
    let (Some(&flags), Some(magic)) = (p.get(3), p.get(..3)) else {
        return (0, true);
    };
    if magic != b"MGC" {
        return (0, false);
    }
    let mut hdr = 4;
    if flags & 0x80 != 0 {
        let Some(ext) = p
            .get(4..6)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
        else {
            return (0, true);
        };
        if p.len() < 6 + ext {
            return (0, true);
        }
        // A TLV longer than what is left ends the printer with nothing added.
        let (mut left, mut at) = (ext, 6);
        while left > 2 {
            let (ty, len) = (p[at], usize::from(p[at + 1]));
            if ty == 0 || len == 0 {
                break;
            }
            if left < len + 2 {
                return (0, false);
            }
            at += len + 2;
            left -= len + 2;
        }
        hdr += 2 + ext;
    }
    if flags & 0x02 != 0 {
        return (hdr + 4, false);
    }
    let cookie = match lt {
        137 => 4,
        164 => 8,
        _ => 0,
    };
    let cookie = match (lt, p.get(hdr)) {
        (178, _) => 0,
        (_, Some(0x54)) => cookie + 2,
        (_, Some(0x47)) => 8,
        (_, Some(_)) => cookie,
        (_, None) => return (0, true),
    };
    let len = hdr + cookie;
    if cookie > 8 {
        return (len, false);
    }
    if lt == 178 {
        let (eth, early) = ethernet(p.get(len..).unwrap_or(&[]), wire_len.saturating_sub(len));
        return (len + eth, early);
    }
    (len, false)
}

/// `ether_switch_tag_print`: Ethernet with an `n`-byte tag after the
/// addresses, measured as the frame without it plus the tag.
fn switch_tagged(data: &[u8], wire_len: usize, n: usize) -> (usize, bool) {
    if data.len() < 14 + n || wire_len < data.len() {
        return (data.len().min(wire_len), true);
    }
    let mut untagged = data[..12].to_vec();
    untagged.extend_from_slice(&data[12 + n..]);
    let (len, early) = ethernet(&untagged, wire_len - n);
    (len + n, early)
}

/// `nflog_if_print`: the header and the TLVs up to the payload's header.
fn nflog(data: &[u8]) -> usize {
    if data.len() < 4 {
        return data.len();
    }
    if data[1] != 0 {
        return 4;
    }
    let mut at = 4;
    while let Some(size) = le16(data, at) {
        let size = size.div_ceil(4) * 4;
        if size < 4 || data.len() - at < size {
            break;
        }
        if le16(data, at + 2) == Some(9) {
            return at + 4;
        }
        at += size;
    }
    at
}

/// `pktap_if_print`: its header and the inner printer's.
fn pktap(data: &[u8], wire_len: usize, mesh: bool) -> (usize, bool) {
    let (Some(hdrlen), Some(rectype), Some(dlt)) = (le32(data, 0), le32(data, 4), le32(data, 8))
    else {
        return (0, true);
    };
    if wire_len < 108 || hdrlen < 108 || hdrlen > wire_len || data.len() < hdrlen {
        return (0, true);
    }
    if rectype != 1 || dlt == 149 || dlt == 258 {
        return (hdrlen, false);
    }
    let (inner, early) = layer_len(
        LinkType(dlt as u32),
        &data[hdrlen..],
        wire_len - hdrlen,
        mesh,
    );
    // tcpdump adds the inner header length to its own and then to the
    // total that already holds it: counted twice.
    (hdrlen + 2 * inner, early)
}

/// `ppi_if_print`'s: its header length and twice the inner printer's (as
/// PKTAP's, added to a total that already holds it), or nothing after the
/// header where no printer knows the link type inside; what was captured
/// where the header is cut short or invalid. A PPI inside a PPI is a loop,
/// each level's length counting twice as much as the one outside it.
fn ppi(mut data: &[u8], mut wire_len: usize, mesh: bool) -> (usize, bool) {
    let mut total = 0usize;
    let mut weight = 1usize;
    loop {
        let h = match ppi_start(data) {
            PpiStart::Header(h) => h,
            _ => {
                return (
                    total.saturating_add(weight.saturating_mul(data.len())),
                    true,
                )
            }
        };
        total = total.saturating_add(weight.saturating_mul(h.len));
        weight = weight.saturating_mul(2);
        (data, wire_len) = (&data[h.len..], wire_len.saturating_sub(h.len));
        if h.dlt == LinkType::PPI.0 {
            continue;
        }
        // (0 for a link type without a printer, as `ppi_if_print` adds.)
        let (inner, early) = layer_len(LinkType(h.dlt), data, wire_len, mesh);
        return (total.saturating_add(weight.saturating_mul(inner)), early);
    }
}

/// `fr_print`'s result: `None` where it returns 0 (an invalid or cut-short
/// address or header).
fn fr(p: &[u8], length: usize) -> Option<usize> {
    if p.len() < 4 {
        return None;
    }
    let b = |i: usize| if i < length { p.get(i).copied() } else { None };
    if b(0)? & 1 != 0 {
        return None;
    }
    let mut al = 2;
    if b(1)? & 1 == 0 {
        al = 3;
        if b(2)? & 1 == 0 {
            al = 4;
        }
        if b(al - 1)? & 1 == 0 {
            return None;
        }
    }
    let dlci_nonzero = (b(0)? & 0xfc) != 0 || (b(1)? & 0xf0) != 0 || al > 2;
    let ctl = b(al)?;
    if ctl != 0x03 && dlci_nonzero {
        if let (Some(x), Some(y)) = (b(al), b(al + 1)) {
            let et = u16::from_be_bytes([x, y]);
            if known_ethertype(et) {
                return Some(al + 2);
            }
        }
    }
    let hdr = if b(al + 1)? == 0 { al + 3 } else { al + 2 };
    b(hdr - 1)?;
    Some(hdr)
}

/// EtherTypes tcpdump's `ethertype_print` decodes, for a Cisco-style Frame
/// Relay header: the common ones a capture holds.
fn known_ethertype(et: u16) -> bool {
    matches!(
        et,
        0x0800 | 0x86dd | 0x0806 | 0x8035 | 0x8100 | 0x8847 | 0x8848 | 0x8863 | 0x8864
    )
}
