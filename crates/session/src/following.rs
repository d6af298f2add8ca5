//! A protocol follower as a session runs it, the same way for a file, a ring
//! and several workers: the follower, the kernel's maps kept in step with its
//! live set, and its failed updates counted (and the first few reported).

use crate::config::FollowSpec;
use crate::event::{Event, Events, FOLLOW_FAILURES_REPORTED};
use crate::place::KernelFollow;
use crate::Error;
use netsift_engine::live::Reader as LiveReader;
use netsift_follow::{FollowStats, Follower};
use netsift_pcapc::Target;
use netsift_wire::LinkType;

/// A follower, the kernel filter kept beside its live set, and how many of
/// its filter updates failed.
pub(crate) struct Following {
    follower: Follower,
    kernel: Option<KernelFollow>,
    failed: u64,
    events: Events,
}

/// What a follower did, for the closing statistics.
#[derive(Clone, Debug)]
pub struct FollowReport {
    /// The follower's own counts.
    pub stats: FollowStats,
    /// Filter updates that failed (the flow was lost, not the capture).
    pub failed: u64,
    /// Kernel programs swapped in because the listener table grew (a new
    /// table, a new program, each ring's filter replaced off the packet path).
    pub kernel_swaps: u64,
}

impl Following {
    /// The follower `spec` asks for on link type `lt`, and the live set it edits.
    /// With `tag_out` (a target whose `Meta::tag_stripped` is set), a frame the
    /// kernel took a VLAN tag out of is judged as libpcap's kernel filter reads
    /// it ([`Following::judge`]).
    pub(crate) fn new(
        spec: &FollowSpec,
        (lt, tag_out): (LinkType, Option<Target>),
        events: Events,
    ) -> Result<(Following, LiveReader), Error> {
        if !lt.is_supported() {
            return Err(Error::new(
                crate::ErrorKind::Unsupported,
                format!("link type {lt} is not supported by the filter compiler"),
            ));
        }
        let base = spec.base.as_deref().filter(|b| !b.trim().is_empty());
        let (follower, live) = Follower::new(lt, &spec.protocols, base, spec.mode, spec.config)
            .map_err(|e| {
                Error::new(
                    crate::ErrorKind::Filter,
                    format!("bad filter expression: {e}"),
                )
            })?;
        let mut follower = follower;
        if let Some(t) = tag_out {
            // A base filter that holds for no such frame (`not vlan`) keeps
            // none of them but the followed connections'.
            let set = match netsift_pcapc::compile_for(&spec.base_expression(), t) {
                Ok(set) => set,
                Err(e) if e.kind() == netsift_pcapc::ErrorKind::RejectsAll => {
                    netsift_pcapc::reject_all()
                }
                Err(e) => return Err(Error::filter(e)),
            };
            follower.read_tags_out(set);
        }
        let f = Following {
            follower,
            kernel: None,
            failed: 0,
            events,
        };
        Ok((f, live))
    }

    /// Whether a frame the kernel took a VLAN tag out of is read as libpcap's
    /// kernel filter reads it: then it skips the live set (which reads frames
    /// as a file holds them) and goes to [`Following::judge`], which is exact.
    pub(crate) fn reads_tags_out(&self) -> bool {
        self.follower.reads_tags_out()
    }

    /// Keeps the kernel filter `k` in step with the live set from now on.
    pub(crate) fn set_kernel(&mut self, k: KernelFollow) {
        self.follower.journal();
        self.kernel = Some(k);
    }

    /// How many listener endpoints the live set can hold (the kernel's map is
    /// made as large).
    pub(crate) fn capacity(&self) -> usize {
        self.follower.tracker().endpoint_capacity()
    }

    /// The follower's verdict on a packet the live set accepted, at `ts_ns`:
    /// keep it or not. A failed update (the live set is full) loses that flow,
    /// not the capture: the first few are reported, with `packet` saying which
    /// packet, and the capture goes on with the packet's verdict.
    /// A frame the kernel took a VLAN tag out of (`tag_put_back`) is read as
    /// [`Following::new`]'s `tag_out` says.
    pub(crate) fn judge(
        &mut self,
        (data, tag_put_back): (&[u8], bool),
        wire_len: u32,
        ts_ns: u64,
        packet: Option<u64>,
    ) -> bool {
        let (keep, edits) = if tag_put_back {
            self.follower.judge_tag_out(data, wire_len, ts_ns)
        } else {
            self.follower.judge(data, wire_len, ts_ns)
        };
        if let Err(e) = edits {
            self.fail(packet, e.to_string());
        }
        if let Some(k) = &mut self.kernel {
            // In the order made: a listener goes in before the guess of it goes.
            let errors: Vec<String> = self
                .follower
                .take_changes()
                .into_iter()
                .filter_map(|c| k.apply(c).err())
                .map(|e| format!("the kernel filter: {e}"))
                .collect();
            for e in errors {
                self.fail(packet, e);
            }
        }
        keep
    }

