//! The one filter mode of every source and every number of workers: a static
//! pass set, a live set edited from outside, or a live set a follower edits;
//! and the one keep loop that turns a batch of packets into a mask of those kept.

use crate::following::Following;
use crate::Error;
use crate::SplitSets;
use netsift_capture::Frame;
use netsift_engine::live::Reader as LiveReader;
use netsift_engine::{BatchScratch, Compiled, Scratch};
use netsift_isa::PassSet;
use netsift_kernel::codegen::DECISIVE_LEN;
use netsift_pcapc::Target;
use std::sync::{Arc, Mutex, MutexGuard};

/// Packets per batch: the engine's batch width, and the width of a keep mask.
pub const BATCH: usize = netsift_engine::LANES;

/// What decides which packets are kept. Cloned into each worker: the static
/// filter is shared read-only, the live sets are readers of one writer.
#[derive(Clone)]
pub(crate) enum Mode {
    /// A compiled expression (`None`: every packet).
    Static(Option<Arc<StaticFilter>>),
    /// A live set that one follower edits as packets are read. Each worker
    /// feeds it the packets it accepts, in its ring's order, under the lock.
    Follow(LiveReader, Arc<Mutex<Following>>),
    /// A live set edited from outside ([`crate::Clauses`]), and on a live
    /// Ethernet interface the one for frames the kernel took a VLAN tag out of.
    Edited(LiveReader, Option<LiveReader>),
}

/// The follower behind its lock; a worker that panicked while holding it
/// leaves it usable (a follower's state is valid between calls).
pub(crate) fn lock(f: &Mutex<Following>) -> MutexGuard<'_, Following> {
    f.lock().unwrap_or_else(|e| e.into_inner())
}

/// The scratch space one thread filters with.
#[derive(Default)]
pub(crate) struct Scratches {
    batch: BatchScratch,
    one: Scratch,
}

impl Scratches {
    pub(crate) fn new() -> Scratches {
        Scratches {
            batch: BatchScratch::new(),
            one: Scratch::new(),
        }
    }

    /// The batch engine's scratch.
    pub(crate) fn batch(&mut self) -> &mut BatchScratch {
        &mut self.batch
    }

    /// The one-packet engine's scratch.
    pub(crate) fn one(&mut self) -> &mut Scratch {
        &mut self.one
    }
}

/// The bits of the first `n` packets of a batch.
#[inline]
pub(crate) fn first(n: usize) -> u32 {
    u32::MAX >> (32 - n)
}

/// Calls `f` with each packet whose bit is set in `keep`, in order, at most
/// `room` of them (a count); returns how many it called `f` with. One loop
/// over the set bits: which packets a filter accepts is unpredictable, and a
/// branch per packet on it costs a misprediction on about every other one.
#[inline]
pub(crate) fn for_each_kept<E>(
    mut keep: u32,
    room: u64,
    mut f: impl FnMut(usize) -> Result<(), E>,
) -> (u64, Result<(), E>) {
    let mut taken = 0;
    while keep != 0 && taken < room {
        let i = keep.trailing_zeros() as usize;
        keep &= keep - 1;
        taken += 1;
        if let Err(e) = f(i) {
            return (taken, Err(e));
        }
    }
    (taken, Ok(()))
}

