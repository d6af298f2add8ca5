//! FTP follower: replies and commands as real servers and clients send them.

use netsift_follow::ftp::{announcements, parse_line, Announce, AnnounceKind};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

fn v4(a: u8, b: u8, c: u8, d: u8) -> Option<IpAddr> {
    Some(IpAddr::V4(Ipv4Addr::new(a, b, c, d)))
}

fn passive(addr: Option<IpAddr>, port: u16) -> Announce {
    Announce {
        addr,
        port,
        kind: AnnounceKind::Passive,
    }
}

fn active(addr: Option<IpAddr>, port: u16) -> Announce {
    Announce {
        addr,
        port,
        kind: AnnounceKind::Active,
    }
}

fn all(payload: &[u8]) -> Vec<Announce> {
    announcements(payload).collect()
}

#[test]
fn vsftpd_pasv() {
    let got = all(b"227 Entering Passive Mode (192,168,1,20,195,149).\r\n");
    assert_eq!(got, [passive(v4(192, 168, 1, 20), 195 * 256 + 149)]);
}

#[test]
fn proftpd_pasv() {
    let got = all(b"227 Entering Passive Mode (10,1,2,3,156,64).\r\n");
    assert_eq!(got, [passive(v4(10, 1, 2, 3), 156 * 256 + 64)]);
}

#[test]
fn windows_pasv_with_trailing_dot() {
    let got = all(b"227 Entering Passive Mode (10,0,0,1,195,80).\r\n");
    assert_eq!(got, [passive(v4(10, 0, 0, 1), 50000)]);
}

#[test]
fn pasv_without_parentheses() {
    // RFC 1123 §4.1.2.6: clients must scan for the first digit.
    assert_eq!(
        all(b"227 Entering Passive Mode 10,0,0,1,195,80\r\n"),
        [passive(v4(10, 0, 0, 1), 50000)]
    );
    assert_eq!(
        all(b"227 =10,0,0,1,4,1\r\n"),
        [passive(v4(10, 0, 0, 1), 1025)]
    );
}

#[test]
fn pasv_skips_unrelated_digits_in_the_text() {
    let got = all(b"227 Entering Passive Mode v2 (10,0,0,1,195,80)\r\n");
    assert_eq!(got, [passive(v4(10, 0, 0, 1), 50000)]);
}

#[test]
fn pasv_with_seven_numbers_is_junk() {
    assert_eq!(all(b"227 Entering Passive Mode (1,2,3,4,5,6,7)\r\n"), []);
}

#[test]
fn pasv_bad_numbers() {
    // A byte of 256, port 0, too few numbers, nothing at all.
    for line in [
        &b"227 Entering Passive Mode (10,0,0,256,195,80)\r\n"[..],
        b"227 Entering Passive Mode (10,0,0,1,0,0)\r\n",
        b"227 Entering Passive Mode (10,0,0,1,195)\r\n",
        b"227 Entering Passive Mode\r\n",
        b"227 Entering Passive Mode (10,0,0,1,195,99999999999999999999)\r\n",
        b"227-Entering Passive Mode (10,0,0,1,195,80)\r\n",
        b"227Entering Passive Mode (10,0,0,1,195,80)\r\n",
        b" 227 Entering Passive Mode (10,0,0,1,195,80)\r\n",
    ] {
        assert_eq!(all(line), [], "{}", String::from_utf8_lossy(line));
    }
}

#[test]
fn truncated_lines_are_not_misread() {
    // The segment ends inside the last number: "8" could be the start of "80".
    assert_eq!(all(b"227 Entering Passive Mode (10,0,0,1,195,8"), []);
    assert_eq!(all(b"PORT 10,0,0,1,195,80"), []);
    assert_eq!(all(b"229 Entering Extended Passive Mode (|||500"), []);
    assert_eq!(all(b"EPRT |1|10.0.0.1|50"), []);
    // With a closing character the last line is complete enough.
    assert_eq!(
        all(b"227 Entering Passive Mode (10,0,0,1,195,80)"),
        [passive(v4(10, 0, 0, 1), 50000)]
    );
    assert_eq!(
        all(b"229 Entering Extended Passive Mode (|||50000|)"),
        [passive(None, 50000)]
    );
    // PORT and EPRT allow only blanks after the argument, so until the line ends the
    // next segment can still make it no announcement (found by the `follow` fuzz
    // target: the cut `EPRT |2|1080::8:80|2|` announced port 2, the whole line
    // `EPRT |2|1080::8:80|2|1080::8:800:200C:417A|5282|h` nothing).
    assert_eq!(all(b"EPRT |2|1080::8:80|2|"), []);
    assert_eq!(
        all(b"EPRT |2|1080::8:80|2|1080::8:800:200C:417A|5282|h\r\n"),
        []
    );
    assert_eq!(all(b"PORT 10,0,0,1,195,80 "), []);
    assert_eq!(all(b"PORT 10,0,0,1,195,80 x\r\n"), []);
    assert_eq!(
        all(b"EPRT |2|1080::8:80|2| \r\n"),
        [active("1080::8:80".parse().ok(), 2)]
    );
    // parse_line takes its argument as a whole line.
    assert_eq!(
        parse_line(b"PORT 10,0,0,1,195,80"),
        Some(active(v4(10, 0, 0, 1), 50000))
    );
}

