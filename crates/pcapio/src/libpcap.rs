//! libpcap 1.10.3's rules about link types and snapshot lengths (as built on Linux),
//! which decide what it accepts and what `tcpdump -w` writes.

/// libpcap's `MAXIMUM_SNAPLEN`.
pub const MAXIMUM_SNAPLEN: u32 = 262_144;

/// The largest captured length libpcap accepts for a link type
/// (`max_snaplen_for_dlt`): 128 MiB for DBUS (231), 8 MiB for EBHSCR (279),
/// 1 MiB for USBPCAP (249), 262144 otherwise. (Those three LINKTYPE values equal
/// their DLT values.)
pub fn max_snaplen_for(linktype: u32) -> u32 {
    match linktype {
        231 => 128 * 1024 * 1024,
        279 => 8 * 1024 * 1024,
        249 => 1024 * 1024,
        _ => MAXIMUM_SNAPLEN,
    }
}

/// libpcap's `pcap_adjust_snapshot`: a snapshot length of 0 or above `i32::MAX`
/// is replaced by the maximum for the link type.
pub fn adjust_snapshot(linktype: u32, snaplen: u32) -> u32 {
    if snaplen == 0 || snaplen > i32::MAX as u32 {
        max_snaplen_for(linktype)
    } else {
        snaplen
    }
}

/// libpcap's `linktype_to_dlt` on Linux: the DLT_ value libpcap uses in memory
/// for a LINKTYPE_ value read from a file.
pub fn linktype_to_dlt(linktype: u32) -> u32 {
    match linktype {
        100 => 11, // ATM_RFC1483
        101 => 12, // RAW
        102 => 15, // SLIP_BSDOS
        103 => 16, // PPP_BSDOS
        106 => 19, // ATM_CLIP
        // The matching range 104..=289 and the common low values map to themselves;
        // unknown values are passed through as possible DLTs of a newer libpcap.
        other => other,
    }
}

/// libpcap's `dlt_to_linktype` on Linux: the LINKTYPE_ value written to a file for
/// an in-memory DLT_, or `None` if libpcap has none (it then refuses to write).
pub fn dlt_to_linktype(dlt: u32) -> Option<u32> {
    Some(match dlt {
        11 => 100,
        12 => 101,
        15 => 102,
        16 => 103,
        19 => 106,
        0..=10 | 50 | 51 | 99 => dlt,
        104..=289 => dlt,
        _ => return None,
    })
}

/// The LINKTYPE_ value `tcpdump -r IN -w OUT` writes for a file whose link type is
/// `linktype` (`dlt_to_linktype(linktype_to_dlt(linktype))`), or `None` if libpcap
/// cannot write that link type. Not always the input: e.g. 11 becomes 100.
pub fn rewritten_linktype(linktype: u32) -> Option<u32> {
    dlt_to_linktype(linktype_to_dlt(linktype))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_is_identity_for_common_types() {
        for lt in [0, 1, 9, 101, 105, 108, 113, 127, 228, 229, 276] {
            assert_eq!(rewritten_linktype(lt), Some(lt));
        }
        assert_eq!(rewritten_linktype(12), Some(101));
        assert_eq!(rewritten_linktype(13), None);
        assert_eq!(rewritten_linktype(290), None);
    }

    #[test]
    fn snapshot_adjustment() {
        assert_eq!(adjust_snapshot(1, 0), 262_144);
        assert_eq!(adjust_snapshot(231, 0), 128 << 20);
        assert_eq!(adjust_snapshot(1, 0x8000_0000), 262_144);
        assert_eq!(adjust_snapshot(1, 0x7fff_ffff), 0x7fff_ffff);
        assert_eq!(adjust_snapshot(1, 65535), 65535);
    }
}
