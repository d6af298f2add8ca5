//! A rule's rights over whole flow definitions (FFPF §3.4: "these policies can
//! only be checked if the entire flow definition is available"): which graph
//! classes and external functions its peers may use, where in a graph some of
//! them may stand, and how large their graphs may be.
//!
//! ```toml
//! [[rule]]
//! name = "research"
//! groups = ["research"]
//! classes = ["pcap", "bpf", "fpl", "sampler", "packetcount"]  # `device` always
//! externs = ["hash", "aho_corasick"]  # kinds FPL's EXTERN may call
//! elements = 16          # elements in one graph flow
//! mbuf = 65536           # MBuf bytes of one graph flow's elements together
//! user_mbuf = 1048576    # ... of all the user's graph flows together
//! fpl_cost = 100000      # worst-case operations of one fpl element
//! instances = 64         # elements of all the user's graph flows together
//!
//! [[rule.require]]
//! name = "scan-inside"   # optional: refusals name it
//! uses = ["aho_corasick", "memmem"]  # classes, or kinds of external function
//! after = "net 10.1.0.0/16"          # a pcap filter
//!
//! [[rule.require]]       # the seeds' example (a)
//! uses = ["memmem"]
//! after_class = "sampler"            # or: an element of a class
//! ```
//!
//! This crate depends on nothing in the workspace, so it does not know the
//! classes, the external functions or pcap's syntax: the caller's
//! [`Vocabulary`] judges each name and filter while the file is read, and a
//! name it refuses is an error with the file's line and column. The daemon
//! decides what a requirement means for a graph (docs/daemon.md, "Graph
//! flows").

use serde::Deserialize;
use toml::Spanned;

/// What the names in a policy file mean: the caller's classes, external
/// functions and filter syntax. Each answers the canonical name, or why it is
/// not one.
pub trait Vocabulary {
    /// The class called `name` (an alias gives the class's own name).
    fn class(&self, name: &str) -> Result<String, String>;
    /// Whether `kind` is a kind of external function (`hash`, or
    /// `aho_corasick` for every `aho_corasick:SET`).
    fn external(&self, kind: &str) -> Result<String, String>;
    /// Whether `text` is a pcap filter.
    fn filter(&self, text: &str) -> Result<(), String>;
}

/// A vocabulary that takes every name and filter as written: for readers of a
/// policy that do not check graph flows.
pub struct AnyName;

impl Vocabulary for AnyName {
    fn class(&self, name: &str) -> Result<String, String> {
        Ok(name.to_string())
    }
    fn external(&self, kind: &str) -> Result<String, String> {
        Ok(kind.to_string())
    }
    fn filter(&self, _: &str) -> Result<(), String> {
        Ok(())
    }
}

/// "An element of one of `uses` stands only downstream of `after`."
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Its name in refusals: the file's, or `require N` (1-based, in the
    /// rule's order).
    pub name: String,
    /// Classes (canonical) and kinds of external function it governs.
    pub uses: Vec<String>,
    /// What every path to them must pass through.
    pub after: Guard,
}

/// What a requirement puts upstream of what it governs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// A `pcap` element whose expression restricts to this one (`after`).
    Filter(String),
    /// An element of this class, canonical (`after_class`).
    Class(String),
}

impl std::fmt::Display for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Guard::Filter(t) => write!(f, "a pcap filter that restricts to {t:?}"),
            Guard::Class(c) => write!(f, "an element of class {c}"),
        }
    }
}

/// What a rule allows graph flows. `None`: no bound.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphRights {
    /// Classes its graphs may use besides `device` (`None`: every class the
    /// peer's privilege allows).
    pub classes: Option<Vec<String>>,
    /// Kinds of external function its FPL may call and its graphs may use as
    /// elements (`None`: all).
    pub externs: Option<Vec<String>>,
    /// Where some classes and functions may stand.
    pub require: Vec<Requirement>,
    /// Elements in one graph flow.
    pub elements: Option<u32>,
    /// MBuf bytes of one graph flow's elements together.
    pub mbuf: Option<u64>,
    /// MBuf bytes of all the user's graph flows together.
    pub user_mbuf: Option<u64>,
    /// Worst-case operations of one FPL element (its checked cost).
    pub fpl_cost: Option<u64>,
    /// Elements of all the user's graph flows together.
    pub instances: Option<u32>,
}

/// A `[[rule.require]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileRequire {
    name: Option<String>,
    uses: Spanned<Vec<Spanned<String>>>,
    after: Option<Spanned<String>>,
    after_class: Option<Spanned<String>>,
}

/// A rule's graph fields as written.
#[derive(Debug, Default)]
pub(super) struct FileGraph {
    pub classes: Option<Vec<Spanned<String>>>,
    pub externs: Option<Vec<Spanned<String>>>,
    pub require: Vec<FileRequire>,
    pub elements: Option<u32>,
    pub mbuf: Option<u64>,
    pub user_mbuf: Option<u64>,
    pub fpl_cost: Option<u64>,
    pub instances: Option<u32>,
}

/// A fault in the file: where (a byte range) and why.
pub(super) type Fault = (std::ops::Range<usize>, String);

/// Each of `names` through `judge`, which says what is wrong with one.
fn names(
    list: &[Spanned<String>],
    judge: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Vec<String>, Fault> {
    list.iter()
        .map(|n| judge(n.get_ref()).map_err(|why| (n.span(), why)))
        .collect()
}

impl FileGraph {
    /// The rights as written, every name and filter judged by `vocab`.
    pub(super) fn resolve(self, vocab: &dyn Vocabulary) -> Result<GraphRights, Fault> {
        let class = |n: &str| vocab.class(n);
        let external = |n: &str| vocab.external(n);
        let either = |n: &str| {
            vocab.class(n).or_else(|c| {
                vocab
                    .external(n)
                    .map_err(|e| format!("{n:?} is neither a class ({c}) nor a function ({e})"))
            })
        };
        let classes = self.classes.map(|l| names(&l, &class)).transpose()?;
        let externs = self.externs.map(|l| names(&l, &external)).transpose()?;
        let mut require = Vec::new();
        for (i, r) in self.require.into_iter().enumerate() {
            if r.uses.get_ref().is_empty() {
                return Err((
                    r.uses.span(),
                    "a requirement uses no class or function".into(),
                ));
            }
            let uses = names(r.uses.get_ref(), &either)?;
            let after = match (r.after, r.after_class) {
                (Some(f), None) => {
                    vocab
                        .filter(f.get_ref())
                        .map_err(|why| (f.span(), format!("after: {why}")))?;
                    Guard::Filter(f.into_inner())
                }
                (None, Some(c)) => Guard::Class(
                    vocab
                        .class(c.get_ref())
                        .map_err(|why| (c.span(), format!("after_class: {why}")))?,
                ),
                _ => {
                    return Err((
                        r.uses.span(),
                        "a requirement needs one of after (a pcap filter) and after_class \
                         (a class)"
                            .into(),
                    ))
                }
            };
            require.push(Requirement {
                name: r.name.unwrap_or_else(|| format!("require {}", i + 1)),
                uses,
                after,
            });
        }
        Ok(GraphRights {
            classes,
            externs,
            require,
            elements: self.elements,
            mbuf: self.mbuf,
            user_mbuf: self.user_mbuf,
            fpl_cost: self.fpl_cost,
            instances: self.instances,
        })
    }
}
