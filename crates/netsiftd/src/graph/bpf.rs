//! Classic BPF, as `tcpdump -ddd` prints it, run by a small interpreter:
//! netsift compiles pcap text to its own engine, not from cBPF, so a graph's
//! `bpf` element needs one. It runs safely by construction: the class table
//! (`netsift_graph::class::check_bpf`) has checked the count, that every jump
//! lands inside and that the program ends in a return; [`parse`] refuses any
//! opcode this interpreter does not know and scratch slots past 16, so a run
//! is at most one step per instruction (jumps only go forward) and every
//! load is bounds-checked (out of range: the packet is rejected, as libpcap's
//! `bpf_filter` does). Division by zero rejects, as there.

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

/// Scratch memory slots (`BPF_MEMWORDS`).
const MEMWORDS: u32 = 16;

/// Parses the canonical form the class table gives (`n,code jt jf k,…`),
/// refusing opcodes outside classic BPF; the error names the instruction.
pub(crate) fn parse(text: &str) -> Result<Vec<Insn>, String> {
    let mut out = Vec::new();
    for (pc, line) in text.split(',').skip(1).enumerate() {
        let f: Vec<u64> = line
            .split_ascii_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| format!("instruction {pc}: {line:?} is not four numbers"))?;
        let [code, jt, jf, k] = f[..] else {
            return Err(format!("instruction {pc}: {line:?} is not four numbers"));
        };
        let insn = Insn {
            code: code as u16,
            jt: jt as u8,
            jf: jf as u8,
            k: k as u32,
        };
        if !known(insn) {
            return Err(format!(
                "instruction {pc}: opcode {code:#x} (k {k}) is not classic BPF this daemon runs"
            ));
        }
        out.push(insn);
    }
    Ok(out)
}

/// Whether the interpreter knows `i` (and its scratch slot is in range).
fn known(i: Insn) -> bool {
    let (code, k) = (i.code, i.k);
    match code & 0x07 {
        // LD: W/H/B with ABS or IND; W with IMM, LEN or MEM.
        0x00 => match (code & 0xe0, code & 0x18) {
            (0x20 | 0x40, 0x00 | 0x08 | 0x10) => code & !0xf8 == 0,
            (0x00 | 0x80, 0x00) => true,
            (0x60, 0x00) => k < MEMWORDS,
            _ => false,
        },
        // LDX: W with IMM, LEN or MEM; B with MSH.
        0x01 => match code {
            0x01 | 0x81 => true,
            0x61 => k < MEMWORDS,
            0xb1 => true,
            _ => false,
        },
        0x02 | 0x03 => code & !0x07 == 0 && k < MEMWORDS,
        0x04 => matches!(code & 0xf0, 0x00..=0xa0) && (code & 0xf0 != 0x80 || code & 0x08 == 0),
        0x05 => matches!(code & 0xf0, 0x00..=0x40) && (code & 0xf0 != 0 || code & 0x08 == 0),
        0x06 => matches!(code & 0x18, 0x00 | 0x10),
        _ => matches!(code, 0x07 | 0x87),
    }
}

/// The bytes at `off..off + n` as a big-endian number, if inside `p`.
fn load(p: &[u8], off: u64, n: usize) -> Option<u32> {
    let off = usize::try_from(off).ok()?;
    let b = p.get(off..off.checked_add(n)?)?;
    Some(b.iter().fold(0u32, |v, &x| v << 8 | u32::from(x)))
}

/// Runs `prog` over `pkt` (captured bytes) of `wirelen` bytes on the wire:
/// the return value (0 rejects; the snap length it asks for is not applied:
/// the flow's own snap length is).
pub(crate) fn run(prog: &[Insn], pkt: &[u8], wirelen: u32) -> u32 {
    run_checked(prog, pkt, wirelen).unwrap_or(0)
}

