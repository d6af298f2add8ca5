//! SNMP (UDP ports 161 and 162) as tcpdump 4.99.3 prints it without libsmi
//! (`snmp_print`): the community of SNMPv1 and SNMPv2c messages when it is
//! not `public`, SNMPv3's header, security parameters (USM) and scoped PDU,
//! then the PDU: its name and length, request id with `-v`, error status
//! and index, and each variable binding as `OID=value` (`-vv` adds nothing).
//! A Trap prints its enterprise, agent address, generic and specific trap
//! and time stamp first. `asn1.rs` reads and prints the BER elements, with
//! tcpdump's bracketed errors; `mib.rs` names object identifiers without
//! `-n`.
//!
//! Every printer returns, having printed why, when an element cannot be
//! read or is not of the type expected, as tcpdump's do: the enclosing
//! printers then go on with their closing braces (`-v`).

mod asn1;
mod mib;

use super::{out, tail, PResult, Printer};
use asn1::{Be, Ty, GETBULKREQ, GETNEXTREQ, GETREQ, INFORMREQ, REPORT, SETREQ, TRAP, V2TRAP};

/// Where the next element is read (tcpdump's `np` and `length`): the
/// bytes from it to the end of the capture, and the length still declared.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    p: &'a [u8],
    len: u32,
}

impl<'a> Cursor<'a> {
    /// The content of `e`.
    fn inside(e: &Be<'a>) -> Cursor<'a> {
        Cursor {
            p: e.data,
            len: e.asnlen,
        }
    }

    /// Past an element of `count` bytes (no more than the reader found).
    fn skip(&mut self, count: u32) {
        self.p = tail(self.p, count as usize);
        self.len -= count;
    }
}

/// The element at `$c` and its size, or return: the reader has printed why
/// not.
macro_rules! parse {
    ($s:expr, $c:expr) => {
        match $s.asn1_parse($c.p, $c.len)? {
            Some(e) => e,
            None => return Ok(()),
        }
    };
}

/// The element at `$c` and its size, `$c` moved past it; unless it is
/// `$pat`, prints `[$what]` and the element, and returns.
macro_rules! take {
    ($s:expr, $c:expr, $pat:pat, $what:literal) => {{
        let (e, count) = parse!($s, $c);
        if !matches!(e.ty, $pat) {
            out!($s, concat!("[", $what, "]"));
            $s.asn1_print(&e);
            return Ok(());
        }
        $c.skip(count);
        (e, count)
    }};
}

/// `error-status` names.
const ERROR_STATUS: [&str; 19] = [
    "noError",
    "tooBig",
    "noSuchName",
    "badValue",
    "readOnly",
    "genErr",
    "noAccess",
    "wrongType",
    "wrongLength",
    "wrongEncoding",
    "wrongValue",
    "noCreation",
    "inconsistentValue",
    "resourceUnavailable",
    "commitFailed",
    "undoFailed",
    "authorizationError",
    "notWritable",
    "inconsistentName",
];

/// `generic-trap` names of the Trap PDU.
const GENERIC_TRAP: [&str; 7] = [
    "coldStart",
    "warmStart",
    "linkDown",
    "linkUp",
    "authenticationFailure",
    "egpNeighborLoss",
    "enterpriseSpecific",
];

const VERSIONS: [&str; 4] = ["SNMPv1", "SNMPv2c", "SNMPv2u", "SNMPv3"];

fn status_name(e: i32) -> String {
    match usize::try_from(e).ok().and_then(|i| ERROR_STATUS.get(i)) {
        Some(n) => n.to_string(),
        None => format!("err={}", e as u32),
    }
}

/// Whether a PDU carries no error status or index (tcpdump prints a
/// nonzero one as an anomaly).
fn errorless(pduid: u8) -> bool {
    matches!(
        pduid,
        GETREQ | GETNEXTREQ | SETREQ | INFORMREQ | V2TRAP | REPORT
    )
}

/// Whether a PDU's variable bindings carry no values.
fn read_class(pduid: u8) -> bool {
    matches!(pduid, GETREQ | GETNEXTREQ | GETBULKREQ)
}

impl Printer<'_> {
    /// `snmp_print`: `np` is the UDP payload as captured, `length` its
    /// length on the wire.
    pub(super) fn snmp(&mut self, np: &[u8], length: u32) -> PResult {
        self.proto = "snmp";
        out!(self, " ");
        let mut c = Cursor { p: np, len: length };
        let (e, count) = take!(self, c, Ty::Seq, "!init SEQ");
        if count < length {
            out!(self, "[{} extra after iSEQ]", (length - count) as i32);
        }
        let mut c = Cursor::inside(&e);
        let (e, _) = take!(self, c, Ty::Int(_), "version!=INT");
        let version = int(&e);
        if !matches!(version, 0 | 1 | 3) {
            out!(self, "SNMP [version = {version}]");
            return Ok(());
        }
        if self.opts.verbose > 0 {
            out!(self, "{{ {} ", VERSIONS[version as usize]);
        }
        if version == 3 {
            self.snmp_v3msg(c)?;
        } else {
            self.snmp_community(c, version)?;
        }
        if self.opts.verbose > 0 {
            out!(self, "}} ");
        }
        Ok(())
    }

