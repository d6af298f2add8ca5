//! The `follow` class: a protocol follower (`netsift_follow`, docs/follow.md)
//! as a graph element, deciding each packet exactly as `netsift --follow
//! PROTOCOL` does with its defaults: the follower's live set (the
//! protocol's control traffic and the listener endpoints it admitted) first,
//! then `Follower::judge`, the exact verdict, which also moves the state on
//! (control connections, announcements, flows, expiry by packet time).
//!
//! Everything docs/follow.md says of the follower holds here, because it is
//! the follower: announcements count only on a tracked control connection,
//! in the protocol's direction, naming the sender; expectations and flows
//! are capped and expire (`netsift_follow::Limits`, `Timers` defaults); the
//! live set's capacity is above those caps. An update the live set cannot
//! take (past those caps) loses that flow, not the packet's verdict, as in
//! netsift's session.

use crate::programs::Packet;
use netsift_engine::live::Reader;
use netsift_engine::Scratch;
use netsift_follow::{Config, Follower, Mode, Protocol};
use netsift_wire::LinkType;

/// A follower with its live set.
pub(crate) struct Follow {
    follower: Follower,
    live: Reader,
    scratch: Scratch,
}

impl Follow {
    /// A follower of `protocol` (`ftp`, `sip` or `rtsp`) on a source of
    /// `linktype`, with `netsift --follow`'s defaults.
    pub(crate) fn new(protocol: &str, linktype: LinkType) -> Result<Follow, String> {
        let protocols = Protocol::parse_list(protocol).map_err(|e| e.to_string())?;
        if !linktype.is_supported() {
            return Err(format!("link type {linktype} has no follower"));
        }
        let (follower, live) =
            Follower::new(linktype, &protocols, None, Mode::Passes, Config::default())
                .map_err(|e| format!("the follower's filter: {e}"))?;
        Ok(Follow {
            follower,
            live,
            scratch: Scratch::new(),
        })
    }

    /// Whether the follower keeps `p`.
    pub(crate) fn judge(&mut self, p: &Packet<'_>) -> bool {
        if !self.live.matches(&mut self.scratch, p.data, p.wirelen) {
            return false;
        }
        self.follower.judge(p.data, p.wirelen, p.ts_ns).0
    }
}
