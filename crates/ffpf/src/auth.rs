//! Authorisation (FFPF §3.4): who may open flows on which sources, under which
//! constraints, with which graph classes, functions and limits, read from a
//! policy file the administrator writes.
//!
//! ```toml
//! default = "deny"          # a peer no rule names is refused ("allow": root's rights)
//!
//! [[rule]]
//! name = "noc"              # named in every refusal it makes
//! users = ["alice", 1001]   # user names or uids
//! groups = ["netops"]       # group names or gids (any of the peer's groups)
//! sources = ["eth0", "veth*"]  # names; a trailing `*` matches a prefix
//! filter = "vlan 10"        # put in front of every filter of theirs
//! snaplen = 1514            # the largest snap length they get
//! buffer = 16777216         # bytes of IBuf a flow may ask for, at most
//! flows = 8                 # flows open at once, per user
//! copy = "zero"             # trusted with the raw ring ("once": not; the default)
//! classes = ["pcap", "fpl"]  # graph flows: classes, functions, limits, and
//! externs = ["hash"]         # requirements ([[rule.require]]): see [`GraphRights`]
//! ```
//!
//! The first rule that names the peer (by uid, or by any of its groups) decides:
//! rules are read top to bottom like a firewall's, so a narrow rule goes before
//! a broad one. Root (uid 0) has every right unless a rule names it.
//!
//! **Zero copy** (`copy = "zero"`) is a right of its own: a zero-copy group's
//! PBuf is the interface's AF_XDP UMEM, which holds every frame the kernel
//! wrote, before any filter, so its clients can read packets the rule's filter
//! excludes. Only a rule that says so grants it, and root when no rule names
//! root; `default = "allow"` does not.
//!
//! **Equal rights, one group.** Peers matched by the same rule have the same
//! rights, so they may share one flow group and its PBuf ([`Rights::group_key`]):
//! a PBuf holds only packets that pass its rule's filter, and a client is sent
//! only its own group's buffers, so no client can map a buffer holding packets
//! its rights exclude. Root's group is apart from every rule's.
//!
//! Names are resolved to ids when the file is read (a name this machine does
//! not know is an error there, with its line and column), so a user renamed
//! later keeps the rights the file gave the uid.

mod graph;

pub use graph::{AnyName, GraphRights, Guard, Requirement, Vocabulary};

use serde::Deserialize;
use std::ffi::CString;
use std::fmt;
use std::ops::Range;
use toml::Spanned;

/// A peer asking for a flow, as the daemon learns it from `SO_PEERCRED` and
/// the user database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peer {
    /// Its user id.
    pub uid: u32,
    /// Its primary and supplementary group ids.
    pub gids: Vec<u32>,
}

impl Peer {
    /// The peer with user id `uid` and primary group `gid` (as `SO_PEERCRED`
    /// gives them), its supplementary groups taken from the user database
    /// (`getgrouplist` for the uid's name), not from the process.
    ///
    /// Why the database and not `/proc/PID/status`: the pid `SO_PEERCRED`
    /// names is the connecting process's at connect time; by the time it is
    /// read that process may have exited and its pid been reused, or the
    /// socket been handed to another process, so what `/proc` says is about a
    /// process the client may choose. The uid is the kernel's and the database
    /// is the administrator's: neither is the client's to influence. The
    /// price: groups a process dropped, or gained with `newgrp`, are not
    /// seen; rights follow the account. A uid with no name in the database
    /// has only `gid`.
    pub fn from_database(uid: u32, gid: u32) -> Peer {
        let mut gids = vec![gid];
        if let Some(name) = name_of_uid(uid) {
            for g in grouplist(&name, gid) {
                if !gids.contains(&g) {
                    gids.push(g);
                }
            }
        }
        Peer { uid, gids }
    }
}

/// The user name of `uid`, from the user database (`getpwuid_r`: the daemon
/// asks from many threads at once, and `getpwuid`'s static result would race).
fn name_of_uid(uid: u32) -> Option<CString> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: an all-zero `passwd` is a valid value for libc to overwrite.
        let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
        let mut out: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: `pw`, `buf` (with its true length) and `out` are valid for
        // the call; libc writes the strings into `buf` only.
        let rc =
            unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 || out.is_null() || pw.pw_name.is_null() {
            return None;
        }
        // SAFETY: `pw_name` points at a NUL-terminated string inside `buf`,
        // which is alive here; it is copied before `buf` goes.
        return Some(unsafe { std::ffi::CStr::from_ptr(pw.pw_name) }.to_owned());
    }
}

