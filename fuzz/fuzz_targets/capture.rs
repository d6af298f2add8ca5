//! The capture reader on arbitrary bytes: it never panics, ends (each record takes
//! bytes of the file), every error names a byte offset inside the file, and the three
//! ways of reading (record by record, in batches, with a small buffer that must grow
//! and refill) hand out the same records and the same error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_pcapio::{Packet, Reader};

/// One record's fields: time (s, ns), caplen, orig_len, interface, data.
type Fields = (u64, u32, u32, u32, u32, Vec<u8>);

/// What one way of reading saw: each record's fields, then how it ended.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    records: Vec<Fields>,
    end: Option<(u64, String)>,
}

fn fields(p: &Packet<'_>) -> Fields {
    (
        p.ts_sec,
        p.ts_nsec,
        p.caplen,
        p.orig_len,
        p.interface,
        p.data.to_vec(),
    )
}

/// The smallest record: a pcap record header (16 bytes) and no data; pcapng blocks
/// are at least 12 bytes and an SPB 16. So a file of n bytes has at most n / 12
/// records after its header, and a reader that hands out more is looping.
fn max_records(len: usize) -> usize {
    len / 12 + 1
}

fn check_error(e: &netsift_pcapio::Error, len: usize) -> (u64, String) {
    assert!(
        e.offset() <= len as u64,
        "error offset {} past the end of a {len}-byte file: {e}",
        e.offset()
    );
    let msg = e.to_string();
    assert!(
        msg.ends_with(&format!("(at byte offset {})", e.offset())),
        "error without its offset: {msg}"
    );
    (e.offset(), msg)
}

fn by_record(data: &[u8], capacity: usize) -> Seen {
    let mut seen = Seen {
        records: Vec::new(),
        end: None,
    };
    let mut rd = match Reader::with_capacity(data, capacity) {
        Ok(r) => r,
        Err(e) => {
            seen.end = Some(check_error(&e, data.len()));
            return seen;
        }
    };
    loop {
        assert!(
            seen.records.len() <= max_records(data.len()),
            "reader loops"
        );
        match rd.next_record() {
            Ok(Some(r)) => {
                let p = r.packet;
                assert!(p.ts_nsec < 1_000_000_000, "fraction not normalised");
                assert_eq!(p.caplen as usize, p.data.len());
                seen.records.push(fields(&p));
            }
            Ok(None) => break,
            Err(e) => {
                seen.end = Some(check_error(&e, data.len()));
                // After an error the reader hands out nothing more.
                assert!(
                    matches!(rd.next_record(), Ok(None)),
                    "records after an error"
                );
                break;
            }
        }
    }
    seen
}

fn by_batch(data: &[u8], max: usize) -> Seen {
    let mut seen = Seen {
        records: Vec::new(),
        end: None,
    };
    let mut rd = match Reader::with_capacity(data, 4096) {
        Ok(r) => r,
        Err(e) => {
            seen.end = Some(check_error(&e, data.len()));
            return seen;
        }
    };
    let mut empty_in_a_row = 0;
    loop {
        assert!(
            seen.records.len() <= max_records(data.len()),
            "reader loops"
        );
        match rd.next_batch(max) {
            Ok(b) if b.is_empty() => {
                // An empty batch is the end; a second one proves it stays so.
                empty_in_a_row += 1;
                if empty_in_a_row == 2 {
                    break;
                }
            }
            Ok(b) => {
                empty_in_a_row = 0;
                assert!(b.len() <= max.max(1), "batch larger than asked");
                for r in b.iter() {
                    let p = r.packet;
                    seen.records.push(fields(&p));
                }
            }
            Err(e) => {
                seen.end = Some(check_error(&e, data.len()));
                break;
            }
        }
    }
    seen
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, file)) = data.split_first() else {
        return;
    };
    // A buffer that holds the whole input (libFuzzer's inputs are small; the 1 MiB
    // default would be allocated and zeroed for every one of them).
    let whole = by_record(file, file.len() + 64);
    // A buffer of 64..=319 bytes (the reader's least is 64): records straddle refills
    // and the buffer must grow.
    let small = by_record(file, 64 + sel as usize);
    assert_eq!(whole, small, "a small buffer changes what is read");
    let batched = by_batch(file, 1 + (sel as usize % 8));
    assert_eq!(whole, batched, "batches differ from records");
});
