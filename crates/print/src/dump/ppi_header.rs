//! The PPI header as `ppi_if_print` reads it, for both the summary's printer
//! (`summary/ppi.rs`) and the dumps' header length (`links.rs`); it lives on the
//! dump side because the summary already depends on the dumps, not the reverse.

/// `sizeof(ppi_header_t)`, and the largest header length the specification
/// allows (3.1.3).
pub(crate) const PPI_HDRLEN: usize = 8;
pub(crate) const PPI_MAX_LEN: usize = 65532;

/// A PPI header whose length is valid and captured: its version, length and
/// the link type after it.
pub(crate) struct PpiHeader {
    pub ver: u8,
    pub len: usize,
    pub dlt: u32,
}

/// What `ppi_if_print` finds at the start of `data`.
pub(crate) enum PpiStart {
    /// Shorter than its header, or than the length it gives: `[|ppi]`.
    Cut,
    /// A length out of the allowed range.
    BadLen(usize),
    Header(PpiHeader),
}

/// Reads the header as `ppi_if_print` checks it, in its order.
pub(crate) fn ppi_start(data: &[u8]) -> PpiStart {
    if data.len() < PPI_HDRLEN {
        return PpiStart::Cut;
    }
    let len = usize::from(u16::from_le_bytes([data[2], data[3]]));
    if !(PPI_HDRLEN..=PPI_MAX_LEN).contains(&len) {
        return PpiStart::BadLen(len);
    }
    if data.len() < len {
        return PpiStart::Cut;
    }
    PpiStart::Header(PpiHeader {
        ver: data[0],
        len,
        dlt: u32::from_le_bytes([data[4], data[5], data[6], data[7]]),
    })
}
