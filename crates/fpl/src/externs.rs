//! External functions (`EXTERN(name, in, out)`): the [`Registry`] the compiler
//! resolves names in, the [`ExternFn`] it records in a program, and the
//! [`Call`] an executor hands the function.
//!
//! A function declares how many MBuf bytes it reads at `in` and writes at
//! `out`; the compiler refuses a call whose regions do not fit in MBuf (§3.3.3),
//! and an executor checks them once more against the MBuf it is given, so a
//! function's slices from [`Call::input`] and [`Call::output`] always exist.
//! Functions are native code registered by the daemon's administrator: they are
//! trusted to terminate, as FFPF trusts them.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// What a function is given: the packet, the filter's whole MBuf, and where its
/// input and output regions are.
pub struct Call<'a> {
    /// The packet's bytes.
    pub packet: &'a [u8],
    /// The filter's MBuf.
    pub mbuf: &'a mut [u8],
    /// Byte offset of the input region.
    pub input: usize,
    /// Byte offset of the output region.
    pub output: usize,
    /// The input region's length (the function's declared input size).
    pub input_len: usize,
    /// The output region's length (the function's declared output size).
    pub output_len: usize,
}

impl Call<'_> {
    /// The input region (empty if the caller broke its contract).
    pub fn input(&self) -> &[u8] {
        self.mbuf
            .get(self.input..self.input.saturating_add(self.input_len))
            .unwrap_or(&[])
    }

    /// The output region (empty if the caller broke its contract). The two
    /// regions may overlap, as Figure 7's `EXTERN(…, 0, 0)` does: read the input
    /// first.
    pub fn output(&mut self) -> &mut [u8] {
        let range = self.output..self.output.saturating_add(self.output_len);
        self.mbuf.get_mut(range).unwrap_or(&mut [])
    }
}

/// A function's body.
pub type ExternImpl = dyn Fn(Call<'_>) -> i64 + Send + Sync;

/// A registered external function: a name, its MBuf region sizes, its body.
#[derive(Clone)]
pub struct ExternFn {
    name: String,
    input_len: usize,
    output_len: usize,
    func: Arc<ExternImpl>,
}

impl ExternFn {
    /// A function called `name` that reads `input_len` bytes and writes
    /// `output_len` bytes of MBuf.
    pub fn new(
        name: impl Into<String>,
        input_len: usize,
        output_len: usize,
        func: impl Fn(Call<'_>) -> i64 + Send + Sync + 'static,
    ) -> ExternFn {
        ExternFn {
            name: name.into(),
            input_len,
            output_len,
            func: Arc::new(func),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes it reads at the input offset.
    pub fn input_len(&self) -> usize {
        self.input_len
    }

    /// Bytes it writes at the output offset.
    pub fn output_len(&self) -> usize {
        self.output_len
    }

    /// Runs it.
    pub fn call(&self, call: Call<'_>) -> i64 {
        (self.func)(call)
    }
}

impl fmt::Debug for ExternFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternFn")
            .field("name", &self.name)
            .field("input_len", &self.input_len)
            .field("output_len", &self.output_len)
            .finish_non_exhaustive()
    }
}

/// Where the compiler finds external functions by name. The daemon's registry
/// (with authorisation deciding which names a user may see) implements it;
/// [`Externs`] is a plain one.
pub trait Registry {
    /// The function called `name` (exact case), if registered.
    fn lookup(&self, name: &str) -> Option<ExternFn>;
}

/// A registry held in a map.
#[derive(Clone, Debug, Default)]
pub struct Externs {
    map: BTreeMap<String, ExternFn>,
}

impl Externs {
    /// An empty registry.
    pub fn new() -> Externs {
        Externs::default()
    }

    /// Registers `f`, replacing a function of the same name; returns the one
    /// replaced.
    pub fn register(&mut self, f: ExternFn) -> Option<ExternFn> {
        self.map.insert(f.name.clone(), f)
    }

    /// The names registered, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }
}

impl Registry for Externs {
    fn lookup(&self, name: &str) -> Option<ExternFn> {
        self.map.get(name).cloned()
    }
}

/// `SUM8`, a function for tests and fuzzing until the real library (Aho-Corasick,
/// substring search, checksums) arrives: it reads eight input bytes, writes
/// their sum as a little-endian `u64` at the output, and returns it.
pub fn sum8() -> ExternFn {
    ExternFn::new("SUM8", 8, 8, |mut call| {
        let sum: i64 = call.input().iter().map(|&b| i64::from(b)).sum();
        let out = call.output();
        if out.len() == 8 {
            out.copy_from_slice(&sum.to_le_bytes());
        }
        sum
    })
}
