//! What netsift's tests share, so that each test says only what it checks.
//!
//! - [`skip`]: one rule for a test whose environment lacks a privilege or a tool:
//!   it is skipped with a message on stderr, and fails when `CI=true`. The
//!   [`require!`] macro names neither the test nor its file; the harness's thread
//!   name and the caller's location do.
//! - [`netns`]: a veth pair across two network namespaces, made per test with a
//!   unique name and removed by an RAII guard ([`netns::VethPair`]), and a sender
//!   of frames through an AF_PACKET socket.
//! - [`frames`]: Ethernet, VLAN, ARP, IPv4 (whole or in fragments), IPv6, TCP and
//!   UDP frames built with `netsift_wire`'s `emit`, checksums filled.
//! - [`live`]: a live run of a capture program (netsift or tcpdump) in a namespace:
//!   started, waited for until it listens, stopped with SIGINT, its output and the
//!   pcap it wrote collected ([`live::Live`], [`live::Finished`]).
//! - [`mismatch`]: a collector of differences that keeps a few examples and the
//!   count, and reports them in one assertion ([`mismatch::Mismatches`]).
//! - [`pcap`]: reading and writing the capture files tests compare.
//! - [`user`]: a real non-root user, made and removed per test.
//! - [`daemon`]: a real `netsiftd` on a socket of its own, stopped on drop,
//!   its descriptors and memfds counted through [`held`].
//! - [`held`]: what a process holds, from /proc: descriptors by kind, memfd
//!   mappings, resident size.
//! - [`fig2b`]: the seeds' Figure 2b (FPL filter calls on one MBuf), its
//!   ground truth per TCP flow and its MBuf read back.

pub mod daemon;
pub mod fig2b;
pub mod frames;
pub mod held;
pub mod live;
pub mod mismatch;
pub mod native;
pub mod netns;
pub mod pcap;
pub mod skip;
pub mod user;

pub use mismatch::Mismatches;
pub use skip::{skip_unless, Need};

/// Returns from the calling test unless every [`Need`] is met: skipped with a
/// message on stderr, or a failure when `CI=true`.
///
/// ```no_run
/// use netsift_testkit::{require, Need};
/// fn a_live_test() {
///     require!(Need::Netns, Need::Command("tcpdump"));
///     // ...
/// }
/// ```
#[macro_export]
macro_rules! require {
    ($($need:expr),+ $(,)?) => {
        if !$crate::skip::all_met(&[$($need),+]) {
            return;
        }
    };
}

/// The shared test corpus (`/work/shared/corpus` in the project's layout), found
/// from a crate's directory as `../../../shared/corpus`.
pub fn corpus(manifest_dir: &str) -> std::path::PathBuf {
    std::path::Path::new(manifest_dir).join("../../../shared/corpus")
}

/// The corpus's tcpdump captures (`pcaps/tcpdump` under `$NETSIFT_CORPUS`, or
/// under [`corpus`] of `manifest_dir`), sorted by name; `None` when the
/// directory is absent, after [`skip::skip_unless`] said so (a failure under
/// `CI=true`).
pub fn tcpdump_captures(manifest_dir: &str) -> Option<Vec<std::path::PathBuf>> {
    let root = std::env::var_os("NETSIFT_CORPUS")
        .map_or_else(|| corpus(manifest_dir), std::path::PathBuf::from);
    let dir = root.join("pcaps/tcpdump");
    if !skip::skip_unless(
        &format!("the capture corpus at {}", dir.display()),
        dir.is_dir(),
    ) {
        return None;
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    Some(files)
}
