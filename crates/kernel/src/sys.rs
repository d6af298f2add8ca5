//! The `bpf(2)` system call: maps, program loading, test runs, and attaching a
//! program to a socket or (through a link) to an interface's XDP hook.
//!
//! Each command takes its part of `union bpf_attr`; the kernel accepts a shorter
//! structure than its own as long as it is a prefix, so each command has its own
//! `repr(C)` struct holding just the fields netsift sets, zeroed elsewhere.

use crate::asm::Insn;
use std::fmt;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const MAP_CREATE: libc::c_long = 0;
const MAP_LOOKUP_ELEM: libc::c_long = 1;
const MAP_UPDATE_ELEM: libc::c_long = 2;
const MAP_DELETE_ELEM: libc::c_long = 3;
const MAP_GET_NEXT_KEY: libc::c_long = 4;
const PROG_LOAD: libc::c_long = 5;
const PROG_TEST_RUN: libc::c_long = 10;
const LINK_CREATE: libc::c_long = 28;
/// `BPF_LINK_UPDATE`.
const LINK_UPDATE: libc::c_long = 29;
/// `BPF_XDP` of `enum bpf_attach_type`.
const ATTACH_XDP: u32 = 37;
/// `BPF_TCX_INGRESS`, `BPF_TCX_EGRESS`: a `SCHED_CLS` program on an interface's
/// traffic control hook, linked without a qdisc (Linux 6.6).
const ATTACH_TCX_INGRESS: u32 = 46;
const ATTACH_TCX_EGRESS: u32 = 47;

/// `SO_ATTACH_BPF`: attach an eBPF program (by descriptor) as a socket filter.
const SO_ATTACH_BPF: libc::c_int = 50;

/// Why a `bpf(2)` command failed: what was being done, the OS error, and for a
/// program the kernel refused, the verifier's log.
///
/// `Display` gives `what: OS error` and the log's last lines.
#[derive(Debug)]
pub struct Error {
    what: String,
    os: std::io::Error,
    log: Option<String>,
}

impl Error {
    pub(crate) fn last(what: impl Into<String>) -> Error {
        Error {
            what: what.into(),
            os: std::io::Error::last_os_error(),
            log: None,
        }
    }

    /// A request this crate refuses before any system call (EINVAL).
    pub fn invalid(what: impl Into<String>) -> Error {
        Error {
            what: what.into(),
            os: std::io::Error::from_raw_os_error(libc::EINVAL),
            log: None,
        }
    }

    /// A shared table that has no room for a key (ENOSPC): the owner grows
    /// it and swaps the program ([`crate::table::Table::grown_for`]).
    pub fn full(what: impl Into<String>) -> Error {
        Error {
            what: what.into(),
            os: std::io::Error::from_raw_os_error(libc::ENOSPC),
            log: None,
        }
    }

    /// Whether this is [`Error::full`]'s: a table to grow, not a failure.
    pub fn is_full(&self) -> bool {
        self.os.raw_os_error() == Some(libc::ENOSPC)
    }

    /// What was being done (`loading the netsift program`).
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The OS error the command returned.
    pub fn os_error(&self) -> &std::io::Error {
        &self.os
    }

    /// The OS error number (`errno`) the command returned.
    pub fn raw_os_error(&self) -> Option<i32> {
        self.os.raw_os_error()
    }

    /// The verifier's whole log, for a program the kernel refused.
    pub fn verifier_log(&self) -> Option<&str> {
        self.log.as_deref()
    }

    /// Whether the failure is a missing privilege (CAP_BPF / CAP_NET_ADMIN, or
    /// unprivileged BPF turned off): the caller may fall back to user space. (The
    /// verifier refuses a program with EACCES, which is not this.)
    pub fn is_permission(&self) -> bool {
        self.os.raw_os_error() == Some(libc::EPERM)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.os)?;
        if let Some(log) = &self.log {
            // The verifier's last lines say why; the whole log can be thousands.
            let lines: Vec<&str> = log.lines().collect();
            for l in &lines[lines.len().saturating_sub(8)..] {
                write!(f, "\n  {l}")?;
            }
        }
        Ok(())
    }
}