    fn fail(&mut self, packet: Option<u64>, error: String) {
        self.failed += 1;
        if self.failed <= FOLLOW_FAILURES_REPORTED {
            (self.events)(Event::FollowUpdateFailed { packet, error });
        }
    }

    /// What was followed.
    pub(crate) fn report(&self) -> FollowReport {
        FollowReport {
            stats: self.follower.stats(),
            failed: self.failed,
            kernel_swaps: self.kernel.as_ref().map_or(0, KernelFollow::swaps),
        }
    }

    /// The live set's passes, as `-d` shows them.
    pub(crate) fn listing(&self) -> String {
        self.follower.tracker().listing()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_follow::{Mode, Protocol};
    use netsift_pcapc::Meta;
    use netsift_testkit::frames::Frame;

    const SYN: u8 = 0x02;
    const ACK: u8 = 0x10;
    const PSH_ACK: u8 = 0x18;
    const S: [u8; 4] = [10, 0, 0, 1];
    const C: [u8; 4] = [10, 0, 0, 2];

    /// A TCP frame inside `tags` (outermost first), as a capture ring hands
    /// over a frame whose outermost tag the kernel took out: put back at byte 12.
    fn tcp(
        tags: &[u16],
        (src, sport): ([u8; 4], u16),
        (dst, dport): ([u8; 4], u16),
        flags: u8,
        payload: &[u8],
    ) -> Vec<u8> {
        let f = tags.iter().fold(Frame::default(), |f, &v| f.vlan(v));
        f.ipv4(src, dst)
            .tcp(sport, dport, flags)
            .payload(payload)
            .build()
    }

    /// An FTP control connection and a passive data connection it announces,
    /// all inside VLAN 7; then, in VLAN 7 and a second tag, another data SYN.
    fn ftp(tags: &[u16]) -> Vec<Vec<u8>> {
        let (c, s) = ((C, 40000), (S, 21));
        vec![
            tcp(tags, c, s, SYN, b""),
            tcp(tags, s, c, SYN | ACK, b""),
            tcp(tags, c, s, ACK, b""),
            tcp(
                tags,
                s,
                c,
                PSH_ACK,
                b"227 Entering Passive Mode (10,0,0,1,16,1).\r\n",
            ),
            tcp(tags, (C, 40001), (S, 4097), SYN, b""),
            tcp(tags, (C, 40002), (S, 80), SYN, b""),
        ]
    }

    fn follower(base: Option<&str>, tag_out: bool) -> Following {
        let spec = FollowSpec {
            protocols: vec![Protocol::Ftp],
            base: base.map(str::to_string),
            mode: Mode::Passes,
            config: netsift_follow::Config::default(),
        };
        let target = Target::new(LinkType::EN10MB).meta(Meta {
            outgoing: false,
            ifindex: 3,
            tag_stripped: true,
        });
        let lt = (LinkType::EN10MB, tag_out.then_some(target));
        Following::new(&spec, lt, crate::events::ignore())
            .unwrap()
            .0
    }

    /// Each frame judged as one the kernel took its outer tag out of.
    fn kept(f: &mut Following, frames: &[Vec<u8>]) -> Vec<bool> {
        let mut ts = 1_000;
        frames
            .iter()
            .map(|fr| {
                ts += 1_000;
                f.judge((fr, true), fr.len() as u32, ts, None)
            })
            .collect()
    }

    #[test]
    fn tagged_live_frames_are_followed_as_tcpdump_i_reads_them() {
        // Without the tag, the control connection is `tcp port 21`, and its
        // announced data connection is followed; port 80 is neither.
        let mut f = follower(None, true);
        assert!(f.reads_tags_out());
        let want = [true, true, true, true, true, false];
        assert_eq!(kept(&mut f, &ftp(&[7])), want);
        assert_eq!(f.report().stats.announced, 1);
        // As a file holds them, the tag comes first: not TCP, nothing followed.
        let mut f = follower(None, false);
        assert!(!f.reads_tags_out());
        assert_eq!(kept(&mut f, &ftp(&[7])), [false; 6]);
        // `vlan` tests the tag taken out; `not vlan` rejects every such frame,
        // and so nothing is announced.
        let mut f = follower(Some("vlan 7 and tcp port 21"), true);
        assert_eq!(kept(&mut f, &ftp(&[7])), want);
        let mut f = follower(Some("not vlan and tcp port 21"), true);
        assert_eq!(kept(&mut f, &ftp(&[7])), [false; 6]);
        // With a second tag, the frame without its outer one is not IP: neither
        // `tcp port 21` nor a followed connection reads past that tag.
        let mut f = follower(None, true);
        assert_eq!(kept(&mut f, &ftp(&[7, 8])), [false; 6]);
        assert_eq!(f.report().stats.announced, 0);
    }
}