/// The groups the group database gives user `name`, `gid` among them.
fn grouplist(name: &CString, gid: u32) -> Vec<u32> {
    let mut n: libc::c_int = 64;
    loop {
        let mut groups = vec![0 as libc::gid_t; n as usize];
        let mut got = n;
        // SAFETY: `name` is NUL-terminated; `groups` has room for `got`
        // entries, and libc writes at most that many, setting `got` to the
        // number it found (or needs).
        let rc = unsafe { libc::getgrouplist(name.as_ptr(), gid, groups.as_mut_ptr(), &mut got) };
        if rc >= 0 {
            groups.truncate(got.max(0) as usize);
            return groups;
        }
        if got <= n || got > 1 << 16 {
            // No growth asked for, or an absurd count: what we have is all.
            return vec![gid];
        }
        n = got;
    }
}

/// What a peer may do, from the rule that matched it (or root's, or the
/// default's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rights {
    /// The rule's name; `None` for root's or the default's rights.
    pub rule: Option<String>,
    /// Sources it may open (`None`: all).
    pub sources: Option<Vec<String>>,
    /// Filter text put in front of every filter of its flows.
    pub filter: Option<String>,
    /// The largest snap length.
    pub snaplen: Option<u32>,
    /// Bytes of IBuf one flow may ask for.
    pub buffer: Option<u64>,
    /// Flows open at once, per user.
    pub flows: Option<u32>,
    /// Trusted with the raw ring: its groups may be zero-copy groups, whose
    /// PBuf holds every frame the kernel received (`copy = "zero"`).
    pub raw_ring: bool,
    /// What its graph flows may hold ([`GraphRights`]).
    pub graph: GraphRights,
}

/// What a flow asks for, checked against [`Rights`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// The source's name.
    pub source: &'a str,
    /// The snap length asked for.
    pub snaplen: u32,
    /// Bytes of IBuf asked for.
    pub buffer: u64,
    /// Flows the peer's user already has open.
    pub open_flows: u32,
}

/// A request refused, with the rule that refused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The rule, or what stood in for one (`default`, when no rule named
    /// the peer).
    pub rule: String,
    /// Why, e.g. `source eth1 is not in [eth0]`.
    pub why: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "refused by rule {}: {}", self.rule, self.why)
    }
}

impl std::error::Error for Refusal {}

/// A policy file that could not be read, at a line and column where known.
#[derive(Debug)]
pub struct PolicyError {
    origin: String,
    at: Option<(usize, usize)>,
    why: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((line, col)) => write!(f, "{}:{line}:{col}: {}", self.origin, self.why),
            None => write!(f, "{}: {}", self.origin, self.why),
        }
    }
}

impl std::error::Error for PolicyError {}

/// A user or group named in the file: a name or a number.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Who {
    Id(u32),
    Name(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRule {
    name: Spanned<String>,
    #[serde(default)]
    users: Vec<Spanned<Who>>,
    #[serde(default)]
    groups: Vec<Spanned<Who>>,
    sources: Option<Vec<Spanned<String>>>,
    filter: Option<Spanned<String>>,
    snaplen: Option<Spanned<u32>>,
    buffer: Option<u64>,
    flows: Option<u32>,
    copy: Option<Spanned<String>>,
    classes: Option<Vec<Spanned<String>>>,
    externs: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    require: Vec<graph::FileRequire>,
    elements: Option<u32>,
    mbuf: Option<u64>,
    user_mbuf: Option<u64>,
    fpl_cost: Option<u64>,
    instances: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    default: Option<Spanned<String>>,
    #[serde(default)]
    rule: Vec<FileRule>,
}

/// One rule, names resolved.
#[derive(Clone, Debug)]
struct Rule {
    uids: Vec<u32>,
    gids: Vec<u32>,
    rights: Rights,
}

/// The administrator's policy: rules in order, and what a peer no rule names
/// gets.
#[derive(Clone, Debug)]
pub struct Policy {
    rules: Vec<Rule>,
    default_allow: bool,
}

/// The name refusals and groups give the file's `default`.
const DEFAULT_RULE: &str = "default";

/// Root's rights, and the default's when it allows: everything.
fn all_rights() -> Rights {
    Rights {
        rule: None,
        sources: None,
        filter: None,
        snaplen: None,
        buffer: None,
        flows: None,
        raw_ring: true,
        graph: GraphRights::default(),
    }
}

/// Line and column (1-based) of byte `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |n| before.len() - n - 1)
        + 1;
    (line, col)
}

