//! The Linux kernel's socket filter (LSF) as a contender for updates: the cost of
//! `setsockopt(SO_ATTACH_FILTER)`, which copies the program into the kernel and runs
//! the kernel's checker (and JIT, where enabled). Any socket takes a classic BPF
//! filter, so a UDP socket that is never bound and never receives anything is
//! enough: no privilege is needed and no traffic is sent.

use netsift_oracle::BpfInsn;
use std::io;
use std::time::Instant;

/// `struct sock_filter` is layout-identical to libpcap's `struct bpf_insn`.
#[repr(C)]
struct SockFprog {
    len: u16,
    filter: *const BpfInsn,
}

/// A socket to attach programs to.
pub(crate) struct LsfSocket {
    fd: i32,
}

impl LsfSocket {
    pub(crate) fn new() -> io::Result<LsfSocket> {
        // SAFETY: plain socket(2) call; the descriptor is owned by the returned value.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(LsfSocket { fd })
    }

    /// Attaches `prog` (replacing the previous filter) and returns the time the
    /// system call took, in nanoseconds.
    pub(crate) fn attach(&self, prog: &[BpfInsn]) -> io::Result<u64> {
        let len = u16::try_from(prog.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "program too long"))?;
        let fprog = SockFprog {
            len,
            filter: prog.as_ptr(),
        };
        let t = Instant::now();
        // SAFETY: `fprog` points at `len` valid instructions that outlive the call; the
        // kernel copies them and keeps no pointer into our memory.
        let rc = unsafe {
            libc::setsockopt(
                self.fd,
                libc::SOL_SOCKET,
                libc::SO_ATTACH_FILTER,
                &fprog as *const SockFprog as *const libc::c_void,
                std::mem::size_of::<SockFprog>() as libc::socklen_t,
            )
        };
        let ns = t.elapsed().as_nanos() as u64;
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(ns)
    }
}

impl Drop for LsfSocket {
    fn drop(&mut self) {
        // SAFETY: `fd` is a descriptor this value owns and closes once.
        unsafe { libc::close(self.fd) };
    }
}
