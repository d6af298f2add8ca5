//! print-isakmp.c's name tables: payload types, protocol ids, transform
//! ids and the attribute maps of the transforms.

/// `STR_OR_ID`: the name at `x`, or `#x` where the table has none.
pub(super) fn str_or_id(x: u32, tab: &[&str]) -> String {
    match tab.get(x as usize) {
        Some(n) if !n.is_empty() => (*n).to_string(),
        _ => format!("#{x}"),
    }
}

/// `npstr`: the payload types.
pub(super) const NP: [&str; 49] = [
    "none", "sa", "p", "t", "ke", "id", "cert", "cr", "hash", "sig", "nonce", "n", "d", "vid",
    "pay14", "pay15", "pay16", "pay17", "pay18", "pay19", "pay20", "pay21", "pay22", "pay23",
    "pay24", "pay25", "pay26", "pay27", "pay28", "pay29", "pay30", "pay31", "pay32", "v2sa",
    "v2ke", "v2IDi", "v2IDr", "v2cert", "v2cr", "v2auth", "v2nonce", "v2n", "v2d", "v2vid",
    "v2TSi", "v2TSr", "v2e", "v2cp", "v2eap",
];

/// `NPSTR`.
pub(super) fn np_name(np: u8) -> String {
    str_or_id(u32::from(np), &NP)
}

/// `protoidstr`.
pub(super) fn protoid(x: u8) -> String {
    str_or_id(
        u32::from(x),
        &["", "isakmp", "ipsec-ah", "ipsec-esp", "ipcomp"],
    )
}

pub(super) const IKEV1_P: [&str; 2] = ["", "ike"];
pub(super) const AH_P: [&str; 8] = [
    "",
    "(reserved)",
    "md5",
    "sha",
    "1des",
    "sha2-256",
    "sha2-384",
    "sha2-512",
];
pub(super) const ESP_P: [&str; 13] = [
    "",
    "1des-iv64",
    "1des",
    "3des",
    "rc5",
    "idea",
    "cast",
    "blowfish",
    "3idea",
    "1des-iv32",
    "rc4",
    "null",
    "aes",
];
pub(super) const IPCOMP_P: [&str; 4] = ["", "oui", "deflate", "lzs"];
pub(super) const PRF_P: [&str; 5] = ["", "hmac-md5", "hmac-sha", "hmac-tiger", "aes128_xcbc"];
pub(super) const INTEG_P: [&str; 6] = [
    "", "hmac-md5", "hmac-sha", "dec-mac", "kpdk-md5", "aes-xcbc",
];
pub(super) const ESN_P: [&str; 2] = ["no-esn", "esn"];
/// `dh_p_map`, groups 0 to 18.
pub(super) const DH_P: [&str; 19] = [
    "",
    "modp768",
    "modp1024",
    "EC2N 2^155",
    "EC2N 2^185",
    "modp1536",
    "iana-grp06",
    "iana-grp07",
    "iana-grp08",
    "iana-grp09",
    "iana-grp10",
    "iana-grp11",
    "iana-grp12",
    "iana-grp13",
    "modp2048",
    "modp3072",
    "modp4096",
    "modp6144",
    "modp8192",
];
pub(super) const V2_T_TYPE: [&str; 6] = ["", "encr", "prf", "integ", "dh", "esn"];