// No `source()`, as pcapio's error: the message already holds the OS error's text
// (before the verifier's log), and a chain printed in full (the CLI's `{:#}`) would
// say it twice. `os_error()` gives the error itself.
impl std::error::Error for Error {}

/// Calls `bpf(cmd, attr, size_of(attr))`.
fn bpf<T>(cmd: libc::c_long, attr: &mut T) -> libc::c_long {
    // SAFETY: `attr` is a live, initialised `repr(C)` prefix of `union bpf_attr`
    // for `cmd`, of the size passed; the kernel reads and writes only within it.
    unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            (attr as *mut T).cast::<libc::c_void>(),
            std::mem::size_of::<T>() as libc::c_uint,
        )
    }
}

/// A descriptor the kernel returned, owned.
fn owned(fd: libc::c_long) -> OwnedFd {
    // SAFETY: a non-negative return of a bpf(2) command that creates an object is
    // a new descriptor that nothing else owns.
    unsafe { OwnedFd::from_raw_fd(fd as RawFd) }
}

/// The kinds of map netsift uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    /// `BPF_MAP_TYPE_HASH`: SET tables.
    Hash = 1,
    /// `BPF_MAP_TYPE_ARRAY`: operand slots and pass enable bits.
    Array = 2,
    /// `BPF_MAP_TYPE_LRU_HASH`: a hash map whose insert into a full map evicts the
    /// least recently used entry (the follow prologue's guesses).
    LruHash = 9,
    /// `BPF_MAP_TYPE_PROG_ARRAY`: programs a tail call goes on to (value: the
    /// program's descriptor).
    ProgArray = 3,
    /// `BPF_MAP_TYPE_PERCPU_ARRAY`: counters each CPU adds to without atomics.
    PerCpuArray = 6,
    /// `BPF_MAP_TYPE_RINGBUF`: packets an XDP program hands to user space (key and
    /// value size 0, `max_entries` the size in bytes, a power-of-2 number of pages).
    RingBuf = 27,
    /// `BPF_MAP_TYPE_XSKMAP`: AF_XDP sockets by receive queue, which an XDP
    /// program redirects frames to (value: the socket's descriptor).
    XskMap = 17,
}

#[repr(C)]
#[derive(Default)]
struct MapCreate {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
}

#[repr(C)]
#[derive(Default)]
struct MapElem {
    map_fd: u32,
    _pad: u32,
    key: u64,
    value: u64,
    flags: u64,
}

/// A BPF map.
#[derive(Debug)]
pub struct Map {
    fd: OwnedFd,
    key_size: usize,
    value_size: usize,
}

impl Map {
    /// A new map of `max_entries` entries.
    pub fn create(
        kind: MapKind,
        key_size: u32,
        value_size: u32,
        max_entries: u32,
    ) -> Result<Map, Error> {
        Map::create_with(kind, key_size, value_size, max_entries, 0)
    }

    /// As [`create`](Self::create), with `map_flags` (`BPF_F_MMAPABLE` for
    /// [`crate::shared::Region`]).
    pub(crate) fn create_with(
        kind: MapKind,
        key_size: u32,
        value_size: u32,
        max_entries: u32,
        map_flags: u32,
    ) -> Result<Map, Error> {
        let mut a = MapCreate {
            map_type: kind as u32,
            key_size,
            value_size,
            max_entries,
            map_flags,
        };
        let fd = bpf(MAP_CREATE, &mut a);
        if fd < 0 {
            return Err(Error::last(format!("creating a {kind:?} map")));
        }
        Ok(Map {
            fd: owned(fd),
            key_size: key_size as usize,
            value_size: value_size as usize,
        })
    }

    /// The descriptor, for [`crate::asm::Asm::ld_map_fd`].
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    fn elem(&self, key: &[u8], value: Option<&[u8]>) -> MapElem {
        assert_eq!(key.len(), self.key_size, "map key size");
        if let Some(v) = value {
            assert_eq!(v.len(), self.value_size, "map value size");
        }
        MapElem {
            map_fd: self.fd() as u32,
            _pad: 0,
            key: key.as_ptr() as u64,
            value: value.map_or(0, |v| v.as_ptr() as u64),
            flags: 0,
        }
    }

