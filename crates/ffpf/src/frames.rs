//! Zero copy: a PBuf whose packet bytes the kernel writes, not the writer.
//!
//! The data area of a [`FrameRing`] is a ring of equal frames that the
//! capture source registers as an AF_XDP UMEM (`XDP_UMEM_REG`), so the
//! kernel (copying, or the NIC by DMA in zero-copy driver mode) puts each
//! received packet straight into it. The file is a sealed memfd with the
//! PBuf header page in front, so a client maps it read-only exactly as it
//! maps a PBuf, and [`crate::pbuf::PbufView`] reads it unchanged:
//!
//! ```text
//!  file offset 0            4096                                          4096 + C
//!  ┌── PBuf header page ───┬─ frame 0 ───────────────┬─ frame 1 ─────────┬ … ┐
//!  │ magic … C, W, claim … │ … │rec hdr│packet bytes│ … │rec hdr│bytes  │   │
//!  └───────────────────────┴─────▲─────▲────────────┴───────────────────┴───┘
//!                                │     └ where the kernel put the packet (its `addr`)
//!                                └ the record's position: `addr - 16`, in the headroom
//! ```
//!
//! The only bytes the writer stores per packet are the 16 of the record
//! header (lengths and time stamp), in the frame's headroom just before the
//! packet, which the kernel leaves alone (`XDP_PACKET_HEADROOM`).
//!
//! Frames go to the kernel in address order and the kernel fills them in the
//! order it was given them, so positions stay monotone `u64`s as in a PBuf:
//! frame `j` on its `k`-th lap is at position `k * C + j * F`. `claim` is the
//! end of the frames handed to the kernel (it may write any of them at any
//! moment), raised *before* they are handed over: a reader that copied the
//! record at `p` and then sees `claim - p <= C` knows the kernel has not been
//! given its frame again, the same check as PBuf's. Which frames may be
//! handed back is the group's policy ([`crate::Group::refill`]): under
//! slow-reader preference, only frames every attached reader has passed.

use crate::error::Error;
use crate::pbuf::{record_len, RECORD_HEADER_LEN};
use crate::pbuf::{PbufHeader, PBUF_HEADER_LEN, PBUF_MAX};
use crate::shm::{Memfd, RwMapping};
use crate::xsk::{RxDesc, Umem};
use std::mem::offset_of;
use std::os::fd::OwnedFd;
use std::sync::atomic::{fence, Ordering};

/// The frame size of a group made with [`crate::CopyMode::Zero`]: AF_XDP's
/// aligned chunks are a power of two from 2048 bytes to a page.
pub const FRAME: u64 = 2048;

/// The writer's side of a frame ring (see the module docs).
#[derive(Debug)]
pub struct FrameRing {
    memfd: Memfd,
    map: RwMapping,
    cap: u64,
    frame: u64,
    /// `W`: the end of the last record published.
    w: u64,
    /// The position of the frame the kernel fills next.
    next: u64,
    /// `claim`: the end of the frames handed to the kernel.
    given: u64,
    packets: u64,
    bytes: u64,
}

impl FrameRing {
    /// A ring of `capacity / frame` frames (`capacity` a power of two from one
    /// page to [`PBUF_MAX`], `frame` a power of two from 2048 to 4096 bytes),
    /// sealed so every other mapping of it is read-only. No frame is the
    /// kernel's yet: [`FrameRing::hand_out`] gives them.
    pub fn create(capacity: u64, frame: u64) -> Result<FrameRing, Error> {
        if !frame.is_power_of_two() || !(2048..=4096).contains(&frame) {
            return Err(Error::invalid(format!(
                "frame of {frame} bytes: a power of two from 2048 to 4096"
            )));
        }
        if !capacity.is_power_of_two() || !(4096.max(frame)..=PBUF_MAX).contains(&capacity) {
            return Err(Error::invalid(format!(
                "frame ring of {capacity} bytes: a power of two from 4096 to {PBUF_MAX}"
            )));
        }
        // Sealed before any client or the kernel sees it: the kernel pins the
        // pages through the writer's own (earlier, writable) mapping, which
        // the future-write seal leaves alone.
        let (memfd, map) = crate::pbuf::create_sealed(c"netsift-umem", "frame ring", capacity)?;
        Ok(FrameRing {
            memfd,
            map,
            cap: capacity,
            frame,
            w: 0,
            next: 0,
            given: 0,
            packets: 0,
            bytes: 0,
        })
    }

    /// The region to register as the UMEM.
    pub fn umem(&self) -> Umem {
        Umem {
            addr: self.map.ptr_at(PBUF_HEADER_LEN),
            len: self.cap,
            frame: self.frame as u32,
        }
    }

