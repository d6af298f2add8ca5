//! Zero copy with the real kernel: a [`CopyMode::Zero`] group's frame ring is
//! registered as the UMEM of an AF_XDP socket (`xsk::Xsk`, the daemon's) on a veth pair in a network
//! namespace this test makes (nothing leaves it), an XDP program redirects
//! the test's frames (ethertype 0x88b5) to the socket, and the kernel copies
//! each one straight into the sealed memfd a reader maps read-only. Checks
//! that every byte arrives, that the kernel gets no frame back while the
//! reader is behind it (it drops instead, and says so in its statistics),
//! and that the accounting is exact. A second flow's reader is another
//! process that drops to uid 65534 before it maps anything (this test binary
//! run again with `NETSIFT_FFPF_XDP_CHILD` set, as `cross_process.rs` does):
//! it reads the kernel's frames read-only and cannot map them read-write.

mod common;

use netsift_ffpf::xsk::{Mode, Xsk};
use netsift_ffpf::{CopyMode, FlowFds, FlowId, FlowReader, Group, Policy, Received};
use netsift_testkit::{require, Need};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Command;
use std::time::{Duration, Instant};

const FRAMES: u32 = 16;
const ETHERTYPE: [u8; 2] = [0x88, 0xb5];
const CHILD: &str = "NETSIFT_FFPF_XDP_CHILD";

fn os(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

fn ip(args: &[&str]) {
    let st = Command::new("ip").args(args).status().expect("running ip");
    assert!(st.success(), "ip {args:?}");
}

/// `bpf(2)` with an attribute block of 16 words.
fn bpf(cmd: i32, attr: &mut [u64; 16]) -> RawFd {
    // SAFETY: `attr` is a live, zero-initialised block as large as every
    // attribute this test passes; the kernel reads and writes only within it.
    let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr.as_mut_ptr(), 128usize) };
    r as RawFd
}

fn owned(fd: RawFd, what: &str) -> OwnedFd {
    assert!(fd >= 0, "{}", os(what));
    // SAFETY: a descriptor the kernel just returned to us and no one else owns.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> u64 {
    u64::from(code)
        | u64::from(dst | src << 4) << 8
        | u64::from(off as u16) << 16
        | u64::from(imm as u32) << 32
}

/// An XSKMAP holding `xsk` at key 0 and an XDP program that redirects the
/// test's frames to it and passes every other frame; the program linked to
/// `ifindex`. Returns what must stay open.
fn redirect(xsk: RawFd, ifindex: u32) -> Vec<OwnedFd> {
    let mut a = [0u64; 16];
    a[0] = 17 | 4 << 32; // BPF_MAP_TYPE_XSKMAP, key 4 bytes
    a[1] = 4 | 1 << 32; // value 4 bytes, 1 entry
    let map = owned(bpf(0, &mut a), "BPF_MAP_CREATE xskmap");
    let (key, val) = (0u32, xsk as u32);
    let mut a = [0u64; 16];
    a[0] = map.as_raw_fd() as u64;
    a[1] = &key as *const u32 as u64;
    a[2] = &val as *const u32 as u64;
    assert_eq!(bpf(2, &mut a), 0, "{}", os("BPF_MAP_UPDATE_ELEM"));
    let prog = [
        insn(0x61, 2, 1, 0, 0),               // r2 = ctx->data
        insn(0x61, 3, 1, 4, 0),               // r3 = ctx->data_end
        insn(0xbf, 4, 2, 0, 0),               // r4 = r2
        insn(0x07, 4, 0, 0, 14),              // r4 += 14
        insn(0x2d, 4, 3, 8, 0),               // if r4 > r3 goto pass
        insn(0x69, 4, 2, 12, 0),              // r4 = *(u16 *)(r2 + 12)
        insn(0x55, 4, 0, 6, 0xb588),          // if r4 != 0x88b5 (as loaded) goto pass
        insn(0x61, 2, 1, 16, 0),              // r2 = ctx->rx_queue_index
        insn(0x18, 1, 1, 0, map.as_raw_fd()), // r1 = the map
        0,
        insn(0xb7, 3, 0, 0, 2),  // r3 = XDP_PASS if the slot is empty
        insn(0x85, 0, 0, 0, 51), // bpf_redirect_map
        insn(0x95, 0, 0, 0, 0),  // exit
        insn(0xb7, 0, 0, 0, 2),  // pass: r0 = XDP_PASS
        insn(0x95, 0, 0, 0, 0),  // exit
    ];
    let license = c"GPL";
    let mut log = vec![0u8; 1 << 16];
    let mut a = [0u64; 16];
    a[0] = 6 | (prog.len() as u64) << 32; // BPF_PROG_TYPE_XDP
    a[1] = prog.as_ptr() as u64;
    a[2] = license.as_ptr() as u64;
    a[3] = 1 | (log.len() as u64) << 32;
    a[4] = log.as_mut_ptr() as u64;
    let fd = bpf(5, &mut a);
    assert!(
        fd >= 0,
        "{}\n{}",
        os("BPF_PROG_LOAD"),
        String::from_utf8_lossy(&log).trim_end_matches('\0')
    );
    let prog = owned(fd, "BPF_PROG_LOAD");
    let mut a = [0u64; 16];
    a[0] = prog.as_raw_fd() as u64 | u64::from(ifindex) << 32;
    a[1] = 37; // BPF_XDP, no flags
    let link = owned(bpf(28, &mut a), "BPF_LINK_CREATE xdp");
    vec![map, prog, link]
}

