//! Instantiates the flows given as arguments in one running graph and prints its
//! DOT (the seeds' `ffpf-flow`, short of running anything):
//!
//! ```sh
//! cargo run -p netsift-graph --example dot -- "(device,eth0) -> (sampler,2,4)" | dot -Tsvg >g.svg
//! ```

use netsift_graph::{to_dot, FlowSpec, Limits, Privilege, Running};
use std::process::ExitCode;

fn main() -> ExitCode {
    let limits = Limits::default();
    let mut running = Running::new(limits);
    for text in std::env::args().skip(1) {
        let done = FlowSpec::parse(&text, Privilege::User, &limits)
            .and_then(|spec| running.instantiate(spec));
        if let Err(e) = done {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    }
    print!("{}", to_dot(&running));
    ExitCode::SUCCESS
}
