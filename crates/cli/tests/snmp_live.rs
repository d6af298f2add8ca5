//! SNMP printing on real traffic: net-snmp's agent (snmpd) in one namespace,
//! its tools in the other (snmpget, snmpwalk, snmpbulkget, snmpset, snmptrap,
//! snmpinform) over a veth pair, in SNMPv1, v2c and v3 (an unknown user, a
//! user without authentication, one with authentication and privacy), with
//! requests that fail (no such name, a read-only community setting).
//! tcpdump captures the exchange, and `netsift -r` must print every packet of
//! it as tcpdump 4.99.3 does, with `-nn`, `-nn -v`, `-nn -vv`, and without
//! `-n` (object identifiers named from tcpdump's compiled-in MIB).
//!
//! snmpd and the tools come from `scripts/setup.sh` (packages `snmpd` and
//! `snmp`). Without them, or without CAP_NET_ADMIN, the test is skipped with a
//! message (a failure under `CI=true`).

use netsift_testkit::live::Live;
use netsift_testkit::netns::{exec, Side, VethPair};
use netsift_testkit::skip::has_command;
use netsift_testkit::{require, Need};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const MANAGER: &str = "10.77.0.1";
const AGENT: &str = "10.77.0.2";
const SNMPD: &str = "/usr/sbin/snmpd";

/// snmpd on the agent's address, with communities `public`, `sec ret`
/// (read-only) and `private` (read-write), and users `bob` (no
/// authentication) and `alice` (SHA and AES); sysLocation is left out of the
/// configuration, which would make it read-only. Killed on drop.
struct Agent(Child);

