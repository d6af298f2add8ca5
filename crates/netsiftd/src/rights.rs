//! Authorisation: which class of access rights a connected peer has, and
//! what it may do. Flows of one source with equal rights share a flow group,
//! and so can read each other's packets in its PBuf (FFPF §2: a group is a
//! set of clients with the same rights); the daemon never puts two classes in
//! one group.
//!
//! With a policy file (`--policy`, [`netsift_ffpf::auth`]) the class is the
//! rule that admitted the peer: peers of one rule share groups, and every
//! flow's filter has the rule's in front of it. Without one, the socket's
//! mode decides who may connect, everyone who connects has every right, and
//! each user id is a class of its own, so two users never share a group.
//!
//! Zero copy is a right of its own ([`copy_mode`]): a rule's `copy =
//! "zero"`, or root's rights; without a policy file, root only.

use netsift_ffpf::auth::{Peer, Policy, Refusal};
use netsift_ffpf::seqpacket::PeerCred;
use netsift_ffpf::CopyMode;

/// A class of access rights, the key of a source's flow groups: flows of one
/// source and one class share a group (and see each other's packets in its
/// PBuf).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// No policy file: one class per user id.
    Uid(u32),
    /// Under a policy file: the admitting rule's
    /// [`group_key`](netsift_ffpf::auth::Rights::group_key).
    Rule(String),
}

/// What a connected peer may do, and the class its flows' groups are keyed
/// by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rights {
    /// Its class.
    pub class: Class,
    /// What it may do: sources, filter, snap length, buffer, flows.
    pub grant: netsift_ffpf::auth::Rights,
}

/// The rights of a connected peer under `policy` (`None`: no policy file).
///
/// Under a policy the peer's groups are its primary group from `SO_PEERCRED`
/// and the user database's supplementary groups for its uid
/// ([`Peer::from_database`] says why not `/proc/PID/status`). A peer no rule
/// admits gets the refusal, naming the rule (`default`).
pub fn rights(policy: Option<&Policy>, peer: &PeerCred) -> Result<Rights, Refusal> {
    match policy {
        None => {
            let grant = Policy::allow_all().rights(&Peer {
                uid: peer.uid,
                gids: vec![peer.gid],
            })?;
            Ok(Rights {
                class: Class::Uid(peer.uid),
                grant,
            })
        }
        Some(p) => {
            let grant = p.rights(&Peer::from_database(peer.uid, peer.gid))?;
            Ok(Rights {
                class: Class::Rule(grant.group_key()),
                grant,
            })
        }
    }
}

/// How the group of `rights` stores packets on a source, given the daemon's
/// `--copy` (`interface`: the source is an interface, not a file).
///
/// Zero copy (NIC-FIX §4.3) hands a group's clients the interface's UMEM,
/// every frame the kernel wrote into it before any filter ran, so it is the
/// policy's to grant per group (`copy = "zero"` in a rule, or root's rights
/// when no rule names root), never a flag's for all. Under `--copy zero` an
/// interface serves only groups granted it: any other is refused, naming the
/// rule (or, without a policy file, saying only root is trusted). A file has
/// no kernel ring: its groups copy once.
pub fn copy_mode(rights: &Rights, flag: CopyMode, interface: bool) -> Result<CopyMode, String> {
    match (flag, interface) {
        (CopyMode::Zero, false) => Ok(CopyMode::Once),
        (CopyMode::Zero, true) if rights.grant.raw_ring => Ok(CopyMode::Zero),
        (CopyMode::Zero, true) => Err(match (&rights.class, &rights.grant.rule) {
            (Class::Uid(uid), _) => format!(
                "zero copy: without a policy file only root is trusted with the raw \
                 ring, not uid {uid} (grant it with copy = \"zero\" in a --policy rule)"
            ),
            (Class::Rule(_), rule) => format!(
                "zero copy refused by rule {}: it does not grant copy = \"zero\" (a \
                 zero-copy group's clients read every frame the interface received)",
                rule.as_deref().unwrap_or("default")
            ),
        }),
        (other, _) => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cred(uid: u32) -> PeerCred {
        PeerCred {
            pid: 1,
            uid,
            gid: uid,
        }
    }

    #[test]
    fn without_a_policy_each_uid_is_a_class_with_every_right() {
        let a = rights(None, &cred(1000)).unwrap();
        let b = rights(None, &cred(1001)).unwrap();
        assert_ne!(a.class, b.class);
        assert_eq!(a.class, rights(None, &cred(1000)).unwrap().class);
        assert_eq!(a.grant.filter("tcp"), "tcp");
        assert_eq!(a.grant.sources, None);
        let e = copy_mode(&a, CopyMode::Zero, true).unwrap_err();
        assert!(e.contains("only root") && e.contains("uid 1000"), "{e}");
        let root = rights(None, &cred(0)).unwrap();
        assert_eq!(copy_mode(&root, CopyMode::Zero, true), Ok(CopyMode::Zero));
    }

    #[test]
    fn under_a_policy_the_rule_is_the_class() {
        let p = Policy::parse(
            "[[rule]]\nname = \"noc\"\nusers = [4000000001, 4000000002]\nfilter = \"udp\"\n",
            "p",
        )
        .unwrap();
        let a = rights(Some(&p), &cred(4_000_000_001)).unwrap();
        let b = rights(Some(&p), &cred(4_000_000_002)).unwrap();
        assert_eq!(a.class, Class::Rule("rule:noc".into()));
        assert_eq!(a.class, b.class);
        assert_eq!(a.grant.filter("port 53"), "(udp) and (port 53)");
        let e = rights(Some(&p), &cred(4_000_000_003)).unwrap_err();
        assert_eq!(e.rule, "default");
        // Zero copy is the rule's to grant: noc's rule does not.
        let e = copy_mode(&a, CopyMode::Zero, true).unwrap_err();
        assert!(e.contains("rule noc"), "{e}");
        assert_eq!(copy_mode(&a, CopyMode::Zero, false), Ok(CopyMode::Once));
        assert_eq!(
            copy_mode(&a, CopyMode::PerFlow, true),
            Ok(CopyMode::PerFlow)
        );
        // Root, not named, is apart.
        assert_eq!(
            rights(Some(&p), &cred(0)).unwrap().class,
            Class::Rule("root".into())
        );
    }
}