    /// `community_print`: SNMPv1's and SNMPv2c's community, unless `public`.
    fn snmp_community(&mut self, mut c: Cursor, version: i32) -> PResult {
        let (e, _) = take!(self, c, Ty::Str, "comm!=STR");
        if e.content() != b"public" {
            out!(self, "C=");
            self.asn1_string(&e);
            out!(self, " ");
        }
        self.snmp_pdu(c, version)
    }

    /// `pdu_print`: the PDU's name and length, then its fields.
    fn snmp_pdu(&mut self, c: Cursor, version: i32) -> PResult {
        let (pdu, count) = parse!(self, c);
        if pdu.ty != Ty::Pdu {
            out!(self, "[no PDU]");
            return Ok(());
        }
        if count < c.len {
            out!(self, "[{} extra after PDU]", (c.len - count) as i32);
        }
        let verbose = self.opts.verbose > 0;
        if verbose {
            out!(self, "{{ ");
        }
        self.asn1_print(&pdu);
        out!(self, " ");
        if version == 0 && matches!(pdu.id, GETBULKREQ | INFORMREQ | V2TRAP | REPORT) {
            out!(self, "[v2 PDU in v1 message]");
            return Ok(());
        }
        if version == 1 && pdu.id == TRAP {
            out!(self, "[v1 PDU in v2 message]");
            return Ok(());
        }
        let c = Cursor::inside(&pdu);
        if pdu.id == TRAP {
            self.snmp_trap(c)?;
        } else {
            self.snmp_fields(pdu.id, c)?;
        }
        if verbose {
            out!(self, " }} ");
        }
        Ok(())
    }

    /// `snmppdu_print`: request id (`-v`), error status and index (or
    /// GetBulk's non-repeaters and max-repetitions), the bindings.
    fn snmp_fields(&mut self, pduid: u8, mut c: Cursor) -> PResult {
        let (e, _) = take!(self, c, Ty::Int(_), "reqId!=INT");
        if self.opts.verbose > 0 {
            out!(self, "R={} ", int(&e));
        }
        let (e, _) = take!(self, c, Ty::Int(_), "errorStatus!=INT");
        let status = int(&e);
        let mut error_status = 0;
        if errorless(pduid) && status != 0 {
            out!(self, "[errorStatus({})!=0]", status_name(status));
        } else if pduid == GETBULKREQ {
            out!(self, " N={status}");
        } else if status != 0 {
            out!(self, " {}", status_name(status));
            error_status = status;
        }
        let (e, _) = take!(self, c, Ty::Int(_), "errorIndex!=INT");
        let index = int(&e);
        if errorless(pduid) && index != 0 {
            out!(self, "[errorIndex({index})!=0]");
        } else if pduid == GETBULKREQ {
            out!(self, " M={index}");
        } else if index != 0 {
            if error_status == 0 {
                out!(self, "[errorIndex({index}) w/o errorStatus]");
            } else {
                out!(self, "@{index}");
            }
        } else if error_status != 0 {
            out!(self, "[errorIndex==0]");
        }
        self.snmp_varbinds(pduid, c)
    }

    /// `trappdu_print`: SNMPv1's Trap.
    fn snmp_trap(&mut self, mut c: Cursor) -> PResult {
        out!(self, " ");
        let (e, _) = take!(self, c, Ty::Oid, "enterprise!=OID");
        self.asn1_print(&e);
        out!(self, " ");
        let (e, _) = take!(self, c, Ty::InetAddr, "agent-addr!=INETADDR");
        self.asn1_print(&e);
        let (e, _) = take!(self, c, Ty::Int(_), "generic-trap!=INT");
        let generic = int(&e);
        match usize::try_from(generic)
            .ok()
            .and_then(|i| GENERIC_TRAP.get(i))
        {
            Some(n) => out!(self, " {n}"),
            None => out!(self, " gt={generic}"),
        }
        let (e, _) = take!(self, c, Ty::Int(_), "specific-trap!=INT");
        let specific = int(&e);
        if generic != 6 {
            if specific != 0 {
                out!(self, "[specific-trap({specific})!=0]");
            }
        } else {
            out!(self, " s={specific}");
        }
        out!(self, " ");
        let (e, _) = take!(self, c, Ty::Uns(_), "time-stamp!=TIMETICKS");
        self.asn1_print(&e);
        self.snmp_varbinds(TRAP, c)
    }

    /// `varbind_print`: ` OID=value` a binding; the requests' bindings
    /// print their names alone.
    fn snmp_varbinds(&mut self, pduid: u8, mut c: Cursor) -> PResult {
        let length = c.len;
        let (e, count) = take!(self, c, Ty::Seq, "!SEQ of varbind");
        if count < length {
            out!(
                self,
                "[{} extra after SEQ of varbind]",
                (length - count) as i32
            );
        }
        let mut c = Cursor::inside(&e);
        let request = read_class(pduid);
        while c.len > 0 {
            out!(self, " ");
            let (vb, _) = take!(self, c, Ty::Seq, "!varbind");
            let mut inner = Cursor::inside(&vb);
            let (name, _) = take!(self, inner, Ty::Oid, "objName!=OID");
            self.asn1_print(&name);
            if !request {
                out!(self, "=");
            }
            let (value, _) = parse!(self, inner);
            if value.ty != Ty::Null {
                if request {
                    out!(self, "[objVal!=NULL]");
                }
                self.asn1_print(&value);
            }
        }
        Ok(())
    }

