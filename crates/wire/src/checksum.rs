//! The Internet checksum (RFC 1071): one implementation for the header views that
//! verify it and for the generators (samples, synthetic captures, benchmark traces)
//! that write it.

/// The ones'-complement sum of `data` as big-endian 16-bit words (an odd last byte is
/// padded with zero), added to `initial` (a partial sum, e.g. of a pseudo-header) and
/// folded to 16 bits, not complemented.
pub fn ones_sum(initial: u32, data: &[u8]) -> u32 {
    let mut sum = initial as u64;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u64;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u64) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u32
}

/// The checksum of `data` (IPv4 header, ICMP, IGMP): 0 when `data` already holds a
/// correct checksum.
pub fn internet(data: &[u8]) -> u16 {
    !(ones_sum(0, data) as u16)
}

/// The TCP/UDP/ICMPv6 checksum of `segment` with the pseudo-header of `src` and `dst`
/// (both IPv4 or both IPv6 addresses) and protocol `proto`. The IPv4 and IPv6
/// pseudo-headers hold the same words up to order (the length as 16 or 32 bits, the
/// protocol with zero padding), so one sum serves both.
pub fn pseudo(src: &[u8], dst: &[u8], proto: u8, segment: &[u8]) -> u16 {
    let mut s = ones_sum(0, src);
    s = ones_sum(s, dst);
    s = ones_sum(s, &[0, proto]);
    s = ones_sum(s, &(segment.len() as u32).to_be_bytes());
    !(ones_sum(s, segment) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example_and_verification() {
        // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(ones_sum(0, &data), 0xddf2);
        assert_eq!(internet(&data), !0xddf2);
        let mut with = data.to_vec();
        with.extend_from_slice(&internet(&data).to_be_bytes());
        assert_eq!(internet(&with), 0);
        // An odd length pads the last byte on the right.
        assert_eq!(ones_sum(0, &[0x12]), 0x1200);
    }
}
