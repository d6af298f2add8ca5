//! A live set of clauses (an OR of pcap expressions, each compiled alone by
//! `netsift_swift`), edited while the capture runs: Swift's update model. An
//! edit is published while the workers filter: each packet sees the set before
//! or after it, never a mix, and nothing is drained or dropped around it
//! (libpcap's `pcap_setfilter` installs a drop-all filter and drains the socket
//! instead).
//!
//! With the filter in the kernel too, edits are ordered so that no packet is
//! lost and none leaks: an added clause (or value) widens the kernel before
//! user space, and a removed one narrows user space before the kernel. The
//! kernel's answer stays a superset of user space's at every moment.

use crate::event::{Event, Events};
use crate::place::KernelClauses;
use crate::{Error, ErrorKind};
use netsift_engine::live::{ClauseId, Reader as LiveReader};
use netsift_isa::PassSet;
use netsift_kernel::placed::PlaceError;
use netsift_pcapc::Target;
use netsift_swift::Swift;
use std::collections::BTreeMap;

/// An edit that cannot be made: said as the control socket says it.
fn edit(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Edit, message)
}

/// The kernel's program could not take an edit.
fn kernel_error(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::with_source(
        ErrorKind::Placement,
        format!("the kernel's program: {e}"),
        e,
    )
}

fn no_clause(n: u64) -> Error {
    edit(format!("no clause {n} (list shows the clauses)"))
}

/// A clause: its id in the live set, its text, and its compiled form (which the
/// kernel's program is generated from).
struct Clause {
    id: ClauseId,
    text: String,
    set: PassSet,
    /// `param` edits since, as typed (`+V`, `-V`).
    edits: Vec<String>,
    /// Whether the kernel's program keeps this clause's operands in its map (from
    /// its first `param` on): only then is `param` a map write there, and only
    /// such a clause pays a lookup per equality.
    in_map: bool,
    /// Its id and compiled form in the live set of frames the kernel took a VLAN
    /// tag out of ([`Clauses::on_interface`]).
    tagged: Option<(ClauseId, PassSet)>,
}

/// A `param` value: its operand width in bytes and the value.
fn param_value(text: &str, widths: &[usize]) -> Result<(usize, u32), Error> {
    if let Ok(a) = text.parse::<std::net::Ipv4Addr>() {
        if !widths.contains(&4) {
            return Err(edit(format!(
                "the clause has no operand set that holds {text}"
            )));
        }
        return Ok((4, u32::from(a)));
    }
    let v = match text.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => text.parse::<u32>(),
    }
    .map_err(|_| edit(format!("'{text}' is neither an IPv4 address nor a number")))?;
    // The narrowest width the clause has that holds the value, ports first.
    let fits = |w: usize| w == 4 || u64::from(v) < 1u64 << (8 * w);
    [2, 1, 4]
        .into_iter()
        .find(|w| widths.contains(w) && fits(*w))
        .map(|w| (w, v))
        .ok_or_else(|| edit(format!("the clause has no operand set that holds {text}")))
}

/// The operand sets `param` edits in clause `n`'s compiled form `set` for the
/// value `text`: the value, and each set's (pass, instruction). The set edited
/// is, in each pass, the last equality of the value's width (pcap's protocol
/// tests come first, the values written in the expression after them), and it
/// must be the same set in every pass.
fn param_sites(set: &PassSet, n: u64, text: &str) -> Result<(u32, Vec<(usize, usize)>), Error> {
    // The operand instructions: (pass, index, width, operands). A masked
    // equality (MEQ: flag and fragment tests) is never the one meant.
    let mut sites: Vec<(usize, usize, usize, Vec<u32>)> = Vec::new();
    for (p, k, insn) in set.operand_sites() {
        let Some((first, size, count, _)) = insn.operand_slots() else {
            continue;
        };
        if first == 2 {
            continue;
        }
        let mut ops: Vec<u32> = (0..count).map(|i| insn.operand(first, size, i)).collect();
        ops.sort_unstable();
        sites.push((p, k, size.bytes() as usize, ops));
    }
    let widths: Vec<usize> = sites.iter().map(|s| s.2).collect();
    let (width, value) = param_value(text, &widths)?;
    sites.retain(|s| s.2 == width);
    sites.reverse();
    let mut seen = std::collections::HashSet::new();
    sites.retain(|s| seen.insert(s.0));
    if sites.iter().any(|s| s.3 != sites[0].3) {
        return Err(edit(format!(
            "clause {n}'s passes end with different sets of {width}-byte values; param edits a clause whose passes share one"
        )));
    }
    Ok((value, sites.into_iter().map(|s| (s.0, s.1)).collect()))
}

