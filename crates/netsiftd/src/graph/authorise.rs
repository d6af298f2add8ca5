//! A graph flow authorised whole against its rule (FFPF §3.4), at `create`,
//! before anything is instantiated: the classes and external functions it
//! uses, where the rule's requirements put some of them, and its size.
//!
//! The rule's own `filter` is already in front of the flow
//! ([`netsift_graph::FlowSpec::behind`]) when this runs: it is an element the
//! administrator put there, so it counts as a guard on every path and is
//! exempt from the rule's classes and limits; refusals number the elements
//! as the client wrote them.
//!
//! - **Classes**: every element but `device` (the rule's `sources` govern
//!   those) must be of a listed class, when the rule lists them.
//! - **Functions**: the external functions an `fpl` element calls are taken
//!   from netsift-fpl's checked program (`Program::externs`), never from its
//!   text; an element of an external function's class (`aho_corasick`) is a
//!   use of that function too. A kind (`aho_corasick`) admits the kind's
//!   every set (`aho_corasick:worms`).
//! - **Requirements** (`uses`, `after` or `after_class`): an element that is
//!   of a class in `uses`, or calls a function of a kind in `uses`, must have
//!   on every path from an element nothing feeds to it a `pcap` element whose
//!   expression restricts to `after`, as [`super::implies`] decides it
//!   (conservatively), or an element of class `after_class`.
//! - **Limits**: elements and MBuf bytes per flow, elements and MBuf bytes of
//!   all the user's graph flows, and each `fpl` element's worst-case cost.
//!
//! A refusal is `denied` (or `limit` for a size) and names the rule, the
//! requirement where one refused, and the element (number, class, byte).

use super::implies::restricts;
use crate::vocabulary::kind;
use netsift_ffpf::auth::{GraphRights, Guard, Requirement, Rights};
use netsift_ffpf::proto::{ErrorCode, Refusal};
use netsift_fpl::externs::{ExternFn, Registry};
use netsift_graph::class::{Role, Value};
use netsift_graph::FlowSpec;
use netsift_pcapc::syntax::ast::Expr;

/// What the user's other graph flows hold: elements and MBuf bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Elements as written (before sharing, which the user does not control).
    pub elements: u64,
    /// MBuf bytes the elements ask for.
    pub mbuf: u64,
}

impl Usage {
    /// What `spec`'s own elements hold (not the rule's guard).
    pub(crate) fn of(spec: &FlowSpec) -> Usage {
        let own = &spec.filters[spec.prefix.min(spec.filters.len())..];
        Usage {
            elements: own.len() as u64,
            mbuf: own.iter().map(|f| u64::from(f.mbuf)).sum(),
        }
    }

    /// What `specs` hold together.
    pub(crate) fn total<'a>(specs: impl Iterator<Item = &'a FlowSpec>) -> Usage {
        specs.map(Usage::of).fold(Usage::default(), Usage::add)
    }

    fn add(self, o: Usage) -> Usage {
        Usage {
            elements: self.elements.saturating_add(o.elements),
            mbuf: self.mbuf.saturating_add(o.mbuf),
        }
    }
}

/// A registry that lends every name a function reading and writing nothing:
/// the flow was checked against the daemon's registry already; this compile
/// only reads which functions the program calls and what it costs.
/// Except the names of the flow's callable filters, which a definition may
/// not share with a registered function.
struct Any<'a>(&'a [netsift_graph::Callable]);

impl Registry for Any<'_> {
    fn lookup(&self, name: &str) -> Option<ExternFn> {
        if self.0.iter().any(|c| c.name == name) {
            return None;
        }
        Some(ExternFn::new(name, 0, 0, |_| 0))
    }
}

/// What the policy needs to know of one element.
struct Facts {
    class: &'static str,
    role: Role,
    /// The kinds of the functions an `fpl` element calls, and its cost.
    calls: Vec<String>,
    cost: u64,
    /// A `pcap` element's expression, parsed once for every requirement.
    tree: Option<Expr>,
}

/// `text` as a tree, if it parses and is shallow enough to walk on this
/// thread's stack (as netsift-pcapc compiles such text on the caller's):
/// deeper text restricts to nothing here, which only ever refuses.
fn tree(text: &str) -> Option<Expr> {
    if netsift_pcapc::syntax::nesting_bound(text) > netsift_pcapc::syntax::SHALLOW {
        return None;
    }
    netsift_pcapc::syntax::parse(text).ok().flatten()
}

