//! The client's side of a flow: [`FlowReader`] maps the group's PBuf and the
//! flow's IBuf read-only and its control page read-write, and hands out
//! packets in FFPF's three styles (§3.2): [`FlowReader::getnext`]
//! (`filter_getnext_pkt`, non-blocking), [`FlowReader::wait_for`]
//! (`wait_for_n_pkts`, blocking with a timeout) and [`FlowReader::for_each`]
//! (`filter_callback`: call back per packet whenever `n` arrived, for a
//! given lifetime).
//!
//! The reader trusts the writer no more than it must: every header is checked
//! against the file's size before use, every entry is read under its `seq`
//! check, and every record's position and length are bounds-checked before
//! its bytes are copied out (and checked against PBuf's `claim` after). A
//! packet is *copied* into the reader's own buffer, never lent out as a slice
//! of shared memory, so nothing the writer does later can change bytes the
//! caller holds; the copy is what makes it safe to release the entry at once.
//!
//! `R` advances locally per packet and is published to the control page in
//! batches ([`FlowReader::set_release_every`]), and whenever the reader runs
//! dry or goes to sleep, so the writer sees progress without a store per
//! packet and never waits on a reader that has consumed everything.

use crate::control::{ControlClientSide, ControlPage, Reported};
use crate::error::{Error, ErrorKind};
use crate::ibuf::{EntryRead, IbufView, WriterCounts, FLAG_DETACHED};
use crate::pbuf::{PbufView, RecordRead};
use crate::wake::{drain, poll_readable};
use std::mem::offset_of;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};
use std::time::{Duration, Instant};

/// One packet, copied out of shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Nanoseconds since the epoch.
    pub ts_ns: u64,
    /// The packet's length on the wire.
    pub wirelen: u32,
    /// The filter's classification result.
    pub class: u32,
    /// The captured bytes.
    pub data: &'a [u8],
}

impl Packet<'_> {
    /// Bytes captured.
    pub fn caplen(&self) -> u32 {
        self.data.len() as u32
    }
}

/// A flow's accounting as its reader sees it: the writer's counters (from the
/// IBuf header, which the client cannot write) and its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Accepted, and dropped for lack of room, as the writer last published.
    pub writer: WriterCounts,
    /// Packets handed to the caller.
    pub delivered: u64,
    /// Entries lost to the writer lapping this reader.
    pub overwritten: u64,
    /// Entries refused as invalid.
    pub invalid: u64,
    /// Whether the writer detached this flow from the slow-reader policy.
    pub detached: bool,
}

impl ReaderStats {
    /// Every accepted packet accounted for: delivered or dropped for a reason.
    pub fn balanced(&self) -> bool {
        self.delivered
            + self.overwritten
            + self.invalid
            + self.writer.pbuf_full
            + self.writer.ibuf_full
            == self.writer.accepted
    }
}

/// Where the flow's packet bytes are read from (see `group::PacketStore`).
#[derive(Debug)]
enum PacketSource {
    Shared(PbufView),
}

/// A client's reader of one flow.
#[derive(Debug)]
pub struct FlowReader {
    source: PacketSource,
    ibuf: IbufView,
    control: ControlClientSide,
    wake: OwnedFd,
    r: u64,
    delivered: u64,
    overwritten: u64,
    invalid: u64,
    /// Entries consumed since `R` was last published.
    pending: u64,
    release_every: u64,
    /// The most bytes of a packet handed out (the flow's snap length).
    snaplen: usize,
    scratch: Vec<u8>,
    /// A wait saw the writer's end of the wake-up channel closed.
    writer_gone: bool,
}

