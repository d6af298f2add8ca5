//! The names tcpdump prints when it is not given `-n`: ports from the services
//! database, hosts and Ethernet addresses from the hosts and ethers files, and,
//! from tcpdump's own tables, IP protocols (4.99 no longer asks
//! `getprotobynumber`: `narp` for 54 whatever /etc/protocols says) and the
//! vendor of an Ethernet address.
//!
//! The crate reads no file: the caller hands the databases' text to [`Names`]
//! once, and every lookup is then a table look-up, never a network round trip
//! (tcpdump's DNS look-ups per address are not reproduced). What tcpdump does
//! with the same files: `init_servarray` keeps, for each port, the first
//! `/etc/services` entry of its protocol; `gethostbyaddr` over the hosts file the
//! first line that names the address.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Name tables, filled from the text of the system's databases.
#[derive(Debug, Default, Clone)]
pub struct Names {
    tcp: HashMap<u16, String>,
    udp: HashMap<u16, String>,
    hosts4: HashMap<Ipv4Addr, String>,
    hosts6: HashMap<Ipv6Addr, String>,
    ethers: HashMap<[u8; 6], String>,
    /// tcpdump's `-N`: a host name is printed up to its first dot.
    strip_domain: bool,
    /// tcpdump's `-f` on a live interface: the network and mask of its IPv4
    /// address; an address outside it ("foreign") prints as a number.
    local_net: Option<(Ipv4Addr, Ipv4Addr)>,
}

/// The meaningful words of each line of a database: `#` starts a comment.
fn records(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines().filter_map(|l| {
        let l = l.split('#').next().unwrap_or("");
        let words: Vec<&str> = l.split_whitespace().collect();
        (words.len() >= 2).then_some(words)
    })
}

impl Names {
    /// No names at all: every address, port and protocol prints as a number.
    pub fn new() -> Names {
        Names::default()
    }

    /// Adds the entries of a services(5) file (`name port/proto aliases`); the
    /// first entry of a port and protocol wins.
    pub fn with_services(mut self, text: &str) -> Names {
        for w in records(text) {
            let Some((port, proto)) = w[1].split_once('/') else {
                continue;
            };
            let Ok(port) = port.parse::<u16>() else {
                continue;
            };
            let table = match proto {
                "tcp" => &mut self.tcp,
                "udp" => &mut self.udp,
                _ => continue,
            };
            table.entry(port).or_insert_with(|| w[0].to_string());
        }
        self
    }

    /// Adds the entries of a hosts(5) file (`address name aliases`): an address
    /// is named by the first line that has it.
    pub fn with_hosts(mut self, text: &str) -> Names {
        for w in records(text) {
            match w[0].parse::<IpAddr>() {
                Ok(IpAddr::V4(a)) => {
                    self.hosts4.entry(a).or_insert_with(|| w[1].to_string());
                }
                Ok(IpAddr::V6(a)) => {
                    self.hosts6.entry(a).or_insert_with(|| w[1].to_string());
                }
                Err(_) => {}
            }
        }
        self
    }

    /// Adds the entries of an ethers(5) file (`xx:xx:xx:xx:xx:xx name`).
    pub fn with_ethers(mut self, text: &str) -> Names {
        for w in records(text) {
            let mut mac = [0u8; 6];
            let mut parts = w[0].split(':');
            let ok = mac.iter_mut().all(|b| {
                parts
                    .next()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .map(|v| *b = v)
                    .is_some()
            }) && parts.next().is_none();
            if ok {
                self.ethers.entry(mac).or_insert_with(|| w[1].to_string());
            }
        }
        self
    }

    /// The name of TCP port `port`, if the services database has one.
    pub fn tcp_port(&self, port: u16) -> Option<&str> {
        self.tcp.get(&port).map(String::as_str)
    }

    /// The name of UDP port `port`, if the services database has one.
    pub fn udp_port(&self, port: u16) -> Option<&str> {
        self.udp.get(&port).map(String::as_str)
    }