    /// Sets `key` to `value` (inserting it): one system call, seen by the next
    /// packet the program filters.
    pub fn update(&self, key: &[u8], value: &[u8]) -> Result<(), Error> {
        let mut a = self.elem(key, Some(value));
        if bpf(MAP_UPDATE_ELEM, &mut a) < 0 {
            return Err(Error::last("updating a map element"));
        }
        Ok(())
    }

    /// Removes `key`; false if it was not there.
    pub fn delete(&self, key: &[u8]) -> Result<bool, Error> {
        let mut a = self.elem(key, None);
        if bpf(MAP_DELETE_ELEM, &mut a) < 0 {
            let e = Error::last("deleting a map element");
            if e.os.raw_os_error() == Some(libc::ENOENT) {
                return Ok(false);
            }
            return Err(e);
        }
        Ok(true)
    }

    /// The sum over CPUs of the u64 word `key` of a [`MapKind::PerCpuArray`] of
    /// 8-byte values (a lookup returns one value per possible CPU).
    pub fn sum_percpu_u64(&self, key: u32) -> Result<u64, Error> {
        assert_eq!(self.value_size, 8, "per-CPU u64 map");
        let cpus = possible_cpus();
        let mut out = vec![0u64; cpus];
        let k = key.to_ne_bytes();
        let mut a = self.elem(&k, None);
        a.value = out.as_mut_ptr() as u64;
        if bpf(MAP_LOOKUP_ELEM, &mut a) < 0 {
            return Err(Error::last("looking up a per-CPU counter"));
        }
        Ok(out.iter().sum())
    }

    /// The value of `key`, if there is one.
    pub fn lookup(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        let mut out = vec![0u8; self.value_size];
        let mut a = self.elem(key, None);
        a.value = out.as_mut_ptr() as u64;
        if bpf(MAP_LOOKUP_ELEM, &mut a) < 0 {
            let e = Error::last("looking up a map element");
            if e.os.raw_os_error() == Some(libc::ENOENT) {
                return Ok(None);
            }
            return Err(e);
        }
        Ok(Some(out))
    }

    /// Every key in the map (`BPF_MAP_GET_NEXT_KEY` from none): for tests and
    /// reports, not the packet path. Keys added or removed meanwhile may or may
    /// not be seen.
    pub fn keys(&self) -> Result<Vec<Vec<u8>>, Error> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        let mut next = vec![0u8; self.key_size];
        loop {
            // The first call names no key: the kernel starts from the first.
            let prev = out.last().cloned();
            let mut a = MapElem {
                map_fd: self.fd() as u32,
                _pad: 0,
                key: prev.as_ref().map_or(0, |k| k.as_ptr() as u64),
                value: next.as_mut_ptr() as u64,
                flags: 0,
            };
            if bpf(MAP_GET_NEXT_KEY, &mut a) < 0 {
                let e = Error::last("walking a map's keys");
                if e.os.raw_os_error() == Some(libc::ENOENT) {
                    return Ok(out);
                }
                return Err(e);
            }
            out.push(next.clone());
        }
    }
}

/// The number of CPUs the kernel may ever run (`/sys/devices/system/cpu/possible`,
/// such as `0-3`): a per-CPU map holds one value for each.
pub fn possible_cpus() -> usize {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/possible").unwrap_or_default();
    let n = text
        .trim()
        .split(',')
        .filter_map(|r| {
            let mut it = r.split('-');
            let lo: usize = it.next()?.trim().parse().ok()?;
            let hi: usize = it.next().map_or(Some(lo), |h| h.trim().parse().ok())?;
            Some(hi + 1)
        })
        .max();
    // Without the file, the CPUs online now (at least 1).
    n.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Program types netsift loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgKind {
    /// `BPF_PROG_TYPE_SOCKET_FILTER`: returns how many bytes of the packet to keep
    /// (0 drops it).
    SocketFilter = 1,
    /// `BPF_PROG_TYPE_SCHED_CLS`: a test run of one starts `skb->data` at the MAC
    /// header (a socket filter's starts at the network header), which is what a
    /// classic program's absolute loads expect; the benchmarks run both kinds of
    /// program this way.
    SchedCls = 3,
    /// `BPF_PROG_TYPE_XDP`: runs on a received frame before the kernel builds a
    /// socket buffer; returns what to do with it (netsift's always pass it on).
    Xdp = 6,
}

#[repr(C)]
#[derive(Default)]
struct ProgLoad {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
}

#[repr(C)]
#[derive(Default)]
struct LinkCreate {
    prog_fd: u32,
    target_ifindex: u32,
    attach_type: u32,
    flags: u32,
}

#[repr(C)]
struct LinkUpdate {
    link_fd: u32,
    new_prog_fd: u32,
    flags: u32,
    old_prog_fd: u32,
}

#[repr(C)]
#[derive(Default)]
struct TestRun {
    prog_fd: u32,
    retval: u32,
    data_size_in: u32,
    data_size_out: u32,
    data_in: u64,
    data_out: u64,
    repeat: u32,
    duration: u32,
    ctx_size_in: u32,
    ctx_size_out: u32,
    ctx_in: u64,
    ctx_out: u64,
}

/// A loaded program.
#[derive(Debug)]
pub struct Program {
    fd: OwnedFd,
}

/// What a test run reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// The program's return value.
    pub retval: u32,
    /// Mean nanoseconds per run, over the repeats.
    pub duration_ns: u32,
}