/// `add_param` or `del_param` of `value` at `sites` of clause `id` in `swift`'s
/// live set; the instructions as they are after the edit, by (pass, index).
fn edit_operands(
    swift: &mut Swift,
    id: &ClauseId,
    sites: &[(usize, usize)],
    value: u32,
    add: bool,
) -> Result<Vec<(usize, usize, netsift_isa::Instruction)>, Error> {
    let passes = swift
        .writer()
        .clause_passes(id)
        .map_err(|e| edit(e.to_string()))?;
    let writer = swift.writer_mut();
    for &(p, k) in sites {
        let pass = *passes
            .get(p)
            .ok_or_else(|| edit("the clause's passes changed"))?;
        let r = if add {
            writer.add_param(pass, k, value)
        } else {
            writer.del_param(pass, k, value)
        };
        r.map_err(|e| edit(e.to_string()))?;
    }
    Ok(sites
        .iter()
        .filter_map(|&(p, k)| {
            let insn = *swift.writer().instructions(*passes.get(p)?).ok()?.get(k)?;
            Some((p, k, insn))
        })
        .collect())
}

/// The clauses of the live set, by number.
pub struct Clauses {
    swift: Swift,
    by_number: BTreeMap<u64, Clause>,
    next: u64,
    /// `--place kernel`: the clauses also filter under the rings.
    kernel: Option<KernelClauses>,
    /// On a live interface, the targets for received and for sent packets: a
    /// clause that tests the direction is refused.
    directions: Option<(Target, Target)>,
    /// On a live Ethernet interface, the live set that judges the frames the
    /// kernel took a VLAN tag out of, compiled as libpcap's kernel filter reads
    /// them (`Meta::tag_stripped`): what `tcpdump -i` selects.
    tagged: Option<Swift>,
    /// Where a kernel that keeps a removed clause is reported.
    events: Events,
}

impl Clauses {
    /// An empty live set and its reader, capturing live on an interface (with
    /// `kernel`, placed in the kernel too): clauses compile for
    /// `received` packets, and one whose program for `sent` packets differs (it
    /// tests `inbound`, `outbound` or `ifindex`, [`netsift_pcapc::Meta`]) is
    /// refused, as the live set holds one program for both. With `tagged` (a
    /// target whose `Meta::tag_stripped` is set), every clause is also compiled
    /// for it into a second live set, the reader of which judges the frames
    /// the kernel took a VLAN tag out of; a kernel program leaves those frames
    /// to user space.
    pub(crate) fn on_interface(
        (received, sent): (Target, Target),
        tagged: Option<Target>,
        kernel: Option<KernelClauses>,
        events: Events,
    ) -> (Clauses, LiveReader, Option<LiveReader>) {
        let (tagged, tagged_reader) = match tagged.map(Swift::open_for) {
            Some((swift, reader)) => (Some(swift), Some(reader)),
            None => (None, None),
        };
        let (mut c, reader) = Clauses::open(
            Swift::open_for(received),
            kernel,
            Some((received, sent)),
            events,
        );
        c.tagged = tagged;
        (c, reader, tagged_reader)
    }

    /// An empty live set (it accepts nothing) for packets of `target`, filtered
    /// in user space only, and its reader: what a capture without a kernel
    /// program edits, and what a test drives.
    pub fn new(target: Target, events: Events) -> (Clauses, LiveReader) {
        Clauses::open(Swift::open_for(target), None, None, events)
    }

    /// An empty live set (it accepts nothing) on `swift`'s target, and its reader.
    fn open(
        (swift, reader): (Swift, LiveReader),
        kernel: Option<KernelClauses>,
        directions: Option<(Target, Target)>,
        events: Events,
    ) -> (Clauses, LiveReader) {
        let c = Clauses {
            swift,
            by_number: BTreeMap::new(),
            next: 0,
            kernel,
            directions,
            tagged: None,
            events,
        };
        (c, reader)
    }

