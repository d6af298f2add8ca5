//! The external-function classes standing alone as graph elements
//! (docs/graphs.md's class table, docs/externs.md "Graph elements"):
//! `aho_corasick`, `memmem`, `hash`, `checksum`, `dynport` and `topn`, each
//! the very `netsift_externs` function FPL's `EXTERN` calls (no second
//! implementation), called with the arguments an FPL program would put in
//! MBuf:
//!
//! | class | calls | passes | MBuf |
//! |---|---|---|---|
//! | `aho_corasick` | `aho_corasick:SET` over the TCP/UDP payload | a match | 0 or 16: the last match's start and end (packet offsets) |
//! | `memmem` | `memmem:NAME` over the payload | a match | 0 or 8: the last match's start |
//! | `hash` | `flow_hash` with `n` buckets | what it counted (TCP/UDP) | `n` little-endian `u64`: packets per bucket |
//! | `checksum` | `checksums_ok` | what verifies | none |
//! | `dynport` | `ftp_ports`, `sip_ports` or `rtsp_ports` | what announces a port | 64: the last announcement's count and ports |
//! | `topn` | `topn` with `n` entries | what it counted (IPv4 TCP) | the `8 + 16 n`-byte table |
//!
//! A function runs over a buffer of its own, its input slots then its output
//! region, exactly as FPL hands it MBuf; what the output keeps across packets
//! (the last match, the table) is copied to the element's MBuf after each
//! batch, or after each announcement for `dynport` (whose function clears
//! its output on every packet). State is the buffer: bounded by the class's
//! MBuf, whatever the packets hold.

use netsift_externs::{dynport, search, sums, topn, PatternSet, Substring};
use netsift_follow::segment::segment;
use netsift_fpl::externs::{Call, ExternFn};
use netsift_graph::class::Value;
use netsift_wire::LinkType;

/// What the element makes of a call's value and output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// A search over the payload: passes a match; the output is its offsets.
    Search,
    /// `flow_hash`: the value is a bucket whose `u64` in MBuf counts.
    Hash(u32),
    /// `checksums_ok`: passes a 1.
    Verify,
    /// The port functions: passes a count above 0, the output then copied.
    Ports,
    /// `topn`: passes a count above 0; the output is the table.
    Table,
}

/// An external function as a graph element.
pub(crate) struct External {
    how: Use,
    f: ExternFn,
    /// The function's own MBuf: `f.input_len()` bytes of input slots, then
    /// `f.output_len()` bytes of output.
    buf: Vec<u8>,
    linktype: LinkType,
}

fn texts(args: &[Value]) -> Vec<&[u8]> {
    args.iter()
        .filter_map(|a| match a {
            Value::Text(s) => Some(s.as_bytes()),
            Value::Int(_) => None,
        })
        .collect()
}

fn number(args: &[Value]) -> Result<usize, String> {
    match args.first() {
        Some(Value::Int(n)) => usize::try_from(*n).map_err(|e| e.to_string()),
        _ => Err("needs its number argument".into()),
    }
}

