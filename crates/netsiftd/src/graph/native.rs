//! The `native` class: a root-owned shared object with netsift's C filter
//! ABI (`crates/native/include/netsift_native.h`), loaded by `netsift_native`
//! (the daemon itself holds no `unsafe`). Only root may name one: the class
//! table marks it root-only, and `netsift_native` refuses an object that is
//! not a regular file owned by root and writable by root alone, or that
//! lacks `netsift_filter`. Its verdict is its return value; its MBuf is the
//! element's, which it reads and writes as it likes.

use netsift_native::Filter;

/// A loaded native filter.
pub(crate) struct Native {
    filter: Filter,
    /// The MBuf as `netsift_init` left it, until the first packet puts it
    /// in the instance's MBuf.
    initial: Option<Vec<u8>>,
}

impl Native {
    /// Loads the object at `path` for an element with an MBuf of `mbuf`
    /// bytes; its `netsift_init` sees a zeroed MBuf of that size.
    pub(crate) fn open(path: &str, mbuf: u32) -> Result<Native, String> {
        let mut initial = vec![0; mbuf as usize];
        let filter = Filter::open(path, &mut initial).map_err(|e| e.to_string())?;
        Ok(Native {
            filter,
            initial: Some(initial),
        })
    }

    /// Whether the filter passes `data` (`wirelen` on the wire), with `mem`.
    pub(crate) fn judge(&mut self, data: &[u8], wirelen: u32, mem: &mut [u8]) -> bool {
        if let Some(initial) = self.initial.take() {
            if initial.len() == mem.len() {
                mem.copy_from_slice(&initial);
            }
        }
        self.filter.run(data, wirelen, mem)
    }
}
