//! 802.11 management frame bodies (tcpdump's `mgmt_body_print` and its
//! `handle_*`): the fixed fields each subtype prints and, from the
//! information elements, the first SSID, supported rates and DS channel.
//! Elements are walked in place; nothing is copied or kept beyond the frame.

use super::super::{out, print_char, PResult, Printer, Trunc};
use super::text::{REASON, STATUS};
use super::FC_PROTECTED;

const ST_ASSOC_REQUEST: u16 = 0x0;
const ST_ASSOC_RESPONSE: u16 = 0x1;
const ST_REASSOC_REQUEST: u16 = 0x2;
const ST_REASSOC_RESPONSE: u16 = 0x3;
const ST_PROBE_REQUEST: u16 = 0x4;
const ST_PROBE_RESPONSE: u16 = 0x5;
const ST_BEACON: u16 = 0x8;
const ST_ATIM: u16 = 0x9;
const ST_DISASSOC: u16 = 0xa;
const ST_AUTH: u16 = 0xb;
const ST_DEAUTH: u16 = 0xc;
const ST_ACTION: u16 = 0xd;

const E_SSID: u8 = 0;
const E_RATES: u8 = 1;
const E_DS: u8 = 3;
const E_TIM: u8 = 5;
const E_CHALLENGE: u8 = 16;

/// The sizes of tcpdump's element buffers: a longer element ends the walk as
/// a truncation.
const SSID_MAX: usize = 32;
const RATES_MAX: usize = 16;
const CHALLENGE_MAX: usize = 253;
const TIM_BITMAP_MAX: usize = 251;

const AUTH_ALG: [&str; 3] = ["Open System", "Shared Key", "EAP"];

fn subtype_name(sub: u16) -> Option<&'static str> {
    Some(match sub {
        ST_ASSOC_REQUEST => "Assoc Request",
        ST_ASSOC_RESPONSE => "Assoc Response",
        ST_REASSOC_REQUEST => "ReAssoc Request",
        ST_REASSOC_RESPONSE => "ReAssoc Response",
        ST_PROBE_REQUEST => "Probe Request",
        ST_PROBE_RESPONSE => "Probe Response",
        ST_BEACON => "Beacon",
        ST_ATIM => "ATIM",
        ST_DISASSOC => "Disassociation",
        ST_AUTH => "Authentication",
        ST_DEAUTH => "DeAuthentication",
        ST_ACTION => "Action",
        _ => return None,
    })
}

fn status(code: u16) -> &'static str {
    STATUS.get(usize::from(code)).copied().unwrap_or("n/a")
}

fn reason(code: u16) -> &'static str {
    REASON.get(usize::from(code)).copied().unwrap_or("Reserved")
}

fn le16(p: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([p[at], p[at + 1]])
}

/// The elements tcpdump prints: the first of each kind.
#[derive(Default)]
struct Elements<'a> {
    ssid: Option<&'a [u8]>,
    rates: Option<&'a [u8]>,
    ds: Option<u8>,
}

/// `parse_elements`: the elements from `p` over `length` bytes on the wire,
/// and whether the walk ended cleanly (else the frame ends as truncated).
fn elements(p: &[u8], length: u32) -> (Elements<'_>, bool) {
    let mut e = Elements::default();
    let (mut at, mut left) = (0usize, length as usize);
    while left != 0 {
        if at + 2 > p.len() || left < 2 {
            return (e, false);
        }
        let (id, n) = (p[at], usize::from(p[at + 1]));
        if at + 2 + n > p.len() || left < n + 2 {
            return (e, false);
        }
        let v = &p[at + 2..at + 2 + n];
        match id {
            E_SSID if n > SSID_MAX => return (e, false),
            E_SSID => {
                e.ssid.get_or_insert(v);
            }
            E_CHALLENGE if n > CHALLENGE_MAX => return (e, false),
            E_RATES if n > RATES_MAX => return (e, false),
            // A zero-length rates element is ignored.
            E_RATES if n != 0 => {
                e.rates.get_or_insert(v);
            }
            E_DS if n == 1 => {
                e.ds.get_or_insert(v[0]);
            }
            E_TIM if n > 3 && n - 3 > TIM_BITMAP_MAX => return (e, false),
            _ => {}
        }
        at += 2 + n;
        left -= 2 + n;
    }
    (e, true)
}