/// `struct attrmap`: an attribute type's name and the names of its values
/// (as many as its `nvalue` says; `""` where tcpdump's is `NULL`).
pub(super) type AttrMap = [(&'static str, &'static [&'static str])];

/// The group descriptions an attribute map names: `nvalue` is 18, so the
/// last of `DH_P` is not among them.
const GROUPS: &[&str] = {
    let (g, _) = DH_P.split_at(18);
    g
};
const LIFETYPE: &[&str] = &["", "sec", "kb"];

pub(super) const IPSEC_T: &AttrMap = &[
    ("", &[]),
    ("lifetype", LIFETYPE),
    ("life", &[]),
    ("group desc", GROUPS),
    ("enc mode", &["", "tunnel", "transport"]),
    ("auth", &["", "hmac-md5", "hmac-sha1", "1des-mac", "keyed"]),
    ("keylen", &[]),
    ("rounds", &[]),
    ("dictsize", &[]),
    ("privalg", &[]),
];

/// An attribute type without a name.
const UNNAMED: (&str, &[&str]) = ("", &[]);

/// `encr_t_map`: only the key length (14) is named.
pub(super) const ENCR_T: &AttrMap = &{
    let mut t = [UNNAMED; 15];
    t[14] = ("keylen", &[]);
    t
};

pub(super) const OAKLEY_T: &AttrMap = &[
    ("", &[]),
    (
        "enc",
        &["", "1des", "idea", "blowfish", "rc5", "3des", "cast", "aes"],
    ),
    (
        "hash",
        &[
            "", "md5", "sha1", "tiger", "sha2-256", "sha2-384", "sha2-512",
        ],
    ),
    (
        "auth",
        &[
            "",
            "preshared",
            "dss",
            "rsa sig",
            "rsa enc",
            "rsa enc revised",
        ],
    ),
    ("group desc", GROUPS),
    ("group type", &["", "MODP", "ECP", "EC2N"]),
    ("group prime", &[]),
    ("group gen1", &[]),
    ("group gen2", &[]),
    ("group curve A", &[]),
    ("group curve B", &[]),
    ("lifetype", LIFETYPE),
    ("lifeduration", &[]),
    ("prf", &[]),
    ("keylen", &[]),
    ("field", &[]),
    ("order", &[]),
];

/// `certstr`.
pub(super) const CERT: [&str; 11] = [
    "none", "pkcs7", "pgp", "dns", "x509sign", "x509ke", "kerberos", "crl", "arl", "spki",
    "x509attr",
];

/// `ipsecidtypestr`.
pub(super) const IPSEC_ID: [&str; 12] = [
    "",
    "IPv4",
    "FQDN",
    "user FQDN",
    "IPv4net",
    "IPv6",
    "IPv6net",
    "IPv4range",
    "IPv6range",
    "ASN1 DN",
    "ASN1 GN",
    "keyid",
];

/// `notify_error_str`, types 0 to 30.
pub(super) const NOTIFY_ERROR: [&str; 31] = [
    "",
    "INVALID-PAYLOAD-TYPE",
    "DOI-NOT-SUPPORTED",
    "SITUATION-NOT-SUPPORTED",
    "INVALID-COOKIE",
    "INVALID-MAJOR-VERSION",
    "INVALID-MINOR-VERSION",
    "INVALID-EXCHANGE-TYPE",
    "INVALID-FLAGS",
    "INVALID-MESSAGE-ID",
    "INVALID-PROTOCOL-ID",
    "INVALID-SPI",
    "INVALID-TRANSFORM-ID",
    "ATTRIBUTES-NOT-SUPPORTED",
    "NO-PROPOSAL-CHOSEN",
    "BAD-PROPOSAL-SYNTAX",
    "PAYLOAD-MALFORMED",
    "INVALID-KEY-INFORMATION",
    "INVALID-ID-INFORMATION",
    "INVALID-CERT-ENCODING",
    "INVALID-CERTIFICATE",
    "CERT-TYPE-UNSUPPORTED",
    "INVALID-CERT-AUTHORITY",
    "INVALID-HASH-INFORMATION",
    "AUTHENTICATION-FAILED",
    "INVALID-SIGNATURE",
    "ADDRESS-NOTIFICATION",
    "NOTIFY-SA-LIFETIME",
    "CERTIFICATE-UNAVAILABLE",
    "UNSUPPORTED-EXCHANGE-TYPE",
    "UNEQUAL-PAYLOAD-LENGTHS",
];

/// IKEv2's notify types as tcpdump 4.99.3 names them, and whether it
/// prints their SPI.
pub(super) fn v2_notify(t: u16) -> (&'static str, bool) {
    match t {
        1 => ("unsupported_critical_payload", false),
        4 => ("invalid_ike_spi", true),
        5 => ("invalid_major_version", false),
        7 => ("invalid_syntax", true),
        9 => ("invalid_message_id", true),
        11 => ("invalid_spi", true),
        14 => ("no_protocol_chosen", true),
        17 => ("invalid_ke_payload", true),
        24 => ("authentication_failed", true),
        34 => ("single_pair_required", true),
        35 => ("no_additional_sas", false),
        36 => ("internal_address_failure", false),
        37 => ("failed:cp_required", false),
        39 => ("invalid_selectors", false),
        16384 => ("initial_contact", false),
        16385 => ("set_window_size", false),
        16386 => ("additional_ts_possible", false),
        16387 => ("ipcomp_supported", false),
        16388 => ("nat_detection_source_ip", true),
        16389 => ("nat_detection_destination_ip", true),
        16390 => ("cookie", true),
        16391 => ("use_transport_mode", false),
        16392 => ("http_cert_lookup_supported", false),
        16393 => ("rekey_sa", true),
        16394 => ("tfc_padding_not_supported", false),
        16395 => ("non_first_fragment_also", false),
        0..=8191 => ("error", true),
        8192..=16383 => ("private-error", true),
        16396..=40959 => ("status", true),
        _ => ("private-status", true),
    }
}
