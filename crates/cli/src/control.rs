//! `--control PATH`: the running capture's filter, edited through a Unix socket.
//!
//! The filter is a live set of clauses (an OR of pcap expressions, each compiled
//! alone by `netsift_swift`). An edit is published while the workers filter: each
//! packet sees the set before or after it, never a mix, and nothing is drained or
//! dropped around it (libpcap's `pcap_setfilter` installs a drop-all filter and
//! drains the socket instead).
//!
//! The protocol is lines of text, one command per line, so that `socat` or `nc -U`
//! is a client. Every reply ends with a line starting `ok` or `error:`; lines
//! before it are the answer (`list`) or the detail of an error (the caret under
//! a bad expression).
//!
//! - `add EXPR`: adds a clause; replies `ok N`, N its number.
//! - `del N`: removes clause N; replies `ok`.
//! - `list`: one line `N<TAB>EXPR` per clause, then `ok`.
//! - `param N +VALUE` / `param N -VALUE`: Swift's `add_param`/`del_param` on
//!   clause N: one more (or one fewer) value in its operand set, an IPv4 address
//!   or a number (a port: 2-byte fields, else 1-byte ones), so `host A` also
//!   matches host B, or `port 80` also port 443, without compiling anything. The
//!   set edited is, in each of the clause's passes, the last equality of the
//!   value's width (pcap's protocol tests come first, the values written in the
//!   expression after them), and it must be the same set in every pass (as
//!   `port 80` has for IPv4 and IPv6). With `--place kernel` it
//!   is one map write in the kernel's program too. `list` still shows the text
//!   the clause was added with, followed by its edits.
//!
//! The socket is made with mode 0600: who may edit the capture is who may open it.
//! A client that dies, sends garbage or a line over [`MAX_LINE`] bytes costs only
//! its own connection; at most [`MAX_CLIENTS`] are served at once.

use crate::place::KernelClauses;
use anyhow::{bail, Context, Result};
use netsift_engine::live::{ClauseId, Reader as LiveReader};
use netsift_isa::PassSet;
use netsift_pcapc::Target;
use netsift_swift::Swift;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest command line a client may send.
pub const MAX_LINE: usize = 64 * 1024;
/// Clients served at once; more wait to be accepted.
pub const MAX_CLIENTS: usize = 16;

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
}

/// A `param` value: its operand width in bytes and the value.
fn param_value(text: &str, widths: &[usize]) -> Result<(usize, u32), String> {
    if let Ok(a) = text.parse::<std::net::Ipv4Addr>() {
        if !widths.contains(&4) {
            return Err(format!("the clause has no operand set that holds {text}"));
        }
        return Ok((4, u32::from(a)));
    }
    let v = match text.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => text.parse::<u32>(),
    }
    .map_err(|_| format!("'{text}' is neither an IPv4 address nor a number"))?;
    // The narrowest width the clause has that holds the value, ports first.
    let fits = |w: usize| w == 4 || u64::from(v) < 1u64 << (8 * w);
    [2, 1, 4]
        .into_iter()
        .find(|w| widths.contains(w) && fits(*w))
        .map(|w| (w, v))
        .ok_or_else(|| format!("the clause has no operand set that holds {text}"))
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
}

impl Clauses {
    /// An empty live set and its reader, capturing live on an interface (with
    /// `kernel`, placed in the kernel too): clauses compile for
    /// `received` packets, and one whose program for `sent` packets differs (it
    /// tests `inbound`, `outbound` or `ifindex`, [`netsift_pcapc::Meta`]) is
    /// refused, as the live set holds one program for both.
    pub fn on_interface(
        received: Target,
        sent: Target,
        kernel: Option<KernelClauses>,
    ) -> (Clauses, LiveReader) {
        Clauses::open(Swift::open_for(received), kernel, Some((received, sent)))
    }

    /// An empty live set (it accepts nothing) on `swift`'s target, and its reader.
    fn open(
        (swift, reader): (Swift, LiveReader),
        kernel: Option<KernelClauses>,
        directions: Option<(Target, Target)>,
    ) -> (Clauses, LiveReader) {
        let c = Clauses {
            swift,
            by_number: BTreeMap::new(),
            next: 0,
            kernel,
            directions,
        };
        (c, reader)
    }

