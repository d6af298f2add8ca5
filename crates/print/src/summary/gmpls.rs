//! What tcpdump's gmpls.c holds for the printers of GMPLS's traffic engineering
//! objects (OSPF's and IS-IS's TE sub-TLVs, RSVP): the names of switching
//! capabilities, encodings and protection types, and bandwidths in Mbps.

/// gmpls.c's `gmpls_switch_cap_values`.
pub(crate) fn gmpls_switch_cap(v: u8) -> &'static str {
    match v {
        1 => "Packet-Switch Capable-1",
        2 => "Packet-Switch Capable-2",
        3 => "Packet-Switch Capable-3",
        4 => "Packet-Switch Capable-4",
        51 => "Layer-2 Switch Capable",
        100 => "Time-Division-Multiplex",
        150 => "Lambda-Switch Capable",
        200 => "Fiber-Switch Capable",
        _ => "Unknown",
    }
}

/// gmpls.c's `gmpls_encoding_values`.
pub(crate) fn gmpls_encoding(v: u8) -> &'static str {
    match v {
        1 => "Packet",
        2 => "Ethernet V2/DIX",
        3 => "ANSI/ETSI PDH",
        4 | 6 | 10 => "Reserved",
        5 => "SDH ITU-T G.707/SONET ANSI T1.105",
        7 => "Digital Wrapper",
        8 => "Lambda (photonic)",
        9 => "Fiber",
        11 => "FiberChannel",
        _ => "Unknown",
    }
}

/// gmpls.c's `gmpls_link_prot_values`, bit by bit.
pub(crate) const LINK_PROT: &[(u32, &str)] = &[
    (0x01, "Extra Traffic"),
    (0x02, "Unprotected"),
    (0x04, "Shared"),
    (0x08, "Dedicated 1:1"),
    (0x10, "Dedicated 1+1"),
    (0x20, "Enhanced"),
    (0x40, "Reserved"),
    (0x80, "Reserved"),
];

/// tcpdump's `bw.f * 8 / 1000000` printed with `%.3f`: an IEEE float of
/// bytes per second as megabits.
pub(crate) fn mbps(bits: u32) -> String {
    let v = f32::from_bits(bits) * 8.0 / 1_000_000.0;
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    format!("{:.3}", v as f64)
}
