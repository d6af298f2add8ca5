//! FPL's front end and both executors on arbitrary input: the first byte picks
//! how the rest is read (as program text, or as choices for `netsift_fpl::gen`,
//! which reaches the checker and executors far more often: `program`, or
//! `calling` for a program with the filters it calls), the next two the
//! packet's length and the MBuf's; the compiler never panics, and a program it
//! accepts never panics the interpreter or the Cranelift JIT, which agree on
//! the verdict, MBuf and registers after every run, on that packet and on cut
//! copies, with an MBuf smaller or larger than it was checked against. Seeds
//! (`fuzz/seeds/fpl`): the seeds' examples over a frame, with `SUM8` for
//! Figure 7's function.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_fpl::externs::{sum8, Externs};
use netsift_fpl::jit::Jit;
use netsift_fpl::{compile_with, define, gen, run, Filters, Options};
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    static JIT: OnceLock<Jit> = OnceLock::new();
    let [mode, plen, mlen, rest @ ..] = data else {
        return;
    };
    let plen = usize::from(*plen).min(rest.len());
    let (packet, code) = rest.split_at(plen);
    let mut registry = Externs::new();
    registry.register(sum8());
    let mut opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let mut filters = Filters::new();
    let text = match mode % 3 {
        0 => String::from_utf8_lossy(code).into_owned(),
        1 => gen::program(code),
        _ => {
            let drawn = gen::calling(code);
            let Ok(f) = define(&drawn.definitions(), &opts, &registry) else {
                return;
            };
            filters = f;
            opts.mbuf_len = gen::CALLER_MBUF;
            drawn.program
        }
    };
    let Ok(program) = compile_with(&text, &opts, &registry, &filters) else {
        return;
    };
    let native = JIT
        .get_or_init(|| Jit::new().expect("a Cranelift back end for this host"))
        .compile(&program)
        .expect("the JIT compiles every checked program");
    let mut mbuf = vec![0u8; usize::from(*mlen) * 2];
    let mut regs = [0i64; 16];
    let (mut jmbuf, mut jregs) = (mbuf.clone(), regs);
    for cut in [packet.len(), packet.len() / 2, 0] {
        let v = run(&program, &packet[..cut], &mut mbuf, &mut regs);
        assert!(v.accepts() == (v.value() != 0));
        let j = native.run(&packet[..cut], &mut jmbuf, &mut jregs);
        assert_eq!(j, v, "JIT and interpreter disagree\n{program}");
        assert_eq!(jregs, regs, "registers differ\n{program}");
        assert!(jmbuf == mbuf, "MBuf differs\n{program}");
    }
});