    /// The kernel's program for the clauses, with `extra` added (as number
    /// `self.next`) and `without` left out.
    fn place(&mut self, extra: Option<&PassSet>, without: Option<u64>) -> Result<(), String> {
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
        k.install(&sets).map_err(|e| e.to_string())
    }

    /// Adds `expr` as a clause; its number. The kernel is widened first, so no
    /// packet the new clause accepts is dropped there while user space already
    /// wants it.
    pub fn add(&mut self, expr: &str) -> Result<u64, String> {
        let expr = expr.trim();
        if expr.is_empty() {
            return Err("add needs an expression (add EXPR)".into());
        }
        if let Some((r, t)) = self.directions {
            if crate::filter::directed_sets(expr, r, t).is_ok_and(|(a, b)| a != b) {
                return Err(
                    "the clause tests the direction of packets (inbound/outbound/ifindex), \
                     which --control does not read yet; -Q in|out picks a direction"
                        .into(),
                );
            }
        }
        let set = self
            .swift
            .compile(expr)
            .map_err(|e| format!("bad filter expression: {e}"))?;
        self.place(Some(&set), None)
            .map_err(|e| format!("the kernel's program: {e}"))?;
        let id = match self.swift.writer_mut().add_clause(&set) {
            Ok(id) => id,
            Err(e) => {
                // User space refused it: narrow the kernel back (a superset is
                // harmless if that fails too).
                let _ = self.place(None, None);
                return Err(e.to_string());
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
            },
        );
        Ok(n)
    }

    /// Removes clause `n`: from user space first, then from the kernel, so nothing
    /// the clause accepted is written after the reply.
    pub fn del(&mut self, n: u64) -> Result<(), String> {
        let Some(c) = self.by_number.get(&n) else {
            return Err(format!("no clause {n} (list shows the clauses)"));
        };
        self.swift.remove(&c.id).map_err(|e| e.to_string())?;
        // In the kernel the clause is switched off in place (one map write); a
        // new program only if that cannot be done. A kernel that stays wider
        // only lets through what user space drops.
        let off = match &self.kernel {
            Some(k) => k.disable(n),
            None => Ok(true),
        };
        if !matches!(off, Ok(true)) {
            if let Err(e) = self.place(None, Some(n)) {
                eprintln!("netsift: the kernel keeps clause {n} after all: {e}");
            }
        }
        self.by_number.remove(&n);
        Ok(())
    }