/// A user name's uid, from the user database.
fn uid_of(name: &str) -> Option<u32> {
    let c = CString::new(name).ok()?;
    // SAFETY: `c` is a NUL-terminated string that outlives the call; the
    // result points into libc's static storage, read at once and not kept.
    let pw = unsafe { libc::getpwnam(c.as_ptr()) };
    // SAFETY: non-null: a `passwd` libc filled in.
    (!pw.is_null()).then(|| unsafe { (*pw).pw_uid })
}

/// A group name's gid, from the group database.
fn gid_of(name: &str) -> Option<u32> {
    let c = CString::new(name).ok()?;
    // SAFETY: as in `uid_of`.
    let gr = unsafe { libc::getgrnam(c.as_ptr()) };
    // SAFETY: non-null: a `group` libc filled in.
    (!gr.is_null()).then(|| unsafe { (*gr).gr_gid })
}

impl Policy {
    /// Everything allowed, no rule: what the daemon uses without a policy
    /// file (its socket's mode then decides who may connect).
    pub fn allow_all() -> Policy {
        Policy {
            rules: Vec::new(),
            default_allow: true,
        }
    }

    /// Reads a policy file, taking every class, function and filter its
    /// graph rights name as written ([`AnyName`]).
    pub fn load(path: &std::path::Path) -> Result<Policy, PolicyError> {
        Policy::load_with(path, &AnyName)
    }