/// `PROG_LOAD`, again while it fails with EAGAIN: the verifier gives up
/// with EAGAIN when a signal is pending (a timer such as libFuzzer's, a
/// profiler's), which says nothing about the program. libbpf retries the
/// same way; five attempts bound it.
fn load_retrying(a: &mut ProgLoad) -> libc::c_long {
    let mut fd = bpf(PROG_LOAD, a);
    for _ in 1..5 {
        if fd >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EAGAIN) {
            break;
        }
        fd = bpf(PROG_LOAD, a);
    }
    fd
}

impl Program {
    /// Loads `insns` as a program of `kind` named `name` (at most 15 bytes shown).
    /// The verifier checks it once, here; a refusal carries the verifier's log.
    pub fn load(kind: ProgKind, name: &str, insns: &[Insn]) -> Result<Program, Error> {
        let license = c"GPL";
        let mut log = vec![0u8; 1 << 20];
        let mut prog_name = [0u8; 16];
        for (d, s) in prog_name.iter_mut().zip(name.bytes().take(15)) {
            *d = s;
        }
        let mut a = ProgLoad {
            prog_type: kind as u32,
            insn_cnt: insns.len() as u32,
            insns: insns.as_ptr() as u64,
            license: license.as_ptr() as u64,
            log_level: 0,
            log_size: 0,
            log_buf: 0,
            prog_name,
            // An XDP program is loaded for the interface hook it will be linked to.
            expected_attach_type: if kind == ProgKind::Xdp { ATTACH_XDP } else { 0 },
            ..ProgLoad::default()
        };
        let fd = load_retrying(&mut a);
        if fd >= 0 {
            return Ok(Program { fd: owned(fd) });
        }
        let first = Error::last(format!("loading the {name} program"));
        if first.is_permission() {
            return Err(first);
        }
        // Again with the verifier's log, to say why.
        a.log_level = 1;
        a.log_size = log.len() as u32;
        a.log_buf = log.as_mut_ptr() as u64;
        let fd = load_retrying(&mut a);
        if fd >= 0 {
            return Ok(Program { fd: owned(fd) });
        }
        let again = Error::last(format!("loading the {name} program"));
        // A log past the buffer fails the second load with ENOSPC: the
        // first load's error is then the verifier's answer, and the log is
        // its first megabyte.
        let mut e = if again.raw_os_error() == Some(libc::ENOSPC) {
            first
        } else {
            again
        };
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        e.log = Some(String::from_utf8_lossy(&log[..end]).into_owned());
        Err(e)
    }

    /// The descriptor.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Runs the program `repeat` times (at least once) on `frame`, an Ethernet
    /// frame, in the kernel (`BPF_PROG_TEST_RUN`).
    pub fn test_run(&self, frame: &[u8], repeat: u32) -> Result<RunResult, Error> {
        self.test_run_with(frame, repeat, 0, 0)
    }