    /// `param N +V` / `param N -V`: Swift's `add_param`/`del_param` on every
    /// instruction of clause `n`'s one operand set of `V`'s width. An addition
    /// widens the kernel first; a removal narrows user space first.
    pub fn param(&mut self, args: &str) -> Result<(), String> {
        let usage = "param needs a clause number and +VALUE or -VALUE";
        let (n, edit) = args.trim().split_once(char::is_whitespace).ok_or(usage)?;
        let n: u64 = n.parse().map_err(|_| usage.to_string())?;
        let edit = edit.trim();
        let (add, text) = match edit.split_at_checked(1) {
            Some(("+", v)) => (true, v.trim()),
            Some(("-", v)) => (false, v.trim()),
            _ => return Err(usage.into()),
        };
        let Some(c) = self.by_number.get(&n) else {
            return Err(format!("no clause {n} (list shows the clauses)"));
        };
        // The operand instructions: (pass, index, width, operands). A masked
        // equality (MEQ: flag and fragment tests) is never the one meant.
        let mut sites: Vec<(usize, usize, usize, Vec<u32>)> = Vec::new();
        for (p, k, insn) in c.set.operand_sites() {
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
        // In each pass, the last operand set of that width: pcap's protocol tests
        // come first, the values written in the expression after them.
        sites.retain(|s| s.2 == width);
        sites.reverse();
        let mut seen = std::collections::HashSet::new();
        sites.retain(|s| seen.insert(s.0));
        if sites.iter().any(|s| s.3 != sites[0].3) {
            return Err(format!(
                "clause {n}'s passes end with different sets of {width}-byte values; param edits a clause whose passes share one"
            ));
        }
        let passes = self
            .swift
            .writer()
            .clause_passes(&c.id)
            .map_err(|e| e.to_string())?;
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
                return Err(format!("the kernel's program: {e}"));
            }
        }
        let kernel = |k: &Option<KernelClauses>| -> Result<(), String> {
            match k {
                Some(k) => sites
                    .iter()
                    .try_for_each(|s| k.param(n, s.0, s.1, value, add))
                    .map_err(|e| format!("the kernel's program: {e}")),
                None => Ok(()),
            }
        };
        if add {
            kernel(&self.kernel)?;
        }
        let writer = self.swift.writer_mut();
        for s in &sites {
            let id = *passes.get(s.0).ok_or("the clause's passes changed")?;
            let r = if add {
                writer.add_param(id, s.1, value)
            } else {
                writer.del_param(id, s.1, value)
            };
            r.map_err(|e| e.to_string())?;
        }
        if !add {
            kernel(&self.kernel)?;
        }
        // The clause's compiled form follows, so a program made again holds it.
        let new: Vec<(usize, usize, netsift_isa::Instruction)> = sites
            .iter()
            .filter_map(|s| {
                let id = passes.get(s.0)?;
                let insn = *self.swift.writer().instructions(*id).ok()?.get(s.1)?;
                Some((s.0, s.1, insn))
            })
            .collect();
        let c = self.by_number.get_mut(&n).ok_or("the clause went away")?;
        for (p, k, insn) in new {
            c.set.set_insn(p, k, insn).map_err(|e| e.to_string())?;
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

    /// The reply to one command line.
    pub fn command(&mut self, line: &str) -> String {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let status = match word {
            "add" => self.add(rest).map(|n| format!("ok {n}")),
            "del" => match rest.trim().parse::<u64>() {
                Ok(n) => self.del(n).map(|()| "ok".to_string()),
                Err(_) => Err(format!("del needs a clause number, not '{}'", rest.trim())),
            },
            "list" if rest.trim().is_empty() => return format!("{}ok\n", self.list()),
            "param" => self.param(rest).map(|()| "ok".to_string()),
            "" => Err("empty command (add EXPR, del N, list, param N +V|-V)".into()),
            w => Err(format!(
                "unknown command '{w}' (add EXPR, del N, list, param N +V|-V)"
            )),
        };
        match status {
            Ok(s) => format!("{s}\n"),
            // The first line is the message; a caret line follows it in the
            // detail, which goes before the status line.
            Err(e) => {
                let mut lines = e.lines();
                let first = lines.next().unwrap_or_default().to_string();
                let detail: String = lines.map(|l| format!("{l}\n")).collect();
                format!("{detail}error: {first}\n")
            }
        }
    }
}

/// The socket, served on a thread until the capture stops; removed when dropped.
pub struct Control {
    path: PathBuf,
    thread: Option<std::thread::JoinHandle<()>>,
    stop: Arc<AtomicBool>,
}

impl Control {
    /// Listens on `path` and serves `clauses` there until dropped.
    pub fn start(path: &Path, clauses: Clauses) -> Result<Control> {
        prepare(path)?;
        let listener =
            UnixListener::bind(path).with_context(|| format!("--control {}", path.display()))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("--control {}", path.display()))?;
        listener
            .set_nonblocking(true)
            .context("--control: a non-blocking socket")?;
        let stop = Arc::new(AtomicBool::new(false));
        let state = Arc::new(Mutex::new(clauses));
        let s = stop.clone();
        let thread = std::thread::Builder::new()
            .name("netsift-control".into())
            .spawn(move || serve(listener, state, s))
            .context("starting the control thread")?;
        Ok(Control {
            path: path.to_path_buf(),
            thread: Some(thread),
            stop,
        })
    }
}

impl Drop for Control {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Clears the way for a socket at `path`: a stale socket (nothing listens on it)
/// is removed; anything else there is an error.
fn prepare(path: &Path) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() {
        bail!(
            "--control {}: the path exists and is not a socket",
            path.display()
        );
    }
    if UnixStream::connect(path).is_ok() {
        bail!(
            "--control {}: another process is listening on it",
            path.display()
        );
    }
    std::fs::remove_file(path).with_context(|| format!("--control {}", path.display()))
}