fn frame(seq: u64, len: usize) -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend([2, 0, 0, 0, 0, 1]);
    f.extend(ETHERTYPE);
    f.extend(seq.to_le_bytes());
    f.extend((22..len).map(|i| (seq as usize * 31 + i) as u8));
    f
}

struct Test {
    g: Group,
    /// The flows that accept the frames received now, with their classes.
    accept: Vec<(FlowId, u32)>,
    xsk: Xsk,
    sender: OwnedFd,
    peer: i32,
}

impl Test {
    /// Frames the group gives back go to the fill ring.
    fn refill(&mut self) -> usize {
        let mut out = Vec::new();
        self.g.refill(&mut out);
        self.xsk.fill(&out);
        out.len()
    }

    fn send(&self, f: &[u8]) {
        // SAFETY: a zeroed sockaddr_ll is valid; the fields set below are
        // what sendto needs.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_ifindex = self.peer;
        sll.sll_halen = 6;
        // SAFETY: `f` and `sll` live through the call.
        let r = unsafe {
            libc::sendto(
                self.sender.as_raw_fd(),
                f.as_ptr().cast(),
                f.len(),
                0,
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        assert_eq!(r, f.len() as isize, "{}", os("sendto"));
    }

    /// Waits up to `wait` for `n` descriptors on the RX ring and hands them
    /// to the group; how many came.
    fn receive(&mut self, n: u32, wait: Duration) -> u32 {
        let deadline = Instant::now() + wait;
        let mut descs = Vec::new();
        loop {
            descs.clear();
            let got = self.xsk.peek(FRAMES, &mut descs);
            if got >= n || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let mine = self.accept.clone();
        let batch: Vec<Received<'_>> = descs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                // The frame is lent by the group before it is received.
                assert_eq!(self.g.frame(d).map(<[u8]>::len), Some(d.len() as usize));
                Received {
                    addr: d.addr(),
                    len: d.len(),
                    wirelen: d.len(),
                    ts_ns: i as u64,
                    flows: &mine,
                }
            })
            .collect();
        self.g
            .write_frames(&batch)
            .expect("frames in the order given");
        self.xsk.release(descs.len() as u32);
        descs.len() as u32
    }

    fn kernel_drops(&self) -> u64 {
        self.xsk.dropped()
    }
}

fn read_all(r: &mut FlowReader) -> Vec<u64> {
    let mut seqs = Vec::new();
    while let Some(p) = r.getnext().expect("no corrupt entry") {
        let seq = u64::from_le_bytes(p.data[14..22].try_into().unwrap());
        assert_eq!(p.data, &frame(seq, p.data.len())[..], "bytes of {seq}");
        assert_eq!(p.class, 7);
        seqs.push(seq);
    }
    seqs
}

fn run() {
    // SAFETY: moves only this thread into a new network namespace; the test
    // makes its veth pair there and nothing it sends leaves it.
    let r = unsafe { libc::unshare(libc::CLONE_NEWNET) };
    assert_eq!(r, 0, "{}", os("unshare"));
    ip(&[
        "link", "add", "nsz0", "type", "veth", "peer", "name", "nsz1",
    ]);
    ip(&["link", "set", "nsz0", "up"]);
    ip(&["link", "set", "nsz1", "up"]);
    // SAFETY: NUL-terminated literals.
    let (rx_if, peer) = unsafe {
        (
            libc::if_nametoindex(c"nsz0".as_ptr()),
            libc::if_nametoindex(c"nsz1".as_ptr()),
        )
    };
    assert!(rx_if > 0 && peer > 0);

    let mut g = Group::with_copy(Policy::SlowReader, u64::from(FRAMES) * 2048, CopyMode::Zero)
        .expect("a zero-copy group");
    let (flow, fds) = g.add_flow(64).unwrap();
    let (other, other_fds) = g.add_flow(64).unwrap();
    let mut reader =
        FlowReader::from_fds(fds.pbuf, fds.ibuf, fds.control, fds.wake).expect("a reader");
    let umem = g.umem().expect("a UMEM");

    // Bound to queue 0 of the namespace's veth: copy mode, as veth has no
    // zero-copy driver mode.
    let xsk = Xsk::open(rx_if, umem).expect("an AF_XDP socket on the UMEM");
    assert_eq!(xsk.mode, Mode::Copy);
    // SAFETY: a new AF_PACKET socket, owned at once.
    let sender = owned(
        unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) },
        "AF_PACKET socket",
    );
    let mut t = Test {
        g,
        accept: vec![(flow, 7), (other, 7)],
        xsk,
        sender,
        peer: peer as i32,
    };
    assert_eq!(
        t.refill(),
        FRAMES as usize,
        "every frame to the kernel at first"
    );
    let _keep = redirect(t.xsk.fd(), rx_if);

    // The reader reads nothing: the kernel fills the 16 frames, then has none.
    for s in 0..u64::from(FRAMES) {
        t.send(&frame(s, 60 + s as usize * 90));
        assert_eq!(t.receive(1, Duration::from_secs(2)), 1, "frame {s} arrived");
        t.refill();
    }
    assert_eq!(t.refill(), 0, "the reader is behind every frame");
    let before = t.kernel_drops();
    for s in 100..104 {
        t.send(&frame(s, 60));
    }
    assert_eq!(
        t.receive(1, Duration::from_millis(200)),
        0,
        "no frame, no packet"
    );
    assert!(
        t.kernel_drops() >= before + 4,
        "the kernel counted its drops"
    );

    // Another process, unprivileged, reads the second flow's copy of them.
    let out = child_reads(other_fds);
    assert!(
        out.contains(&format!("CHILD uid=65534 rw-mmap errno={}", libc::EPERM)),
        "{out}"
    );
    let seqs: String = (0..FRAMES).map(|s| format!(" {s}")).collect();
    assert!(out.contains(&format!("CHILD read{seqs}\n")), "{out}");
    let rep = t.g.reported(other).unwrap();
    assert_eq!((rep.delivered, rep.read), (16, 16));
    t.accept = vec![(flow, 7)];

    // Every byte the kernel wrote is there, read through the read-only map.
    assert_eq!(
        read_all(&mut reader),
        (0..u64::from(FRAMES)).collect::<Vec<_>>()
    );
    assert_eq!(
        t.refill(),
        FRAMES as usize,
        "past them all: every frame back"
    );
    for s in 200..208 {
        t.send(&frame(s, 1400));
        assert_eq!(t.receive(1, Duration::from_secs(2)), 1);
        t.refill();
    }
    assert_eq!(read_all(&mut reader), (200..208).collect::<Vec<_>>());
    let st = reader.stats();
    assert!(st.balanced(), "{st:?}");
    assert_eq!((st.delivered, st.writer.accepted), (24, 24), "{st:?}");
    assert_eq!(st.overwritten + st.invalid, 0, "{st:?}");
    // Only the record headers were stored by the writer.
    assert_eq!(t.g.pbuf_stats(), (24, 24 * 16, 0));
}