fn facts(spec: &FlowSpec, i: usize) -> Result<Facts, String> {
    let f = &spec.filters[i];
    let (mut calls, mut cost, mut parsed) = (Vec::new(), 0, None);
    if let ("pcap", Some(Value::Text(text))) = (f.class.name, f.args.first()) {
        parsed = tree(text);
    }
    if f.class.name == "fpl" {
        let Some(Value::Text(text)) = f.args.first() else {
            return Err("an fpl element without its program".into());
        };
        // With the flow's callable filters: what they call counts as the
        // element's call, and their cost is in the element's.
        let p = super::calls::program(text, f.mbuf, &f.calls, &Any(&f.calls))?;
        externs_of(&p, &mut calls);
        cost = p.cost();
    }
    Ok(Facts {
        class: f.class.name,
        role: f.class.role,
        calls,
        cost,
        tree: parsed,
    })
}

/// Into `out`, the external functions `p` and the filters it calls call
/// (a filter is a callee of at most 8 levels: `Options::max_call_depth`).
fn externs_of(p: &netsift_fpl::Program, out: &mut Vec<String>) {
    for x in p.externs() {
        if !out.iter().any(|n| n == x.name()) {
            out.push(x.name().to_string());
        }
    }
    for c in p.filters() {
        externs_of(&c.program, out);
    }
}

/// Refusals of one flow under one rule.
struct Judge<'a> {
    verb: &'a str,
    rule: String,
    spec: &'a FlowSpec,
}

impl Judge<'_> {
    /// Element `i` as the client numbers it, with its class and byte.
    fn element(&self, i: usize) -> String {
        let e = &self.spec.flow.elements[i];
        format!(
            "element {} ({}) at byte {}",
            i + 1 - self.spec.prefix,
            self.spec.filters[i].class.name,
            e.span.start
        )
    }

    fn refuse(&self, code: ErrorCode, why: String) -> Refusal {
        Refusal::new(
            code,
            format!(
                "`{}`: graph: refused by rule {}: {why}",
                self.verb, self.rule
            ),
        )
    }
}

/// Graph flow `spec` as its user's rights let it run: behind the rule's
/// filter, if it has one, and checked against the rule ([`authorise`]).
pub(crate) fn admit(
    verb: &str,
    spec: FlowSpec,
    rights: &Rights,
    others: Usage,
) -> Result<FlowSpec, Refusal> {
    let spec = match &rights.filter {
        Some(f) => spec.behind(f),
        None => spec,
    };
    authorise(verb, &spec, rights, others)?;
    Ok(spec)
}

/// Checks graph flow `spec` (behind its rule's filter, if any) against the
/// rights of its user, whose other graph flows hold `others`; `verb` names
/// the request in refusals.
pub(crate) fn authorise(
    verb: &str,
    spec: &FlowSpec,
    rights: &Rights,
    others: Usage,
) -> Result<(), Refusal> {
    let g = &rights.graph;
    let judge = Judge {
        verb,
        rule: rights.rule.clone().unwrap_or_else(|| "root".into()),
        spec,
    };
    let own = spec.prefix..spec.filters.len();
    let mut all = Vec::with_capacity(spec.filters.len());
    for i in 0..spec.filters.len() {
        let f = facts(spec, i).map_err(|m| {
            Refusal::new(
                ErrorCode::Filter,
                format!("`{verb}`: graph: {}: {m}", judge.element(i)),
            )
        })?;
        all.push(f);
    }
    limits(&judge, g, others, &all[own.clone()], own.start)?;
    for i in own {
        uses(&judge, g, &all[i], i)?;
    }
    for r in &g.require {
        require(&judge, r, &all)?;
    }
    Ok(())
}