impl External {
    /// The element of external class `class` with `args`, an MBuf of
    /// `mbuf` bytes, on a source of `linktype`: its searcher built now.
    pub(crate) fn new(
        class: &str,
        args: &[Value],
        mbuf: u32,
        linktype: LinkType,
    ) -> Result<External, String> {
        let (how, f) = match class {
            "aho_corasick" => {
                let set = PatternSet::new(&texts(args)).map_err(|e| e.to_string())?;
                (Use::Search, set.function("aho_corasick:element".into()))
            }
            "memmem" => {
                let pattern = texts(args).first().copied().unwrap_or_default();
                let s = Substring::new(pattern).map_err(|e| e.to_string())?;
                (Use::Search, s.function("memmem:element".into()))
            }
            "hash" => {
                let n = u32::try_from(number(args)?).map_err(|e| e.to_string())?;
                (Use::Hash(n), sums::flow_hash())
            }
            "checksum" => (Use::Verify, sums::checksums_ok()),
            "dynport" => {
                let f = match texts(args).first().copied() {
                    Some(b"ftp") => dynport::ftp_ports(),
                    Some(b"sip") => dynport::sip_ports(),
                    Some(b"rtsp") => dynport::rtsp_ports(),
                    _ => return Err("dynport follows ftp, sip or rtsp".into()),
                };
                (Use::Ports, f)
            }
            "topn" => (Use::Table, topn::topn(number(args)?)),
            other => return Err(format!("class {other} does not run in the daemon")),
        };
        // The class table bounds every MBuf from below (docs/graphs.md); a
        // smaller one would drop the output, so say so instead.
        let needs = match how {
            Use::Hash(n) => 8 * n as usize,
            Use::Table | Use::Ports => f.output_len(),
            Use::Search | Use::Verify => 0,
        };
        if (mbuf as usize) < needs {
            return Err(format!(
                "needs an MBuf of at least {needs} bytes, not {mbuf}"
            ));
        }
        debug_assert!(how != Use::Search || f.input_len() == search::SEARCH_IN);
        let mut buf = vec![0; f.input_len() + f.output_len()];
        if let Use::Hash(n) = how {
            buf[..8].copy_from_slice(&i64::from(n).to_le_bytes());
        }
        Ok(External {
            how,
            f,
            buf,
            linktype,
        })
    }

    /// Calls the function on `packet` and says whether the element passes
    /// it, keeping MBuf (`mem`) as the table above says.
    pub(crate) fn judge(&mut self, packet: &[u8], mem: &mut [u8]) -> bool {
        if self.how == Use::Search {
            // The TCP/UDP payload as a packet range; none, no match.
            let Some(seg) = segment(self.linktype, packet) else {
                return false;
            };
            let start = seg.payload.as_ptr() as usize - packet.as_ptr() as usize;
            self.buf[..8].copy_from_slice(&(start as i64).to_le_bytes());
            self.buf[8..16].copy_from_slice(&(seg.payload.len() as i64).to_le_bytes());
        }
        let (input_len, output_len) = (self.f.input_len(), self.f.output_len());
        let value = self.f.call(Call {
            packet,
            mbuf: &mut self.buf,
            input: 0,
            output: input_len,
            input_len,
            output_len,
        });
        match self.how {
            Use::Search | Use::Table => value > 0,
            Use::Verify => value == 1,
            Use::Ports => {
                if value > 0 {
                    let out = &self.buf[input_len..];
                    let n = out.len().min(mem.len());
                    mem[..n].copy_from_slice(&out[..n]);
                }
                value > 0
            }
            Use::Hash(_) => {
                let Ok(bucket) = usize::try_from(value) else {
                    return false;
                };
                let Some(w) = mem.get_mut(bucket * 8..bucket * 8 + 8) else {
                    return false;
                };
                let old = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
                w.copy_from_slice(&old.wrapping_add(1).to_le_bytes());
                true
            }
        }
    }

    /// After a batch: the output that persists from packet to packet
    /// (searches' last match, the top-N table) into MBuf.
    pub(crate) fn publish(&self, mem: &mut [u8]) {
        if matches!(self.how, Use::Search | Use::Table) {
            let out = &self.buf[self.f.input_len()..];
            let n = out.len().min(mem.len());
            mem[..n].copy_from_slice(&out[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(class: &str, args: &[Value], mbuf: u32) -> External {
        External::new(class, args, mbuf, LinkType::EN10MB).unwrap()
    }

    #[test]
    fn an_mbuf_too_small_for_the_output_is_refused() {
        let e = External::new("hash", &[Value::Int(4)], 16, LinkType::EN10MB)
            .err()
            .unwrap();
        assert!(e.contains("at least 32 bytes"), "{e}");
        let _ = element("hash", &[Value::Int(4)], 32);
    }

    #[test]
    fn a_frame_without_a_segment_matches_nothing() {
        let mut e = element("memmem", &[Value::Text("ab".into())], 8);
        let mut mem = [0u8; 8];
        assert!(!e.judge(b"ab ab ab ab ab ab ab", &mut mem));
        e.publish(&mut mem);
        assert_eq!(mem, [0; 8]);
    }
}
