//! tcpdump's flags whose work here is a check or a refusal: what netsift
//! cannot do yet, refused with the flag and the reason before anything is
//! opened; the time stamp types of `-j` and `-J`; monitor mode (`-I`); and `-y`
//! on a live interface. Messages are tcpdump's where it has one.

use crate::args::Args;
use anyhow::{bail, Result};
use netsift_print::PacketType;
use netsift_wire::LinkType;

/// libpcap's time stamp types (`pcap_tstamp_type_name_to_val`); an AF_PACKET
/// ring gives `host` only.
const TS_TYPES: &[&str] = &[
    "host",
    "host_lowprec",
    "host_hiprec",
    "adapter",
    "adapter_unsynced",
    "host_hiprec_unsynced",
];

/// Refuses what netsift cannot do, naming the flag and why, and warns of what
/// it ignores as tcpdump ignores it.
pub(crate) fn check(args: &Args) -> Result<()> {
    if args.esp_secret.is_some() {
        bail!("-E: netsift does not decrypt IPsec ESP; it prints ESP packets' headers only");
    }
    if args.tcp_secret.is_some() {
        bail!("-M: netsift does not check TCP-MD5 signatures (RFC 2385)");
    }
    if let Some(m) = &args.mib_module {
        // tcpdump's own words when it is built without libsmi, as Debian's is.
        eprintln!("netsift: ignoring option `-m {m}' (no libsmi support)");
    }
    if args.foreign_numeric && (args.read.is_some() || args.read_list.is_some()) {
        // tcpdump's refusal: a file has no local network to call others foreign.
        bail!("-f can not be used with -V or -r");
    }
    if args.dont_verify_checksums && args.verbose > 0 {
        bail!("-K with -v: netsift's -v always prints checksum verdicts; leaving them out is not implemented");
    }
    if let Some(t) = &args.packet_type {
        // `PacketType` has every type tcpdump 4.99.3's `-T` knows.
        if PacketType::from_name(t).is_none() {
            bail!("unknown packet type `{t}'");
        }
    }
    if let Some(t) = &args.ts_type {
        if !TS_TYPES.contains(&t.as_str()) {
            bail!("invalid time stamp type {t}");
        }
    }
    Ok(())
}

/// `-J`: the time stamp types of `iface`, as tcpdump lists them.
pub(crate) fn ts_type_list(iface: &str) -> Result<String> {
    // Checks that the interface exists and netsift can open it.
    netsift_capture::linktype_of(iface)?;
    Ok(format!(
        "Time stamp types for {iface} (use option -j to set):\n  host (Host)\n"
    ))
}

/// What a live capture on `iface` checks of `-j`, `-I` and `-y` before it opens.
pub(crate) fn live(args: &Args, iface: &str) -> Result<()> {
    if let Some(t) = args.ts_type.as_deref().filter(|t| *t != "host") {
        eprintln!(
            "netsift: WARNING: When trying to set timestamp type '{t}' on {iface}: That type of time stamp is not supported by that device"
        );
    }
    if args.monitor {
        let wireless = ["wireless", "phy80211"].iter().any(|d| {
            std::path::Path::new("/sys/class/net")
                .join(iface)
                .join(d)
                .exists()
        });
        if !wireless {
            bail!("{iface}: That device doesn't support monitor mode");
        }
        bail!("-I: {iface} is a wireless device, but netsift cannot put one in monitor mode yet");
    }
    if let Some(name) = &args.linktype {
        let Some(want) = LinkType::from_name(name) else {
            bail!("invalid data link type {name}");
        };
        if netsift_capture::linktype_of(iface)? != want {
            bail!("{name} is not one of the DLTs supported by this device");
        }
    }
    Ok(())
}
