//! Where UDP payloads go to the application printers of issue 27 (ISAKMP,
//! Kerberos, AFS over Rx ...), in tcpdump 4.99's `udp_print` order.

use super::{IpCtx, Printer};

impl Printer<'_> {
    /// Prints the payload of a datagram the port table leaves undecoded when
    /// one of these printers takes it; `false` leaves it to `UDP, length N`.
    pub(super) fn apps_udp(
        &mut self,
        cp: &[u8],
        length: u32,
        sport: u16,
        dport: u16,
        ctx: &IpCtx,
    ) -> bool {
        let is = |p: u16| sport == p || dport == p;
        let any = |ps: &[u16]| ps.iter().any(|&p| is(p));
        let rx_port = |p: u16| (7000..=7009).contains(&p);
        // Ports udp_print tests before those below, whose payloads are not
        // decoded here: a datagram on one of them is not for these printers.
        let r = if any(&[525, 69, 654]) {
            return false;
        } else if is(500) {
            self.isakmp(cp, length, ctx)
        } else if is(4500) {
            return false;
        } else if any(&[7500, 8500]) {
            self.isakmp(cp, length, ctx)
        } else if any(&[161, 162, 123]) {
            return false;
        } else if any(&[88, 750]) {
            self.krb(cp)
        } else if any(&[1701, 137, 138, 2103, 2104]) || dport == 3456 {
            return false;
        } else if rx_port(sport) || rx_port(dport) {
            self.rx(cp, length, sport, dport, ctx)
        } else if any(&[521, 546, 547]) {
            return false;
        } else if is(5359) {
            self.ahcp(cp, length)
        } else {
            return false;
        };
        self.catch(r);
        true
    }
}