impl FlowReader {
    /// A reader from the four descriptors a [`crate::Group`] hands out: PBuf,
    /// IBuf, control page, wake-up channel. Checks every buffer's seals, size
    /// and header; a truncated, unsealed or foreign file is an error.
    pub fn from_fds(
        pbuf: OwnedFd,
        ibuf: OwnedFd,
        control: OwnedFd,
        wake: OwnedFd,
    ) -> Result<FlowReader, Error> {
        let source = PacketSource::Shared(PbufView::open(pbuf.as_fd())?);
        let ibuf = IbufView::open(ibuf.as_fd())?;
        let control = ControlClientSide::open(control.as_fd())?;
        // The mappings hold the files; the descriptors are no longer needed.
        let n = ibuf.entries();
        let rep = control.reported();
        let w = ibuf.write_pos();
        let r = rep.read.clamp(w.saturating_sub(n), w);
        Ok(FlowReader {
            source,
            ibuf,
            control,
            wake,
            r,
            delivered: rep.delivered,
            overwritten: rep.overwritten.wrapping_add(r - rep.read.min(r)),
            invalid: rep.invalid,
            pending: 0,
            release_every: (n / 4).clamp(1, 64),
            snaplen: usize::MAX,
            scratch: Vec::new(),
            writer_gone: false,
        })
    }

    /// Publish `R` after every `n` packets (at least 1). Smaller: the writer
    /// reclaims sooner; larger: fewer stores to the shared line.
    pub fn set_release_every(&mut self, n: u64) {
        self.release_every = n.max(1);
    }

    /// Hands out at most `n` bytes of each packet (a flow's snap length, when
    /// its group stores more for other flows); the length on the wire stays.
    pub fn set_snaplen(&mut self, n: u32) {
        self.snaplen = n as usize;
    }

