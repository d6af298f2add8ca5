//! Hand-built frames the `compile` and `images` targets run filters on: one of each
//! common shape, so that verdicts depend on real header fields, and each cut short
//! at the header boundaries where libpcap's and netsift's fault handling matter.

/// A frame: captured bytes and the length on the wire.
#[derive(Clone, Debug)]
pub struct Frame {
    pub data: Vec<u8>,
    pub wire_len: u32,
}

const MAC_A: [u8; 6] = [0x02, 0, 0, 0, 0, 1];
const MAC_B: [u8; 6] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff];

/// An Ethernet II frame from the broadcast address to a fixed host.
pub fn ether(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(14 + payload.len());
    f.extend_from_slice(&MAC_B);
    f.extend_from_slice(&MAC_A);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// An IPv4 header (20 bytes, valid checksum) followed by `l4`.
pub fn ipv4(proto: u8, src: [u8; 4], dst: [u8; 4], l4: &[u8]) -> Vec<u8> {
    let total = 20 + l4.len();
    let mut h = vec![0u8; 20];
    h[0] = 0x45;
    h[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    h[4..6].copy_from_slice(&0x1234u16.to_be_bytes());
    h[8] = 64;
    h[9] = proto;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    // The header checksum, so that checksum-aware dissection sees a valid packet.
    let mut sum = 0u32;
    for w in h.chunks(2) {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    h[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    h.extend_from_slice(l4);
    h
}

fn ipv6(next: u8, src: [u8; 16], dst: [u8; 16], l4: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 40];
    h[0] = 0x60;
    h[4..6].copy_from_slice(&(l4.len() as u16).to_be_bytes());
    h[6] = next;
    h[7] = 64;
    h[8..24].copy_from_slice(&src);
    h[24..40].copy_from_slice(&dst);
    h.extend_from_slice(l4);
    h
}

/// A TCP header (20 bytes) followed by `payload`.
pub fn tcp(sport: u16, dport: u16, flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut t = vec![0u8; 20];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    t[4..8].copy_from_slice(&1000u32.to_be_bytes());
    t[12] = 5 << 4;
    t[13] = flags;
    t[14..16].copy_from_slice(&8192u16.to_be_bytes());
    t.extend_from_slice(payload);
    t
}

/// A UDP header followed by `payload`.
pub fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut u = vec![0u8; 8];
    u[0..2].copy_from_slice(&sport.to_be_bytes());
    u[2..4].copy_from_slice(&dport.to_be_bytes());
    u[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    u.extend_from_slice(payload);
    u
}

const V4_A: [u8; 4] = [192, 168, 1, 10];
const V4_B: [u8; 4] = [10, 0, 0, 1];

fn v6(last: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[2] = 0x0d;
    a[3] = 0xb8;
    a[15] = last;
    a
}

/// Well-formed Ethernet frames: IPv4 TCP SYN to port 80 with payload, IPv4 UDP DNS,
/// IPv4 ICMP echo, IPv6 TCP, IPv6 UDP, an ARP request, a VLAN-tagged IPv4 UDP frame
/// and a fragment (offset non-zero).
pub fn ethernet() -> Vec<Vec<u8>> {
    let mut icmp = vec![8u8, 0, 0, 0, 0, 1, 0, 1];
    icmp.extend_from_slice(b"ping");
    let mut arp = vec![0, 1, 8, 0, 6, 4, 0, 1];
    arp.extend_from_slice(&MAC_A);
    arp.extend_from_slice(&V4_A);
    arp.extend_from_slice(&[0; 6]);
    arp.extend_from_slice(&V4_B);
    let mut vlan = vec![0x00, 0x0a, 0x08, 0x00];
    vlan.extend_from_slice(&ipv4(
        17,
        V4_B,
        V4_A,
        &udp(5060, 5060, b"SIP/2.0 200 OK\r\n"),
    ));
    let mut frag = ipv4(6, V4_A, V4_B, &tcp(20, 2000, 0x10, &[0xaa; 16]));
    frag[6] = 0x00;
    frag[7] = 0x10;
    vec![
        ether(
            0x0800,
            &ipv4(6, V4_A, V4_B, &tcp(40000, 80, 0x02, b"GET / HTTP/1.0\r\n")),
        ),
        ether(0x0800, &ipv4(17, V4_B, V4_A, &udp(53, 33000, &[0x12; 24]))),
        ether(0x0800, &ipv4(1, V4_A, V4_B, &icmp)),
        ether(0x86dd, &ipv6(6, v6(1), v6(2), &tcp(443, 50000, 0x12, &[]))),
        ether(0x86dd, &ipv6(17, v6(2), v6(1), &udp(5353, 5353, &[0; 12]))),
        ether(0x0806, &arp),
        ether(0x8100, &vlan),
        ether(0x0800, &frag),
    ]
}

/// The frames of [`ethernet`] for `linktype`: whole, and cut at the link header, in
/// the network header, at its end, and in the transport header (caplen below the wire
/// length, as a snapshot length makes them). RAW gets the frames without their
/// Ethernet header (the ARP and VLAN frames make no sense there and are dropped).
pub fn fixed(raw: bool) -> Vec<Frame> {
    let mut out = Vec::new();
    for f in ethernet() {
        let data = if raw {
            match u16::from_be_bytes([f[12], f[13]]) {
                0x0800 | 0x86dd => f[14..].to_vec(),
                _ => continue,
            }
        } else {
            f
        };
        let wire_len = data.len() as u32;
        let link = if raw { 0 } else { 14 };
        for cut in [
            1 + link / 2,
            link + 9,
            link + 20,
            link + 24,
            link + 40,
            link + 42,
        ] {
            if cut < data.len() {
                out.push(Frame {
                    data: data[..cut].to_vec(),
                    wire_len,
                });
            }
        }
        out.push(Frame { data, wire_len });
    }
    // An empty capture of a non-empty packet: every load faults.
    out.push(Frame {
        data: Vec::new(),
        wire_len: 60,
    });
    out
}

/// The frames of [`ethernet`] as 802.11 QoS and plain data frames (To DS, then From
/// DS) with LLC/SNAP, and a beacon, behind the capture header of `linktype`
/// (105 bare, 127 radiotap with the flags field, padded for QoS, 163 AVS, 119 Prism,
/// 192 PPI): whole, and cut in the capture header, the 802.11 header and the LLC
/// header.
pub fn wlan(linktype: u32) -> Vec<Frame> {
    let mut frames: Vec<(Vec<u8>, usize)> = Vec::new();
    for (i, f) in ethernet().into_iter().enumerate() {
        let qos = i % 2 == 0;
        let mut w = vec![
            if qos { 0x88 } else { 0x08 },
            if qos { 0x01 } else { 0x02 },
            0,
            0,
        ];
        w.extend_from_slice(&f[0..6]);
        w.extend_from_slice(&f[6..12]);
        w.extend_from_slice(&f[6..12]);
        w.extend_from_slice(&[0x10, 0x00]);
        if qos {
            w.extend_from_slice(&[0, 0]);
        }
        let hdr = w.len();
        w.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
        w.extend_from_slice(&f[12..]);
        frames.push((w, hdr));
    }
    let mut beacon = vec![0x80, 0, 0, 0];
    beacon.extend_from_slice(&MAC_B);
    beacon.extend_from_slice(&MAC_A);
    beacon.extend_from_slice(&MAC_A);
    beacon.extend_from_slice(&[0x20, 0x00]);
    beacon.extend_from_slice(&[0; 12]);
    beacon.extend_from_slice(&[0, 4, b't', b'e', b's', b't']);
    frames.push((beacon, 24));
    let mut out = Vec::new();
    for (w, hdr) in frames {
        let (mut data, cap) = match linktype {
            127 => {
                // Flags with the padding bit where the 802.11 header is not a
                // multiple of 4 long.
                let pad = hdr % 4 != 0;
                let mut v = vec![0, 0, 9, 0, 2, 0, 0, 0, if pad { 0x20 } else { 0 }];
                v.extend_from_slice(&w[..hdr]);
                if pad {
                    v.extend_from_slice(&[0, 0]);
                }
                v.extend_from_slice(&w[hdr..]);
                (v, 9)
            }
            192 => (vec![0, 0, 8, 0, 105, 0, 0, 0], 8),
            163 => {
                let mut v = vec![0x80, 0x21, 0x10, 0x01, 0, 0, 0, 64];
                v.resize(64, 0);
                (v, 64)
            }
            119 => (vec![0x44; 144], 144),
            _ => (Vec::new(), 0),
        };
        if linktype != 127 {
            data.extend_from_slice(&w);
        }
        let wire_len = data.len() as u32;
        for cut in [3, cap + 1, cap + 20, cap + hdr + 2, cap + hdr + 10] {
            if cut < data.len() {
                out.push(Frame {
                    data: data[..cut].to_vec(),
                    wire_len,
                });
            }
        }
        out.push(Frame { data, wire_len });
    }
    out
}