    /// The kernel's program for the clauses, with `extra` added (as number
    /// `self.next`) and `without` left out.
    fn place(&mut self, extra: Option<&PassSet>, without: Option<u64>) -> Result<(), PlaceError> {
        let Some(k) = &mut self.kernel else {
            return Ok(());
        };
        let next = self.next;
        let sets: Vec<(u64, &PassSet, bool)> = self
            .by_number
            .iter()
            .filter(|(n, _)| Some(**n) != without)
            .map(|(n, c)| (*n, &c.set, c.in_map))
            .chain(extra.map(|s| (next, s, false)))
            .collect();
        k.install(&sets)
    }

    /// Adds `expr` as a clause; its number. The kernel is widened first, so no
    /// packet the new clause accepts is dropped there while user space already
    /// wants it.
    pub fn add(&mut self, expr: &str) -> Result<u64, Error> {
        let expr = expr.trim();
        if expr.is_empty() {
            return Err(edit("add needs an expression (add EXPR)"));
        }
        if let Some((r, t)) = self.directions {
            if crate::filter::directed_sets(expr, r, t).is_ok_and(|(a, b)| a != b) {
                return Err(Error::new(
                    ErrorKind::Filter,
                    "the clause tests the direction of packets (inbound/outbound/ifindex), \
                     which --control does not read yet; -Q in|out picks a direction",
                ));
            }
        }
        let set = self.swift.compile(expr).map_err(Error::filter)?;
        let tagged_set = match &self.tagged {
            // A clause that holds for no tagged frame (`not vlan` read with the
            // tag out) accepts none of them there.
            Some(t) => Some(t.compile(expr).or_else(|e| match e.kind() {
                netsift_swift::ErrorKind::Compile(c)
                    if c.kind() == netsift_pcapc::ErrorKind::RejectsAll =>
                {
                    Ok(netsift_pcapc::reject_all())
                }
                _ => Err(Error::filter(e)),
            })?),
            None => None,
        };
        self.place(Some(&set), None).map_err(kernel_error)?;
        let added = self.swift.writer_mut().add_clause(&set).and_then(|id| {
            let (Some(t), Some(ts)) = (&mut self.tagged, tagged_set) else {
                return Ok((id, None));
            };
            match t.writer_mut().add_clause(&ts) {
                Ok(tid) => Ok((id, Some((tid, ts)))),
                Err(e) => {
                    let _ = self.swift.remove(&id);
                    Err(e)
                }
            }
        });
        let (id, tagged) = match added {
            Ok(ids) => ids,
            Err(e) => {
                // User space refused it: narrow the kernel back (a superset is
                // harmless if that fails too).
                let _ = self.place(None, None);
                return Err(edit(e.to_string()));
            }
        };
        let n = self.next;
        self.next += 1;
        self.by_number.insert(
            n,
            Clause {
                id,
                text: expr.to_string(),
                set,
                edits: Vec::new(),
                in_map: false,
                tagged,
            },
        );
        Ok(n)
    }

    /// Removes clause `n`: from user space first, then from the kernel, so nothing
    /// the clause accepted is written after the reply.
    pub fn del(&mut self, n: u64) -> Result<(), Error> {
        let Some(c) = self.by_number.get(&n) else {
            return Err(no_clause(n));
        };
        self.swift.remove(&c.id).map_err(|e| edit(e.to_string()))?;
        if let (Some(t), Some((tid, _))) = (&mut self.tagged, &c.tagged) {
            t.remove(tid).map_err(|e| edit(e.to_string()))?;
        }
        // In the kernel the clause is switched off in place (one map write); a
        // new program only if that cannot be done. A kernel that stays wider
        // only lets through what user space drops.
        let off = match &self.kernel {
            Some(k) => k.disable(n),
            None => Ok(true),
        };
        if !matches!(off, Ok(true)) {
            if let Err(e) = self.place(None, Some(n)) {
                let error = e.to_string();
                (self.events)(Event::KernelKeepsClause { clause: n, error });
            }
        }
        self.by_number.remove(&n);
        Ok(())
    }

