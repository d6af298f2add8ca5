//! libpcap's conversion of link-layer pseudo-headers written in the other byte
//! order (`swap_pseudo_headers` in pcap-util.c), for the link types netsift can
//! meet: LINUX_SLL and LINUX_SLL2 (the CAN id of SocketCAN packets) and NFLOG (TLV
//! type and length fields).
//!
//! libpcap also converts PFLOG and Linux USB headers and fixes up the length of
//! some memory-mapped USB packets; this reader does not (netsift does not filter
//! those link types), so for such files it returns the bytes as stored.

use crate::input::Endian;

const LINKTYPE_LINUX_SLL: u32 = 113;
const LINKTYPE_LINUX_SLL2: u32 = 276;
const LINKTYPE_NFLOG: u32 = 239;
const LINUX_SLL_P_CAN: u16 = 0x000c;
const LINUX_SLL_P_CANFD: u16 = 0x000d;

/// Whether a file in byte order `e` is "swapped" for libpcap on this host.
pub(crate) fn is_swapped(e: Endian) -> bool {
    match e {
        Endian::Little => cfg!(target_endian = "big"),
        Endian::Big => cfg!(target_endian = "little"),
    }
}

/// Converts the pseudo-header of a packet of a swapped file in place.
pub(crate) fn swap_pseudo_header(linktype: u32, data: &mut [u8], orig_len: u32) {
    // libpcap checks both the captured and the original length.
    let avail = data.len().min(orig_len as usize);
    match linktype {
        LINKTYPE_LINUX_SLL => swap_can_id(data, avail, 16, 14),
        LINKTYPE_LINUX_SLL2 => swap_can_id(data, avail, 20, 0),
        LINKTYPE_NFLOG => swap_nflog(data, orig_len),
        _ => {}
    }
}

fn swap_can_id(data: &mut [u8], avail: usize, hdr_len: usize, proto_at: usize) {
    if avail < hdr_len {
        return;
    }
    let proto = u16::from_be_bytes([data[proto_at], data[proto_at + 1]]);
    if proto != LINUX_SLL_P_CAN && proto != LINUX_SLL_P_CANFD {
        return;
    }
    if avail < hdr_len + 4 {
        return;
    }
    data[hdr_len..hdr_len + 4].reverse();
}

fn swap_nflog(data: &mut [u8], orig_len: u32) {
    let mut caplen = data.len();
    let mut length = orig_len as usize;
    if caplen < 4 || length < 4 || data[1] != 0 {
        return;
    }
    caplen -= 4;
    length -= 4;
    let mut p = 4;
    while caplen >= 4 {
        data[p..p + 2].reverse();
        data[p + 2..p + 4].reverse();
        let mut size = usize::from(u16::from_ne_bytes([data[p], data[p + 1]]));
        if size % 4 != 0 {
            size += 4 - size % 4;
        }
        if size < 4 || caplen < size || length < size {
            return;
        }
        length -= size;
        caplen -= size;
        p += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sll_can_id_swapped() {
        let mut d = vec![0u8; 24];
        d[14..16].copy_from_slice(&LINUX_SLL_P_CAN.to_be_bytes());
        d[16..20].copy_from_slice(&[1, 2, 3, 4]);
        swap_pseudo_header(LINKTYPE_LINUX_SLL, &mut d, 24);
        assert_eq!(&d[16..20], &[4, 3, 2, 1]);
        // Too short in orig_len: untouched.
        swap_pseudo_header(LINKTYPE_LINUX_SLL, &mut d, 19);
        assert_eq!(&d[16..20], &[4, 3, 2, 1]);
        // Not CAN: untouched.
        d[15] = 0;
        swap_pseudo_header(LINKTYPE_LINUX_SLL, &mut d, 24);
        assert_eq!(&d[16..20], &[4, 3, 2, 1]);
    }

    #[test]
    fn nflog_never_panics() {
        for n in 0..40 {
            for fill in [0u8, 1, 3, 0xff] {
                let mut d = vec![fill; n];
                if n > 1 {
                    d[1] = 0;
                }
                swap_nflog(&mut d, n as u32);
                swap_nflog(&mut d, 1000);
                swap_nflog(&mut d, 0);
            }
        }
    }
}
