//! `netsift flow --graph`: the daemon's running graph (as far as this
//! client's rights see it) written as DOT and SVG, and its placement as lines
//! for `-d`. The graph comes whole from netsiftd's `graph` verb; this module
//! only writes it out.

use crate::args::Args;
use anyhow::{bail, Context, Result};
use netsift_ffpf::GraphView;
use std::io::Write;
use std::process::{Command, Stdio};

/// Writes `--graph-dot` and `--graph-svg`, if asked.
pub(crate) fn write(args: &Args, view: &GraphView) -> Result<()> {
    if let Some(path) = &args.graph_dot {
        std::fs::write(path, &view.dot).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.graph_svg {
        let svg = render_svg(&view.dot)?;
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// `dot` as SVG, by Graphviz's `dot -Tsvg`.
fn render_svg(dot: &str) -> Result<Vec<u8>> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("--graph-svg runs Graphviz's `dot`, which did not start (install graphviz)")?;
    let mut stdin = child.stdin.take().context("dot's stdin")?;
    // Written from a thread: dot may fill its stdout before it has read all.
    let text = dot.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().context("running dot")?;
    let _ = feeder.join();
    if !out.status.success() {
        bail!(
            "dot -Tsvg failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// One line per instance: id, class, arguments, MBuf, upstream, the flows
/// that use it, where it runs and where it could.
pub(crate) fn placement(view: &GraphView) -> String {
    let mut out = String::new();
    for f in &view.flows {
        let ids: Vec<String> = f.instances.iter().map(|i| format!("#{i}")).collect();
        out.push_str(&format!(
            "flow {}: {} = {}\n",
            f.flow,
            f.text,
            ids.join(" ")
        ));
    }
    for i in &view.instances {
        let mut line = format!("#{} {}", i.id, i.class);
        for a in &i.args {
            line.push(' ');
            line.push_str(a);
        }
        if i.mbuf > 0 {
            line.push_str(&format!(" mbuf {}", i.mbuf));
        }
        let up: Vec<String> = i.upstream.iter().map(|u| format!("#{u}")).collect();
        let flows: Vec<String> = i.flows.iter().map(u64::to_string).collect();
        line.push_str(&format!(
            " <- [{}] flows {} (refs {}): runs in the {}, could run in the {}\n",
            up.join(" "),
            flows.join(","),
            i.refs,
            i.runs,
            i.could_run
        ));
        if !i.why.is_empty() {
            line.push_str(&format!("    why: {}\n", i.why));
        }
        out.push_str(&line);
    }
    out
}
