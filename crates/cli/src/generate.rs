//! `--generate man|bash|zsh|fish|elvish|powershell`: the manual page and shell
//! completions, made from the same clap definitions as `--help`, so the three
//! cannot disagree. docs/netsift.1 and docs/completions/ are this output, checked
//! in; a test fails when they are stale.

use anyhow::{bail, Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

/// The text of the manual page or of a shell's completion script.
pub(crate) fn generate(what: &str) -> Result<String> {
    let mut cmd = crate::args::Args::command();
    let mut buf = Vec::new();
    match what {
        "man" => clap_mangen::Man::new(cmd)
            .render(&mut buf)
            .context("rendering the manual page")?,
        shell => {
            let Ok(shell) = shell.parse::<Shell>() else {
                bail!("--generate: unknown shell '{shell}'");
            };
            clap_complete::generate(shell, &mut cmd, "netsift", &mut buf);
        }
    }
    String::from_utf8(buf).context("the generated text is not UTF-8")
}
