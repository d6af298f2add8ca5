//! How a PACKET_FANOUT group spreads packets over its rings.
//!
//! The kernel's own modes hash the flow (the 5-tuple) or go round robin. Following
//! control protocols (`--follow` with several workers) needs another split: an FTP
//! data connection is a different flow from the control connection that announced
//! it, so a flow hash may give the two to different workers, and the worker that
//! sees the data connection's SYN may not yet have seen the announcement. Hashing
//! the *address pair* instead keeps a control connection and every flow it
//! announces between the same two hosts in one ring, in arrival order.
//!
//! The kernel lets a classic BPF program choose the ring (`PACKET_FANOUT_CBPF`): it
//! returns a number and the kernel takes it modulo the group's size. The program is
//! built here, so it can be read and tested without a socket.

/// How a fanout group spreads packets over its rings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fanout {
    /// By a hash of the flow, so a flow's packets stay in one ring. IP fragments
    /// are not reassembled (a capture keeps packets as they were on the wire): a
    /// datagram's later fragments, which carry no ports, may go to another ring
    /// than its first, and the time-ordered merge puts them back in order.
    FlowHash,
    /// By a symmetric hash of the IPv4 or IPv6 source and destination addresses,
    /// so that every flow between two hosts (a control connection and the data
    /// connections it announces) stays in one ring. Fragments carry their
    /// datagram's addresses, so they need no reassembly. Packets that are not IP,
    /// and IP packets too short to hold both addresses, go to the first ring.
    HostPair,
    /// Round robin.
    RoundRobin,
}