    /// Swift's `add_param` (`add`) or `del_param` on every instruction of
    /// clause `n`'s one operand set of `value`'s width: `value` (an IPv4
    /// address or a number: a port for 2-byte fields, else 1-byte ones) more or
    /// fewer in it, with nothing compiled. The set edited is, in each of the
    /// clause's passes, the last equality of the value's width (pcap's protocol
    /// tests come first, the values written in the expression after them), and
    /// it must be the same set in every pass (as `port 80` has for IPv4 and
    /// IPv6). In the kernel's program it is one map write. An addition widens
    /// the kernel first; a removal narrows user space first.
    pub fn param(&mut self, n: u64, add: bool, value: &str) -> Result<(), Error> {
        let text = value.trim();
        let Some(c) = self.by_number.get(&n) else {
            return Err(no_clause(n));
        };
        let (value, sites) = param_sites(&c.set, n, text)?;
        let tagged_sites = match &c.tagged {
            Some((tid, ts)) => Some((tid.clone(), param_sites(ts, n, text)?.1)),
            None => None,
        };
        // The first `param` of a clause moves its operands into the kernel
        // program's map: one program swap, with the same verdicts.
        if self.kernel.is_some() && !c.in_map {
            let mark = |me: &mut Self, on: bool| {
                if let Some(c) = me.by_number.get_mut(&n) {
                    c.in_map = on;
                }
            };
            mark(self, true);
            if let Err(e) = self.place(None, None) {
                // The program in place still compares in line: no map writes.
                mark(self, false);
                return Err(kernel_error(e));
            }
        }
        let kernel = |k: &Option<KernelClauses>| match k {
            Some(k) => sites
                .iter()
                .try_for_each(|s| k.param(n, s.0, s.1, value, add)),
            None => Ok(()),
        };
        if add {
            match kernel(&self.kernel) {
                // The operand table has no room near the value's home: the
                // program is made again over a new table (a fresh seed, room
                // for the clauses' operands `PARAM_ROOM` times over) and the
                // edit made once more; until the swap the program in place
                // stays as it was, never narrower.
                Err(e) if e.is_full() => {
                    self.place(None, None).map_err(kernel_error)?;
                    kernel(&self.kernel).map_err(kernel_error)?;
                }
                r => r.map_err(kernel_error)?,
            }
        }
        let id = self
            .by_number
            .get(&n)
            .map(|c| c.id.clone())
            .ok_or_else(|| no_clause(n))?;
        let new = edit_operands(&mut self.swift, &id, &sites, value, add)?;
        let new_tagged = match (&mut self.tagged, &tagged_sites) {
            (Some(t), Some((tid, ts))) => Some(edit_operands(t, tid, ts, value, add)?),
            _ => None,
        };
        if !add {
            kernel(&self.kernel).map_err(kernel_error)?;
        }
        // The clause's compiled forms follow, so a program made again holds them.
        let c = self
            .by_number
            .get_mut(&n)
            .ok_or_else(|| edit("the clause went away"))?;
        for (p, k, insn) in new {
            c.set
                .set_insn(p, k, insn)
                .map_err(|e| edit(e.to_string()))?;
        }
        if let (Some((_, ts)), Some(new)) = (&mut c.tagged, new_tagged) {
            for (p, k, insn) in new {
                ts.set_insn(p, k, insn).map_err(|e| edit(e.to_string()))?;
            }
        }
        c.edits
            .push(format!("{}{text}", if add { '+' } else { '-' }));
        Ok(())
    }

