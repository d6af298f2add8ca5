//! `HASH(start, len, size)`'s function, written once for every executor:
//! 32-bit FNV-1a over the `len` packet bytes from `start`, reduced modulo
//! `size`. FNV-1a needs only a multiply and an xor per byte, which eBPF and the
//! JIT emit as easily as the interpreter runs it.

/// FNV-1a's offset basis.
pub const FNV_OFFSET: u32 = 0x811c_9dc5;
/// FNV-1a's prime.
pub const FNV_PRIME: u32 = 0x0100_0193;

/// The hash of `bytes` in `0..size` (`size` is at least 1; 0 is treated as 1).
pub fn hash(bytes: &[u8], size: u32) -> i64 {
    let h = bytes.iter().fold(FNV_OFFSET, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(FNV_PRIME)
    });
    i64::from(h % size.max(1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vector() {
        // FNV-1a 32 of "a" is 0xe40c292c.
        assert_eq!(
            super::hash(b"a", u32::MAX),
            0xe40c_292c % i64::from(u32::MAX)
        );
        assert_eq!(super::hash(b"", 1), 0);
    }
}
