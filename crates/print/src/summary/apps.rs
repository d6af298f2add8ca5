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
        // Ports udp_print tests between these whose payloads other printers
        // take (or none does): a datagram on one of them is not for these.
        let r = if is(525) {
            self.timed(cp)
        } else if is(69) {
            self.tftp(cp, length)
        } else if is(654) {
            self.aodv(cp, length, ctx.is_v6())
        } else if is(500) {
            self.isakmp(cp, length, ctx)
        } else if is(4500) {
            return false;
        } else if any(&[7500, 8500]) {
            self.isakmp(cp, length, ctx)
        } else if any(&[161, 162]) {
            self.snmp(cp, length)
        } else if is(123) {
            return false;
        } else if any(&[88, 750]) {
            self.krb(cp)
        } else if is(1701) {
            self.l2tp(cp, length)
        } else if any(&[137, 138]) {
            return false;
        } else if dport == 3456 {
            self.vat(cp, length)
        } else if any(&[2103, 2104]) {
            self.zephyr(cp, length)
        } else if rx_port(sport) || rx_port(dport) {
            self.rx(cp, length, sport, dport, ctx)
        } else if is(521) {
            self.ripng(cp, length)
        } else if any(&[546, 547]) {
            return false;
        } else if is(5359) {
            self.ahcp(cp, length)
        } else if any(&[6696, 6697]) {
            return false;
        } else if is(8231) {
            self.hncp(cp, length)
        } else if dport == 4567 {
            self.wb(cp, length)
        } else if is(496) {
            self.cisco_autorp(cp, length)
        } else if any(&[1645, 1812, 1646, 1813, 3799, 1700]) || dport == 1985 {
            return false;
        } else if is(921) {
            self.lwres(cp, length)
        } else if is(646) {
            return false;
        } else if is(698) {
            self.olsr(cp, length, ctx.is_v6())
        } else if is(3503) {
            // -v decodes the TLVs, not decoded yet.
            if self.opts.verbose > 0 {
                return false;
            }
            self.lspping(cp, length)
        } else if sport == 49152 || matches!(dport, 3784 | 4784 | 6784 | 3785) {
            return false;
        } else if is(701) {
            self.lmp(cp, length)
        } else if is(1589) {
            self.vqp(cp, length)
        } else if dport == 12223 {
            self.lwapp_control(cp, length, true)
        } else if sport == 12223 {
            self.lwapp_control(cp, length, false)
        } else if is(12222) {
            self.lwapp_data(cp, length)
        } else if is(4790) {
            self.vxlan_gpe(cp, length)
        } else if is(30490) && !self.udp_taken_before_someip(sport, dport, cp) {
            self.someip(cp, length)
        } else {
            return false;
        };
        self.catch(r);
        true
    }

    /// Whether a port udp_print tests before SOME/IP's (after AHCP's) takes
    /// the datagram.
    fn udp_taken_before_someip(&self, sport: u16, dport: u16, cp: &[u8]) -> bool {
        let is = |p: u16| sport == p || dport == p;
        const BEFORE: [u16; 29] = [
            6696, 6697, 8231, 496, 1645, 1812, 1646, 1813, 3799, 1700, 921, 646, 698, 3503, 701,
            1589, 6343, 12222, 5060, 514, 8472, 4789, 4342, 4790, 17754, 6635, 319, 320, 12223,
        ];
        let atalk = super::transport::atalk_port;
        BEFORE.iter().any(|&p| is(p))
            || dport == 4567
            || dport == 1985
            || dport == 6081
            || sport == 49152
            || matches!(dport, 3784 | 4784 | 6784 | 3785)
            || (cp.get(2) == Some(&2) && (atalk(sport) || atalk(dport)))
    }
}
