//! What the tests share: the corpus's Ethernet packets, calling one function
//! directly, and running an FPL program with the library's registry.
#![allow(dead_code, unreachable_pub)]

use netsift_fpl::externs::{Call, Externs, Registry};
use netsift_fpl::{compile, run, Options, Program, Registers};
use netsift_wire::LinkType;

/// Every packet of every Ethernet capture of the corpus
/// (`../shared/corpus/pcaps/tcpdump`, or `$NETSIFT_CORPUS/pcaps/tcpdump`);
/// `None` when the corpus is absent (a skip, which fails under `CI=true`).
pub fn corpus() -> Option<Vec<Vec<u8>>> {
    let files = netsift_testkit::tcpdump_captures(env!("CARGO_MANIFEST_DIR"))?;
    let mut out = Vec::new();
    for f in files {
        let Ok(mut r) = netsift_pcapio::open(&f) else {
            continue;
        };
        if r.linktype() != LinkType::EN10MB {
            continue;
        }
        // A file that fails part way still gives the packets before the fault.
        while let Ok(Some(p)) = r.next_packet() {
            out.push(p.data.to_vec());
        }
    }
    assert!(out.len() > 5_000, "the corpus has its Ethernet packets");
    Some(out)
}

/// Calls `name` from `reg` on `packet` with `mbuf`, its regions at `input` and
/// `output`.
pub fn call(
    reg: &Externs,
    name: &str,
    packet: &[u8],
    mbuf: &mut [u8],
    input: usize,
    output: usize,
) -> i64 {
    let f = reg
        .lookup(name)
        .unwrap_or_else(|| panic!("{name} is registered"));
    assert!(input + f.input_len() <= mbuf.len() && output + f.output_len() <= mbuf.len());
    f.call(Call {
        packet,
        mbuf,
        input,
        output,
        input_len: f.input_len(),
        output_len: f.output_len(),
    })
}

/// Little-endian 64-bit slot `i` of `mbuf`.
pub fn slot(mbuf: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(mbuf[8 * i..8 * i + 8].try_into().unwrap())
}

/// Sets slot `i` of `mbuf`.
pub fn set(mbuf: &mut [u8], i: usize, v: i64) {
    mbuf[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
}

/// Compiles `text` with `reg`, panicking with the compiler's message.
pub fn program(text: &str, reg: &Externs) -> Program {
    compile(text, &Options::default(), reg).unwrap_or_else(|e| panic!("{e}"))
}

/// A program with its MBuf and registers, run packet after packet.
pub struct Filter {
    pub prog: Program,
    pub mbuf: Vec<u8>,
    pub regs: Registers,
}

impl Filter {
    pub fn new(text: &str, reg: &Externs) -> Filter {
        Filter {
            prog: program(text, reg),
            mbuf: vec![0; Options::default().mbuf_len],
            regs: [0; 16],
        }
    }

    pub fn run(&mut self, packet: &[u8]) -> i64 {
        run(&self.prog, packet, &mut self.mbuf, &mut self.regs).value()
    }
}

/// The first offset of `needle` in `hay`, by the obvious double loop.
pub fn naive_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    (0..=hay.len().checked_sub(needle.len())?).find(|&i| &hay[i..i + needle.len()] == needle)
}
