//! How a run that fails ends, as tcpdump's ends: `netsift: ` and one line of
//! what went wrong on stderr (then any detail, such as the caret under a filter
//! error), exit status 1; standard output that cannot be written, status 14
//! (tcpdump's `S_ERR_ND_WRITE_FILE`: "Unable to write output: Broken pipe").
//! An operating system's reason reads as strerror(3) gives it, as tcpdump
//! prints it, without the " (os error N)" that Rust's `io::Error` adds.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::io;
use std::process::ExitCode;

/// tcpdump's status for a failure of the program itself.
const FAILURE: u8 = 1;
/// tcpdump's `S_ERR_ND_WRITE_FILE`: standard output could not be written.
const WRITE_OUTPUT: u8 = 14;

/// `text` without the " (os error N)" that `io::Error`'s `Display` appends
/// to strerror's text. Libraries put io errors into their own messages, so the
/// one place every message passes, the text printed, is where it goes.
pub(crate) fn without_os_error(text: &str) -> String {
    const MARK: &str = " (os error ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let closed = digits > 0 && after.as_bytes().get(digits) == Some(&b')');
        let end = if closed {
            at + MARK.len() + digits + 1
        } else {
            at + MARK.len()
        };
        out.push_str(&rest[..if closed { at } else { end }]);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The io error as strerror(3) says it.
pub(crate) fn strerror(e: &io::Error) -> String {
    without_os_error(&e.to_string())
}

/// Prints a failed run's message and gives its exit status.
pub(crate) fn report(e: &anyhow::Error) -> ExitCode {
    let text = without_os_error(&format!("{e:#}"));
    let mut lines = text.lines();
    if let Some(first) = lines.next() {
        eprintln!("netsift: {first}");
    }
    for l in lines {
        eprintln!("{l}");
    }
    ExitCode::from(FAILURE)
}

/// Standard output failed (a closed pipe, a full disk): tcpdump's message and
/// status, at once, as tcpdump's `error()` ends it (no closing statistics).
pub(crate) fn output_failed(e: &io::Error) -> ! {
    eprintln!("netsift: Unable to write output: {}", strerror(e));
    std::process::exit(i32::from(WRITE_OUTPUT))
}

/// A command line clap refused, said as GNU getopt says it for tcpdump
/// (`invalid option -- 'k'`, `option requires an argument -- 'c'`), or naming
/// the flag and the reason; `--help` goes to stdout with status 0.
pub(crate) fn command_line(e: &clap::Error) -> ExitCode {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        // Printing help to a closed pipe is no failure worth a message.
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    eprintln!("netsift: {}", without_os_error(&clap_message(e)));
    eprintln!("Try 'netsift --help' for the flags, or 'man netsift'.");
    ExitCode::from(FAILURE)
}

/// The one line of a clap error.
fn clap_message(e: &clap::Error) -> String {
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        _ => None,
    };
    // "-c <N>" → "-c"; "--direction <DIRECTION>" → "-Q", tcpdump's letter
    // where the flag has one (clap names a flag by its long name).
    let flag = text(ContextKind::InvalidArg)
        .map(|a| a.split([' ', '=']).next().unwrap_or_default().to_string())
        .map(|f| match f.strip_prefix("--") {
            Some(long) if e.kind() != ErrorKind::UnknownArgument => short_of(long).unwrap_or(f),
            _ => f,
        });
    let value = text(ContextKind::InvalidValue);
    match (e.kind(), flag, value) {
        (ErrorKind::UnknownArgument, Some(f), _) => match f.strip_prefix("--") {
            Some(_) => format!("unrecognized option '{f}'"),
            None => format!("invalid option -- '{}'", f.trim_start_matches('-')),
        },
        (ErrorKind::InvalidValue, Some(f), Some(v)) if v.is_empty() => match f.strip_prefix("--") {
            Some(_) => format!("option '{f}' requires an argument"),
            None => format!("option requires an argument -- '{}'", &f[1..]),
        },
        (ErrorKind::InvalidValue, Some(f), Some(v)) => {
            let valid = text(ContextKind::ValidValue)
                .map(|v| format!(" (one of: {v})"))
                .unwrap_or_default();
            format!("{f}: invalid value '{v}'{valid}")
        }
        (ErrorKind::ValueValidation, Some(f), _) => match std::error::Error::source(e) {
            Some(why) => format!("{f}: {why}"),
            None => first_line(e),
        },
        _ => first_line(e),
    }
}

/// `-X` for the flag whose long name is `long`, if it has a letter.
fn short_of(long: &str) -> Option<String> {
    use clap::CommandFactory;
    crate::args::Args::command()
        .get_arguments()
        .find(|a| a.get_long() == Some(long))
        .and_then(|a| a.get_short())
        .map(|c| format!("-{c}"))
}

/// clap's own first line, without its "error: ".
fn first_line(e: &clap::Error) -> String {
    let s = e.render().to_string();
    let line = s.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

#[cfg(test)]
mod tests {
    use super::without_os_error;

    #[test]
    fn os_error_suffixes_go_and_nothing_else() {
        assert_eq!(
            without_os_error("x: No such file or directory (os error 2)"),
            "x: No such file or directory"
        );
        assert_eq!(
            without_os_error("a (os error 21) (at byte offset 0)"),
            "a (at byte offset 0)"
        );
        assert_eq!(without_os_error("a (os error x)"), "a (os error x)");
        assert_eq!(without_os_error("a (os error "), "a (os error ");
    }
}