    /// One line per clause: its number, a tab, its expression (and `param` edits).
    pub fn list(&self) -> String {
        self.by_number
            .iter()
            .map(|(n, c)| {
                let edits = if c.edits.is_empty() {
                    String::new()
                } else {
                    format!("\t(param {})", c.edits.join(" "))
                };
                format!("{n}\t{}{edits}\n", c.text)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_wire::LinkType;

    #[test]
    fn a_clause_that_tests_the_direction_is_refused_on_an_interface() {
        let t = |outgoing| {
            Target::new(LinkType::EN10MB).meta(netsift_pcapc::Meta {
                outgoing,
                ifindex: 7,
                tag_stripped: false,
            })
        };
        let (mut c, reader, _) =
            Clauses::on_interface((t(false), t(true)), None, None, crate::events::ignore());
        for expr in ["inbound", "udp and outbound", "ifindex 7 and inbound"] {
            let e = c.add(expr).unwrap_err();
            assert!(
                e.to_string().contains("tests the direction of packets"),
                "{expr}: {e}"
            );
            assert_eq!(e.kind(), ErrorKind::Filter);
        }
        // The interface's own index, or both directions, are the same program.
        assert_eq!(c.add("udp and ifindex 7").unwrap(), 0);
        assert_eq!(c.add("inbound or outbound").unwrap(), 1);
        // On the interface, `ifindex 7` holds: the clause is `udp`.
        let mut scratch = netsift_engine::Scratch::new();
        let mut udp = vec![0u8; 42];
        udp[12..14].copy_from_slice(&[8, 0]);
        udp[14] = 0x45;
        udp[23] = 17;
        assert!(reader.matches(&mut scratch, &udp, 42));
    }

    /// A UDP frame to `port` inside an 802.1Q tag, as the ring hands over a
    /// frame whose tag the kernel took out (the tag put back at byte 12).
    fn tagged_udp(port: u16) -> Vec<u8> {
        let mut f = vec![0u8; 46];
        f[12..14].copy_from_slice(&[0x81, 0]);
        f[14..16].copy_from_slice(&5u16.to_be_bytes());
        f[16..18].copy_from_slice(&[8, 0]);
        f[18] = 0x45;
        f[27] = 17;
        f[40..42].copy_from_slice(&port.to_be_bytes());
        f
    }

    #[test]
    fn frames_with_a_tag_taken_out_are_judged_as_libpcaps_kernel_filter_reads_them() {
        let t = |outgoing, tag_stripped| {
            Target::new(LinkType::EN10MB).meta(netsift_pcapc::Meta {
                outgoing,
                ifindex: 7,
                tag_stripped,
            })
        };
        let (mut c, untagged, tagged) = Clauses::on_interface(
            (t(false, false), t(true, false)),
            Some(t(false, true)),
            None,
            crate::events::ignore(),
        );
        let tagged = tagged.expect("a live set for tagged frames");
        let mut s = netsift_engine::Scratch::new();
        let f = tagged_udp(99);
        // `udp` reads the frame without its tag there, as `tcpdump -i` does;
        // as a file holds it (the tag in the data) it is not UDP but VLAN.
        assert_eq!(c.add("udp port 53").unwrap(), 0);
        assert!(!tagged.matches(&mut s, &f, 46));
        c.param(0, true, "99").unwrap();
        assert!(tagged.matches(&mut s, &f, 46));
        assert!(!untagged.matches(&mut s, &f, 46));
        c.param(0, false, "99").unwrap();
        assert!(!tagged.matches(&mut s, &f, 46));
        // The bytes after the addresses are the inner EtherType there.
        assert_eq!(c.add("ether[12:2] = 0x8100").unwrap(), 1);
        assert!(untagged.matches(&mut s, &f, 46));
        assert!(!tagged.matches(&mut s, &f, 46));
        c.del(1).unwrap();
        assert!(!untagged.matches(&mut s, &f, 46));
        assert_eq!(c.add("udp").unwrap(), 2);
        assert!(tagged.matches(&mut s, &f, 46));
        c.del(2).unwrap();
        assert!(!tagged.matches(&mut s, &f, 46));
    }

    #[test]
    fn param_edits_the_values_of_one_clause() {
        let (mut c, reader) = Clauses::new(Target::new(LinkType::EN10MB), crate::events::ignore());
        assert_eq!(c.add("udp port 53").unwrap(), 0);
        let mut s = netsift_engine::Scratch::new();
        let mut f = vec![0u8; 42];
        f[12..14].copy_from_slice(&[8, 0]);
        f[14] = 0x45;
        f[23] = 17;
        f[36..38].copy_from_slice(&99u16.to_be_bytes());
        assert!(!reader.matches(&mut s, &f, 42));
        c.param(0, true, "99").unwrap();
        assert!(reader.matches(&mut s, &f, 42));
        assert_eq!(c.list(), "0\tudp port 53\t(param +99)\n");
        c.param(0, false, "99").unwrap();
        assert!(!reader.matches(&mut s, &f, 42));
        assert_eq!(
            c.param(3, true, "1").unwrap_err().to_string(),
            "no clause 3 (list shows the clauses)"
        );
        assert_eq!(c.param(0, true, "x").unwrap_err().kind(), ErrorKind::Edit);
    }
}