    /// tcpdump's name of IP protocol `proto` (`netdb_protoname`), if it has one.
    pub fn protocol(&self, proto: u8) -> Option<&'static str> {
        match proto {
            253 => Some("exptest-253"),
            254 => Some("exptest-254"),
            255 => Some("reserved"),
            p => PROTOCOLS
                .get(usize::from(p))
                .copied()
                .filter(|n| !n.is_empty()),
        }
    }

    /// Host names without their domain, as tcpdump's `-N` prints them
    /// (`host.example.org` as `host`).
    pub fn without_domains(mut self) -> Names {
        self.strip_domain = true;
        self
    }

    /// IPv4 addresses outside `net`/`mask` print as numbers, as tcpdump's `-f`
    /// prints "foreign" addresses (it takes the network from the live
    /// interface; for a file it has none, and refuses `-f`).
    pub fn foreign_numeric(mut self, net: Ipv4Addr, mask: Ipv4Addr) -> Names {
        self.local_net = Some((net, mask));
        self
    }

    fn shown<'a>(&self, name: &'a str) -> &'a str {
        match name.find('.') {
            Some(dot) if self.strip_domain => &name[..dot],
            _ => name,
        }
    }

    /// The host name of an IPv4 address in the hosts file.
    pub fn host4(&self, a: Ipv4Addr) -> Option<&str> {
        if let Some((net, mask)) = self.local_net {
            if u32::from(a) & u32::from(mask) != u32::from(net) {
                return None;
            }
        }
        self.hosts4.get(&a).map(|n| self.shown(n))
    }

    /// The host name of an IPv6 address in the hosts file.
    pub fn host6(&self, a: Ipv6Addr) -> Option<&str> {
        self.hosts6.get(&a).map(|n| self.shown(n))
    }

    /// tcpdump's `etheraddr_string` without `-n`: the ethers file's name, `Broadcast`
    /// for ff:ff:ff:ff:ff:ff, else the address and its vendor (`(oui Cisco)`,
    /// `(oui Unknown)`).
    pub fn ether(&self, mac: [u8; 6]) -> String {
        if let Some(n) = self.ethers.get(&mac) {
            return n.clone();
        }
        if mac == [0xff; 6] {
            return "Broadcast".to_string();
        }
        let oui = u32::from_be_bytes([0, mac[0], mac[1], mac[2]]);
        format!(
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x} (oui {})",
            mac[0],
            mac[1],
            mac[2],
            mac[3],
            mac[4],
            mac[5],
            oui_vendor(oui).unwrap_or("Unknown")
        )
    }
}

/// tcpdump 4.99's `netdb_protocol_names` (ipproto.c) up to 142: IANA's
/// keywords as /etc/protocols spelt them; empty where it has none. 143 to 252
/// are unassigned; 253 to 255 are in [`Names::protocol`].
#[rustfmt::skip]
const PROTOCOLS: [&str; 143] = [
    "hopopt", "icmp", "igmp", "ggp", "ipencap", "st",
    "tcp", "cbt", "egp", "igp", "bbn-rcc-mon", "nvp-ii",
    "pup", "argus", "emcon", "xnet", "chaos", "udp",
    "mux", "dcn-meas", "hmp", "prm", "xns-idp", "trunk-1",
    "trunk-2", "leaf-1", "leaf-2", "rdp", "irtp", "iso-tp4",
    "netblt", "mfe-nsp", "merit-inp", "dccp", "3pc", "idpr",
    "xtp", "ddp", "idpr-cmtp", "tp++", "il", "ipv6",
    "sdrp", "ipv6-route", "ipv6-frag", "idrp", "rsvp", "gre",
    "dsr", "bna", "esp", "ah", "i-nlsp", "swipe",
    "narp", "mobile", "tlsp", "skip", "ipv6-icmp", "ipv6-nonxt",
    "ipv6-opts", "", "cftp", "", "sat-expak", "kryptolan",
    "rvd", "ippc", "", "sat-mon", "visa", "ipcv",
    "cpnx", "rspf", "wsn", "pvp", "br-sat-mon", "sun-nd",
    "wb-mon", "wb-expak", "iso-ip", "vmtp", "secure-vmtp", "vines",
    "ttp", "nsfnet-igp", "dgp", "tcf", "eigrp", "ospf",
    "sprite-rpc", "larp", "mtp", "ax.25", "ipip", "micp",
    "scc-sp", "etherip", "encap", "", "gmtp", "ifmp",
    "pnni", "pim", "aris", "scps", "qnx", "a/n",
    "ipcomp", "snp", "compaq-peer", "ipx-in-ip", "vrrp", "pgm",
    "", "l2tp", "ddx", "iatp", "stp", "srp",
    "uti", "smp", "sm", "ptp", "isis", "fire",
    "crtp", "crudp", "sscopmce", "iplt", "sps", "pipe",
    "sctp", "fc", "rsvp-e2e-ignore", "mobility-header", "udplite", "mpls-in-ip",
    "manet", "hip", "shim6", "wesp", "rohc",
];