/// The rule's classes and functions, for element `i`.
fn uses(judge: &Judge<'_>, g: &GraphRights, f: &Facts, i: usize) -> Result<(), Refusal> {
    if let Some(list) = &g.classes {
        if f.class != "device" && !list.iter().any(|c| c == f.class) {
            return Err(judge.refuse(
                ErrorCode::Denied,
                format!(
                    "{}: class {} is not in its classes {list:?}",
                    judge.element(i),
                    f.class
                ),
            ));
        }
    }
    if let Some(list) = &g.externs {
        let own = (f.role == Role::External).then_some(f.class);
        let used = own.into_iter().chain(f.calls.iter().map(String::as_str));
        for name in used {
            if !list.iter().any(|k| k == kind(name)) {
                return Err(judge.refuse(
                    ErrorCode::Denied,
                    format!(
                        "{}: the external function {name} is not in its externs {list:?}",
                        judge.element(i)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The rule's sizes, for the client's elements `own` (the first at index
/// `first`).
fn limits(
    judge: &Judge<'_>,
    g: &GraphRights,
    others: Usage,
    own: &[Facts],
    first: usize,
) -> Result<(), Refusal> {
    let this = Usage::of(judge.spec);
    let total = this.add(others);
    let over = |what: String| Err(judge.refuse(ErrorCode::Limit, what));
    if let Some(max) = g.elements {
        if this.elements > u64::from(max) {
            return over(format!("{} elements, at most {max}", this.elements));
        }
    }
    if let Some(max) = g.mbuf {
        if this.mbuf > max {
            return over(format!("{} bytes of MBuf, at most {max}", this.mbuf));
        }
    }
    if let Some(max) = g.instances {
        if total.elements > u64::from(max) {
            return over(format!(
                "{} elements with the user's other graph flows' {}, at most {max}",
                this.elements, others.elements
            ));
        }
    }
    if let Some(max) = g.user_mbuf {
        if total.mbuf > max {
            return over(format!(
                "{} bytes of MBuf with the user's other graph flows' {}, at most {max}",
                this.mbuf, others.mbuf
            ));
        }
    }
    if let Some(max) = g.fpl_cost {
        for (n, f) in own.iter().enumerate() {
            if f.class == "fpl" && f.cost > max {
                return over(format!(
                    "{}: a worst case of {} operations, at most {max}",
                    judge.element(first + n),
                    f.cost
                ));
            }
        }
    }
    Ok(())
}

/// Requirement `r` over the whole flow (`all`: every element's facts, the
/// rule's guard included).
fn require(judge: &Judge<'_>, r: &Requirement, all: &[Facts]) -> Result<(), Refusal> {
    let spec = judge.spec;
    // What of element `f` the requirement governs: its class, or a
    // function it calls.
    let governed = |f: &Facts| -> Option<String> {
        r.uses.iter().find_map(|u| {
            if u == f.class {
                return Some(format!("is of class {u}"));
            }
            let call = f.calls.iter().find(|c| kind(c) == u)?;
            Some(format!("calls the external function {call}"))
        })
    };
    // Each element is judged once, not once per path through it.
    let guard: Vec<bool> = match &r.after {
        // Checked when the file was read; one that does not parse here
        // guards nothing.
        Guard::Filter(text) => {
            let after = tree(text);
            all.iter()
                .map(|f| match (&after, &f.tree) {
                    (Some(after), Some(e)) => restricts(e, after),
                    _ => false,
                })
                .collect()
        }
        Guard::Class(c) => all.iter().map(|f| f.class == c).collect(),
    };
    for (i, f) in all.iter().enumerate().skip(spec.prefix) {
        let Some(what) = governed(f) else {
            continue;
        };
        let Some(path) = spec.flow.unguarded_path(i, |u| guard[u]) else {
            continue;
        };
        let shown: Vec<String> = path
            .iter()
            .filter(|&&p| p >= spec.prefix)
            .map(|p| (p + 1 - spec.prefix).to_string())
            .collect();
        return Err(judge.refuse(
            ErrorCode::Denied,
            format!(
                "requirement {}: {} {what}, which may stand only downstream of {}; the path {} \
                 has none",
                r.name,
                judge.element(i),
                r.after,
                shown.join(" -> ")
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::Names;
    use netsift_ffpf::auth::{Peer, Policy};
    use netsift_graph::{Limits, Privilege};

    /// The rights of uid 7 under a rule `x` with `body`.
    fn rights(body: &str) -> Rights {
        let text = format!("[[rule]]\nname = \"x\"\nusers = [7]\n{body}");
        Policy::parse_with(&text, "p", &Names)
            .unwrap()
            .rights(&Peer {
                uid: 7,
                gids: vec![],
            })
            .unwrap()
    }

    /// `text` checked under `body`, behind the rule's filter if it has one;
    /// the refusal's text, or `ok`.
    fn judged(body: &str, text: &str, others: Usage) -> String {
        let r = rights(body);
        let spec = FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap();
        match admit("create", spec, &r, others) {
            Ok(_) => "ok".into(),
            Err(e) => format!("{}: {}", e.code, e.what),
        }
    }

    fn ok(body: &str, text: &str) {
        assert_eq!(
            judged(body, text, Usage::default()),
            "ok",
            "{body} / {text}"
        );
    }

    fn refused(body: &str, text: &str, want: &[&str]) {
        let got = judged(body, text, Usage::default());
        for w in want {
            assert!(got.contains(w), "{body} / {text}: {got} lacks {w}");
        }
    }

    #[test]
    fn classes_a_rule_lists() {
        let body = "classes = [\"pcap\", \"sampler\"]\n";
        ok(body, "(device,e) -> (pcap,\"tcp\") -> (sampler,2,4)");
        refused(
            body,
            "(device,e) -> (pcap,\"tcp\") -> (packetcount)",
            &[
                "denied: `create`: graph: refused by rule x: element 3 (packetcount) at byte 30: \
                 class packetcount is not in its classes",
            ],
        );
        // An alias is its class.
        ok("classes = [\"FPL-2\"]\n", "(fpl2,\"RETURN 1;\")");
    }

    const HASH: &str = "(fpl,\"R[0] = EXTERN(hash, 0, 24); RETURN 1;\",32)";
    const SUMS: &str = "(fpl,\"RETURN EXTERN(checksums_ok, 0, 0);\")";

    #[test]
    fn functions_a_rule_lists_from_the_checked_program() {
        let body = "externs = [\"hash\"]\n";
        ok(body, HASH);
        ok(body, "(fpl,\"// EXTERN(checksums_ok, 0, 0)\nRETURN 1;\")");
        refused(
            body,
            &format!("(device,e) -> {SUMS}"),
            &["element 2 (fpl) at byte 14: the external function checksums_ok is not in"],
        );
        // An element of a function's class is a use of the function.
        refused(
            body,
            "(topn,8)",
            &["element 1 (topn)", "function topn is not"],
        );
        ok("externs = [\"topn\"]\n", "(topn,8)");
    }

    const SCAN: &str = "externs = [\"hash\"]\n[[rule.require]]\nname = \"inside\"\n\
                        uses = [\"hash\", \"sampler\"]\nafter = \"net 10.1.0.0/16\"\n";

    #[test]
    fn a_requirement_holds_on_every_path() {
        ok(
            SCAN,
            &format!("(device,e) -> (pcap,\"tcp and net 10.1.0.0/16\") -> {HASH}"),
        );
        ok(
            SCAN,
            "(device,e) -> (pcap,\"net 10.1.0.0/16\") -> (pcap,\"tcp\") -> (sampler,2,4)",
        );
        refused(
            SCAN,
            &format!("(device,e) -> (pcap,\"tcp or net 10.1.0.0/16\") -> {HASH}"),
            &[
                "denied: `create`: graph: refused by rule x: requirement inside: element 3 \
                 (fpl) at byte 49 calls the external function hash, which may stand only \
                 downstream of a pcap filter that restricts to \"net 10.1.0.0/16\"; the path \
                 1 -> 2 -> 3 has none",
            ],
        );
        // Two parallel paths into the sampler, one of them unguarded.
        refused(
            SCAN,
            "(device,e) -> (pcap,\"net 10.1.0.0/16\") | (pcap,\"udp\") -> (sampler,2,4)",
            &[
                "element 4 (sampler)",
                "is of class sampler",
                "the path 1 -> 3 -> 4 has none",
            ],
        );
        ok(
            SCAN,
            "(device,e) -> (pcap,\"net 10.1.0.0/16\") | (pcap,\"net 10.1.0.0/16 and udp\") \
             -> (sampler,2,4)",
        );
        refused(
            SCAN,
            "(sampler,2,4)",
            &["element 1 (sampler)", "the path 1 has none"],
        );
        // Text too deep to compare here restricts to nothing (and does not
        // overflow the stack).
        let deep = format!("{}net 10.1.0.0/16{}", "(".repeat(150), ")".repeat(150));
        refused(
            SCAN,
            &format!("(device,e) -> (pcap,\"{deep}\") -> (sampler,2,4)"),
            &["element 3 (sampler)", "the path 1 -> 2 -> 3 has none"],
        );
        let shallow = format!("{}net 10.1.0.0/16{}", "(".repeat(90), ")".repeat(90));
        ok(
            SCAN,
            &format!("(device,e) -> (pcap,\"{shallow}\") -> (sampler,2,4)"),
        );
        // A function not called is not governed.
        ok(SCAN, "(device,e) -> (fpl,\"RETURN 1;\")");
    }

    #[test]
    fn a_requirement_of_a_class_upstream() {
        // The seeds' example (a): a scan only if preceded by a sampler.
        let body = "[[rule.require]]\nuses = [\"hash\"]\nafter_class = \"sampler\"\n";
        ok(body, &format!("(device,e) -> (sampler,10,4) -> {HASH}"));
        ok(
            body,
            &format!("(device,e) -> (sampler,10,4) -> (pcap,\"udp\") -> {HASH}"),
        );
        refused(
            body,
            &format!("(device,e) -> (sampler,10,4) | (pcap,\"udp\") -> {HASH}"),
            &[
                "requirement require 1: element 4 (fpl) at byte 47 calls the external function \
                 hash, which may stand only downstream of an element of class sampler; the path \
                 1 -> 3 -> 4 has none",
            ],
        );
    }

    #[test]
    fn the_rules_filter_guards_every_path_and_is_the_administrators() {
        let body = format!("filter = \"net 10.1.0.0/16\"\nclasses = [\"sampler\"]\n{SCAN}");
        ok(&body, "(device,e) -> (sampler,2,4)");
        ok(&body, "(sampler,2,4)");
        let other = format!("filter = \"tcp\"\n{SCAN}");
        refused(
            &other,
            "(device,e) -> (sampler,2,4)",
            &["element 2 (sampler)", "path 1 -> 2 "],
        );
    }

    #[test]
    fn limits_per_flow_and_per_user() {
        let two = "(device,e) -> (sampler,2,4)";
        ok("elements = 2\n", two);
        refused(
            "elements = 1\n",
            two,
            &["limit:", "rule x: 2 elements, at most 1"],
        );
        ok("mbuf = 4\n", two);
        refused("mbuf = 3\n", two, &["limit:", "4 bytes of MBuf, at most 3"]);
        let held = Usage {
            elements: 5,
            mbuf: 100,
        };
        assert_eq!(judged("instances = 7\n", two, held), "ok");
        let got = judged("instances = 6\n", two, held);
        assert!(
            got.contains("2 elements with the user's other graph flows' 5, at most 6"),
            "{got}"
        );
        assert_eq!(judged("user_mbuf = 104\n", two, held), "ok");
        let got = judged("user_mbuf = 103\n", two, held);
        assert!(
            got.contains("limit:") && got.contains("4 bytes of MBuf with"),
            "{got}"
        );
        // The rule's filter is not the user's to pay for.
        ok("filter = \"tcp\"\nelements = 2\n", two);
        let cost = "(fpl,\"FOR (R[0] = 0; R[0] < 100; R[0]++) R[1]++; ROF RETURN 1;\")";
        refused(
            "fpl_cost = 50\n",
            cost,
            &["element 1 (fpl) at byte 0: a worst case of"],
        );
        ok("fpl_cost = 100000\n", cost);
    }

    #[test]
    fn a_policy_names_only_what_the_daemon_knows() {
        let head = "[[rule]]\nname = \"x\"\nusers = [7]\n";
        let cases = [
            (
                "classes = [\"pcap\", \"pacp\"]\n",
                "p:4:20: no class \"pacp\"; the classes are",
            ),
            (
                "externs = [\"hsah\"]\n",
                "p:4:12: no external function of kind \"hsah\"",
            ),
            (
                "[[rule.require]]\nuses = [\"fpl\"]\nafter = \"net 10.1.0.0/\"\n",
                "p:6:9: after: filter \"net 10.1.0.0/\":",
            ),
            (
                "[[rule.require]]\nuses = [\"scan\"]\nafter = \"tcp\"\n",
                "p:5:9: \"scan\" is neither a class",
            ),
            (
                "[[rule.require]]\nuses = [\"fpl\"]\nafter = \" \"\n",
                "p:6:9: after: an empty filter",
            ),
        ];
        let deep = format!(
            "{head}[[rule.require]]\nuses = [\"fpl\"]\nafter = \"{}tcp\"\n",
            "not ".repeat(101)
        );
        let e = Policy::parse_with(&deep, "p", &Names)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("p:6:9: after: filter") && e.contains("nests 101 deep"),
            "{e}"
        );
        for (tail, want) in cases {
            let e = Policy::parse_with(&format!("{head}{tail}"), "p", &Names)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(want), "{tail:?}: {e}");
        }
        // Kinds: the registry's, a set's kind, an external class's.
        let r = rights(
            "externs = [\"hash\", \"aho_corasick\", \"dynport\", \"GetDynTCPDPortFromFTP\"]\n",
        );
        assert_eq!(r.graph.externs.unwrap().len(), 4);
    }
}
