//! `--follow ftp` on a live interface, with a real FTP server (vsftpd) and real
//! clients (curl) in EPSV, PASV, EPRT and PORT modes, from two client addresses,
//! while other traffic flows between the same hosts. netsift, with one worker and with two, must write
//! exactly the FTP control and data packets that tcpdump sees on the same interface:
//! every data connection from its first SYN, and nothing else.
//!
//! vsftpd and curl come from `scripts/setup.sh`. Without them, or without
//! CAP_NET_ADMIN, the test is skipped with a message (a failure under `CI=true`).

use netsift_testkit::live::{interrupt, Live};
use netsift_testkit::netns::{exec, in_ns, Side, VethPair};
use netsift_testkit::pcap::packets;
use netsift_testkit::skip::has_command;
use netsift_testkit::{require, Need};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CLIENT: &str = "10.77.0.1";
/// A second client address: its address pair with the server hashes to the other
/// of two workers (see `Fanout::HostPair`: 1 ^ 2 is odd, 4 ^ 2 even).
const CLIENT2: &str = "10.77.0.4";
const SERVER: &str = "10.77.0.2";
/// The port of the other TCP traffic, which must not be captured.
const NOISE_PORT: u16 = 9000;

/// The FTP server binary (scripts/setup.sh installs it, and curl).
const VSFTPD: &str = "/usr/sbin/vsftpd";

/// A vsftpd serving `root` anonymously on the server's address; killed on drop.
struct Server(Child);