    /// Reads a policy file, judging the names and filters of its graph
    /// rights by `vocab`.
    pub fn load_with(
        path: &std::path::Path,
        vocab: &dyn Vocabulary,
    ) -> Result<Policy, PolicyError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| PolicyError {
            origin: origin.clone(),
            at: None,
            why: e.to_string(),
        })?;
        Policy::parse_with(&text, &origin, vocab)
    }

    /// Parses policy text; `origin` names it in errors. Names and filters
    /// are taken as written ([`AnyName`]).
    pub fn parse(text: &str, origin: &str) -> Result<Policy, PolicyError> {
        Policy::parse_with(text, origin, &AnyName)
    }

    /// Parses policy text, judging the names and filters of its graph rights
    /// by `vocab`; `origin` names it in errors.
    pub fn parse_with(
        text: &str,
        origin: &str,
        vocab: &dyn Vocabulary,
    ) -> Result<Policy, PolicyError> {
        let err = |span: Option<Range<usize>>, why: String| PolicyError {
            origin: origin.to_string(),
            at: span.map(|s| line_col(text, s.start)),
            why,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            // toml's message holds its own excerpt; keep its first line.
            let why = e.message().lines().next().unwrap_or("").to_string();
            err(e.span(), why)
        })?;
        let default_allow = match &file.default {
            None => false,
            Some(d) => match d.get_ref().as_str() {
                "deny" => false,
                "allow" => true,
                other => {
                    return Err(err(
                        Some(d.span()),
                        format!("default is \"allow\" or \"deny\", not {other:?}"),
                    ))
                }
            },
        };
        let mut rules = Vec::new();
        let mut names = std::collections::HashSet::new();
        for r in file.rule {
            let name = r.name.get_ref().clone();
            if name.is_empty() || !names.insert(name.clone()) {
                return Err(err(
                    Some(r.name.span()),
                    format!("rule name {name:?} is empty or used twice"),
                ));
            }
            if name == DEFAULT_RULE || name == "root" {
                return Err(err(
                    Some(r.name.span()),
                    format!("rule name {name:?} is reserved (refusals and groups use it)"),
                ));
            }
            let ids = |who: &[Spanned<Who>], what: &str, lookup: fn(&str) -> Option<u32>| {
                who.iter()
                    .map(|w| match w.get_ref() {
                        Who::Id(n) => Ok(*n),
                        Who::Name(s) => lookup(s).ok_or_else(|| {
                            err(
                                Some(w.span()),
                                format!("no {what} named {s:?} on this machine"),
                            )
                        }),
                    })
                    .collect::<Result<Vec<u32>, PolicyError>>()
            };
            let uids = ids(&r.users, "user", uid_of)?;
            let gids = ids(&r.groups, "group", gid_of)?;
            if uids.is_empty() && gids.is_empty() {
                return Err(err(
                    Some(r.name.span()),
                    format!("rule {name} names no user and no group"),
                ));
            }
            let sources = match r.sources {
                None => None,
                Some(list) => {
                    let mut out = Vec::new();
                    for s in list {
                        let p = s.get_ref();
                        let stem = p.strip_suffix('*').unwrap_or(p);
                        if stem.contains('*') || (p.is_empty()) {
                            return Err(err(
                                Some(s.span()),
                                format!(
                                    "source pattern {p:?}: a name, or a prefix and one trailing *"
                                ),
                            ));
                        }
                        out.push(p.clone());
                    }
                    Some(out)
                }
            };
            let filter = match r.filter {
                Some(f) if f.get_ref().trim().is_empty() => {
                    return Err(err(Some(f.span()), "an empty filter".to_string()))
                }
                f => f.map(|f| f.into_inner()),
            };
            let snaplen = match r.snaplen {
                Some(s) if *s.get_ref() == 0 => {
                    return Err(err(Some(s.span()), "snaplen 0 keeps nothing".to_string()))
                }
                s => s.map(|s| s.into_inner()),
            };
            let raw_ring = match r.copy {
                None => false,
                Some(c) => match c.get_ref().as_str() {
                    "zero" => true,
                    "once" => false,
                    other => {
                        return Err(err(
                            Some(c.span()),
                            format!("copy is \"zero\" or \"once\", not {other:?}"),
                        ))
                    }
                },
            };
            let graph = graph::FileGraph {
                classes: r.classes,
                externs: r.externs,
                require: r.require,
                elements: r.elements,
                mbuf: r.mbuf,
                user_mbuf: r.user_mbuf,
                fpl_cost: r.fpl_cost,
                instances: r.instances,
            }
            .resolve(vocab)
            .map_err(|(span, why)| err(Some(span), why))?;
            rules.push(Rule {
                uids,
                gids,
                rights: Rights {
                    rule: Some(name),
                    sources,
                    filter,
                    snaplen,
                    buffer: r.buffer,
                    flows: r.flows,
                    raw_ring,
                    graph,
                },
            });
        }
        Ok(Policy {
            rules,
            default_allow,
        })
    }

    /// The rights of `peer`: the first rule naming it, else root's for root,
    /// else the default's.
    pub fn rights(&self, peer: &Peer) -> Result<Rights, Refusal> {
        let named = self
            .rules
            .iter()
            .find(|r| r.uids.contains(&peer.uid) || r.gids.iter().any(|g| peer.gids.contains(g)));
        match named {
            Some(r) => Ok(r.rights.clone()),
            None if peer.uid == 0 => Ok(all_rights()),
            // Every right, as root's, but a group apart from root's: a peer
            // the administrator named nowhere shares no buffer with root.
            // ... and not the raw ring, which only a rule (or root) is given.
            None if self.default_allow => Ok(Rights {
                rule: Some(DEFAULT_RULE.to_string()),
                raw_ring: false,
                ..all_rights()
            }),
            None => Err(Refusal {
                rule: "default".to_string(),
                why: format!(
                    "no rule names uid {} or its groups {:?}, and the default is deny",
                    peer.uid, peer.gids
                ),
            }),
        }
    }
}

/// Whether source name `name` matches pattern `p` (a name, or a prefix and a
/// trailing `*`).
fn source_matches(p: &str, name: &str) -> bool {
    match p.strip_suffix('*') {
        Some(stem) => name.starts_with(stem),
        None => p == name,
    }
}

