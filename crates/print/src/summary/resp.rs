//! Redis's RESP (TCP port 6379), as tcpdump 4.99's `resp_print` prints it:
//! `RESP` and each element of each pipelined message, quoted, with `empty`,
//! `null` and the length errors in words. The same text with and without `-v`.

use super::{g1, out, print_char, PResult, Printer};

/// What `resp_get_length` found instead of a length.
enum Len {
    Value(usize),
    Null,
    TooLarge,
    Negative,
    Invalid,
}

impl Printer<'_> {
    /// `resp_print`: `len` bytes of TCP payload, `p` captured.
    pub(super) fn resp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "resp";
        out!(self, ": RESP");
        let mut at = 0;
        let mut left = len as usize;
        while left > 0 {
            // Every element consumes at least its opcode or line end, so this
            // ends within `len` bytes.
            let n = match self.resp_parse(p, at, left) {
                Ok(n) => n,
                // resp_print's `trunc:` label: the marker, and it returns.
                Err(_) if self.caught_trunc => {
                    self.trunc();
                    return Ok(());
                }
                Err(t) => return Err(t),
            };
            at += n;
            // tcpdump's unsigned count wraps when an element overran it;
            // the reads past the capture then end the line as truncated.
            left = left.wrapping_sub(n);
        }
        Ok(())
    }

    /// `resp_parse`: one element at `at`, `left` bytes of payload from there;
    /// the bytes it took.
    fn resp_parse(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        if left < 1 {
            return Err(self.caught());
        }
        match g1(p, at)? {
            b'+' | b':' | b'-' => self.resp_line(p, at, left),
            b'$' => self.resp_bulk(p, at, left),
            b'*' => self.resp_array(p, at, left),
            _ => self.resp_inline(p, at, left),
        }
    }

    /// `RESP_PRINT_SEGMENT`: ` "text"`, ending with the marker when the
    /// capture ends inside it.
    fn resp_segment(&mut self, p: &[u8], at: usize, n: usize) -> PResult {
        out!(self, " \"");
        for i in 0..n {
            print_char(&mut self.out, g1(p, at + i)?);
        }
        self.out.push('"');
        Ok(())
    }

    /// A simple string, error or integer: the text up to CRLF.
    fn resp_line(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        let start = at + 1;
        let n = self.find_crlf(p, start, left - 1)?;
        self.resp_segment(p, start, n)?;
        Ok(1 + n + 2)
    }

    /// A bulk string: `$<len>\r\n<bytes>\r\n`.
    fn resp_bulk(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        let (l, mut cur, mut rest) = self.get_length(p, at + 1, left - 1)?;
        match l {
            Len::Value(n) => {
                if n == 0 {
                    out!(self, " empty");
                } else {
                    if rest < n {
                        return Err(self.caught());
                    }
                    self.resp_segment(p, cur, n)?;
                    cur += n;
                    rest -= n;
                }
                let skip = self.find_crlf(p, cur, rest)?;
                rest -= skip + 2;
            }
            other => self.resp_length_error(other),
        }
        Ok(left.wrapping_sub(rest))
    }

    /// An array: `*<count>\r\n` and that many elements.
    fn resp_array(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        let (l, mut cur, mut rest) = self.get_length(p, at + 1, left - 1)?;
        match l {
            Len::Value(0) => out!(self, " empty"),
            Len::Value(count) => {
                for _ in 0..count {
                    // tcpdump's unsigned count wraps past the end; an element
                    // with nothing left ends as truncated, so does this.
                    let n = self.resp_parse(p, cur, rest)?;
                    cur += n;
                    rest = rest.wrapping_sub(n);
                }
            }
            other => self.resp_length_error(other),
        }
        Ok(left.wrapping_sub(rest))
    }

    fn resp_length_error(&mut self, l: Len) {
        match l {
            Len::Null => out!(self, " null"),
            Len::TooLarge => out!(self, " length too large"),
            Len::Negative => out!(self, " length negative and not -1"),
            Len::Invalid | Len::Value(_) => out!(self, " invalid"),
        }
    }

    /// An inline command: text ended by CR, LF or both.
    fn resp_inline(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        let (start, rest) = self.consume_cr_lf(p, at, left)?;
        let mut end = start;
        let mut r = rest;
        loop {
            if r == 0 {
                return Err(self.caught());
            }
            let c = g1(p, end)?;
            if c == b'\r' || c == b'\n' {
                break;
            }
            end += 1;
            r -= 1;
        }
        self.resp_segment(p, start, end - start)?;
        let (_, r) = self.consume_cr_lf(p, end, r)?;
        Ok(left - r)
    }
}

impl Printer<'_> {
    /// `FIND_CRLF`: how many bytes from `at` precede a CRLF, within `left`.
    fn find_crlf(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        let mut i = 0;
        loop {
            if left < i + 2 {
                return Err(self.caught());
            }
            if g1(p, at + i)? == b'\r' && g1(p, at + i + 1)? == b'\n' {
                return Ok(i);
            }
            i += 1;
        }
    }

    /// `CONSUME_CR_OR_LF`: skips CRs and LFs from `at`; where it stopped and the
    /// bytes left. Running out of data before any is truncation.
    fn consume_cr_lf(
        &mut self,
        p: &[u8],
        mut at: usize,
        mut left: usize,
    ) -> PResult<(usize, usize)> {
        let mut found = false;
        loop {
            if left == 0 || at >= p.len() {
                if found {
                    return Ok((at, left));
                }
                return Err(self.caught());
            }
            let c = p[at];
            if c != b'\r' && c != b'\n' {
                return Ok((at, left));
            }
            found = true;
            at += 1;
            left -= 1;
        }
    }

    /// `resp_get_length`: the decimal length at `at` and its CRLF; the value,
    /// where the element goes on and the bytes left from there.
    fn get_length(&mut self, p: &[u8], mut at: usize, left: usize) -> PResult<(Len, usize, usize)> {
        let start = at;
        let taken = |at: usize| left.wrapping_sub(at - start);
        if left == 0 {
            return Err(self.caught());
        }
        let mut len = left;
        let neg = g1(p, at)? == b'-';
        if neg {
            at += 1;
            len -= 1;
        }
        let mut result: i32 = 0;
        let mut saw_digit = false;
        let mut too_large = false;
        loop {
            if len == 0 {
                return Err(self.caught());
            }
            let c = g1(p, at)?;
            if !c.is_ascii_digit() {
                if !saw_digit {
                    at += 1;
                    return Ok((Len::Invalid, at, taken(at)));
                }
                break;
            }
            let d = i32::from(c - b'0');
            match result.checked_mul(10).and_then(|r| r.checked_add(d)) {
                Some(r) if !too_large => result = r,
                _ => too_large = true,
            }
            at += 1;
            len -= 1;
            saw_digit = true;
        }
        if g1(p, at)? != b'\r' {
            at += 1;
            return Ok((Len::Invalid, at, taken(at)));
        }
        at += 1;
        len -= 1;
        if len == 0 {
            return Err(self.caught());
        }
        if g1(p, at)? != b'\n' {
            at += 1;
            return Ok((Len::Invalid, at, taken(at)));
        }
        at += 1;
        let l = if neg {
            if too_large || result != 1 {
                Len::Negative
            } else {
                Len::Null
            }
        } else if too_large {
            Len::TooLarge
        } else {
            Len::Value(result as usize)
        };
        Ok((l, at, taken(at)))
    }
}