fn run_checked(prog: &[Insn], pkt: &[u8], wirelen: u32) -> Option<u32> {
    let (mut a, mut x) = (0u32, 0u32);
    let mut mem = [0u32; MEMWORDS as usize];
    let mut pc = 0usize;
    loop {
        let i = *prog.get(pc)?;
        pc += 1;
        let k = i.k;
        let size = match i.code & 0x18 {
            0x00 => 4,
            0x08 => 2,
            _ => 1,
        };
        match i.code & 0x07 {
            0x00 => {
                a = match i.code & 0xe0 {
                    0x00 => k,
                    0x20 => load(pkt, u64::from(k), size)?,
                    0x40 => load(pkt, u64::from(x) + u64::from(k), size)?,
                    0x60 => *mem.get(k as usize)?,
                    _ => wirelen,
                }
            }
            0x01 => {
                x = match i.code & 0xe0 {
                    0x00 => k,
                    0x60 => *mem.get(k as usize)?,
                    0x80 => wirelen,
                    _ => (load(pkt, u64::from(k), 1)? & 0xf) << 2,
                }
            }
            0x02 => *mem.get_mut(k as usize)? = a,
            0x03 => *mem.get_mut(k as usize)? = x,
            0x04 => {
                let v = if i.code & 0x08 != 0 { x } else { k };
                a = match i.code & 0xf0 {
                    0x00 => a.wrapping_add(v),
                    0x10 => a.wrapping_sub(v),
                    0x20 => a.wrapping_mul(v),
                    0x30 => a.checked_div(v)?,
                    0x40 => a | v,
                    0x50 => a & v,
                    0x60 => a.wrapping_shl(v),
                    0x70 => a.wrapping_shr(v),
                    0x80 => a.wrapping_neg(),
                    0x90 => a.checked_rem(v)?,
                    _ => a ^ v,
                }
            }
            0x05 => {
                let v = if i.code & 0x08 != 0 { x } else { k };
                let taken = match i.code & 0xf0 {
                    0x00 => {
                        pc = pc.checked_add(k as usize)?;
                        continue;
                    }
                    0x10 => a == v,
                    0x20 => a > v,
                    0x30 => a >= v,
                    _ => a & v != 0,
                };
                pc += usize::from(if taken { i.jt } else { i.jf });
            }
            0x06 => return Some(if i.code & 0x18 == 0x10 { a } else { k }),
            _ => {
                if i.code & 0xf8 == 0 {
                    x = a;
                } else {
                    a = x;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tcpdump -ddd -y EN10MB 'ip and udp'` (libpcap 1.10).
    const IP_UDP: &str = "6,40 0 0 12,21 0 3 2048,48 0 0 23,21 0 1 17,6 0 0 262144,6 0 0 0";

    fn frame(ethertype: u16, proto: u8) -> Vec<u8> {
        let mut f = vec![0u8; 34];
        f[12..14].copy_from_slice(&ethertype.to_be_bytes());
        f[23] = proto;
        f
    }

    #[test]
    fn runs_a_tcpdump_program() {
        let p = parse(IP_UDP).unwrap();
        assert_eq!(run(&p, &frame(0x0800, 17), 34), 262_144);
        assert_eq!(run(&p, &frame(0x0800, 6), 34), 0);
        assert_eq!(run(&p, &frame(0x86dd, 17), 34), 0);
        // Too short for the load: rejected, not a panic.
        assert_eq!(run(&p, &frame(0x0800, 17)[..20], 34), 0);
    }

    #[test]
    fn division_by_zero_and_bad_slots_reject() {
        // ld #1; div x (x = 0); ret a
        let p = parse("3,0 0 0 1,60 0 0 0,22 0 0 0").unwrap();
        assert_eq!(run(&p, &[], 0), 0);
        assert!(parse("2,96 0 0 16,6 0 0 1")
            .unwrap_err()
            .contains("instruction 0"));
        assert!(parse("2,255 0 0 0,6 0 0 1")
            .unwrap_err()
            .contains("opcode 0xff"));
    }

    #[test]
    fn msh_len_and_scratch() {
        // ldx 4*([0]&0xf); txa; st M[3]; ld len; ld M[3]; ret a
        let p = parse("6,177 0 0 0,135 0 0 0,2 0 0 3,128 0 0 0,96 0 0 3,22 0 0 0").unwrap();
        assert_eq!(run(&p, &[0x45], 60), 20);
        // ld len; ret a
        let p = parse("2,128 0 0 0,22 0 0 0").unwrap();
        assert_eq!(run(&p, &[], 60), 60);
    }

    /// libpcap's own programs (what `tcpdump -ddd` prints), run here and by
    /// libpcap on a corpus capture: the same return value for every packet.
    #[test]
    fn agrees_with_libpcap_on_the_corpus() {
        let path =
            netsift_testkit::corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps/tcpdump/afs.pcap");
        netsift_testkit::require!(netsift_testkit::Need::File(&path));
        let exprs = [
            "udp",
            "tcp port 80 or udp port 7001",
            "host 131.151.1.59",
            "len > 100",
            "ip[2:2] > 200 and not ip[6:2] & 0x3fff != 0",
            "udp[8] = 0 or tcp[tcpflags] & tcp-syn != 0",
            "ip6 or arp",
        ];
        let mut cap = netsift_oracle::Capture::open(&path).unwrap();
        let (pkts, _) = cap.read_all();
        let mut accepted = 0;
        for e in exprs {
            let f = netsift_oracle::Filter::compile(cap.linktype(), e).unwrap();
            let mut text = f.insns().len().to_string();
            for i in f.insns() {
                text.push_str(&format!(",{} {} {} {}", i.code, i.jt, i.jf, i.k));
            }
            let prog = parse(&text).unwrap_or_else(|m| panic!("{e}: {m}"));
            for (n, p) in pkts.iter().enumerate() {
                let want = f.run_libpcap(&p.data, p.wire_len);
                assert_eq!(run(&prog, &p.data, p.wire_len), want, "{e}: packet {n}");
                accepted += usize::from(want != 0);
            }
        }
        assert!(accepted > 0);
    }
}
