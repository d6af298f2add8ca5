//! A minimal reader of pcap and pcapng files for the tests and examples of this
//! crate (which has no dependencies, not even for development).

use netsift_wire::LinkType;

/// One captured packet.
#[derive(Clone, Debug)]
pub(crate) struct Packet {
    pub linktype: LinkType,
    pub data: Vec<u8>,
    pub wire_len: u32,
}

fn u16e(b: &[u8], at: usize, le: bool) -> Option<u16> {
    let s: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
    Some(if le {
        u16::from_le_bytes(s)
    } else {
        u16::from_be_bytes(s)
    })
}

fn u32e(b: &[u8], at: usize, le: bool) -> Option<u32> {
    let s: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    Some(if le {
        u32::from_le_bytes(s)
    } else {
        u32::from_be_bytes(s)
    })
}

/// Reads every packet of a pcap or pcapng file; `None` when the file is neither or
/// is damaged before its first packet. Packets after a damaged record are dropped.
pub(crate) fn read_capture(bytes: &[u8]) -> Option<Vec<Packet>> {
    let magic = u32e(bytes, 0, true)?;
    match magic {
        0xa1b2c3d4 | 0xa1b23c4d => read_pcap(bytes, true),
        0xd4c3b2a1 | 0x4d3cb2a1 => read_pcap(bytes, false),
        0x0a0d0d0a => read_pcapng(bytes),
        _ => None,
    }
}

fn read_pcap(b: &[u8], le: bool) -> Option<Vec<Packet>> {
    let linktype = LinkType(u32e(b, 20, le)? & 0x0fff_ffff);
    // libpcap keeps only the file's snapshot length of a longer record (and
    // takes an unset or oversized one as its maximum, 262144).
    let snap = match u32e(b, 16, le)? as usize {
        0 => 262_144,
        s => s.min(262_144),
    };
    let mut off = 24;
    let mut out = Vec::new();
    while off + 16 <= b.len() {
        let caplen = u32e(b, off + 8, le)? as usize;
        let wire_len = u32e(b, off + 12, le)?;
        let data = match b.get(off + 16..off + 16 + caplen) {
            Some(d) => d,
            None => break,
        };
        out.push(Packet {
            linktype,
            data: data[..caplen.min(snap)].to_vec(),
            wire_len,
        });
        off += 16 + caplen;
    }
    Some(out)
}

fn read_pcapng(b: &[u8]) -> Option<Vec<Packet>> {
    let mut out = Vec::new();
    let mut off = 0usize;
    let mut le = true;
    let mut ifaces: Vec<(LinkType, u32)> = Vec::new();
    while off + 12 <= b.len() {
        let btype_le = u32e(b, off, true)?;
        if btype_le == 0x0a0d0d0a {
            let bom = u32e(b, off + 8, true)?;
            le = bom == 0x1a2b3c4d;
            ifaces.clear();
        }
        let btype = u32e(b, off, le)?;
        let blen = u32e(b, off + 4, le)? as usize;
        if blen < 12 || off + blen > b.len() {
            break;
        }
        let body = &b[off + 8..off + blen - 4];
        match btype {
            1 => {
                let lt = u16e(body, 0, le)? as u32;
                let snap = u32e(body, 4, le)?;
                ifaces.push((LinkType(lt), snap));
            }
            6 => {
                let ifid = u32e(body, 0, le)? as usize;
                let caplen = u32e(body, 12, le)? as usize;
                let wire_len = u32e(body, 16, le)?;
                let data = body.get(20..20 + caplen)?;
                let (linktype, _) = *ifaces.get(ifid)?;
                out.push(Packet {
                    linktype,
                    data: data.to_vec(),
                    wire_len,
                });
            }
            3 => {
                let wire_len = u32e(body, 0, le)?;
                let (linktype, snap) = *ifaces.first()?;
                let mut caplen = wire_len as usize;
                if snap != 0 {
                    caplen = caplen.min(snap as usize);
                }
                caplen = caplen.min(body.len() - 4);
                out.push(Packet {
                    linktype,
                    data: body[4..4 + caplen].to_vec(),
                    wire_len,
                });
            }
            2 => {
                let ifid = u16e(body, 0, le)? as usize;
                let caplen = u32e(body, 12, le)? as usize;
                let wire_len = u32e(body, 16, le)?;
                let data = body.get(20..20 + caplen)?;
                let (linktype, _) = *ifaces.get(ifid)?;
                out.push(Packet {
                    linktype,
                    data: data.to_vec(),
                    wire_len,
                });
            }
            _ => {}
        }
        off += blen;
    }
    Some(out)
}