impl Rights {
    /// Checks a flow's request against these rights.
    pub fn check(&self, req: &Request<'_>) -> Result<(), Refusal> {
        let refuse = |why: String| {
            Err(Refusal {
                rule: self.rule.clone().unwrap_or_else(|| "root".to_string()),
                why,
            })
        };
        if let Some(list) = &self.sources {
            if !list.iter().any(|p| source_matches(p, req.source)) {
                return refuse(format!("source {} is not in {list:?}", req.source));
            }
        }
        if let Some(max) = self.snaplen {
            if req.snaplen > max {
                return refuse(format!("snap length {} is above {max}", req.snaplen));
            }
        }
        if let Some(max) = self.buffer {
            if req.buffer > max {
                return refuse(format!("a buffer of {} bytes is above {max}", req.buffer));
            }
        }
        if let Some(max) = self.flows {
            if req.open_flows >= max {
                return refuse(format!(
                    "{} flows open already, at most {max}",
                    req.open_flows
                ));
            }
        }
        Ok(())
    }

    /// The filter a flow of these rights runs: the rule's in front of the
    /// client's, so the client's can only narrow it. Either may be empty
    /// (accept everything).
    pub fn filter(&self, theirs: &str) -> String {
        match (self.filter.as_deref(), theirs.trim()) {
            (None, t) => t.to_string(),
            (Some(f), "") => f.to_string(),
            (Some(f), t) => format!("({f}) and ({t})"),
        }
    }

