//! Made-up BGP segments for `tcpdump_bgp.rs`: messages of every type with
//! fields mostly well-formed and sometimes not (lengths one off, unknown
//! codes, random bytes), so that every decoder of the printer, and its error
//! paths, meets tcpdump's on the same bytes.

/// xorshift64*: deterministic, so a failure reproduces. Its state is a
/// `Cell` so that a draw can size another (`r.bytes(r.below(4))`).
pub(crate) struct Rng(std::cell::Cell<u64>);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(std::cell::Cell::new(seed))
    }

    pub(crate) fn below(&self, n: usize) -> usize {
        let mut x = self.0.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0.set(x);
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1) as u64) as usize
    }

    fn byte(&self) -> u8 {
        self.below(256) as u8
    }

    fn bytes(&self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }

    fn one_in(&self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Copy>(&self, from: &[T]) -> T {
        from[self.below(from.len())]
    }
}

/// The AFI/SAFI pairs tcpdump decodes, and a few it does not.
const FAMILIES: [(u16, u8); 18] = [
    (1, 1),
    (1, 2),
    (1, 4),
    (1, 128),
    (1, 132),
    (1, 5),
    (1, 66),
    (2, 1),
    (2, 4),
    (2, 128),
    (2, 5),
    (3, 1),
    (3, 128),
    (196, 128),
    (25, 65),
    (1, 70),
    (2, 200),
    (99, 1),
];

/// `len` with, now and then, one more or one less.
fn skew(r: &Rng, len: usize) -> usize {
    match r.below(12) {
        0 => len + 1,
        1 => len.saturating_sub(1),
        _ => len,
    }
}

/// A prefix of up to `max` bits: its length byte (plus `extra` bits) and bytes.
fn prefix(r: &Rng, max: usize, extra: usize) -> Vec<u8> {
    let bits = if r.one_in(10) {
        r.below(256)
    } else {
        r.below(max + 1)
    };
    let mut v = vec![(bits + extra).min(255) as u8];
    v.extend(r.bytes(bits.div_ceil(8)));
    v
}

/// A route distinguisher of type 0, 1, 2 or other.
fn rd(r: &Rng) -> Vec<u8> {
    let mut v = vec![0, r.pick(&[0, 1, 2, 3])];
    v.extend(r.bytes(6));
    v
}

/// One NLRI of the family `(afi, safi)`.
fn nlri(r: &Rng, afi: u16, safi: u8) -> Vec<u8> {
    let label = |r: &Rng| vec![r.byte(), r.byte(), r.pick(&[0x01, 0x00, 0x31])];
    match (afi, safi) {
        (196, 128) | (25, 65) => {
            let body = match r.below(4) {
                0 => [rd(r), r.bytes(4)].concat(),
                1 => r.bytes(r.below(18)),
                _ => {
                    let mut b = [rd(r), r.bytes(7)].concat();
                    for _ in 0..r.below(3) {
                        let bits = r.below(40);
                        b.push(r.pick(&[1, 2]));
                        b.extend((bits as u16).to_be_bytes());
                        b.extend(r.bytes(bits.div_ceil(8)));
                    }
                    b
                }
            };
            let mut v = (skew(r, body.len()) as u16).to_be_bytes().to_vec();
            v.extend(body);
            v
        }
        (1, 4) | (2, 4) => {
            let max = if afi == 1 { 32 } else { 128 };
            let p = prefix(r, max, 0);
            let mut v = vec![p[0].saturating_add(24)];
            v.extend(label(r));
            v.extend(&p[1..]);
            v
        }
        (_, 128) => {
            let max = [32, 128, 152][usize::from(afi.min(3)) - 1];
            let p = prefix(r, max, 0);
            let mut v = vec![p[0].saturating_add(88)];
            v.extend(label(r));
            v.extend(rd(r));
            v.extend(&p[1..]);
            v
        }
        (1, 132) => match r.below(4) {
            0 => vec![0],
            1 => vec![r.below(32) as u8],
            _ => {
                let bits = 32 + r.below(65);
                let mut v = vec![bits as u8];
                v.extend(r.bytes(4));
                v.extend([0, r.pick(&[0, 1, 2, 3])]);
                v.extend(r.bytes((bits - 32).div_ceil(8).saturating_sub(2)));
                v
            }
        },
        (1, 5) | (2, 5) => {
            let ty = r.below(9) as u8;
            let body = match ty {
                1 => [rd(r), r.bytes(r.pick(&[4, 16, 3]))].concat(),
                2 => [rd(r), r.bytes(4)].concat(),
                3 | 5 | 6 | 7 => {
                    let mut b = rd(r);
                    if ty >= 6 {
                        b.extend(r.bytes(4));
                    }
                    for _ in 0..2 {
                        let bits = r.pick(&[32u8, 128, 0, 8]);
                        b.push(bits);
                        b.extend(r.bytes(usize::from(bits / 8)));
                    }
                    if ty == 3 {
                        b.extend(r.bytes(4));
                    }
                    b
                }
                _ => r.bytes(r.below(12)),
            };
            let mut v = vec![ty, skew(r, body.len()) as u8];
            v.extend(body);
            v
        }
        (1, 66) => [vec![r.pick(&[128, 127])], rd(r), r.bytes(8)].concat(),
        (2, _) => prefix(r, 128, 0),
        (3, _) => {
            let mut v = prefix(r, 152, 0);
            v.extend(r.bytes(3));
            v
        }
        _ => prefix(r, 32, 0),
    }
}

