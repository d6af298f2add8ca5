//! `--control PATH`: the running capture's filter, edited through a Unix socket.
//!
//! The filter is the session's live set of clauses ([`netsift_session::Clauses`],
//! which publishes each edit with nothing lost or leaked around it and orders
//! it between the kernel and user space); this module is its line protocol.
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

use anyhow::{bail, Context, Result};
use netsift_session::Clauses;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest command line a client may send.
pub(crate) const MAX_LINE: usize = 64 * 1024;
/// Clients served at once; more wait to be accepted.
pub(crate) const MAX_CLIENTS: usize = 16;

/// The reply to one command line: the line protocol over the session's
/// [`Clauses`].
pub(crate) fn command(clauses: &mut Clauses, line: &str) -> String {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let status = match word {
        "add" => clauses
            .add(rest)
            .map(|n| format!("ok {n}"))
            .map_err(|e| e.to_string()),
        "del" => match rest.trim().parse::<u64>() {
            Ok(n) => clauses
                .del(n)
                .map(|()| "ok".to_string())
                .map_err(|e| e.to_string()),
            Err(_) => Err(format!("del needs a clause number, not '{}'", rest.trim())),
        },
        "list" if rest.trim().is_empty() => return format!("{}ok\n", clauses.list()),
        "param" => param(clauses, rest).map(|()| "ok".to_string()),
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

/// `param N +VALUE` / `param N -VALUE`.
fn param(clauses: &mut Clauses, args: &str) -> Result<(), String> {
    let usage = "param needs a clause number and +VALUE or -VALUE";
    let (n, edit) = args.trim().split_once(char::is_whitespace).ok_or(usage)?;
    let n: u64 = n.parse().map_err(|_| usage.to_string())?;
    let (add, value) = match edit.trim().split_at_checked(1) {
        Some(("+", v)) => (true, v),
        Some(("-", v)) => (false, v),
        _ => return Err(usage.into()),
    };
    clauses.param(n, add, value).map_err(|e| e.to_string())
}

/// The socket, served on a thread until the capture stops; removed when dropped.
pub(crate) struct Control {
    path: PathBuf,
    thread: Option<std::thread::JoinHandle<()>>,
    stop: Arc<AtomicBool>,
}

impl Control {
    /// Listens on `path` and serves `clauses` there until dropped.
    pub(crate) fn start(path: &Path, state: Arc<Mutex<Clauses>>) -> Result<Control> {
        prepare(path)?;
        let listener =
            UnixListener::bind(path).with_context(|| format!("--control {}", path.display()))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("--control {}", path.display()))?;
        listener
            .set_nonblocking(true)
            .context("--control: a non-blocking socket")?;
        let stop = Arc::new(AtomicBool::new(false));
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
            Ok(text) => command(&mut state.lock().unwrap_or_else(|e| e.into_inner()), text),
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
    fn commands_edit_the_clauses_and_errors_say_what() {
        let target = netsift_pcapc::Target::new(LinkType::EN10MB);
        let (mut c, reader) = Clauses::new(target, netsift_session::events::ignore());
        let mut c = |line: &str| command(&mut c, line);
        assert_eq!(c("add udp port 53"), "ok 0\n");
        assert_eq!(c("add  tcp port 80 \n"), "ok 1\n");
        assert_eq!(c("list"), "0\tudp port 53\n1\ttcp port 80\nok\n");
        assert_eq!(c("del 0"), "ok\n");
        assert_eq!(c("del 0"), "error: no clause 0 (list shows the clauses)\n");
        assert_eq!(c("list"), "1\ttcp port 80\nok\n");
        let bad = c("add tcp port");
        assert!(
            bad.lines()
                .last()
                .unwrap()
                .starts_with("error: bad filter expression"),
            "{bad}"
        );
        assert!(c("frob").starts_with("error: unknown command 'frob'"));
        assert!(c("del x").starts_with("error: del needs a clause number"));
        assert!(c("add").starts_with("error: add needs an expression"));
        assert!(c("").starts_with("error: empty command"));
        assert!(c("param 1 80").starts_with("error: param needs a clause number"));
        assert_eq!(c("param 1 +443"), "ok\n");
        assert_eq!(c("list"), "1\ttcp port 80\t(param +443)\nok\n");
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