    /// As [`test_run`](Self::test_run), with the context's `mark` and `priority`
    /// words set (the only ones of the first nine a test run lets a caller set).
    pub fn test_run_with(
        &self,
        frame: &[u8],
        repeat: u32,
        mark: u32,
        priority: u32,
    ) -> Result<RunResult, Error> {
        // The first nine words of `struct __sk_buff`: len, pkt_type, mark,
        // queue_mapping, protocol, vlan_present, vlan_tci, vlan_proto, priority.
        // Passed only when set: other program types have other contexts.
        let mut ctx = [0u32; 9];
        ctx[2] = mark;
        ctx[8] = priority;
        let with_ctx = mark != 0 || priority != 0;
        let mut a = TestRun {
            prog_fd: self.fd() as u32,
            data_size_in: frame.len() as u32,
            data_in: frame.as_ptr() as u64,
            repeat: repeat.max(1),
            ctx_size_in: if with_ctx {
                std::mem::size_of_val(&ctx) as u32
            } else {
                0
            },
            ctx_in: if with_ctx { ctx.as_ptr() as u64 } else { 0 },
            ..TestRun::default()
        };
        if bpf(PROG_TEST_RUN, &mut a) < 0 {
            return Err(Error::last("test-running a program"));
        }
        Ok(RunResult {
            retval: a.retval,
            duration_ns: a.duration,
        })
    }

    /// Links the program (an [`ProgKind::Xdp`] one) to the XDP hook of interface
    /// `ifindex`, with `flags` (`XDP_FLAGS_SKB_MODE` 2 for the generic hook,
    /// `XDP_FLAGS_DRV_MODE` 4 for the driver's, 0 for the driver's where it has
    /// one). The program stays attached while the returned link is open.
    pub fn link_xdp(&self, ifindex: u32, flags: u32) -> Result<OwnedFd, Error> {
        self.link(ATTACH_XDP, ifindex, flags, "an XDP program")
    }

    /// Links the program (a [`ProgKind::SchedCls`] one) to the traffic control
    /// hook of interface `ifindex`: its sent packets if `egress`, else those it
    /// receives (tcx, no qdisc needed). It stays attached while the returned
    /// link is open.
    pub fn link_tcx(&self, ifindex: u32, egress: bool) -> Result<OwnedFd, Error> {
        let at = if egress {
            ATTACH_TCX_EGRESS
        } else {
            ATTACH_TCX_INGRESS
        };
        self.link(at, ifindex, 0, "a traffic control program")
    }

    fn link(
        &self,
        attach_type: u32,
        ifindex: u32,
        flags: u32,
        what: &str,
    ) -> Result<OwnedFd, Error> {
        let mut a = LinkCreate {
            prog_fd: self.fd() as u32,
            target_ifindex: ifindex,
            attach_type,
            flags,
        };
        let fd = bpf(LINK_CREATE, &mut a);
        if fd < 0 {
            return Err(Error::last(format!(
                "attaching {what} to interface {ifindex}"
            )));
        }
        Ok(owned(fd))
    }

    /// Puts this program in place of the one link `link` (from
    /// [`Program::link_xdp`]) runs, in one step: every frame meets the old
    /// program or the new one (`BPF_LINK_UPDATE`).
    pub fn update_link(&self, link: &OwnedFd) -> Result<(), Error> {
        use std::os::fd::AsRawFd;
        let mut a = LinkUpdate {
            link_fd: link.as_raw_fd() as u32,
            new_prog_fd: self.fd() as u32,
            flags: 0,
            old_prog_fd: 0,
        };
        if bpf(LINK_UPDATE, &mut a) < 0 {
            return Err(Error::last("replacing a linked XDP program"));
        }
        Ok(())
    }

    /// Attaches the program as the filter of socket `sock` (`SO_ATTACH_BPF`),
    /// replacing any filter it had in one step: no packet passes unfiltered and
    /// none is dropped for the swap.
    pub fn attach(&self, sock: RawFd) -> Result<(), Error> {
        let fd: libc::c_int = self.fd();
        // SAFETY: `fd` lives through the call; its size is passed.
        let rc = unsafe {
            libc::setsockopt(
                sock,
                libc::SOL_SOCKET,
                SO_ATTACH_BPF,
                (&fd as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(Error::last("attaching a socket filter"));
        }
        Ok(())
    }
}
