//! The link-level header length tcpdump 4.99.3's 802.11 printers report
//! (`ieee802_11_print` and the capture-header printers before it): what `-x`
//! leaves out. Every truncation these printers meet they catch themselves, so
//! the length holds for a frame cut short too.

use netsift_wire::LinkType;

/// Radiotap Flags bits: FCS at the end, padding after the 802.11 header.
const F_FCS: u8 = 0x10;
const F_DATAPAD: u8 = 0x20;
const PRISM_HDR_LEN: usize = 144;

fn le16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*d.get(at)?, *d.get(at + 1)?]))
}

fn be32(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

/// The header length for the 802.11 link types, `None` for the others.
pub(super) fn header_len(
    linktype: LinkType,
    data: &[u8],
    wire_len: usize,
    mesh: bool,
) -> Option<usize> {
    let caplen = data.len();
    Some(match linktype {
        LinkType::IEEE802_11 => frame(data, wire_len, false, 0, mesh),
        LinkType::IEEE802_11_RADIO => radiotap(data, wire_len, mesh),
        LinkType::IEEE802_11_RADIO_AVS => avs(data, wire_len, mesh),
        LinkType::PRISM_HEADER => match be32(data, 0) {
            None => caplen,
            Some(0x8021_1001 | 0x8021_1002) => avs(data, wire_len, mesh),
            Some(_) if caplen < PRISM_HDR_LEN => caplen,
            Some(_) => {
                PRISM_HDR_LEN
                    + frame(
                        &data[PRISM_HDR_LEN..],
                        wire_len.saturating_sub(PRISM_HDR_LEN),
                        false,
                        0,
                        mesh,
                    )
            }
        },
        _ => return None,
    })
}

fn avs(data: &[u8], wire_len: usize, mesh: bool) -> usize {
    match be32(data, 4) {
        Some(h) if h >= 8 && data.len() >= h as usize => {
            let h = h as usize;
            h + frame(&data[h..], wire_len.saturating_sub(h), false, 0, mesh)
        }
        _ => data.len(),
    }
}

/// The radiotap header's length, then the frame's; the Flags field is found
/// the way the printer finds it (after the presence words, TSFT first).
fn radiotap(data: &[u8], wire_len: usize, mesh: bool) -> usize {
    let Some(len) = le16(data, 2).map(usize::from) else {
        return data.len();
    };
    if len < 8 || data.len() < len {
        return data.len();
    }
    let word = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let mut last = 4;
    while last + 4 <= len && word(last) & 1 << 31 != 0 {
        last += 4;
    }
    if last + 4 > len {
        return data.len();
    }
    // Flags is bit 1 of the first word: after TSFT (8 bytes, 8-aligned).
    let present = word(4);
    let mut at = last + 4;
    if present & 1 != 0 {
        at = at.div_ceil(8) * 8 + 8;
    }
    let flags = match present & 2 != 0 && at < len {
        true => data[at],
        false => 0,
    };
    let fcslen = if flags & F_FCS != 0 { 4 } else { 0 };
    len + frame(
        &data[len..],
        wire_len.saturating_sub(len),
        flags & F_DATAPAD != 0,
        fcslen,
        mesh,
    )
}

/// `ieee802_11_print`'s result.
fn frame(p: &[u8], length: usize, pad: bool, fcslen: usize, mesh: bool) -> usize {
    let orig = p.len();
    let Some(length) = length.checked_sub(fcslen) else {
        return orig;
    };
    let p = &p[..orig.min(length)];
    let Some(fc) = le16(p, 0) else {
        return orig;
    };
    let (ty, sub) = ((fc >> 2) & 3, (fc >> 4) & 0xf);
    let four = fc & 0x0300 == 0x0300;
    let mut hdrlen: usize = match (ty, sub) {
        (0, _) => 24,
        (1, 7) | (1, 0xa) | (1, 0xb) | (1, 0xe) | (1, 0xf) => 16,
        (1, 8) => 20,
        (1, 9) | (1, 0xc) | (1, 0xd) => 10,
        (2, _) => (if four { 30 } else { 24 }) + if sub & 8 != 0 { 2 } else { 0 },
        _ => return 0,
    };
    if pad {
        hdrlen = hdrlen.div_ceil(4) * 4;
    }
    // `-H`: a QoS data frame's mesh control field (summary/wlan's).
    if mesh && ty == 2 && sub & 8 != 0 {
        match p.get(hdrlen) {
            Some(&f) if f & !3 == 0 => hdrlen += 6 * (1 + usize::from(f & 3)),
            Some(_) => {}
            None => return hdrlen,
        }
    }
    if p.len() < hdrlen || ty != 2 || sub & 4 != 0 || fc & 0x4000 != 0 {
        return hdrlen;
    }
    let (llc, _) = super::llc(&p[hdrlen..], length - hdrlen);
    hdrlen + llc
}