impl Server {
    fn start(ns: &str, bin: &Path, dir: &Path) -> Server {
        let root = dir.join("root");
        let empty = dir.join("empty");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&empty).unwrap();
        // The anonymous user (`ftp`) must reach the files, and vsftpd refuses an
        // anonymous root that user may write to.
        use std::os::unix::fs::PermissionsExt;
        for d in [dir, &root, &empty] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        for (name, size) in [("small", 3_000usize), ("big", 400_000)] {
            let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            std::fs::write(root.join(name), data).unwrap();
        }
        let conf = dir.join("vsftpd.conf");
        std::fs::write(
            &conf,
            format!(
                "listen=YES\nlisten_ipv6=NO\nlisten_address={SERVER}\nbackground=NO\n\
                 anonymous_enable=YES\nlocal_enable=NO\nno_anon_password=YES\n\
                 anon_root={}\nsecure_chroot_dir={}\npasv_enable=YES\nport_enable=YES\n\
                 connect_from_port_20=NO\nseccomp_sandbox=NO\nxferlog_enable=NO\n\
                 dirmessage_enable=NO\n",
                root.display(),
                empty.display()
            ),
        )
        .unwrap();
        let child = exec(ns, bin)
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("vsftpd starts");
        Server(child)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `curl` in namespace `ns` with `args`, and returns the bytes it fetched.
fn curl(ns: &str, args: &[&str]) -> Vec<u8> {
    let out = exec(ns, "curl")
        .args(["-sS", "--max-time", "20"])
        .args(args)
        .output()
        .expect("curl runs");
    assert!(
        out.status.success(),
        "curl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Waits until the server accepts connections on port 21 (checked from the
/// server's own namespace, before any capture starts).
fn wait_listening(ns: &str) {
    for _ in 0..100 {
        let out = exec(ns, "ss")
            .args(["-ltnH", "sport", "= :21"])
            .output()
            .expect("ss runs");
        if !out.stdout.is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("vsftpd did not listen on port 21");
}

/// Other traffic between the same two hosts until `stop`: a TCP stream to
/// [`NOISE_PORT`] and UDP datagrams to a closed port (answered by ICMP).
fn noise(pair: &VethPair, stop: Arc<AtomicBool>) -> Vec<std::thread::JoinHandle<()>> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let server = in_ns(&pair.b, move || {
        let l = std::net::TcpListener::bind((SERVER, NOISE_PORT)).unwrap();
        ready_tx.send(()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        let mut buf = [0u8; 4096];
        while s.read(&mut buf).is_ok_and(|n| n > 0) {}
    });
    ready_rx.recv().unwrap();
    let client = in_ns(&pair.a, move || {
        let mut s = std::net::TcpStream::connect((SERVER, NOISE_PORT)).unwrap();
        let u = std::net::UdpSocket::bind((CLIENT, 0)).unwrap();
        while !stop.load(Ordering::Relaxed) {
            s.write_all(&[0x55; 700]).unwrap();
            let _ = u.send_to(b"not ftp", (SERVER, 9001));
            std::thread::sleep(Duration::from_millis(3));
        }
    });
    vec![server, client]
}

/// The TCP SYNs (without ACK) of a capture, as (source port, destination port).
fn syns(frames: &[(Vec<u8>, u32)]) -> Vec<(u16, u16)> {
    frames
        .iter()
        .filter_map(|(f, _)| {
            let ip = f.get(14..)?;
            let ihl = usize::from(ip.first()? & 0x0f) * 4;
            let tcp = ip.get(ihl..ihl + 14)?;
            (f.get(12..14)? == [8, 0] && ip.get(9)? == &6 && tcp[13] & 0x12 == 0x02).then(|| {
                (
                    u16::from_be_bytes([tcp[0], tcp[1]]),
                    u16::from_be_bytes([tcp[2], tcp[3]]),
                )
            })
        })
        .collect()
}

#[test]
fn follow_ftp_with_vsftpd_and_curl() {
    let bin = PathBuf::from(VSFTPD);
    require!(
        Need::Netns,
        Need::That(
            "vsftpd and curl (scripts/setup.sh installs them)",
            bin.exists() && has_command("curl")
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    pair.add_address(Side::A, &format!("{CLIENT}/24"));
    pair.add_address(Side::A, &format!("{CLIENT2}/24"));
    pair.add_address(Side::B, &format!("{SERVER}/24"));
    let _server = Server::start(&pair.b, &bin, dir.path());
    wait_listening(&pair.b);

    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (all, one, two) = (path("all.pcap"), path("one.pcap"), path("two.pcap"));
    let kern = path("kernel.pcap");
    // The reference sees everything on the server's interface; netsift, on the
    // same interface, follows FTP with one worker and with two.
    let ring = ["-B", "16384", "--immediate-mode"];
    let netsift = |args: &[&str], file: &str| {
        Live::new(env!("CARGO_BIN_EXE_netsift"))
            .in_ns(&pair.b)
            .on(&pair.veth_b)
            .args(args)
            .write_to(Path::new(file))
            .args(["--follow", "ftp"])
            .args(ring)
            .start()
    };
    let tcpdump = Live::tcpdump()
        .in_ns(&pair.b)
        .on(&pair.veth_b)
        .arg("-U")
        .write_to(Path::new(&all))
        .args(ring)
        .start();
    let single = netsift(&[], &one);
    let workers = netsift(&["--workers", "2"], &two);
    // And with the follower's first stage in the kernel, reading the
    // announcements there.
    let kernel = netsift(&["--place", "kernel"], &kern);

    let stop = Arc::new(AtomicBool::new(false));
    let noise = noise(&pair, stop.clone());
    let url = |name: &str| format!("ftp://{SERVER}/{name}");
    let mut transfers = 0;
    for client in [CLIENT, CLIENT2] {
        let modes: [&[&str]; 4] = [
            &[],                                       // EPSV
            &["--disable-epsv"],                       // PASV
            &["--ftp-port", client],                   // EPRT
            &["--ftp-port", client, "--disable-eprt"], // PORT
        ];
        for mode in modes {
            let from = ["--interface", client];
            for name in ["small", "big"] {
                let got = curl(&pair.a, &[&from[..], mode, &[url(name).as_str()]].concat());
                assert_eq!(got.len(), if name == "small" { 3_000 } else { 400_000 });
                transfers += 1;
            }
            // A directory listing is a data connection too.
            let list = curl(&pair.a, &[&from[..], mode, &[url("").as_str()]].concat());
            assert!(String::from_utf8_lossy(&list).contains("big"));
            transfers += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in noise {
        t.join().unwrap();
    }
    // Let the last blocks reach the readers (1 ms block timeout), then stop all.
    std::thread::sleep(Duration::from_millis(300));
    let runs = [
        ("tcpdump", tcpdump),
        ("netsift", single),
        ("netsift --workers 2", workers),
        ("netsift --place kernel", kernel),
    ];
    for (_, run) in &runs {
        interrupt(run.pid());
    }
    for (name, run) in runs {
        let done = run.wait(Duration::from_secs(10));
        assert!(done.status.success(), "{name} exited {}", done.status);
    }

    // What the follower should have written: the reference's TCP packets that are
    // not the other stream.
    let want_file = path("want.pcap");
    let st = Command::new("tcpdump")
        .args(["-r", &all, "-w", &want_file])
        .arg(format!("tcp and not port {NOISE_PORT}"))
        .output()
        .unwrap();
    assert!(st.status.success());
    let everything = packets(Path::new(&all));
    let want = packets(Path::new(&want_file));
    let other = everything.len() - want.len();
    let data_syns = syns(&want)
        .into_iter()
        .filter(|&(s, d)| s != 21 && d != 21)
        .count();
    assert_eq!(
        data_syns, transfers,
        "each transfer opened one data connection"
    );
    assert!(other > 100, "other traffic to leave out: {other} packets");
    eprintln!(
        "reference: {} packets, {} of FTP ({transfers} data connections), {other} other",
        everything.len(),
        want.len()
    );

    // As sets: two sockets on one interface may each get two packets sent at
    // the same moment from two CPUs in a different order (seen on a loaded
    // machine: two client ACKs swapped), so order is not what is compared.
    let mut got = packets(Path::new(&one));
    let mut sorted_want = want.clone();
    got.sort();
    sorted_want.sort();
    assert_eq!(got.len(), want.len(), "netsift --follow ftp: packet count");
    assert!(
        got == sorted_want,
        "netsift --follow ftp wrote the FTP packets tcpdump saw"
    );
    let mut got2 = packets(Path::new(&two));
    let mut want2 = want.clone();
    got2.sort();
    want2.sort();
    assert_eq!(got2.len(), want2.len(), "--workers 2: packet count");
    assert!(got2 == want2, "--workers 2 wrote the same FTP packets");
    let mut got3 = packets(Path::new(&kern));
    got3.sort();
    assert_eq!(got3.len(), want2.len(), "--place kernel: packet count");
    assert!(got3 == want2, "--place kernel wrote the same FTP packets");
}