/// tcpdump 4.99's `oui_values`: the vendors it names (the first entry of a
/// number wins, so 00:80:c2 is `Ethernet bridged`).
pub(crate) fn oui_vendor(oui: u32) -> Option<&'static str> {
    Some(match oui {
        0x000000 => "Ethernet",
        0x00000c => "Cisco",
        0x00005e => "IANA",
        0x000081 => "Nortel Networks SONMP",
        0x0000f8 => "Cisco bridged",
        0x0080c2 => "Ethernet bridged",
        0x00a03e => "ATM Forum",
        0x00e02f => "DOCSIS Spanning Tree",
        0x080007 => "Appletalk",
        0x009069 => "Juniper",
        0x080009 => "Hewlett-Packard",
        0x00120f => "IEEE 802.3 Private",
        0x0012bb => "ANSI/TIA",
        0x001b21 => "DCBX",
        0x002320 => "Nicira Networks",
        0x5c16c7 => "Big Switch Networks",
        0xb0d2f5 => "Vello Systems",
        0x002481 => "HP",
        0x0004ea => "HP-Labs",
        0x748771 => "Infoblox Inc",
        0xa42305 => "Open Networking Lab",
        0x00049f => "Freescale",
        0x0015ad => "Netronome",
        0x001018 => "Broadcom",
        0x00e004 => "PMC-Sierra",
        0xd0f0db => "Ericsson",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_entries_win_and_comments_are_ignored() {
        let n = Names::new()
            .with_services(
                "ssh 22/tcp # secure\nssh2 22/tcp\ndomain 53/udp\n#x 1/tcp\nbad 70000/tcp\n",
            )
            .with_hosts("127.0.0.1 localhost\n127.0.0.1 other\n::1 ip6-localhost\nnonsense\n")
            .with_ethers("00:11:22:33:44:55 router\n0:1:2 short\n");
        assert_eq!(n.tcp_port(22), Some("ssh"));
        assert_eq!(n.udp_port(22), None);
        assert_eq!(n.udp_port(53), Some("domain"));
        assert_eq!(n.tcp_port(1), None);
        assert_eq!(n.protocol(0), Some("hopopt"));
        assert_eq!(n.protocol(54), Some("narp"));
        assert_eq!(n.protocol(61), None);
        assert_eq!(n.protocol(255), Some("reserved"));
        assert_eq!(n.host4(Ipv4Addr::LOCALHOST), Some("localhost"));
        assert_eq!(n.host6(Ipv6Addr::LOCALHOST), Some("ip6-localhost"));
        assert_eq!(n.ether([0, 0x11, 0x22, 0x33, 0x44, 0x55]), "router");
        assert_eq!(n.ether([0xff; 6]), "Broadcast");
        assert_eq!(
            n.ether([0, 0, 0x0c, 1, 2, 3]),
            "00:00:0c:01:02:03 (oui Cisco)"
        );
        assert_eq!(
            n.ether([2, 0, 0, 1, 2, 3]),
            "02:00:00:01:02:03 (oui Unknown)"
        );
    }

    #[test]
    fn domains_are_cut_with_n_and_foreign_addresses_stay_numbers_with_f() {
        let hosts = "10.0.0.1 a.example.org\n192.0.2.1 b.example.org\n::1 c.example\n";
        let n = Names::new().with_hosts(hosts).without_domains();
        assert_eq!(n.host4(Ipv4Addr::new(10, 0, 0, 1)), Some("a"));
        assert_eq!(n.host6(Ipv6Addr::LOCALHOST), Some("c"));
        let f = Names::new()
            .with_hosts(hosts)
            .foreign_numeric(Ipv4Addr::new(10, 0, 0, 0), Ipv4Addr::new(255, 0, 0, 0));
        assert_eq!(f.host4(Ipv4Addr::new(10, 0, 0, 1)), Some("a.example.org"));
        assert_eq!(f.host4(Ipv4Addr::new(192, 0, 2, 1)), None);
    }
}
