//! `--place`: where the filter runs. `user` filters in the ring, in user space.
//! `kernel` also generates an eBPF socket filter from the compiled filter
//! (`netsift_kernel::codegen`) and attaches it under the ring, so the kernel drops
//! what the filter surely rejects before it costs a copy; what the kernel lets
//! through, user space still filters exactly (the kernel's answer is a superset).
//! `auto` is `kernel` where the program loads, and `user` otherwise, saying which.

use anyhow::{bail, Result};
use netsift_isa::PassSet;
use netsift_kernel::codegen::{generate, Env, Generated};
use netsift_kernel::sys::{ProgKind, Program};
use netsift_wire::LinkType;

/// A filter placed in the kernel: the loaded program, and what to say about it.
pub struct Placed {
    pub program: Program,
    generated: Generated,
}

impl Placed {
    /// The line that says where filtering happens.
    pub fn describe(&self) -> String {
        if self.generated.exact {
            format!(
                "filtering in the kernel (eBPF, {} instructions); user space checks what it passes",
                self.generated.insns.len()
            )
        } else {
            format!(
                "filtering in the kernel (eBPF, {} instructions; passes {:?} are decided in user space)",
                self.generated.insns.len(),
                self.generated.unsure_passes
            )
        }
    }
}

/// Why the filter cannot go into the kernel, if it cannot: the generator reads
/// frames from their MAC header, which only an Ethernet packet socket has.
fn unplaceable(lt: LinkType) -> Option<String> {
    (lt != LinkType::EN10MB).then(|| format!("the kernel program reads Ethernet frames, not {lt}"))
}

/// The program `--place` asks for, loaded; `None` for user space. `set` is the
/// static filter (`None`: none, or one that changes while capturing).
pub fn place(
    args: &crate::args::Args,
    set: Option<&PassSet>,
    lt: LinkType,
    snaplen: u32,
) -> Result<Option<Placed>> {
    let auto = match args.place.as_str() {
        "user" => return Ok(None),
        "auto" => true,
        _ => false,
    };
    let refuse = |why: String| -> Result<Option<Placed>> {
        if auto {
            eprintln!("netsift: filtering in user space: {why}");
            Ok(None)
        } else {
            bail!("--place kernel: {why}")
        }
    };
    let Some(set) = set else {
        if args.follow.is_some() || args.control.is_some() {
            return refuse("--follow and --control edit the filter in user space".into());
        }
        // No filter: every packet is wanted, and there is nothing to place.
        return Ok(None);
    };
    if let Some(why) = unplaceable(lt) {
        return refuse(why);
    }
    let generated = match generate(set, Env::socket(snaplen)) {
        Ok(g) => g,
        Err(e) => return refuse(e.to_string()),
    };
    match Program::load(ProgKind::SocketFilter, "netsift", &generated.insns) {
        Ok(program) => Ok(Some(Placed { program, generated })),
        Err(e) => refuse(format!("the kernel refused the program: {e}")),
    }
}

/// `-d --place kernel`: the generated program and which passes it leaves to user
/// space.
pub fn listing(set: &PassSet, lt: LinkType, snaplen: u32) -> Result<String> {
    if let Some(why) = unplaceable(lt) {
        bail!("--place kernel: {why}");
    }
    let g = generate(set, Env::socket(snaplen)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut out = format!(
        "; eBPF socket filter, {} instructions; {}\n",
        g.insns.len(),
        if g.exact {
            "every pass compiled".to_string()
        } else {
            format!("passes {:?} are decided in user space", g.unsure_passes)
        }
    );
    out.push_str(&netsift_kernel::asm::listing(&g.insns));
    Ok(out)
}