/// Accepts clients until `stop`, each on its own thread, at most [`MAX_CLIENTS`].
fn serve(listener: UnixListener, state: Arc<Mutex<Clauses>>, stop: Arc<AtomicBool>) {
    let busy = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        if busy.load(Ordering::Relaxed) >= MAX_CLIENTS {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        match listener.accept() {
            Ok((stream, _)) => {
                busy.fetch_add(1, Ordering::Relaxed);
                let (st, b, s) = (state.clone(), busy.clone(), stop.clone());
                let spawned = std::thread::Builder::new()
                    .name("netsift-control-client".into())
                    .spawn(move || {
                        client(stream, &st, &s);
                        b.fetch_sub(1, Ordering::Relaxed);
                    });
                if spawned.is_err() {
                    busy.fetch_sub(1, Ordering::Relaxed);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Serves one client: a reply per command line, until it closes, errs, sends a
/// line too long, or the capture stops.
fn client(stream: UnixStream, state: &Mutex<Clauses>, stop: &AtomicBool) {
    // A read timeout lets the thread see `stop` while a client idles.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut input = BufReader::new(stream);
    let mut line = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let room = (MAX_LINE + 1 - line.len()) as u64;
        match (&mut input).take(room).read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) if line.ends_with(b"\n") => {}
            Ok(_) if line.len() > MAX_LINE => {
                let _ = writeln!(out, "error: a command line is at most {MAX_LINE} bytes");
                return;
            }
            // Part of a line so far: wait for the rest.
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(_) => return,
        }
        let reply = match std::str::from_utf8(&line) {
            Ok(text) => state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .command(text),
            Err(_) => "error: the command is not UTF-8 text\n".to_string(),
        };
        line.clear();
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_wire::LinkType;

    #[test]
    fn a_clause_that_tests_the_direction_is_refused_on_an_interface() {
        let t = |outgoing| Target {
            linktype: LinkType::EN10MB,
            savefile_swapped: None,
            meta: Some(netsift_pcapc::Meta {
                outgoing,
                ifindex: 7,
            }),
        };
        let (mut c, reader) = Clauses::on_interface(t(false), t(true), None);
        for expr in ["inbound", "udp and outbound", "ifindex 7 and inbound"] {
            let r = c.command(&format!("add {expr}"));
            assert!(r.contains("tests the direction of packets"), "{expr}: {r}");
        }
        // The interface's own index, or both directions, are the same program.
        assert_eq!(c.command("add udp and ifindex 7"), "ok 0\n");
        assert_eq!(c.command("add inbound or outbound"), "ok 1\n");
        // On the interface, `ifindex 7` holds: the clause is `udp`.
        let mut scratch = netsift_engine::Scratch::new();
        let mut udp = vec![0u8; 42];
        udp[12..14].copy_from_slice(&[8, 0]);
        udp[14] = 0x45;
        udp[23] = 17;
        assert!(reader.matches(&mut scratch, &udp, 42));
    }

    #[test]
    fn commands_edit_the_clauses_and_errors_say_what() {
        let (mut c, reader) = Clauses::open(Swift::open(LinkType::EN10MB), None, None);
        assert_eq!(c.command("add udp port 53"), "ok 0\n");
        assert_eq!(c.command("add  tcp port 80 \n"), "ok 1\n");
        assert_eq!(c.command("list"), "0\tudp port 53\n1\ttcp port 80\nok\n");
        assert_eq!(c.command("del 0"), "ok\n");
        assert_eq!(
            c.command("del 0"),
            "error: no clause 0 (list shows the clauses)\n"
        );
        assert_eq!(c.command("list"), "1\ttcp port 80\nok\n");
        let bad = c.command("add tcp port");
        assert!(
            bad.lines()
                .last()
                .unwrap()
                .starts_with("error: bad filter expression"),
            "{bad}"
        );
        assert!(c
            .command("frob")
            .starts_with("error: unknown command 'frob'"));
        assert!(c
            .command("del x")
            .starts_with("error: del needs a clause number"));
        assert!(c
            .command("add")
            .starts_with("error: add needs an expression"));
        assert!(c.command("").starts_with("error: empty command"));
        // The live set follows: a TCP port 80 frame is accepted, a UDP 53 one not.
        let mut s = netsift_engine::Scratch::new();
        let mut f = vec![0u8; 54];
        f[12..14].copy_from_slice(&[8, 0]);
        f[14] = 0x45;
        f[23] = 6;
        f[36..38].copy_from_slice(&80u16.to_be_bytes());
        assert!(reader.matches(&mut s, &f, 54));
        f[23] = 17;
        f[36..38].copy_from_slice(&53u16.to_be_bytes());
        assert!(!reader.matches(&mut s, &f, 54));
    }
}
