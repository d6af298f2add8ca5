//! Linux vsock monitoring (tcpdump's `vsock_if_print`): the `af_vsockmon`
//! header (context IDs, ports, operation, transport) and, with `-v`, the
//! virtio transport header; `-vv` dumps a payload.

use super::{out, PResult, Printer, Trunc};

const VSOCKMON_HDR_LEN: usize = 32;
const VIRTIO_HDR_LEN: usize = 44;
const TRANSPORT_VIRTIO: u16 = 2;
const OP_PAYLOAD: u16 = 4;

fn le16(p: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([p[at], p[at + 1]])
}

fn le32(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

fn le64(p: &[u8], at: usize) -> u64 {
    u64::from(le32(p, at)) | u64::from(le32(p, at + 4)) << 32
}

impl Printer<'_> {
    /// `vsock_if_print` and `vsock_hdr_print`.
    pub(super) fn vsock_if(&mut self, p: &[u8], _length: u32) -> PResult {
        self.proto = "vsock";
        let caplen = p.len();
        if caplen < VSOCKMON_HDR_LEN {
            return Err(Trunc);
        }
        let transport = le16(p, 26);
        match transport {
            0 => self.out.push_str("UNKNOWN"),
            1 => self.out.push_str("NO_INFO"),
            TRANSPORT_VIRTIO => self.out.push_str("VIRTIO"),
            t => out!(self, "Invalid transport ({t})"),
        }
        let thdr = if transport == TRANSPORT_VIRTIO {
            VIRTIO_HDR_LEN
        } else {
            0
        };
        let mut short = false;
        if self.opts.verbose > 0 {
            if caplen < VSOCKMON_HDR_LEN + thdr {
                short = true;
            } else {
                if transport == TRANSPORT_VIRTIO {
                    self.virtio_hdr(&p[VSOCKMON_HDR_LEN..]);
                }
                self.out.push_str("\n\t");
            }
        } else {
            self.out.push(' ');
        }
        let op = le16(p, 24);
        let op_name = match op {
            0 => "UNKNOWN".to_string(),
            1 => "CONNECT".to_string(),
            2 => "DISCONNECT".to_string(),
            3 => "CONTROL".to_string(),
            4 => "PAYLOAD".to_string(),
            o => format!(" invalid op ({o})"),
        };
        out!(
            self,
            "{}.{} > {}.{} {op_name}, length {caplen}",
            le64(p, 0),
            le32(p, 16),
            le64(p, 8),
            le32(p, 20)
        );
        if short {
            return Err(Trunc);
        }
        let total = VSOCKMON_HDR_LEN + thdr;
        if self.opts.verbose > 1 && op == OP_PAYLOAD {
            if caplen <= total {
                return Err(Trunc);
            }
            self.out.push('\n');
            // `print_unknown_data` with the indent "\t": tcpdump's `hex_print`
            // puts the indent, not a line break, before each 16 bytes.
            for (i, chunk) in p[total..].chunks(16).enumerate() {
                out!(self, "\t0x{:04x}: ", i * 16);
                for pair in chunk.chunks(2) {
                    self.out.push(' ');
                    for b in pair {
                        out!(self, "{b:02x}");
                    }
                }
            }
        }
        Ok(())
    }

    /// `vsock_virtio_hdr_print` (`h` holds the whole header).
    fn virtio_hdr(&mut self, h: &[u8]) {
        let ty = le16(h, 28);
        let ty = match ty {
            1 => "STREAM".to_string(),
            t => format!("Invalid type ({t})"),
        };
        let op = match le16(h, 30) {
            0 => "INVALID".to_string(),
            1 => "REQUEST".to_string(),
            2 => "RESPONSE".to_string(),
            3 => "RST".to_string(),
            4 => "SHUTDOWN".to_string(),
            5 => "RW".to_string(),
            6 => "CREDIT UPDATE".to_string(),
            7 => "CREDIT REQUEST".to_string(),
            o => format!("Invalid op ({o})"),
        };
        out!(
            self,
            " (len {}, type {ty}, op {op}, flags {:x}, buf_alloc {}, fwd_cnt {})",
            le32(h, 24),
            le32(h, 32),
            le32(h, 36),
            le32(h, 40)
        );
    }
}
