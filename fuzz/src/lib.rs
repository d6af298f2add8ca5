//! Shared pieces of the fuzz targets: fixed packets, the executors' reference, and a
//! byte reader that turns fuzz input into bounded choices.

pub mod differ;
pub mod frames;

use netsift_engine::{PassSet, Verdict};

/// The verdict every executor of the `images` target must give: the engine's naive
/// reference evaluator (`netsift_engine::naive`), which shares no code with the
/// executors it judges.
pub fn reference(set: &PassSet, packet: &[u8], wire_len: u32) -> Verdict {
    netsift_engine::naive::evaluate(set, packet, wire_len)
}

/// Reads bounded values off the fuzz input; past its end every value is 0, so any
/// input decodes to something and short inputs to small things.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A value in `0..n` (0 when `n` is 0), from one byte when `n` fits in one.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let v = if n <= 256 {
            self.u8() as usize
        } else {
            self.u32() as usize
        };
        v % n
    }

    /// Up to `max` bytes, the count first.
    pub fn bytes(&mut self, max: usize) -> &'a [u8] {
        let n = self.below(max + 1).min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }

    /// Whatever is left.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }
}