/// Runs this binary again as the child, hands it `fds`, returns its output.
fn child_reads(fds: FlowFds) -> String {
    let all = [&fds.pbuf, &fds.ibuf, &fds.control, &fds.wake].map(|f| f.as_fd());
    common::child::run("child_side", CHILD, &all)
}

/// The child's side: runs only when the parent set `NETSIFT_FFPF_XDP_CHILD`.
#[test]
fn child_side() {
    let Some([pbuf, ibuf, control, wake]) = common::child::received(CHILD) else {
        return;
    };
    // Unprivileged from here on, as a client is.
    // SAFETY: plain system calls; glibc applies them to every thread.
    let (g, u) = unsafe { (libc::setgid(65534), libc::setuid(65534)) };
    assert_eq!((g, u), (0, 0), "{}", os("dropping to uid 65534"));
    // SAFETY: no arguments.
    let uid = unsafe { libc::getuid() };
    // SAFETY: a fresh mapping the kernel places; unmapped at once if made.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            pbuf.as_raw_fd(),
            0,
        )
    };
    let errno = if p == libc::MAP_FAILED {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
    } else {
        // SAFETY: unmaps the mapping just made.
        unsafe { libc::munmap(p, 4096) };
        0
    };
    println!("CHILD uid={uid} rw-mmap errno={errno}");
    let mut r = FlowReader::from_fds(pbuf, ibuf, control, wake).expect("from_fds in the child");
    let seqs: String = read_all(&mut r).iter().map(|s| format!(" {s}")).collect();
    r.release();
    println!("CHILD read{seqs}");
}

#[test]
fn the_kernel_writes_into_a_sealed_umem_and_gets_frames_back_past_the_reader() {
    require!(Need::Netns);
    // On its own thread: the namespace is the thread's, and goes with it.
    std::thread::spawn(run).join().expect("the test's thread");
}