/// One classic BPF instruction (`struct sock_filter`).
fn op(code: u32, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

/// A load of the 32-bit word at `off` bytes into the network header. The kernel's
/// `SKF_NET_OFF` base makes the offset independent of the link header and of
/// whether the packet was received or sent (`skb->data` differs between the two).
fn net_word(off: u32) -> libc::sock_filter {
    op(
        libc::BPF_LD | libc::BPF_W | libc::BPF_ABS,
        0,
        0,
        (libc::SKF_NET_OFF as u32).wrapping_add(off),
    )
}

/// The `PACKET_FANOUT_CBPF` program of [`Fanout::HostPair`]: the XOR of the
/// address words (symmetric in source and destination), folded so that the low
/// bits the kernel's modulo uses depend on every byte.
pub(crate) fn host_pair_program() -> Vec<libc::sock_filter> {
    use libc::{
        BPF_A, BPF_ABS, BPF_ALU, BPF_JA, BPF_JEQ, BPF_JMP, BPF_K, BPF_LD, BPF_MISC, BPF_RET,
        BPF_RSH, BPF_TAX, BPF_W, BPF_X, BPF_XOR,
    };
    let tax = || op(BPF_MISC | BPF_TAX, 0, 0, 0);
    let xor_x = || op(BPF_ALU | BPF_XOR | BPF_X, 0, 0, 0);
    // IPv6 addresses: 8 words from offset 8.
    let mut v6 = vec![net_word(8)];
    for off in (12..40).step_by(4) {
        v6.extend([tax(), net_word(off), xor_x()]);
    }
    let fold = [
        tax(),
        op(BPF_ALU | BPF_RSH | BPF_K, 0, 0, 16),
        xor_x(),
        op(BPF_RET | BPF_A, 0, 0, 0),
    ];
    let v4 = [net_word(12), tax(), net_word(16), xor_x()];
    // Layout: proto; v4 test; v4 body; jump to fold; v6 test; v6 body; fold; ret 0.
    let mut p = vec![op(
        BPF_LD | BPF_W | BPF_ABS,
        0,
        0,
        (libc::SKF_AD_OFF + libc::SKF_AD_PROTOCOL) as u32,
    )];
    // Taken: fall into the v4 body. Not taken: skip it and its jump.
    p.push(op(BPF_JMP | BPF_JEQ | BPF_K, 0, v4.len() as u8 + 1, 0x0800));
    p.extend(v4);
    p.push(op(BPF_JMP | BPF_JA, 0, 0, v6.len() as u32 + 1));
    // Not taken: past the v6 body and the fold to `ret 0`.
    p.push(op(
        BPF_JMP | BPF_JEQ | BPF_K,
        0,
        (v6.len() + fold.len()) as u8,
        0x86dd,
    ));
    p.extend(v6);
    p.extend(fold);
    p.push(op(BPF_RET | BPF_K, 0, 0, 0));
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small interpreter of the instructions the program uses, over a network
    /// header and a protocol number: enough to check the jumps land where meant.
    fn run(prog: &[libc::sock_filter], proto: u16, net: &[u8]) -> u32 {
        let (mut a, mut x, mut pc) = (0u32, 0u32, 0usize);
        loop {
            let i = prog[pc];
            pc += 1;
            match i.code as u32 {
                c if c == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => {
                    if i.k == (libc::SKF_AD_OFF + libc::SKF_AD_PROTOCOL) as u32 {
                        a = proto as u32;
                    } else {
                        let off = i.k.wrapping_sub(libc::SKF_NET_OFF as u32) as usize;
                        match net.get(off..off + 4) {
                            Some(w) => a = u32::from_be_bytes(w.try_into().unwrap()),
                            None => return 0,
                        }
                    }
                }
                c if c == libc::BPF_MISC | libc::BPF_TAX => x = a,
                c if c == libc::BPF_ALU | libc::BPF_XOR | libc::BPF_X => a ^= x,
                c if c == libc::BPF_ALU | libc::BPF_RSH | libc::BPF_K => a >>= i.k,
                c if c == libc::BPF_JMP | libc::BPF_JA => pc += i.k as usize,
                c if c == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K => {
                    pc += if a == i.k { i.jt } else { i.jf } as usize
                }
                c if c == libc::BPF_RET | libc::BPF_A => return a,
                c if c == libc::BPF_RET | libc::BPF_K => return i.k,
                c => panic!("unexpected code {c:#x}"),
            }
        }
    }

    fn v4(src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
        let mut h = vec![0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0];
        h.extend(src);
        h.extend(dst);
        h
    }

    fn v6(src: [u8; 16], dst: [u8; 16]) -> Vec<u8> {
        let mut h = vec![0x60, 0, 0, 0, 0, 20, 6, 64];
        h.extend(src);
        h.extend(dst);
        h
    }

    #[test]
    fn the_hash_is_the_same_both_ways_and_spreads_hosts() {
        let p = host_pair_program();
        let (a, b, c) = ([10, 0, 0, 1], [10, 0, 0, 2], [10, 0, 0, 3]);
        let ab = run(&p, 0x0800, &v4(a, b));
        assert_eq!(ab, run(&p, 0x0800, &v4(b, a)));
        assert_ne!(ab, run(&p, 0x0800, &v4(a, c)));
        let mut s6 = [0u8; 16];
        s6[0] = 0xfe;
        s6[15] = 1;
        let mut d6 = s6;
        d6[15] = 2;
        let h6 = run(&p, 0x86dd, &v6(s6, d6));
        assert_eq!(h6, run(&p, 0x86dd, &v6(d6, s6)));
        // Both low bits vary over a /24 of clients to one server: two or four
        // workers all get some of them.
        let mut seen = [false; 4];
        for i in 1..=64u8 {
            seen[run(&p, 0x0800, &v4([10, 0, 0, i], b)) as usize % 4] = true;
        }
        assert_eq!(seen, [true; 4]);
    }

    #[test]
    fn other_protocols_and_short_headers_go_to_the_first_ring() {
        let p = host_pair_program();
        assert_eq!(run(&p, 0x0806, &v4([1; 4], [2; 4])), 0);
        assert_eq!(run(&p, 0x0800, &v4([1; 4], [2; 4])[..19]), 0);
        assert_eq!(run(&p, 0x86dd, &[0x60; 39]), 0);
    }
}
