//! What a process holds, read from /proc: its descriptors (listed with what
//! each names, and counted by kind), its mappings of memfds, and its
//! resident size. A test that opens and closes things in a daemon compares
//! these before and after, so that a leaked descriptor, buffer or kernel
//! object shows as a difference.

/// Process `pid`'s open descriptors, each as `N: target` (the link in
/// /proc/PID/fd, such as `memfd:pbuf (deleted)` or `socket:[123]`), sorted.
pub fn fd_list(pid: u32) -> Vec<String> {
    let dir = format!("/proc/{pid}/fd");
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {dir}: {e}"))
        .flatten()
        .map(|e| {
            // A descriptor closed between the listing and the read shows
            // with an empty target rather than failing the look.
            let l = std::fs::read_link(e.path()).unwrap_or_default();
            format!("{}: {}", e.file_name().to_string_lossy(), l.display())
        })
        .collect();
    v.sort();
    v
}

/// What a process holds, counted: equal counts before and after a round of
/// work mean the round left nothing behind.
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Held {
    /// Open descriptors.
    pub fds: usize,
    /// Of which sockets.
    pub sockets: usize,
    /// Of which memfds (the buffers the daemon shares).
    pub memfds: usize,
    /// Mappings of memfds (a buffer mapped stays held after its descriptor
    /// is closed).
    pub memfd_maps: usize,
    /// Descriptors of eBPF programs.
    pub bpf_progs: usize,
    /// Descriptors of eBPF maps.
    pub bpf_maps: usize,
}

impl Held {
    /// What process `pid` holds now.
    pub fn of(pid: u32) -> Held {
        let links = fd_list(pid);
        let count = |s: &str| links.iter().filter(|l| l.contains(s)).count();
        let maps_path = format!("/proc/{pid}/maps");
        let maps = std::fs::read_to_string(&maps_path)
            .unwrap_or_else(|e| panic!("reading {maps_path}: {e}"));
        Held {
            fds: links.len(),
            sockets: count("socket:"),
            memfds: count("memfd:"),
            memfd_maps: maps.lines().filter(|l| l.contains("memfd:")).count(),
            bpf_progs: count("bpf-prog"),
            bpf_maps: count("bpf-map"),
        }
    }
}

/// Process `pid`'s resident set in KiB (`VmRSS`).
pub fn rss_kib(pid: u32) -> u64 {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in {path}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{FromRawFd, OwnedFd};

    #[test]
    fn a_memfd_is_listed_and_counted_while_open() {
        let pid = std::process::id();
        let name = "netsift-held-test";
        let mine = |l: &String| l.contains(&format!("memfd:{name}"));
        // SAFETY: memfd_create reads the NUL-terminated name and returns a
        // new descriptor (or -1), owned from here on.
        let fd = unsafe { libc::memfd_create(c"netsift-held-test".as_ptr(), 0) };
        assert!(fd >= 0, "memfd_create: {}", std::io::Error::last_os_error());
        // SAFETY: fd is a fresh descriptor no one else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        assert_eq!(fd_list(pid).iter().filter(|l| mine(l)).count(), 1);
        assert!(Held::of(pid).memfds >= 1);
        drop(fd);
        assert_eq!(fd_list(pid).iter().filter(|l| mine(l)).count(), 0);
        assert!(rss_kib(pid) > 0);
    }
}