    /// A second descriptor of the file, for a client.
    pub fn dup(&self) -> Result<OwnedFd, Error> {
        self.memfd.dup()
    }

    /// `W`, the end of the last record.
    pub fn write_pos(&self) -> u64 {
        self.w
    }

    /// The position of the frame the kernel fills next: where unread data
    /// would start if no reader had any.
    pub fn next_pos(&self) -> u64 {
        self.next
    }

    /// Frames the kernel holds now: handed to it and not yet filled.
    pub fn kernel_frames(&self) -> u64 {
        (self.given - self.next) / self.frame
    }

    /// Hands the kernel every frame not yet its whose last contents lie
    /// below `reclaim` (the least position a reader still needs), in order:
    /// raises `claim` first, then appends each frame's UMEM address to `out`
    /// for the fill ring.
    pub fn hand_out(&mut self, reclaim: u64, out: &mut Vec<u64>) {
        let reclaim = reclaim.min(self.next);
        let limit = reclaim - reclaim % self.frame + self.cap;
        if self.given + self.frame > limit {
            return;
        }
        let start = self.given;
        self.given = limit;
        self.map
            .u64(offset_of!(PbufHeader, claim))
            .store(self.given, Ordering::Relaxed);
        // The claim is visible before the caller's release store of the fill
        // ring's producer lets the kernel write any of these frames.
        fence(Ordering::Release);
        out.extend(
            (start..limit)
                .step_by(self.frame as usize)
                .map(|p| p % self.cap),
        );
    }

    /// The reclaim position of fast-reader preference: half a ring behind
    /// the next frame, so the kernel always holds half the frames (it never
    /// waits for a reader) and the newest half stays with the readers. A
    /// frame handed back the moment it was received would be the kernel's
    /// again before any reader could pass the claim check on it.
    pub fn fast_reclaim(&self) -> u64 {
        self.next.saturating_sub(self.cap / 2)
    }

    /// The kernel filled the next frame: `len` bytes at UMEM address `addr`.
    /// Writes the record header in the headroom before them and publishes the
    /// record; returns its position. An address that is not in the frame the
    /// kernel was to fill next, or leaves no aligned room for the header, is
    /// an error (nothing changes).
    pub fn receive(&mut self, addr: u64, len: u32, wirelen: u32, ts_ns: u64) -> Result<u64, Error> {
        if self.next + self.frame > self.given {
            return Err(Error::invalid(format!(
                "UMEM address {addr}: no frame was handed to the kernel"
            )));
        }
        let frame_at = self.next % self.cap;
        let off = addr.wrapping_sub(frame_at);
        let end = off.checked_add(u64::from(len));
        if addr < frame_at
            || off < RECORD_HEADER_LEN as u64
            || !off.is_multiple_of(8)
            || end.is_none_or(|e| e > self.frame)
        {
            return Err(Error::invalid(format!(
                "UMEM address {addr} ({len} bytes): not in the frame at {frame_at} \
                 after 16 bytes of headroom, 8-aligned"
            )));
        }
        let pos = self.next + off - RECORD_HEADER_LEN as u64;
        let at = PBUF_HEADER_LEN + (pos % self.cap) as usize;
        self.map.u32(at).store(len, Ordering::Relaxed);
        self.map.u32(at + 4).store(wirelen, Ordering::Relaxed);
        self.map.u64(at + 8).store(ts_ns, Ordering::Relaxed);
        self.next += self.frame;
        self.w = pos + record_len(len);
        self.packets += 1;
        self.bytes += RECORD_HEADER_LEN as u64;
        // Publishes the record (the kernel's bytes were ordered before the
        // source saw the RX descriptor; the header's by this store).
        self.map
            .u64(offset_of!(PbufHeader, write))
            .store(self.w, Ordering::Release);
        Ok(pos)
    }

    /// The bytes of the frame `d` names, which the kernel returned through
    /// the RX ring of a socket on this ring's UMEM and the writer has not yet
    /// [`received`](FrameRing::receive): `None` if `d` is of another UMEM,
    /// or not in a frame handed to the kernel and not yet received, after
    /// room for the record header.
    pub fn frame(&self, d: &RxDesc) -> Option<&[u8]> {
        let umem = self.umem();
        if d.umem() != umem.addr.as_ptr() as usize || d.addr() >= self.cap {
            return None;
        }
        let frame_at = d.addr() - d.addr() % self.frame;
        // How far past the next frame to fill it lies, in ring order.
        let ahead = (frame_at + self.cap - self.next % self.cap) % self.cap;
        let off = d.addr() - frame_at;
        let end = off.checked_add(u64::from(d.len()))?;
        if self.next + ahead + self.frame > self.given
            || off < RECORD_HEADER_LEN as u64
            || end > self.frame
        {
            return None;
        }
        // SAFETY: `d.addr() .. + d.len()` lies inside the frame at
        // `frame_at`, inside the mapping (which lives as long as `self`).
        // The kernel published `d` in RX after it finished writing the
        // frame, and writes it again only once the frame goes back through
        // the fill ring; `hand_out` gives only frames at or past `given`,
        // and this one lies before it and not yet received, so it is not
        // handed out again while the slice borrows `self`;
        // the writer stores only in the headroom before `d.addr()`, in
        // `receive`, which needs `&mut self`; clients map it read-only. So
        // nothing writes these bytes while the slice lives.
        Some(unsafe {
            std::slice::from_raw_parts(umem.addr.as_ptr().add(d.addr() as usize), d.len() as usize)
        })
    }