    /// Which flow group peers with these rights join on a source: equal
    /// rights, one group. Root's key and the default's (`default = "allow"`)
    /// are apart from every rule's and from each other.
    pub fn group_key(&self) -> String {
        match &self.rule {
            Some(r) => format!("rule:{r}"),
            None => "root".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
default = "deny"

[[rule]]
name = "noc"
users = [1001, 1002]
sources = ["eth0", "veth*"]
filter = "vlan 10"
snaplen = 1514
buffer = 1048576
flows = 2

[[rule]]
name = "researchers"
groups = [2000]
filter = "net 10.1.0.0/16"
"#;

    fn peer(uid: u32, gids: &[u32]) -> Peer {
        Peer {
            uid,
            gids: gids.to_vec(),
        }
    }

    fn req(source: &str) -> Request<'_> {
        Request {
            source,
            snaplen: 1514,
            buffer: 4096,
            open_flows: 0,
        }
    }

    #[test]
    fn the_first_rule_naming_the_peer_decides() {
        let p = Policy::parse(FILE, "policy.toml").unwrap();
        let noc = p.rights(&peer(1001, &[2000])).unwrap();
        assert_eq!(noc.rule.as_deref(), Some("noc"), "listed first, wins");
        let r = p.rights(&peer(1003, &[5, 2000])).unwrap();
        assert_eq!(r.rule.as_deref(), Some("researchers"));
        assert_eq!(r.filter("tcp"), "(net 10.1.0.0/16) and (tcp)");
        assert_eq!(r.filter(""), "net 10.1.0.0/16");
        let refused = p.rights(&peer(1004, &[5])).unwrap_err();
        assert_eq!(refused.rule, "default");
        assert!(refused.to_string().contains("uid 1004"), "{refused}");
        // Root is not named: everything.
        let root = p.rights(&peer(0, &[0])).unwrap();
        assert_eq!(root.group_key(), "root");
        // An allowing default gives every right, in a group of its own.
        let open = Policy::parse("default = \"allow\"\n", "p").unwrap();
        let anyone = open.rights(&peer(1004, &[5])).unwrap();
        assert_eq!(anyone.group_key(), "rule:default");
        assert_eq!(anyone.filter("tcp"), "tcp");
        assert_eq!(open.rights(&peer(0, &[])).unwrap().group_key(), "root");
        assert_eq!(root.filter("udp"), "udp");
    }

    #[test]
    fn each_limit_refuses_by_its_rule() {
        let p = Policy::parse(FILE, "policy.toml").unwrap();
        let r = p.rights(&peer(1002, &[])).unwrap();
        assert!(r.check(&req("eth0")).is_ok());
        assert!(r.check(&req("veth-a")).is_ok());
        let e = r.check(&req("eth1")).unwrap_err();
        assert_eq!(e.rule, "noc");
        assert!(e.why.contains("eth1"), "{e}");
        let e = r
            .check(&Request {
                snaplen: 65535,
                ..req("eth0")
            })
            .unwrap_err();
        assert!(e.why.contains("snap length 65535"), "{e}");
        let e = r
            .check(&Request {
                buffer: 1 << 30,
                ..req("eth0")
            })
            .unwrap_err();
        assert!(e.why.contains("buffer"), "{e}");
        let e = r
            .check(&Request {
                open_flows: 2,
                ..req("eth0")
            })
            .unwrap_err();
        assert!(
            e.to_string().starts_with("refused by rule noc: 2 flows"),
            "{e}"
        );
    }

    #[test]
    fn only_a_rule_that_says_so_or_root_gets_the_raw_ring() {
        let text = "default = \"allow\"\n[[rule]]\nname = \"tap\"\nusers = [7]\ncopy = \"zero\"\n\
                    [[rule]]\nname = \"plain\"\nusers = [8]\ncopy = \"once\"\n";
        let p = Policy::parse(text, "p").unwrap();
        assert!(p.rights(&peer(7, &[])).unwrap().raw_ring);
        assert!(!p.rights(&peer(8, &[])).unwrap().raw_ring);
        assert!(!p.rights(&peer(9, &[])).unwrap().raw_ring, "default allow");
        assert!(p.rights(&peer(0, &[])).unwrap().raw_ring, "root");
        assert!(
            !Policy::parse(FILE, "p")
                .unwrap()
                .rights(&peer(1001, &[]))
                .unwrap()
                .raw_ring
        );
    }

    #[test]
    fn equal_rights_share_a_group_and_others_do_not() {
        let p = Policy::parse(FILE, "policy.toml").unwrap();
        let a = p.rights(&peer(1001, &[])).unwrap();
        let b = p.rights(&peer(1002, &[])).unwrap();
        let c = p.rights(&peer(1003, &[2000])).unwrap();
        assert_eq!(a.group_key(), b.group_key());
        assert_ne!(a.group_key(), c.group_key());
        assert_ne!(a.group_key(), p.rights(&peer(0, &[])).unwrap().group_key());
    }

    #[test]
    fn a_bad_file_says_where() {
        let cases = [
            ("default = \"maybe\"\n", "policy.toml:1:11: default is"),
            (
                "[[rule]]\nname = \"x\"\n",
                "policy.toml:2:8: rule x names no user",
            ),
            (
                "[[rule]]\nname = \"x\"\nusers = [\"no-such-user-here\"]\n",
                "policy.toml:3:10: no user named",
            ),
            (
                "[[rule]]\nname = \"x\"\nusers = [1]\nsources = [\"e*th\"]\n",
                "policy.toml:4:12: source pattern",
            ),
            (
                "[[rule]]\nname = \"x\"\nusers = [1]\ncolour = 1\n",
                "policy.toml:4:1:",
            ),
            ("[[rule]\n", "policy.toml:1:"),
            (
                "[[rule]]\nname = \"x\"\nusers = [1]\n[[rule]]\nname = \"x\"\nusers = [2]\n",
                "policy.toml:5:8: rule name \"x\"",
            ),
            (
                "[[rule]]\nname = \"x\"\nusers = [1]\nsnaplen = 0\n",
                "policy.toml:4:11: snaplen 0",
            ),
            (
                "[[rule]]\nname = \"root\"\nusers = [1]\n",
                "policy.toml:2:8: rule name \"root\" is reserved",
            ),
            (
                "[[rule]]\nname = \"x\"\nusers = [1]\ncopy = \"zero-ish\"\n",
                "policy.toml:4:8: copy is \"zero\" or \"once\"",
            ),
            (
                "[[rule]]\nname = \"x\"\nusers = [1]\ncopy = 0\n",
                "policy.toml:4:8:",
            ),
        ];
        for (text, want) in cases {
            let e = Policy::parse(text, "policy.toml").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    /// Classes `a` and `b` (alias `bee`), function kind `f`, filters
    /// without `!`.
    struct Toy;

    impl Vocabulary for Toy {
        fn class(&self, name: &str) -> Result<String, String> {
            match name {
                "a" => Ok("a".into()),
                "b" | "bee" => Ok("b".into()),
                _ => Err(format!("no class {name:?}")),
            }
        }
        fn external(&self, kind: &str) -> Result<String, String> {
            (kind == "f")
                .then(|| kind.to_string())
                .ok_or_else(|| format!("no function {kind:?}"))
        }
        fn filter(&self, text: &str) -> Result<(), String> {
            if text.contains('!') {
                return Err("a bad filter".into());
            }
            Ok(())
        }
    }

    #[test]
    fn graph_rights_are_judged_by_the_vocabulary_where_written() {
        let head = "[[rule]]\nname = \"x\"\nusers = [1]\n";
        let ok = format!(
            "{head}classes = [\"bee\"]\nexterns = [\"f\"]\nelements = 3\nfpl_cost = 9\n\
             [[rule.require]]\nuses = [\"f\", \"a\"]\nafter = \"net 10\"\n\
             [[rule.require]]\nname = \"two\"\nuses = [\"b\"]\nafter = \"tcp\"\n"
        );
        let g = Policy::parse_with(&ok, "p", &Toy)
            .unwrap()
            .rights(&peer(1, &[]))
            .unwrap()
            .graph;
        assert_eq!(g.classes, Some(vec!["b".to_string()]), "the alias resolved");
        assert_eq!(g.externs, Some(vec!["f".to_string()]));
        assert_eq!((g.elements, g.fpl_cost, g.mbuf), (Some(3), Some(9), None));
        assert_eq!(g.require[0].name, "require 1");
        assert_eq!(g.require[0].uses, ["f", "a"]);
        assert_eq!(g.require[1].name, "two");
        assert_eq!(g.require[1].after, Guard::Filter("tcp".into()));
        let sampled = format!("{head}[[rule.require]]\nuses = [\"f\"]\nafter_class = \"bee\"\n");
        let g = Policy::parse_with(&sampled, "p", &Toy)
            .unwrap()
            .rights(&peer(1, &[]))
            .unwrap()
            .graph;
        assert_eq!(g.require[0].after, Guard::Class("b".into()));
        let cases = [
            ("classes = [\"a\", \"c\"]\n", "p:4:17: no class \"c\""),
            ("externs = [\"g\"]\n", "p:4:12: no function \"g\""),
            (
                "[[rule.require]]\nuses = [\"z\"]\nafter = \"tcp\"\n",
                "p:5:9: \"z\" is neither a class (no class \"z\") nor a function",
            ),
            (
                "[[rule.require]]\nuses = [\"a\"]\nafter = \"tcp !\"\n",
                "p:6:9: after: a bad filter",
            ),
            (
                "[[rule.require]]\nuses = []\nafter = \"tcp\"\n",
                "p:5:8: a requirement uses no class",
            ),
            (
                "[[rule.require]]\nuses = [\"a\"]\n",
                "p:5:8: a requirement needs one of after",
            ),
            (
                "[[rule.require]]\nuses = [\"a\"]\nafter = \"tcp\"\nafter_class = \"a\"\n",
                "p:5:8: a requirement needs one of after",
            ),
            (
                "[[rule.require]]\nuses = [\"a\"]\nafter_class = \"c\"\n",
                "p:6:15: after_class: no class \"c\"",
            ),
        ];
        for (tail, want) in cases {
            let e = Policy::parse_with(&format!("{head}{tail}"), "p", &Toy)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(want), "{tail:?}: {e}");
        }
        // Without a vocabulary every name stands as written.
        assert!(Policy::parse(&format!("{head}classes = [\"c\"]\n"), "p").is_ok());
    }

    #[test]
    fn root_has_its_group_from_the_database() {
        let p = Peer::from_database(0, 0);
        assert_eq!(p.uid, 0);
        assert_eq!(p.gids[0], 0, "{p:?}");
        // A uid with no name has just the group it was given.
        let p = Peer::from_database(4_000_000_000, 77);
        assert_eq!(p.gids, vec![77]);
    }

    #[test]
    fn names_resolve_to_ids() {
        // root and its group exist on every machine this runs on.
        let p = Policy::parse(
            "[[rule]]\nname = \"r\"\nusers = [\"root\"]\ngroups = [\"root\"]\n",
            "p",
        )
        .unwrap();
        assert_eq!(p.rights(&peer(0, &[])).unwrap().rule.as_deref(), Some("r"));
        assert_eq!(
            p.rights(&peer(77, &[0])).unwrap().rule.as_deref(),
            Some("r")
        );
    }
}