    /// `v3msg_print`: SNMPv3's header (`F=` its flags), the USM security
    /// parameters and the scoped PDU.
    fn snmp_v3msg(&mut self, msg: Cursor) -> PResult {
        let verbose = self.opts.verbose > 0;
        let mut outer = msg;
        let (e, _) = take!(self, outer, Ty::Seq, "!message");
        let mut c = Cursor::inside(&e);
        if verbose {
            out!(self, "{{ ");
        }
        take!(self, c, Ty::Int(_), "msgID!=INT");
        take!(self, c, Ty::Int(_), "msgMaxSize!=INT");
        let (e, count) = parse!(self, c);
        if e.ty != Ty::Str {
            out!(self, "[msgFlags!=STR]");
            self.asn1_print(&e);
            return Ok(());
        }
        if e.asnlen != 1 {
            out!(self, "[msgFlags size {}]", e.asnlen as i32);
            return Ok(());
        }
        let flags = e.content()[0];
        if !matches!(flags, 0 | 1 | 3 | 4 | 5 | 7) {
            out!(self, "[msgFlags=0x{flags:02X}]");
            return Ok(());
        }
        c.skip(count);
        out!(
            self,
            "F={}{}{} ",
            if flags & 1 != 0 { "a" } else { "" },
            if flags & 2 != 0 { "p" } else { "" },
            if flags & 4 != 0 { "r" } else { "" }
        );
        let (e, count) = take!(self, c, Ty::Int(_), "msgSecurityModel!=INT");
        let model = int(&e);
        if count < c.len {
            out!(self, "[{} extra after message SEQ]", (c.len - count) as i32);
        }
        if verbose {
            out!(self, "}} ");
        }
        if model != 3 {
            out!(self, "[security model {model}]");
            return Ok(());
        }
        if verbose {
            out!(self, "{{ USM ");
        }
        // The security parameters follow the header's last field, whatever
        // the header's own length said.
        let consumed = (msg.p.len() - c.p.len()) as u32;
        let mut c = Cursor {
            p: c.p,
            len: msg.len.wrapping_sub(consumed),
        };
        let (e, _) = take!(self, c, Ty::Str, "msgSecurityParameters!=STR");
        self.snmp_usm(Cursor::inside(&e))?;
        if verbose {
            out!(self, "}} {{ ScopedPDU ");
        }
        self.snmp_scoped_pdu(c)?;
        if verbose {
            out!(self, "}} ");
        }
        Ok(())
    }

    /// `usm_print`: the user-based security model's parameters: `B=` boots
    /// and `T=` time with `-v`, `U=` the user.
    fn snmp_usm(&mut self, mut c: Cursor) -> PResult {
        let (e, _) = take!(self, c, Ty::Seq, "!usm");
        let mut c = Cursor::inside(&e);
        let verbose = self.opts.verbose > 0;
        take!(self, c, Ty::Str, "msgAuthoritativeEngineID!=STR");
        let (e, _) = take!(self, c, Ty::Int(_), "msgAuthoritativeEngineBoots!=INT");
        if verbose {
            out!(self, "B={} ", int(&e));
        }
        let (e, _) = take!(self, c, Ty::Int(_), "msgAuthoritativeEngineTime!=INT");
        if verbose {
            out!(self, "T={} ", int(&e));
        }
        let (e, _) = take!(self, c, Ty::Str, "msgUserName!=STR");
        out!(self, "U=");
        self.asn1_string(&e);
        out!(self, " ");
        take!(self, c, Ty::Str, "msgAuthenticationParameters!=STR");
        let (_, count) = take!(self, c, Ty::Str, "msgPrivacyParameters!=STR");
        if count < c.len {
            out!(self, "[{} extra after usm SEQ]", (c.len - count) as i32);
        }
        Ok(())
    }

    /// `scopedpdu_print`: `E=` the context engine, `C=` the context name,
    /// then the PDU.
    fn snmp_scoped_pdu(&mut self, mut c: Cursor) -> PResult {
        let (e, _) = take!(self, c, Ty::Seq, "!scoped PDU");
        let mut c = Cursor::inside(&e);
        let (e, _) = take!(self, c, Ty::Str, "contextEngineID!=STR");
        out!(self, "E=");
        self.asn1_octets(&e);
        out!(self, " ");
        let (e, _) = take!(self, c, Ty::Str, "contextName!=STR");
        out!(self, "C=");
        self.asn1_string(&e);
        out!(self, " ");
        self.snmp_pdu(c, 3)
    }
}

/// An integer element's value (the callers have checked its type).
fn int(e: &Be) -> i32 {
    match e.ty {
        Ty::Int(v) => v,
        _ => 0,
    }
}