    /// The frame size.
    pub fn frame_size(&self) -> u64 {
        self.frame
    }

    /// Publishes the statistics words.
    pub fn publish_stats(&self) {
        self.map
            .u64(offset_of!(PbufHeader, packets))
            .store(self.packets, Ordering::Relaxed);
        self.map
            .u64(offset_of!(PbufHeader, bytes))
            .store(self.bytes, Ordering::Relaxed);
    }

    /// Packets received, bytes the writer stored for them (record headers
    /// only), and 0 (the kernel, not the writer, drops when no frame is free).
    pub fn stats(&self) -> (u64, u64, u64) {
        (self.packets, self.bytes, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_handed_out_in_order_up_to_a_lap_past_the_reclaim() {
        let mut r = FrameRing::create(8192, 2048).unwrap();
        let mut out = Vec::new();
        r.hand_out(0, &mut out);
        assert_eq!(out, vec![0, 2048, 4096, 6144]);
        out.clear();
        r.hand_out(0, &mut out);
        assert!(out.is_empty(), "all four are the kernel's");
        let p = r.receive(256, 60, 60, 7).unwrap();
        assert_eq!(p, 240);
        r.receive(2048 + 256, 60, 60, 8).unwrap();
        // A reader still needs the first record: nothing comes back.
        r.hand_out(p, &mut out);
        assert!(out.is_empty());
        // Past both: frames 0 and 1 go round again.
        r.hand_out(4096, &mut out);
        assert_eq!(out, vec![0, 2048]);
        assert!(r.receive(256, 60, 60, 9).is_err(), "frame 2 is next, not 0");
        assert!(
            r.receive(4096 + 8, 60, 60, 9).is_err(),
            "no room for the header"
        );
        assert!(
            r.receive(4096 + 256, 2000, 60, 9).is_err(),
            "past the frame"
        );
        assert_eq!(r.receive(4096 + 256, 60, 60, 9).unwrap(), 4096 + 240);
    }

    #[test]
    fn only_a_frame_the_kernel_holds_is_lent() {
        let mut r = FrameRing::create(8192, 2048).unwrap();
        let base = r.umem().addr.as_ptr() as usize;
        let d = |addr, len| RxDesc::made(addr, len, base);
        assert!(r.frame(&d(256, 60)).is_none(), "no frame handed out yet");
        let mut out = Vec::new();
        r.hand_out(0, &mut out);
        assert_eq!(r.frame(&d(256, 60)).map(<[u8]>::len), Some(60));
        assert_eq!(r.frame(&d(6144 + 256, 60)).map(<[u8]>::len), Some(60));
        assert!(r.frame(&d(8, 60)).is_none(), "no room for the header");
        assert!(r.frame(&d(256, 1900)).is_none(), "past the frame");
        assert!(r.frame(&d(8192, 1)).is_none(), "past the UMEM");
        assert!(
            r.frame(&RxDesc::made(256, 60, base + 4096)).is_none(),
            "another UMEM"
        );
        r.receive(256, 60, 60, 1).unwrap();
        assert!(
            r.frame(&d(256, 60)).is_none(),
            "received: the writer's record now"
        );
        assert!(r.frame(&d(2048 + 256, 60)).is_some());
    }

    #[test]
    fn fast_reader_preference_keeps_the_newest_half_from_the_kernel() {
        let mut r = FrameRing::create(8192, 2048).unwrap();
        let mut out = Vec::new();
        r.hand_out(r.fast_reclaim(), &mut out);
        assert_eq!(out.len(), 4);
        for (i, a) in [256u64, 2048 + 256, 4096 + 256, 6144 + 256]
            .iter()
            .enumerate()
        {
            r.receive(*a, 60, 60, i as u64).unwrap();
        }
        // All four received: frames 0 and 1 (the older half) go back,
        // frames 2 and 3 stay readable.
        out.clear();
        r.hand_out(r.fast_reclaim(), &mut out);
        assert_eq!(out, vec![0, 2048]);
        assert_eq!(r.kernel_frames(), 2);
    }
}
