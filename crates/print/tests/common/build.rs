//! Packet builders for the tests: each returns the bytes of one header followed by
//! its payload, with lengths and the IPv4 header checksum filled in.

pub(crate) fn csum(data: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for c in data.chunks(2) {
        s += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

pub(crate) fn eth(t: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
    ];
    v.extend_from_slice(&t.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

pub(crate) fn vlan(tpid: u16, vid: u16, inner: u16, payload: &[u8]) -> Vec<u8> {
    let mut p = vid.to_be_bytes().to_vec();
    p.extend_from_slice(&inner.to_be_bytes());
    p.extend_from_slice(payload);
    eth(tpid, &p)
}

pub(crate) fn ipv4(proto: u8, payload: &[u8], options: &[u8]) -> Vec<u8> {
    let hl = 20 + options.len();
    let mut v = vec![0x40 | (hl / 4) as u8, 0];
    v.extend_from_slice(&((hl + payload.len()) as u16).to_be_bytes());
    v.extend_from_slice(&[
        0x12, 0x34, 0x40, 0x00, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ]);
    v.extend_from_slice(options);
    let c = csum(&v);
    v[10..12].copy_from_slice(&c.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

pub(crate) fn ipv6(nh: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![0x60, 0, 0, 0];
    v.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    v.extend_from_slice(&[nh, 64]);
    v.extend_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    v.extend_from_slice(&[0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfb]);
    v.extend_from_slice(payload);
    v
}

pub(crate) fn tcp(sport: u16, dport: u16, flags: u8, payload: &[u8]) -> Vec<u8> {
    let opts = [
        2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7, 5, 10, 0, 0, 0, 1, 0, 0, 0,
        2, 1, 1, 0x22, 2, 30, 4, 0x20, 0,
    ];
    let hl = 20 + opts.len().div_ceil(4) * 4;
    let mut v = sport.to_be_bytes().to_vec();
    v.extend_from_slice(&dport.to_be_bytes());
    v.extend_from_slice(&[
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        2,
        ((hl / 4) as u8) << 4,
        flags,
        0xff,
        0xff,
        0,
        0,
        0,
        7,
    ]);
    v.extend_from_slice(&opts);
    v.resize(hl, 0);
    v.extend_from_slice(payload);
    v
}

pub(crate) fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = sport.to_be_bytes().to_vec();
    v.extend_from_slice(&dport.to_be_bytes());
    v.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(payload);
    v
}

/// An IPv4 header between `src` and `dst` (no options), then `payload`.
pub(crate) fn ipv4_between(proto: u8, src: [u8; 4], dst: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut v = vec![0x45, 0];
    v.extend_from_slice(&((20 + payload.len()) as u16).to_be_bytes());
    v.extend_from_slice(&[0, 1, 0, 0, 64, proto, 0, 0]);
    v.extend_from_slice(&src);
    v.extend_from_slice(&dst);
    let c = csum(&v);
    v[10..12].copy_from_slice(&c.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

/// A TCP segment with explicit sequence numbers and options.
pub(crate) fn tcp_seg(
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    options: &[u8],
    payload: &[u8],
) -> Vec<u8> {
    let hl = 20 + options.len();
    let mut v = sport.to_be_bytes().to_vec();
    v.extend_from_slice(&dport.to_be_bytes());
    v.extend_from_slice(&seq.to_be_bytes());
    v.extend_from_slice(&ack.to_be_bytes());
    v.extend_from_slice(&[((hl / 4) as u8) << 4, flags, 0xff, 0xff, 0, 0, 0, 0]);
    v.extend_from_slice(options);
    v.extend_from_slice(payload);
    v
}

/// An Ethernet/IPv4 ARP packet.
pub(crate) fn arp_packet(
    op: u16,
    sha: [u8; 6],
    spa: [u8; 4],
    tha: [u8; 6],
    tpa: [u8; 4],
) -> Vec<u8> {
    let mut v = vec![0, 1, 8, 0, 6, 4];
    v.extend_from_slice(&op.to_be_bytes());
    v.extend_from_slice(&sha);
    v.extend_from_slice(&spa);
    v.extend_from_slice(&tha);
    v.extend_from_slice(&tpa);
    v
}

/// An ICMP echo request with id 1, sequence 1 and 56 bytes of data.
pub(crate) fn icmp_echo_request() -> Vec<u8> {
    let mut v = vec![8, 0, 0, 0, 0, 1, 0, 1];
    v.extend_from_slice(&[b'x'; 56]);
    v
}