impl Agent {
    fn start(ns: &str, dir: &Path) -> Agent {
        let conf = dir.join("snmpd.conf");
        std::fs::write(
            &conf,
            format!(
                "[snmp] persistentDir {}\nagentAddress udp:{AGENT}:161\n\
                 rocommunity public default\nrocommunity \"sec ret\" default\n\
                 rwcommunity private default\ncreateUser bob\n\
                 createUser alice SHA \"alicepassword\" AES \"alicepriv1\"\n\
                 rouser bob noauth\nrouser alice priv\n\
                 sysContact root@lab\n",
                dir.display()
            ),
        )
        .unwrap();
        let child = exec(ns, SNMPD)
            .args(["-f", "-Lf", "/dev/null", "-C", "-c"])
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("snmpd starts");
        Agent(child)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until the agent has its UDP port 161 open.
fn wait_listening(ns: &str) {
    for _ in 0..100 {
        let out = exec(ns, "ss")
            .args(["-lunH", "sport", "= :161"])
            .output()
            .expect("ss runs");
        if !out.stdout.is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("snmpd did not open port 161");
}

/// Runs a net-snmp tool in `ns`; its standard output and whether it
/// succeeded.
fn tool(ns: &str, program: &str, args: &[&str]) -> (String, bool) {
    let out = exec(ns, program)
        .args(["-r", "1", "-t", "1"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

/// What `program -t [flags] -r file` prints, in UTC.
fn print(program: &str, flags: &[&str], file: &Path) -> String {
    let out = Command::new(program)
        .arg("-t")
        .args(flags)
        .arg("-r")
        .arg(file)
        .env("TZ", "UTC")
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(out.status.success(), "{program} {flags:?} -r: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn snmp_exchanges_print_as_tcpdump_prints_them() {
    require!(
        Need::Netns,
        Need::Command("tcpdump"),
        Need::That(
            "net-snmp's snmpd and tools (scripts/setup.sh installs snmpd and snmp)",
            Path::new(SNMPD).exists() && has_command("snmpget") && has_command("snmptrap")
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    pair.add_address(Side::A, &format!("{MANAGER}/24"));
    pair.add_address(Side::B, &format!("{AGENT}/24"));
    let _agent = Agent::start(&pair.b, dir.path());
    wait_listening(&pair.b);
    let file = dir.path().join("snmp.pcap");
    let capture = Live::tcpdump()
        .in_ns(&pair.a)
        .on(&pair.veth_a)
        .arg("-U")
        .write_to(&file)
        .filter("udp")
        .start();

    let ns = pair.a.as_str();
    let sys = |o: &str| format!("1.3.6.1.2.1.1.{o}");
    let (got, ok) = tool(
        ns,
        "snmpget",
        &["-v1", "-c", "public", AGENT, &sys("1.0"), &sys("3.0")],
    );
    assert!(ok && got.contains("Linux"), "snmpget v1: {got}");
    let (got, _) = tool(
        ns,
        "snmpget",
        &["-v2c", "-c", "sec ret", AGENT, &sys("5.0"), &sys("99.0")],
    );
    assert!(got.contains("No Such Object"), "snmpget v2c: {got}");
    // v1 answers an unknown name with noSuchName and its index.
    tool(ns, "snmpget", &["-v1", "-c", "public", AGENT, &sys("99.0")]);
    let (got, ok) = tool(
        ns,
        "snmpwalk",
        &["-v2c", "-c", "public", AGENT, "1.3.6.1.2.1.1"],
    );
    assert!(ok && got.contains("root@lab"), "snmpwalk v2c: {got}");
    tool(
        ns,
        "snmpwalk",
        &["-v1", "-c", "public", AGENT, "1.3.6.1.2.1.2.2.1.2"],
    );
    let (_, ok) = tool(
        ns,
        "snmpbulkget",
        &[
            "-v2c",
            "-c",
            "public",
            "-Cn1",
            "-Cr5",
            AGENT,
            &sys("1"),
            "1.3.6.1.2.1.2.2.1",
        ],
    );
    assert!(ok, "snmpbulkget");
    // Counter64, IpAddress, snmpModules and enterprises OIDs.
    tool(
        ns,
        "snmpget",
        &[
            "-v2c",
            "-c",
            "public",
            AGENT,
            "1.3.6.1.2.1.31.1.1.1.6.1",
            &format!("1.3.6.1.2.1.4.20.1.1.{AGENT}"),
            "1.3.6.1.6.3.10.2.1.1.0",
            "1.3.6.1.4.1.8072.3.2.10",
        ],
    );
    let (_, ok) = tool(
        ns,
        "snmpset",
        &[
            "-v2c",
            "-c",
            "private",
            AGENT,
            &sys("6.0"),
            "s",
            "new place",
        ],
    );
    assert!(ok, "snmpset with the read-write community");
    tool(
        ns,
        "snmpset",
        &["-v2c", "-c", "public", AGENT, &sys("6.0"), "s", "x"],
    );
    let (got, ok) = tool(
        ns,
        "snmpget",
        &["-v3", "-u", "bob", "-l", "noAuthNoPriv", AGENT, &sys("1.0")],
    );
    assert!(
        ok && got.contains("Linux"),
        "snmpget v3 noAuthNoPriv: {got}"
    );
    let v3priv = [
        "-v3",
        "-u",
        "alice",
        "-l",
        "authPriv",
        "-a",
        "SHA",
        "-A",
        "alicepassword",
        "-x",
        "AES",
        "-X",
        "alicepriv1",
        AGENT,
    ];
    let (got, ok) = tool(ns, "snmpget", &[&v3priv[..], &[&sys("6.0")]].concat());
    assert!(
        ok && got.contains("new place"),
        "snmpget v3 authPriv: {got}"
    );
    tool(
        ns,
        "snmpget",
        &[
            "-v3",
            "-u",
            "nobody",
            "-l",
            "noAuthNoPriv",
            AGENT,
            &sys("1.0"),
        ],
    );
    let enterprise = "1.3.6.1.4.1.8072.2.3";
    for (generic, specific) in [("6", "17"), ("2", "0")] {
        let (_, ok) = tool(
            ns,
            "snmptrap",
            &[
                "-v1",
                "-c",
                "public",
                AGENT,
                enterprise,
                MANAGER,
                generic,
                specific,
                "",
                &sys("5.0"),
                "s",
                "hello",
            ],
        );
        assert!(ok, "snmptrap v1");
    }
    let (_, ok) = tool(
        ns,
        "snmptrap",
        &[
            "-v2c",
            "-c",
            "public",
            AGENT,
            "",
            "1.3.6.1.6.3.1.1.5.1",
            &sys("5.0"),
            "s",
            "hi",
            &sys("3.0"),
            "t",
            "123",
            &format!("1.3.6.1.2.1.4.20.1.1.{AGENT}"),
            "a",
            AGENT,
            "1.3.6.1.2.1.31.1.1.1.6.1",
            "C",
            "12345678901234",
            &sys("2.0"),
            "o",
            "1.3.6.1.4.1.8072",
            "1.3.6.1.2.1.2.2.1.10.1",
            "c",
            "99",
            "1.3.6.1.2.1.2.2.1.5.1",
            "u",
            "4000000000",
            &sys("1.0"),
            "x",
            "00ff10",
            "1.3.6.1.2.1.2.2.1.8.1",
            "i",
            "-5",
        ],
    );
    assert!(ok, "snmptrap v2c");
    // No one answers the inform on port 162: it is sent twice.
    tool(
        ns,
        "snmpinform",
        &["-v2c", "-c", "public", AGENT, "", "1.3.6.1.6.3.1.1.5.1"],
    );
    std::thread::sleep(Duration::from_millis(300));
    capture.stop().assert_success();

    let reference = print("tcpdump", &["-nn"], &file);
    for pdu in [
        "GetRequest(",
        "GetNextRequest(",
        "GetResponse(",
        "SetRequest(",
        "GetBulk(",
        "Trap(",
        "V2Trap(",
        "Inform(",
        "Report(",
        "C=\"sec ret\"",
        "U=\"bob\"",
        "noSuchName@1",
    ] {
        assert!(
            reference.contains(pdu),
            "tcpdump printed no {pdu}: {reference}"
        );
    }
    let netsift = env!("CARGO_BIN_EXE_netsift");
    for flags in [&["-nn"][..], &["-nn", "-v"], &["-nn", "-vv"], &[]] {
        let theirs = print("tcpdump", flags, &file);
        let ours = print(netsift, flags, &file);
        let (t, o): (Vec<&str>, Vec<&str>) = (theirs.lines().collect(), ours.lines().collect());
        assert_eq!(o.len(), t.len(), "{flags:?}: as many lines");
        let diffs: Vec<String> = t
            .iter()
            .zip(&o)
            .filter(|(t, o)| t != o)
            .map(|(t, o)| format!("tcpd: {t}\nours: {o}"))
            .collect();
        assert!(diffs.is_empty(), "{flags:?}:\n{}", diffs.join("\n"));
    }
}
