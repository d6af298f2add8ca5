//! IS-IS, ES-IS and CLNP PDUs for `tcpdump_isis.rs`, built to reach the
//! TLVs, sub-TLVs and options the corpus's captures do not have.

/// An 802.3 frame with an OSI LLC header (`fe fe 03`) and `pdu`.
pub(crate) fn llc_frame(pdu: &[u8]) -> Vec<u8> {
    let mut f = vec![
        0x01, 0x80, 0xc2, 0, 0, 0x14, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
    ];
    f.extend_from_slice(&((pdu.len() + 3) as u16).to_be_bytes());
    f.extend_from_slice(&[0xfe, 0xfe, 0x03]);
    f.extend_from_slice(pdu);
    f
}

fn tlv(t: u8, v: &[u8]) -> Vec<u8> {
    assert!(v.len() <= 255, "TLV {t} too long");
    let mut b = vec![t, v.len() as u8];
    b.extend_from_slice(v);
    b
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn bw(f: f32) -> [u8; 4] {
    f.to_bits().to_be_bytes()
}

const SYS: [u8; 6] = [0x19, 0x21, 0x68, 0x00, 0x00, 0x01];
const NODE: [u8; 7] = [0x19, 0x21, 0x68, 0x00, 0x00, 0x02, 0x01];

/// The extended IS reachability sub-TLVs, in two sets that each fit a TLV.
fn is_subtlvs() -> [Vec<u8>; 2] {
    let mut unreserved = Vec::new();
    for i in 0..8 {
        unreserved.extend_from_slice(&bw(1.25e8 - i as f32 * 1e6));
    }
    let mut ifsc = vec![1, 1, 0, 0];
    for i in 0..8 {
        ifsc.extend_from_slice(&bw(1e6 * i as f32));
    }
    ifsc.extend_from_slice(&bw(1000.0));
    ifsc.extend_from_slice(&[0x05, 0xdc]);
    let a = cat(&[
        &tlv(3, &[0, 0, 0, 1]),
        &tlv(4, &[0, 0, 0, 2, 0, 0, 0, 3]),
        &tlv(6, &[10, 0, 0, 1]),
        &tlv(8, &[10, 0, 0, 2]),
        &tlv(9, &bw(1.25e9)),
        &tlv(10, &bw(f32::INFINITY)),
        &tlv(11, &unreserved),
        &tlv(18, &[0, 0, 10]),
        &tlv(19, &[0, 3]),
        &tlv(20, &[0x12, 7]),
        &tlv(22, &cat(&[&[1], &bw(1e7), &bw(2e7), &[9]])),
    ]);
    let b = cat(&[
        &tlv(29, &[0, 0, 5, 1, 0, 2]),
        &tlv(32, &cat(&[&[0x30, 0], &SYS, &[0, 0x3e, 0x80]])),
        &tlv(32, &cat(&[&[0x20, 1], &SYS, &[0, 0, 0, 9]])),
        &tlv(32, &cat(&[&[0x00, 1], &SYS, &[0, 0, 0, 9]])),
        &tlv(21, &ifsc),
        &tlv(250, &[1, 2, 3]),
    ]);
    [a, b]
}

fn ext_is(sub: &[u8]) -> Vec<u8> {
    cat(&[&NODE, &[0, 0, 10, sub.len() as u8], sub])
}

/// The TLVs of the built LSPs, each list small enough for one PDU.
fn lsp_tlvs() -> Vec<Vec<u8>> {
    let [sa, sb] = is_subtlvs();
    let ip_sub = cat(&[
        &tlv(1, &[0, 0, 0, 7]),
        &tlv(2, &[0, 0, 0, 1, 0, 0, 0, 2]),
        &tlv(3, &[0x40, 0, 0, 0, 0, 5]),
        &tlv(117, &[0, 0, 0, 3]),
        &tlv(99, &[1, 2]),
    ]);
    let ext_ip = cat(&[
        &[0, 0, 0, 10, 0x40 | 24, 192, 168, 1, ip_sub.len() as u8],
        &ip_sub,
        &[0, 0, 0, 20, 0x80 | 32, 10, 1, 2, 3],
        &[0, 0, 0, 30, 0],
    ]);
    let ip6_sub = tlv(3, &[0x0c, 1, 0, 1, 0]);
    let ip6 = cat(&[
        &[
            0,
            0,
            0,
            10,
            0x20,
            64,
            0x20,
            0x01,
            0x0d,
            0xb8,
            0,
            0,
            0,
            1,
            ip6_sub.len() as u8,
        ],
        &ip6_sub,
        &[0, 0, 0, 5, 0xc0, 128],
        &[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    ]);
    let sr = cat(&[&[0xc0, 0, 0x1f, 0x40], &tlv(1, &[0, 0x3e, 0x80])]);
    let rcap = cat(&[&[10, 0, 0, 9, 3], &tlv(2, &sr), &tlv(7, &[1, 2])]);
    let mut md5 = vec![54];
    md5.extend(0..16u8);
    let a = vec![
        tlv(1, &[3, 0x49, 0, 1, 5, 0x49, 0, 1, 2, 3]),
        tlv(129, &[0xcc, 0x8e, 0x81, 0x42]),
        tlv(137, b"router-1"),
        tlv(134, &[10, 0, 0, 9]),
        tlv(132, &[10, 0, 0, 1, 10, 0, 0, 2]),
        tlv(
            232,
            &[0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        ),
        tlv(22, &ext_is(&sa)),
        tlv(22, &cat(&[&ext_is(&sb), &ext_is(&[])])),
        tlv(135, &ext_ip),
        tlv(236, &ip6),
    ];
    let b = vec![
        tlv(222, &cat(&[&[0, 2], &ext_is(&[])])),
        tlv(235, &[0x40, 0, 0, 0, 0, 1, 8, 10]),
        tlv(237, &cat(&[&[0x80, 2], &[0, 0, 0, 1, 0, 16, 0x20, 0x01]])),
        tlv(229, &[0x40, 0, 0, 2, 0x8f, 0xff, 7]),
        tlv(242, &rcap),
        tlv(242, &[1, 2, 3]),
        tlv(10, &md5),
        tlv(10, b"\x01secret"),
        tlv(10, &[3, 0, 7, 0xaa, 0xbb, 0xcc]),
        tlv(10, &[255, 1, 2, 3]),
        tlv(10, &[9]),
        tlv(12, &[0x12, 0x34]),
        tlv(211, &cat(&[&[3, 0, 30], &SYS])),
        tlv(211, &[4]),
        tlv(
            138,
            &cat(&[
                &NODE,
                &[1, 10, 0, 0, 1, 10, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2],
            ]),
        ),
        tlv(240, &cat(&[&[0, 0, 0, 0, 4], &SYS, &[0, 0, 0, 5]])),
        tlv(240, &[7, 0, 0]),
        tlv(241, &[0, 0, 1, 0]),
        tlv(250, &[0, 0, 0x0c, 1, 2, 3]),
        tlv(7, &[0, 1, 0, 2, 0, 3]),
        tlv(13, &cat(&[&[2], &SYS, &SYS])),
        tlv(13, &[0]),
        tlv(4, &cat(&[&SYS, &SYS])),
    ];
    let c = vec![
        tlv(5, &[0x0a, 0x80, 0x80, 0x80, 6, 0x49, 0, 1, 1]),
        tlv(131, &[2, 0x12, 0x34]),
        tlv(131, &[1, 1, 2, 3]),
        tlv(
            2,
            &cat(&[
                &[0, 0x0a, 0x0b, 0x80, 0x4c],
                &NODE,
                &[0x0a, 0x80, 0x80, 0x80],
                &NODE,
            ]),
        ),
        tlv(2, &[5]),
        tlv(3, &cat(&[&[0x0a, 0x80, 0x80, 0x80], &SYS])),
        tlv(
            128,
            &[0x0a, 0x05, 0x80, 0x80, 10, 0, 1, 0, 255, 255, 255, 0],
        ),
        tlv(130, &[0x8a, 0x80, 0x45, 0x80, 10, 0, 2, 0, 255, 0, 255, 0]),
        tlv(128, &[1, 2, 3]),
        tlv(
            9,
            &cat(&[&[4, 0xb0], &NODE, &[0, 0, 0, 0, 0, 9, 0xab, 0xcd]]),
        ),
        tlv(14, &[5, 0xdc]),
        tlv(6, &cat(&[&SYS, &SYS])),
        tlv(8, &[0; 4]),
        tlv(42, &[1, 2, 3]),
        tlv(99, &[4, 5, 6, 7, 8]),
        tlv(135, &[0, 0, 0, 1, 40]),
        tlv(236, &[0, 0, 0, 1, 0, 200]),
    ];
    vec![
        a.concat(),
        b.concat(),
        c.concat(),
        // A sub-TLV longer than its TLV and an extended reach entry cut short.
        tlv(
            22,
            &cat(&[&NODE, &[0, 0, 10, 9], &tlv(3, &[0, 0, 0, 1, 5])]),
        ),
        tlv(135, &[0, 0, 0, 10, 0x40 | 8, 10, 6, 1, 4, 0, 0, 0]),
        tlv(236, &[0, 0, 0, 10, 0x20, 8, 0x20, 6, 3, 9, 1, 2, 3]),
    ]
}

/// An IS-IS PDU: the common header, `fixed` (the PDU type's header after
/// it, whose PDU length field is filled in at `len_at`) and `tlvs`.
fn isis(pdu_type: u8, fixed: &[u8], len_at: usize, tlvs: &[u8]) -> Vec<u8> {
    let mut p = vec![0x83, (8 + fixed.len()) as u8, 1, 0, pdu_type, 1, 0, 0];
    p.extend_from_slice(fixed);
    p.extend_from_slice(tlvs);
    let n = (p.len() as u16).to_be_bytes();
    p[8 + len_at..8 + len_at + 2].copy_from_slice(&n);
    p
}

fn esis(t: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0x82, 0, 1, 0, t, 0, 30, 0x12, 0x34];
    p.extend_from_slice(body);
    p[1] = p.len() as u8;
    p
}

fn clnp(t: u8, rest: &[u8], data: &[u8]) -> Vec<u8> {
    let mut p = vec![0x81, 0, 1, 0x3f, t, 0, 0, 0, 0];
    p.extend_from_slice(&[3, 0x49, 0, 1, 3, 0x49, 0, 2]);
    p.extend_from_slice(rest);
    p[1] = p.len() as u8;
    p.extend_from_slice(data);
    let n = (p.len() as u16).to_be_bytes();
    p[5..7].copy_from_slice(&n);
    p
}

/// The PDUs to print: IS-IS PDUs of every type carrying the built TLVs,
/// ES-IS hellos and redirects with options, CLNP data and error reports.
pub(crate) fn pdus() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    let lsp_hdr = cat(&[
        &[0, 0, 4, 0xb0],
        &SYS,
        &[0, 0, 0, 0, 0, 7, 0x12, 0x34, 0x7b],
    ]);
    for t in lsp_tlvs() {
        v.push(isis(20, &lsp_hdr, 0, &t));
    }
    let lan = cat(&[&[3], &SYS, &[0, 30, 0, 0, 0xc0], &NODE]);
    let padding = tlv(8, &[0; 10]);
    v.push(isis(15, &lan, 9, &padding));
    v.push(isis(
        17,
        &cat(&[&[2], &SYS, &[0, 30, 0, 0, 1]]),
        9,
        &padding,
    ));
    let csnp = cat(&[&[0, 0], &NODE, &[0; 8], &[0xff; 8]]);
    let entries = tlv(9, &cat(&[&[0, 100], &NODE, &[0, 0, 0, 0, 1, 0, 0, 0]]));
    v.push(isis(24, &csnp, 0, &entries));
    v.push(isis(27, &cat(&[&[0, 0], &NODE]), 0, &entries));
    v.push(isis(30, &[0; 4], 0, &[]));
    // An LSP whose PDU length field is shorter than its header.
    let mut short = isis(20, &lsp_hdr, 0, &padding);
    short[8..10].copy_from_slice(&[0, 5]);
    v.push(short);
    // A LAN hello with the wrong header length, a bad version, 255 areas.
    v.push(isis(16, &cat(&[&[3], &SYS, &[0, 30, 0, 0, 0x40]]), 0, &[]));
    v.push(vec![0x83, 27, 2, 0, 20, 1, 0, 0, 0, 0]);
    v.push(vec![0x83, 27, 1, 0, 20, 1, 0, 255, 0, 0]);
    // ES-IS: an ES hello with options, an IS hello, a redirect, an unknown type.
    let opts = cat(&[
        &tlv(198, &[0, 30]),
        &tlv(129, &[0xcc, 0x81]),
        &tlv(197, &[1, 2]),
    ]);
    v.push(esis(2, &cat(&[&[2, 3, 0x49, 0, 1, 2, 0x49, 0], &opts])));
    v.push(esis(4, &cat(&[&[4, 0x49, 0, 1, 2], &tlv(198, &[1])])));
    v.push(esis(
        6,
        &cat(&[&[
            3, 0x49, 0, 1, 6, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 4, 0x49, 0, 1, 2,
        ]]),
    ));
    v.push(esis(6, &[3, 0x49, 0, 1, 2, 0xab, 0xcd, 0]));
    v.push(esis(9, &[1, 2, 3, 4]));
    // CLNP: data with a segmentation part and options, an error report
    // quoting a data packet, an echo request, a bad option length.
    let copts = cat(&[
        &[0, 1, 0, 2, 0, 3],
        &tlv(205, &[0x05]),
        &tlv(195, &[0xc5]),
        &tlv(195, &[0x40]),
        &tlv(197, &[0x40, 3]),
        &tlv(193, &[0x82]),
        &tlv(193, &[0x51]),
        &tlv(204, &[0, 0]),
        &tlv(200, &[0x01, 3, 2, 0xaa, 0xbb]),
        &tlv(203, &[0x00, 0]),
        &tlv(203, &[0x00, 9]),
        &tlv(200, &[0x01, 1, 7, 1]),
        &tlv(77, &[1, 2]),
    ]);
    let data = clnp(0x80 | 28, &copts, &[1, 2, 3, 4, 5]);
    v.push(data.clone());
    v.push(clnp(1, &tlv(193, &[0x22]), &data));
    v.push(clnp(30, &[], &[]));
    v.push(clnp(28, &[205], &[]));
    v
}