#[test]
fn epsv() {
    assert_eq!(
        all(b"229 Entering Extended Passive Mode (|||50000|)\r\n"),
        [passive(None, 50000)]
    );
    // Any printable delimiter (RFC 2428).
    assert_eq!(
        all(b"229 Entering Extended Passive Mode (!!!6446!)\r\n"),
        [passive(None, 6446)]
    );
    assert_eq!(
        all(b"229 Extended Passive Mode (EPSV) OK (|||6446|)\r\n"),
        [passive(None, 6446)]
    );
    for line in [
        &b"229 Entering Extended Passive Mode (|||0|)\r\n"[..],
        b"229 Entering Extended Passive Mode (|||65536|)\r\n",
        b"229 Entering Extended Passive Mode (||50000|)\r\n",
        b"229 Entering Extended Passive Mode (|||50000)\r\n",
        b"229 Entering Extended Passive Mode (1115000001)\r\n",
        b"229 Entering Extended Passive Mode |||50000|\r\n",
        b"229 Entering Extended Passive Mode ( ||50000 )\r\n",
    ] {
        assert_eq!(all(line), [], "{}", String::from_utf8_lossy(line));
    }
}

#[test]
fn port_command() {
    assert_eq!(
        all(b"PORT 192,168,0,5,7,138\r\n"),
        [active(v4(192, 168, 0, 5), 7 * 256 + 138)]
    );
    assert_eq!(
        all(b"port 192,168,0,5,7,138\r\n"),
        [active(v4(192, 168, 0, 5), 1930)]
    );
    assert_eq!(
        all(b"PORT 192,168,0,5,7,138 \n"),
        [active(v4(192, 168, 0, 5), 1930)]
    );
    for line in [
        &b"PORT 192,168,0,5,0,0\r\n"[..],
        b"PORT 192,168,0,256,7,138\r\n",
        b"PORT 192,168,0,5,7\r\n",
        b"PORT 192,168,0,5,7,138,1\r\n",
        b"PORT 192,168,0,5,7,138x\r\n",
        b"PORT (192,168,0,5,7,138)\r\n",
        b"PORT\r\n",
        b"PORTS 192,168,0,5,7,138\r\n",
    ] {
        assert_eq!(all(line), [], "{}", String::from_utf8_lossy(line));
    }
}

#[test]
fn eprt_command() {
    assert_eq!(
        all(b"EPRT |1|132.235.1.2|6275|\r\n"),
        [active(v4(132, 235, 1, 2), 6275)]
    );
    let v6: Ipv6Addr = "1080::8:800:200C:417A".parse().unwrap();
    assert_eq!(
        all(b"eprt |2|1080::8:800:200C:417A|5282|\r\n"),
        [active(Some(IpAddr::V6(v6)), 5282)]
    );
    assert_eq!(
        all(b"EPRT !1!132.235.1.2!6275!\r\n"),
        [active(v4(132, 235, 1, 2), 6275)]
    );
    for line in [
        &b"EPRT |2|132.235.1.2|6275|\r\n"[..],
        b"EPRT |1|1080::8:800:200C:417A|5282|\r\n",
        b"EPRT |1|132.235.1.2|0|\r\n",
        b"EPRT |1|132.235.1.2|6275\r\n",
        b"EPRT |1|132.235.1.256|6275|\r\n",
        b"EPRT |3|132.235.1.2|6275|\r\n",
        b"EPRT |1|132.235.1.2|6275|junk\r\n",
        b"EPRT |1|132.235.1.2|6275||\r\n",
        b"EPRT\r\n",
    ] {
        assert_eq!(all(line), [], "{}", String::from_utf8_lossy(line));
    }
}

#[test]
fn several_lines_lf_and_crlf() {
    let payload = b"150 Here comes the directory listing.\r\n\
        226 Directory send OK.\r\n\
        227 Entering Passive Mode (10,0,0,1,195,80).\n\
        229 Entering Extended Passive Mode (|||50001|)\r\n\
        PORT 10,0,0,2,195,82\n";
    assert_eq!(
        all(payload),
        [
            passive(v4(10, 0, 0, 1), 50000),
            passive(None, 50001),
            active(v4(10, 0, 0, 2), 50002)
        ]
    );
}

#[test]
fn other_traffic_announces_nothing() {
    for payload in [
        &b""[..],
        b"\r\n",
        b"220 (vsFTPd 3.0.3)\r\n",
        b"USER anonymous\r\nPASS guest\r\nPASV\r\nEPSV\r\n",
        b"230 Login successful.\r\n",
        b"\xff\xfe\x00227 (1,2,3,4,5,6)\r\n",
    ] {
        assert_eq!(all(payload), []);
    }
}