impl Mode {
    /// The verdicts on up to [`BATCH`] ring frames, as a mask: at most `room`
    /// are kept where a live set decides packet by packet (a static filter's
    /// mask is cut by the caller).
    #[inline]
    pub(crate) fn keep_frames(&self, s: &mut Scratches, chunk: &[Frame<'_>], room: u64) -> u32 {
        let keep = match self {
            Mode::Static(None) => u32::MAX,
            Mode::Static(Some(f)) => f.keep_frames(&mut s.batch, chunk),
            Mode::Follow(live, following) => {
                let tag_out = if lock(following).reads_tags_out() {
                    TagOut::Judged
                } else {
                    TagOut::AsFile
                };
                live_frames((live, tag_out), &mut s.one, chunk, room, |fr| {
                    let data = (fr.data, fr.tag_put_back);
                    lock(following).judge(data, fr.wire_len, frame_ns(fr), None)
                })
            }
            Mode::Edited(live, tagged) => {
                let tag_out = tagged.as_ref().map_or(TagOut::AsFile, TagOut::Set);
                live_frames((live, tag_out), &mut s.one, chunk, room, |_| true)
            }
        };
        keep & first(chunk.len())
    }
}

/// A static filter: one program, or one for each thing the socket says of a
/// frame that the expression tests (its direction, `inbound`; whether the
/// kernel took a VLAN tag out of it, [`netsift_pcapc::Meta`]).
pub(crate) struct StaticFilter {
    /// The distinct programs; the first judges received frames with no tag
    /// taken out, and every frame where it is the only one.
    programs: Vec<Compiled>,
    /// The program of a frame, by `[outgoing][tag_put_back]`.
    pick: [[usize; 2]; 2],
    /// The program under the ring gives the engine's answer on every frame up
    /// to [`DECISIVE_LEN`] bytes.
    kernel_decides: bool,
}

impl StaticFilter {
    /// One program for every frame.
    pub(crate) fn new(set: PassSet) -> Self {
        StaticFilter {
            programs: vec![Compiled::new(set)],
            pick: [[0; 2]; 2],
            kernel_decides: false,
        }
    }

    /// A program for each `[outgoing][tag_put_back]`, equal ones kept once.
    pub(crate) fn split(sets: SplitSets, kernel_decides: bool) -> Self {
        let mut distinct: Vec<PassSet> = Vec::new();
        let mut pick = [[0; 2]; 2];
        for (d, by_tag) in sets.into_iter().enumerate() {
            for (t, set) in by_tag.into_iter().enumerate() {
                pick[d][t] = match distinct.iter().position(|s| *s == set) {
                    Some(i) => i,
                    None => {
                        distinct.push(set);
                        distinct.len() - 1
                    }
                };
            }
        }
        StaticFilter {
            programs: distinct.into_iter().map(Compiled::new).collect(),
            pick,
            kernel_decides,
        }
    }

    /// The batch engine's verdicts on packets `data` (`wire` bytes long on the
    /// wire), read where they lie, by the first program.
    #[inline]
    pub(crate) fn keep(&self, scratch: &mut BatchScratch, data: &[&[u8]], wire: &[u32]) -> u32 {
        self.programs[0].filter_batch(scratch, data, wire)
    }