/// A sequence of IPv4 prefixes, with ADD-PATH path ids now and then.
fn routes(r: &Rng) -> Vec<u8> {
    let add_path = r.one_in(4);
    let mut v = Vec::new();
    for _ in 0..r.below(4) {
        if add_path {
            v.extend(r.bytes(4).iter().map(|b| b & 3));
        }
        v.extend(prefix(r, 32, 0));
    }
    v
}

/// The value of a path attribute of type `ty`.
fn attr_value(r: &Rng, ty: u8, depth: u32) -> Vec<u8> {
    match ty {
        1 => vec![r.below(4) as u8],
        2 | 17 => {
            let mut v = Vec::new();
            let size = if ty == 17 || r.one_in(2) { 4 } else { 2 };
            for _ in 0..r.below(3) + 1 {
                let n = r.below(4);
                v.push(r.pick(&[1, 2, 3, 4, 2, 5]));
                v.push(n as u8);
                v.extend(r.bytes(n * size));
            }
            v
        }
        3 | 4 | 5 | 9 => r.bytes(4),
        6 => Vec::new(),
        7 => r.bytes(r.pick(&[6, 8])),
        18 => r.bytes(8),
        8 => {
            let mut v = Vec::new();
            for _ in 0..r.below(4) {
                v.extend(match r.below(3) {
                    0 => vec![0xff, 0xff, 0xff, r.pick(&[1, 2, 3])],
                    _ => r.bytes(4),
                });
            }
            v
        }
        10 => r.bytes(4 * r.below(3)),
        14 | 15 => {
            let (afi, safi) = r.pick(&FAMILIES);
            let mut v = afi.to_be_bytes().to_vec();
            v.push(safi);
            if ty == 14 {
                let nh = r.pick(&[4, 8, 12, 16, 24, 32, 20, 3]);
                v.push(nh);
                let mut hop = r.bytes(usize::from(nh));
                if afi == 3 && nh > 12 && r.one_in(2) {
                    hop[8..12].copy_from_slice(&[0x47, 0, 6, 1]);
                }
                v.extend(hop);
                let snpa = if r.one_in(5) { 1 + r.below(2) } else { 0 };
                v.push(snpa as u8);
                for _ in 0..snpa {
                    let n = r.below(4);
                    v.push(n as u8);
                    v.extend(r.bytes(n));
                }
            }
            for _ in 0..r.below(4) {
                v.extend(nlri(r, afi, safi));
            }
            v
        }
        16 => {
            let types: [u16; 14] = [
                0x0002, 0x0102, 0x0202, 0x0003, 0x4004, 0x0005, 0x0306, 0x8000, 0x0107, 0x800a,
                0x0009, 0x030c, 0x010b, 0x8803,
            ];
            let mut v = Vec::new();
            for _ in 0..r.below(4) {
                let t = if r.one_in(6) {
                    r.below(65536) as u16
                } else {
                    r.pick(&types)
                };
                v.extend(t.to_be_bytes());
                v.extend(r.bytes(6));
            }
            v
        }
        22 => {
            let mut v = vec![r.below(3) as u8, r.below(9) as u8];
            v.extend(r.bytes(3 + r.pick(&[4, 8, 0, 2])));
            v
        }
        26 => {
            let mut v = Vec::new();
            for _ in 0..r.below(3) {
                let ty = r.pick(&[1, 1, 2]);
                let n = if ty == 1 {
                    r.pick(&[8, 8, 4])
                } else {
                    r.below(5)
                };
                v.push(ty);
                v.extend(((skew(r, n + 3)) as u16).to_be_bytes());
                v.extend(r.bytes(n));
            }
            v
        }
        32 => r.bytes(12 * r.below(3)),
        128 if depth < 3 => {
            let mut v = r.bytes(4);
            v.extend(attrs(r, depth + 1));
            v
        }
        _ => r.bytes(r.below(10)),
    }
}

