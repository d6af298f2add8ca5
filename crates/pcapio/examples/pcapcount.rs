//! Counts the packets of capture files, streaming: `pcapcount FILE...`.
//! Prints packets, captured bytes, and the read rate; exits 1 on a read error
//! (after printing what was read before it).

use std::time::Instant;

fn main() {
    let mut failed = false;
    for arg in std::env::args_os().skip(1) {
        let path = std::path::PathBuf::from(arg);
        let start = Instant::now();
        let mut rd = match netsift_pcapio::open(&path) {
            Ok(rd) => rd,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                failed = true;
                continue;
            }
        };
        let (mut n, mut bytes) = (0u64, 0u64);
        let end = loop {
            match rd.next_packet() {
                Ok(Some(p)) => {
                    n += 1;
                    bytes += u64::from(p.caplen);
                }
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{}: {:?} {} snaplen {} {:?}: {n} packets, {bytes} bytes captured, {:.1} MB/s",
            path.display(),
            rd.format(),
            rd.linktype(),
            rd.snaplen(),
            rd.precision(),
            rd.offset() as f64 / secs.max(1e-9) / 1e6
        );
        if let Some(e) = end {
            eprintln!("{}: {e}", path.display());
            failed = true;
        }
    }
    std::process::exit(i32::from(failed));
}