    /// The verdicts on up to [`BATCH`] ring frames, each frame by its own
    /// program. A chunk of frames the kernel program decided is kept whole; a
    /// chunk with a longer frame is filtered again.
    #[inline]
    fn keep_frames(&self, scratch: &mut BatchScratch, chunk: &[Frame<'_>]) -> u32 {
        if self.kernel_decides && chunk.iter().all(|fr| fr.wire_len <= DECISIVE_LEN) {
            return u32::MAX;
        }
        let mut data: [&[u8]; BATCH] = [&[]; BATCH];
        let mut wire = [0u32; BATCH];
        for (i, fr) in chunk.iter().enumerate() {
            data[i] = fr.data;
            wire[i] = fr.wire_len;
        }
        let (data, wire) = (&data[..chunk.len()], &wire[..chunk.len()]);
        if self.programs.len() == 1 {
            return self.keep(scratch, data, wire);
        }
        // Each program judges the whole chunk once if any frame is its own.
        let mut whose = [0u32; 4];
        for (i, fr) in chunk.iter().enumerate() {
            whose[self.pick[usize::from(fr.outgoing)][usize::from(fr.tag_put_back)]] |= 1 << i;
        }
        self.programs
            .iter()
            .zip(whose)
            .filter(|(_, mine)| *mine != 0)
            .fold(0, |keep, (p, mine)| {
                keep | (p.filter_batch(scratch, data, wire) & mine)
            })
    }
}

/// Where [`live_frames`] judges a frame the kernel took a VLAN tag out of.
#[derive(Clone, Copy)]
enum TagOut<'a> {
    /// By the live set, as a capture file holds the frame.
    AsFile,
    /// By a second live set, compiled as libpcap's kernel filter reads it.
    Set(&'a LiveReader),
    /// By the judge alone, which reads it as libpcap's kernel filter does
    /// (the follower's judgment is exact; its live set only narrows).
    Judged,
}

/// The live set's verdicts on up to [`BATCH`] frames, packet by packet: each
/// frame the live set accepts goes to `judge` (the follower, which may change
/// the filter) before the next is filtered, and is kept only if `judge` says
/// so: the live set narrows to listener endpoints, the follower decides exactly
/// (docs/follow.md). At most `room` frames are kept. A frame the kernel took a
/// VLAN tag out of is judged as `tag_out` says.
fn live_frames(
    (live, tag_out): (&LiveReader, TagOut<'_>),
    scratch: &mut Scratch,
    chunk: &[Frame<'_>],
    room: u64,
    mut judge: impl FnMut(&Frame<'_>) -> bool,
) -> u32 {
    let mut keep = 0u32;
    for (i, fr) in chunk.iter().enumerate() {
        if u64::from(keep.count_ones()) >= room {
            break;
        }
        let passed = match tag_out {
            TagOut::Set(t) if fr.tag_put_back => t.matches(scratch, fr.data, fr.wire_len),
            TagOut::Judged if fr.tag_put_back => true,
            _ => live.matches(scratch, fr.data, fr.wire_len),
        };
        if passed && judge(fr) {
            keep |= 1 << i;
        }
    }
    keep
}

/// A frame's time stamp in nanoseconds, as the follower's timers count.
#[inline]
pub(crate) fn frame_ns(fr: &Frame<'_>) -> u64 {
    u64::from(fr.sec) * 1_000_000_000 + u64::from(fr.nsec)
}

/// `expr` compiled for `target`.
pub fn compile(expr: &str, target: Target) -> Result<PassSet, Error> {
    netsift_pcapc::compile_for(expr, target).map_err(Error::filter)
}

/// `expr` compiled for received and for sent packets on a live interface. A
/// direction for which it rejects every packet (`inbound` for sent ones) gets a
/// program that accepts none; refused only if it rejects every packet both ways,
/// as libpcap's optimiser then proves of its kernel program (`inbound and
/// outbound`).
pub fn directed_sets(
    expr: &str,
    received: Target,
    sent: Target,
) -> Result<(PassSet, PassSet), Error> {
    let [r, s] = compile_each(expr, [received, sent])?;
    Ok((r, s))
}

/// `expr` compiled for each of `targets`, which differ in what a live socket
/// says of packets ([`netsift_pcapc::Meta`]). A target for which the filter
/// rejects every packet gets a program that accepts nothing; only a filter that
/// rejects everything for every target is refused.
pub fn compile_each<const N: usize>(
    expr: &str,
    targets: [Target; N],
) -> Result<[PassSet; N], Error> {
    use netsift_pcapc::ErrorKind::RejectsAll;
    let sets = targets.map(|t| netsift_pcapc::compile_for(expr, t));
    if let Some(Err(e)) = sets
        .iter()
        .find(|r| r.as_ref().is_err_and(|e| e.kind() != RejectsAll))
    {
        return Err(Error::filter(e.clone()));
    }
    if let Some(Err(e)) = sets.iter().find(|_| sets.iter().all(|r| r.is_err())) {
        return Err(Error::filter(e.clone()));
    }
    Ok(sets.map(|r| r.unwrap_or_else(|_| netsift_pcapc::reject_all())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_packets_come_in_order_until_told_to_stop() {
        let mut seen = Vec::new();
        let (n, r) = for_each_kept::<()>(0b1011_0100, 3, |i| {
            seen.push(i);
            Ok(())
        });
        assert_eq!((n, r, &seen[..]), (3, Ok(()), &[2, 4, 5][..]));
        let (n, r) = for_each_kept(0b110, 9, |i| if i == 1 { Err(i) } else { Ok(()) });
        assert_eq!((n, r), (1, Err(1)));
        assert_eq!(first(1), 1);
        assert_eq!(first(32), u32::MAX);
    }
}