    /// The descriptor to poll for wake-ups (readable when the writer signals).
    pub fn wake_fd(&self) -> BorrowedFd<'_> {
        self.wake.as_fd()
    }

    /// Entries written and not yet read (at most the IBuf's size).
    pub fn available(&self) -> u64 {
        self.ibuf
            .write_pos()
            .saturating_sub(self.r)
            .min(self.ibuf.entries())
    }

    /// The next packet, or `None` if none is waiting; never blocks. Entries
    /// lost to overwriting are skipped and counted. An entry that does not
    /// describe a record is skipped, counted as invalid, and reported as an
    /// [`ErrorKind::Corrupt`] error; the next call goes on after it.
    pub fn getnext(&mut self) -> Result<Option<Packet<'_>>, Error> {
        loop {
            let w = self.ibuf.write_pos();
            if self.r >= w {
                self.release();
                return Ok(None);
            }
            let n = self.ibuf.entries();
            if w - self.r > n {
                let lost = w - n - self.r;
                self.overwritten = self.overwritten.wrapping_add(lost);
                self.advance(lost);
            }
            let i = self.r;
            let (pos, len, class) = match self.ibuf.read(i) {
                EntryRead::Ok {
                    pbuf_pos,
                    len,
                    class,
                } => (pbuf_pos, len, class),
                EntryRead::Overwritten => {
                    self.overwritten = self.overwritten.wrapping_add(1);
                    self.advance(1);
                    continue;
                }
                EntryRead::Stale => {
                    self.invalid = self.invalid.wrapping_add(1);
                    self.advance(1);
                    return Err(Error::corrupt(format!(
                        "IBuf entry {i}: its slot holds an older entry though W is {w}"
                    )));
                }
            };
            let PacketSource::Shared(pbuf) = &self.source;
            match pbuf.read(pos, len, &mut self.scratch) {
                RecordRead::Ok { ts_ns, wirelen } => {
                    self.delivered = self.delivered.wrapping_add(1);
                    self.advance(1);
                    return Ok(Some(Packet {
                        ts_ns,
                        wirelen,
                        class,
                        data: &self.scratch[..self.scratch.len().min(self.snaplen)],
                    }));
                }
                RecordRead::Overwritten => {
                    self.overwritten = self.overwritten.wrapping_add(1);
                    self.advance(1);
                }
                RecordRead::Invalid(why) => {
                    self.invalid = self.invalid.wrapping_add(1);
                    self.advance(1);
                    return Err(Error::corrupt(format!(
                        "IBuf entry {i} (PBuf position {pos}, {len} bytes): {why}"
                    )));
                }
            }
        }
    }

    fn advance(&mut self, k: u64) {
        self.r += k;
        self.pending += k;
        if self.pending >= self.release_every {
            self.release();
        }
    }

    /// Publishes `R` and the reader's counters to the control page now.
    pub fn release(&mut self) {
        let c = &self.control;
        c.word(offset_of!(ControlPage, delivered))
            .store(self.delivered, Ordering::Relaxed);
        c.word(offset_of!(ControlPage, overwritten))
            .store(self.overwritten, Ordering::Relaxed);
        c.word(offset_of!(ControlPage, invalid))
            .store(self.invalid, Ordering::Relaxed);
        // Release: the copies of every entry below R are done before the
        // writer may see R and reuse their space.
        c.word(offset_of!(ControlPage, read))
            .store(self.r, Ordering::Release);
        self.pending = 0;
    }

    /// Blocks until at least `n` packets are waiting (`n` is clamped to
    /// `1..=` the IBuf's size), the writer asks for the room this reader's
    /// unread packets hold (slow-reader preference, PBuf half held), or
    /// `timeout` passes; returns how many are waiting. Publishes `R` first, so a slow-reader writer is not kept
    /// waiting on entries this reader has already consumed. Returns at once,
    /// with what is waiting, once the writer has closed its end of the wake-up
    /// channel (the buffers stay mapped and readable).
    pub fn wait_for(&mut self, n: u64, timeout: Duration) -> Result<u64, Error> {
        Ok(self.wait(n, timeout, None)?.unwrap_or(0))
    }

    /// [`FlowReader::wait_for`], also returning `None` as soon as
    /// `interrupt` polls readable (it is not read: that is the caller's).
    /// A reader that waits in a program's own thread, as libpcap's shim does,
    /// needs this to be woken by `pcap_breakloop` from another thread or a
    /// signal handler: a signal alone may land on another thread.
    pub fn wait_for_or(
        &mut self,
        n: u64,
        timeout: Duration,
        interrupt: BorrowedFd<'_>,
    ) -> Result<Option<u64>, Error> {
        self.wait(n, timeout, Some(interrupt))
    }

    /// Asks the writer to signal [`FlowReader::wake_fd`] once `n` packets
    /// (clamped as in [`FlowReader::wait_for`]) are waiting, without waiting
    /// here; returns how many wait now (if as many as `n` already do, the
    /// writer may not signal: the caller must look at the count). For a
    /// program that polls the descriptor itself. Publishes `R` first.
    pub fn arm(&mut self, n: u64) -> u64 {
        self.release();
        let want = n.clamp(1, self.ibuf.entries());
        self.control
            .word(offset_of!(ControlPage, wake_at))
            .store(want, Ordering::Relaxed);
        // As in `wait`: pairs with the writer's fence after publishing W.
        fence(Ordering::SeqCst);
        self.available()
    }

    fn wait(
        &mut self,
        n: u64,
        timeout: Duration,
        interrupt: Option<BorrowedFd<'_>>,
    ) -> Result<Option<u64>, Error> {
        let want = n.clamp(1, self.ibuf.entries());
        let deadline = Instant::now().checked_add(timeout);
        self.release();
        let wake_at = offset_of!(ControlPage, wake_at);
        loop {
            let have = self.available();
            if have >= want {
                return Ok(Some(have));
            }
            self.control.word(wake_at).store(want, Ordering::Relaxed);
            // Pairs with the writer's fence between publishing W and reading
            // `wake_at`: either it sees our threshold or we see its W.
            fence(Ordering::SeqCst);
            let have = self.available();
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if have >= want || left.is_zero() {
                self.control.word(wake_at).store(0, Ordering::Relaxed);
                return Ok(Some(have));
            }
            let ms = i32::try_from(left.as_millis().saturating_add(1)).unwrap_or(i32::MAX);
            let (woken, interrupted) = match interrupt {
                None => (poll_readable(self.wake.as_fd(), ms)?, false),
                Some(i) => poll_two(self.wake.as_fd(), i, ms)?,
            };
            if interrupted {
                self.control.word(wake_at).store(0, Ordering::Relaxed);
                return Ok(None);
            }
            if woken {
                if drain(self.wake.as_fd()) == 0 {
                    // Readable with nothing to read: the writer's end is gone.
                    self.writer_gone = true;
                    self.control.word(wake_at).store(0, Ordering::Relaxed);
                    return Ok(Some(self.available()));
                }
                // Woken with fewer than asked for: the writer needs the room
                // this reader's oldest packet holds (its PBuf is half held
                // under slow-reader preference), so read what there is.
                let have = self.available();
                if have > 0 {
                    return Ok(Some(have));
                }
            }
        }
    }

    /// FFPF's `filter_callback`: for `lifetime`, whenever `n` packets are
    /// waiting (or the lifetime ends), calls `f` on each waiting packet;
    /// stops early when `f` returns false. Invalid entries are skipped (and
    /// counted). Returns how many packets `f` saw.
    pub fn for_each<F>(&mut self, n: u64, lifetime: Duration, mut f: F) -> Result<u64, Error>
    where
        F: FnMut(&Packet<'_>) -> bool,
    {
        let deadline = Instant::now().checked_add(lifetime);
        let mut seen = 0;
        loop {
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                break;
            }
            self.wait_for(n, left)?;
            loop {
                match self.getnext() {
                    Ok(Some(p)) => {
                        seen += 1;
                        if !f(&p) {
                            self.release();
                            return Ok(seen);
                        }
                    }
                    Ok(None) => break,
                    Err(e) if e.kind() == ErrorKind::Corrupt => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        self.release();
        Ok(seen)
    }

    /// The flow's accounting as this reader sees it.
    pub fn stats(&self) -> ReaderStats {
        ReaderStats {
            writer: self.ibuf.counts(),
            delivered: self.delivered,
            overwritten: self.overwritten,
            invalid: self.invalid,
            detached: self.is_detached(),
        }
    }

    /// Whether a wait saw the writer's end of the wake-up channel closed:
    /// the daemon removed the flow or went away, and no packet will come
    /// after those still waiting.
    pub fn writer_gone(&self) -> bool {
        self.writer_gone
    }

    /// Whether the writer detached this flow from the slow-reader policy
    /// (read from the IBuf header, which only the writer can change).
    pub fn is_detached(&self) -> bool {
        self.ibuf.flags() & FLAG_DETACHED != 0
    }

    /// What this reader last published in its control page.
    pub fn reported(&self) -> Reported {
        self.control.reported()
    }
}

/// Polls `wake` and `other` for up to `ms` milliseconds: whether each is
/// readable (hung up counts). `EINTR` is a spurious wake-up of neither.
fn poll_two(wake: BorrowedFd<'_>, other: BorrowedFd<'_>, ms: i32) -> Result<(bool, bool), Error> {
    use std::os::fd::AsRawFd;
    let ready = libc::POLLIN | libc::POLLERR | libc::POLLHUP;
    let mut p = [wake, other].map(|fd| libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    });
    // SAFETY: poll reads and writes two pollfds we own for the call's duration.
    let n = unsafe { libc::poll(p.as_mut_ptr(), 2, ms) };
    if n < 0 {
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            return Ok((false, false));
        }
        return Err(Error::os("poll on a wake fd and an interrupt fd"));
    }
    Ok((p[0].revents & ready != 0, p[1].revents & ready != 0))
}

impl Drop for FlowReader {
    fn drop(&mut self) {
        self.release();
    }
}