/// Path attributes: flags, type, length (one or two bytes) and value.
fn attrs(r: &Rng, depth: u32) -> Vec<u8> {
    let types = [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 22, 26, 32, 128, 99, 255,
    ];
    let mut v = Vec::new();
    for _ in 0..r.below(5) + 1 {
        let ty = r.pick(&types);
        let value = attr_value(r, ty, depth);
        let mut flags = r.pick(&[0x40, 0x80, 0xc0, 0x90, 0xd0, 0x00, 0x47]);
        if value.len() > 255 {
            flags |= 0x10;
        }
        v.extend([flags, ty]);
        let len = skew(r, value.len());
        if flags & 0x10 != 0 {
            v.extend((len as u16).to_be_bytes());
        } else {
            v.push(len as u8);
        }
        v.extend(value);
    }
    v
}

/// Capabilities of an OPEN message.
fn capabilities(r: &Rng) -> Vec<u8> {
    let mut v = Vec::new();
    for _ in 0..r.below(4) + 1 {
        let code = r.pick(&[1, 2, 3, 8, 64, 65, 69, 70, 71, 128, 73]);
        let value = match code {
            1 => {
                let (afi, safi) = r.pick(&FAMILIES);
                [afi.to_be_bytes().to_vec(), vec![0, safi]].concat()
            }
            8 | 69 => r.bytes(4 * r.below(3)).iter().map(|b| b & 3).collect(),
            64 => r.bytes(2 + 4 * r.below(3)),
            65 => r.bytes(4),
            _ => r.bytes(r.below(6)),
        };
        v.extend([code, skew(r, value.len()) as u8]);
        v.extend(value);
    }
    v
}

/// One message: the marker, its length (now and then wrong), type and body.
fn message(r: &Rng) -> Vec<u8> {
    let ty = r.pick(&[2, 2, 2, 2, 1, 1, 3, 3, 4, 5, 7]);
    let body = match ty {
        1 => {
            let mut b = vec![4];
            b.extend(r.bytes(8));
            let caps = capabilities(r);
            let opts = if r.one_in(8) {
                vec![1, 2, 0, 0]
            } else {
                [vec![2, skew(r, caps.len()) as u8], caps].concat()
            };
            b.push(skew(r, opts.len()) as u8);
            b.extend(opts);
            b
        }
        2 => {
            let withdrawn = routes(r);
            let attributes = attrs(r, 0);
            let mut b = (skew(r, withdrawn.len()) as u16).to_be_bytes().to_vec();
            b.extend(withdrawn);
            if r.one_in(10) {
                b.extend([0, 0]);
                return wrap(r, 2, b);
            }
            b.extend((skew(r, attributes.len()) as u16).to_be_bytes());
            b.extend(attributes);
            b.extend(routes(r));
            b
        }
        3 => {
            let major = r.below(9) as u8;
            let minor = if major == 6 {
                r.pick(&[1, 2, 4, 9])
            } else {
                r.below(13) as u8
            };
            let mut b = vec![major, minor];
            match r.below(3) {
                0 => {}
                1 => {
                    let n = r.below(12);
                    b.push(skew(r, n) as u8);
                    b.extend(b"shutdown now".iter().take(n));
                }
                _ => b.extend(r.bytes(r.below(10))),
            }
            b
        }
        5 => r.bytes(4 + r.below(3)),
        _ => r.bytes(r.below(8)),
    };
    wrap(r, ty, body)
}

fn wrap(r: &Rng, ty: u8, body: Vec<u8>) -> Vec<u8> {
    let mut m = vec![0xff; 16];
    let len = if r.one_in(25) {
        r.below(40)
    } else {
        19 + body.len()
    };
    m.extend((len as u16).to_be_bytes());
    m.push(ty);
    m.extend(body);
    m
}

/// A BGP segment's payload: one to three messages, now and then with a few
/// bytes of junk before one.
pub(crate) fn segment(r: &Rng) -> Vec<u8> {
    let mut p = Vec::new();
    for _ in 0..r.below(3) + 1 {
        if r.one_in(15) {
            p.extend(r.bytes(r.below(4)));
        }
        p.extend(message(r));
    }
    p
}