impl Printer<'_> {
    /// `mgmt_body_print`: `src` is the frame's SA, `p` the body and `length`
    /// its length on the wire. `Err` ends the frame as truncated.
    pub(super) fn mgmt_body(&mut self, fc: u16, src: [u8; 6], p: &[u8], length: u32) -> PResult {
        let sub = super::fc_subtype(fc);
        match subtype_name(sub) {
            Some(n) => self.out.push_str(n),
            None => out!(self, "Unhandled Management subtype({sub:x})"),
        }
        if fc & FC_PROTECTED != 0 {
            return self.wep(p);
        }
        // The fixed fields before the elements; cut short, nothing more.
        let fixed = match sub {
            ST_ASSOC_REQUEST => 4,
            ST_ASSOC_RESPONSE | ST_REASSOC_RESPONSE | ST_AUTH => 6,
            ST_REASSOC_REQUEST => 10,
            ST_PROBE_REQUEST => 0,
            ST_PROBE_RESPONSE | ST_BEACON => 12,
            ST_DISASSOC | ST_DEAUTH | ST_ACTION => 2,
            _ => return Ok(()),
        };
        if p.len() < fixed || (length as usize) < fixed {
            return Err(Trunc);
        }
        let rest = length - fixed as u32;
        let ies = || elements(&p[fixed..], rest);
        let ok = match sub {
            ST_BEACON | ST_PROBE_RESPONSE => {
                let cap = le16(p, 10);
                let (e, ok) = ies();
                self.ssid(&e);
                self.rates(&e);
                if sub == ST_BEACON {
                    out!(self, " {}", if cap & 1 != 0 { "ESS" } else { "IBSS" });
                }
                if let Some(ch) = e.ds {
                    out!(self, " CH: {ch}");
                }
                if cap & 0x10 != 0 {
                    self.out.push_str(", PRIVACY");
                }
                ok
            }
            ST_ASSOC_REQUEST | ST_PROBE_REQUEST => {
                let (e, ok) = ies();
                self.ssid(&e);
                self.rates(&e);
                ok
            }
            ST_ASSOC_RESPONSE | ST_REASSOC_RESPONSE => {
                let (cap, st, aid) = (le16(p, 0), le16(p, 2), le16(p, 4));
                let (_, ok) = ies();
                out!(
                    self,
                    " AID({:x}) :{}: {}",
                    aid & 0x3fff,
                    if cap & 0x10 != 0 { " PRIVACY " } else { "" },
                    status(st)
                );
                ok
            }
            ST_REASSOC_REQUEST => {
                let (e, ok) = ies();
                self.ssid(&e);
                let ap = self.ether_str(super::mac_at(p, 4));
                out!(self, " AP : {ap}");
                ok
            }
            ST_AUTH => {
                let (alg, seq, st) = (le16(p, 0), le16(p, 2), le16(p, 4));
                let (_, ok) = ies();
                let alg_name = AUTH_ALG
                    .get(usize::from(alg))
                    .copied()
                    .unwrap_or("Reserved");
                let st = if seq % 2 == 1 { status(st) } else { "" };
                if alg == 1 && (seq == 2 || seq == 3) {
                    out!(self, " ({alg_name})-{seq:x} [Challenge Text] {st}");
                } else {
                    out!(self, " ({alg_name})-{seq:x}: {st}");
                }
                ok
            }
            ST_DISASSOC => {
                out!(self, ": {}", reason(le16(p, 0)));
                true
            }
            ST_DEAUTH => {
                let r = reason(le16(p, 0));
                if self.opts.link_header {
                    out!(self, ": {r}");
                } else {
                    let s = self.ether_str(src);
                    out!(self, " ({s}): {r}");
                }
                true
            }
            _ => {
                if self.opts.link_header {
                    self.out.push_str(": ");
                } else {
                    let s = self.ether_str(src);
                    out!(self, " ({s}): ");
                }
                self.action(p[0], p[1]);
                true
            }
        };
        if ok {
            Ok(())
        } else {
            Err(Trunc)
        }
    }

    /// `PRINT_SSID`.
    fn ssid(&mut self, e: &Elements) {
        if let Some(s) = e.ssid {
            self.out.push_str(" (");
            for &c in s.iter().take_while(|&&c| c != 0) {
                print_char(&mut self.out, c);
            }
            self.out.push(')');
        }
    }

    /// `PRINT_RATES`: each in Mb/s, `*` for a basic rate.
    fn rates(&mut self, e: &Elements) {
        if let Some(r) = e.rates {
            let mut sep = " [";
            for &b in r {
                let star = if b & 0x80 != 0 { "*" } else { "" };
                out!(self, "{sep}{:.1}{star}", 0.5 * f64::from(b & 0x7f));
                sep = " ";
            }
            self.out.push_str(" Mbit]");
        }
    }

    /// `handle_action`'s category and action names (4.99.3's wording).
    fn action(&mut self, category: u8, action: u8) {
        let names: &[&str] = match category {
            3 => &["ADDBA Request", "ADDBA Response", "DELBA"],
            7 => &["TxChWidth", "MIMOPwrSave"],
            13 => &[
                "MeshLink",
                "HWMP",
                "Gate Announcement",
                "Congestion Control",
                "MCCA Setup Request",
                "MCCA Setup Reply",
                "MCCA Advertisement Request",
                "MCCA Advertisement",
                "MCCA Teardown",
                "TBTT Adjustment Request",
                "TBTT Adjustment Response",
            ],
            14 => &["Proxy Update", "Proxy Update Confirmation"],
            // Self-protected actions are numbered from 1.
            15 => &[
                "",
                "Peering Open",
                "Peering Confirm",
                "Peering Close",
                "Group Key Inform",
                "Group Key Acknowledge",
            ],
            _ => &[],
        };
        match category {
            0 => self.out.push_str("Spectrum Management "),
            1 => self.out.push_str("QoS "),
            2 => self.out.push_str("DLS "),
            3 => self.out.push_str("BA "),
            7 => self.out.push_str("HT "),
            13 => self.out.push_str("MeshAction "),
            14 => self.out.push_str("MultiohopAction "),
            15 => self.out.push_str("SelfprotectAction "),
            127 => self.out.push_str("Vendor "),
            c => out!(self, "Reserved({c}) "),
        }
        match names.get(usize::from(action)) {
            Some(n) if !n.is_empty() => self.out.push_str(n),
            _ => out!(self, "Act#{action}"),
        }
    }
}
