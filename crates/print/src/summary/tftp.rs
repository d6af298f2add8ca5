//! TFTP (UDP port 69), as tcpdump 4.99's `tftp_print` prints it: the
//! opcode, file name, mode and options, block numbers and errors.

use super::{g1, g2, out, print_char, PResult, Printer, Trunc};

impl Printer<'_> {
    /// `tftp_print`: `length` bytes of UDP payload, `p` captured.
    pub(super) fn tftp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "tftp";
        out!(self, "TFTP, length {length}");
        let mut left = length as usize;
        if left < 2 {
            return Err(Trunc);
        }
        let op = g2(p, 0)?;
        let name = match op {
            1 => "RRQ",
            2 => "WRQ",
            3 => "DATA",
            4 => "ACK",
            5 => "ERROR",
            6 => "OACK",
            _ => {
                out!(self, ", tftp-#{op}");
                return Ok(());
            }
        };
        out!(self, ", {name}");
        let mut at = 2;
        left -= 2;
        match op {
            1 | 2 => {
                if left == 0 {
                    return Err(Trunc);
                }
                out!(self, " \"");
                let n = self.ztn(p, at, left);
                self.out.push('"');
                let n = n?;
                at += n;
                left -= n;
                if left == 0 {
                    return Err(Trunc);
                }
                self.out.push(' ');
                let n = self.ztn(p, at, left)?;
                self.tftp_options(p, at + n, left - n)?;
            }
            6 => self.tftp_options(p, at, left)?,
            3 | 4 => {
                if left < 2 {
                    return Err(Trunc);
                }
                out!(self, " block {}", g2(p, at)?);
            }
            _ => {
                if left < 2 {
                    return Err(Trunc);
                }
                let code = g2(p, at)?;
                const ERRS: [&str; 8] = [
                    "EUNDEF",
                    "ENOTFOUND",
                    "EACCESS",
                    "ENOSPACE",
                    "EBADOP",
                    "EBADID",
                    "EEXISTS",
                    "ENOUSER",
                ];
                match ERRS.get(code as usize) {
                    Some(e) => out!(self, " {e}"),
                    None => out!(self, " tftp-err-#{code} \""),
                }
                at += 2;
                left -= 2;
                if left == 0 {
                    return Err(Trunc);
                }
                out!(self, " \"");
                let n = self.ztn(p, at, left);
                self.out.push('"');
                n?;
            }
        }
        Ok(())
    }

    /// The NUL-separated options after a request's mode or in an OACK.
    fn tftp_options(&mut self, p: &[u8], mut at: usize, mut left: usize) -> PResult {
        while left != 0 {
            if g1(p, at)? != 0 {
                self.out.push(' ');
            }
            let n = self.ztn(p, at, left)?;
            at += n;
            left -= n;
        }
        Ok(())
    }

    /// tcpdump's `nd_printztn`: a NUL-terminated string of at most `n`
    /// bytes from `at`; the bytes it took with the NUL. No NUL within `n`
    /// bytes or the capture is truncation.
    pub(super) fn ztn(&mut self, p: &[u8], at: usize, n: usize) -> PResult<usize> {
        for i in 0..n {
            let c = *p.get(at + i).ok_or(Trunc)?;
            if c == 0 {
                return Ok(i + 1);
            }
            print_char(&mut self.out, c);
        }
        Err(Trunc)
    }
}
