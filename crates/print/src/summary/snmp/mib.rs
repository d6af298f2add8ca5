//! The MIB tcpdump 4.99.3 compiles in for naming object identifiers
//! without `-n` (its `mib.h`, made from RFC 1156-era MIB files: mib-2's
//! groups and objects, the private enterprises of 1990, the SNMPv3 modules),
//! and its abbreviations of well-known prefixes (`obj_abrev_list`).
//!
//! The tables below were generated from `mib.h` (each sibling list in the
//! order of its linked list, which is the order tcpdump searches).

/// One named arc and the arcs below it.
#[derive(Debug)]
pub(super) struct Node {
    pub name: &'static str,
    pub oid: u8,
    pub children: &'static [Node],
}

const fn n(name: &'static str, oid: u8, children: &'static [Node]) -> Node {
    Node {
        name,
        oid,
        children,
    }
}

const NONE: &[Node] = &[];

/// `mibroot`: the top of the tree (`iso`).
pub(super) const ROOT: &[Node] = L_ISO;

/// The arc numbered `o` among `siblings`.
pub(super) fn find(siblings: &'static [Node], o: i32) -> Option<&'static Node> {
    siblings.iter().find(|n| i32::from(n.oid) == o)
}

/// `obj_abrev_list`: an encoded OID prefix, the text printed for it and the
/// arcs that may follow it (tcpdump's `node->child`).
const ABBREVIATIONS: [(&[u8], &str, &[Node]); 4] = [
    // .iso.org.dod.internet.mgmt.mib
    (&[43, 6, 1, 2, 1], "", L_SNMP),
    // .iso.org.dod.internet.private.enterprises
    (&[43, 6, 1, 4, 1], "E:", L_CCUR),
    // .iso.org.dod.internet.experimental
    (&[43, 6, 1, 3], "X:", NONE),
    // .iso.org.dod.internet.snmpV2.snmpModules
    (&[43, 6, 1, 6, 3], "S:", L_SNMPUSMMIB),
];

/// The first abbreviation whose prefix starts the encoded `oid`: its text,
/// the prefix's length and the arcs below it.
pub(super) fn abbreviation(oid: &[u8]) -> Option<(&'static str, usize, &'static [Node])> {
    ABBREVIATIONS
        .iter()
        .find(|(prefix, ..)| oid.starts_with(prefix))
        .map(|&(prefix, text, children)| (text, prefix.len(), children))
}

const L_USMMIBGROUPS: &[Node] = &[n("usmMIBGroups", 2, NONE), n("usmMIBCompliances", 1, NONE)];

const L_USMUSERSTATUS: &[Node] = &[
    n("usmUserStatus", 13, NONE),
    n("usmUserStorageType", 12, NONE),
    n("usmUserPublic", 11, NONE),
    n("usmUserOwnPrivKeyChange", 10, NONE),
    n("usmUserPrivKeyChange", 9, NONE),
    n("usmUserPrivProtocol", 8, NONE),
    n("usmUserOwnAuthKeyChange", 7, NONE),
    n("usmUserAuthKeyChange", 6, NONE),
    n("usmUserAuthProtocol", 5, NONE),
    n("usmUserCloneFrom", 4, NONE),
    n("usmUserSecurityName", 3, NONE),
    n("usmUserName", 2, NONE),
    n("usmUserEngineID", 1, NONE),
];

const L_USMUSERENTRY: &[Node] = &[n("usmUserEntry", 1, L_USMUSERSTATUS)];

const L_USMUSERTABLE: &[Node] = &[
    n("usmUserTable", 2, L_USMUSERENTRY),
    n("usmUserSpinLock", 1, NONE),
];

const L_USMSTATSDECRYPTIONERRORS: &[Node] = &[
    n("usmStatsDecryptionErrors", 6, NONE),
    n("usmStatsWrongDigests", 5, NONE),
    n("usmStatsUnknownEngineIDs", 4, NONE),
    n("usmStatsUnknownUserNames", 3, NONE),
    n("usmStatsNotInTimeWindows", 2, NONE),
    n("usmStatsUnsupportedSecLevels", 1, NONE),
];

const L_USMUSER: &[Node] = &[
    n("usmUser", 2, L_USMUSERTABLE),
    n("usmStats", 1, L_USMSTATSDECRYPTIONERRORS),
];

const L_USMMIBCONFORMANCE: &[Node] = &[
    n("usmMIBConformance", 2, L_USMMIBGROUPS),
    n("usmMIBObjects", 1, L_USMUSER),
];

const L_SNMPMPDMIBGROUPS: &[Node] = &[
    n("snmpMPDMIBGroups", 2, NONE),
    n("snmpMPDMIBCompliances", 1, NONE),
];

const L_SNMPUNKNOWNPDUHANDLERS: &[Node] = &[
    n("snmpUnknownPDUHandlers", 3, NONE),
    n("snmpInvalidMsgs", 2, NONE),
    n("snmpUnknownSecurityModels", 1, NONE),
];

const L_SNMPMPDSTATS: &[Node] = &[n("snmpMPDStats", 1, L_SNMPUNKNOWNPDUHANDLERS)];

const L_SNMPMPDMIBCONFORMANCE: &[Node] = &[
    n("snmpMPDMIBConformance", 3, L_SNMPMPDMIBGROUPS),
    n("snmpMPDMIBObjects", 2, L_SNMPMPDSTATS),
    n("snmpMPDAdmin", 1, NONE),
];

const L_SNMPENGINEMAXMESSAGESIZE: &[Node] = &[
    n("snmpEngineMaxMessageSize", 4, NONE),
    n("snmpEngineTime", 3, NONE),
    n("snmpEngineBoots", 2, NONE),
    n("snmpEngineID", 1, NONE),
];

const L_SNMPENGINE: &[Node] = &[n("snmpEngine", 1, L_SNMPENGINEMAXMESSAGESIZE)];

const L_SNMPFRAMEWORKMIBCONFORMANCE: &[Node] = &[
    n("snmpFrameworkMIBConformance", 3, NONE),
    n("snmpFrameworkMIBObjects", 2, L_SNMPENGINE),
    n("snmpFrameworkAdmin", 1, NONE),
];

const L_SNMPUSMMIB: &[Node] = &[
    n("snmpUsmMIB", 15, L_USMMIBCONFORMANCE),
    n("snmpMPDMIB", 11, L_SNMPMPDMIBCONFORMANCE),
    n("snmpFrameworkMIB", 10, L_SNMPFRAMEWORKMIBCONFORMANCE),
];

const L_SNMPMODULES: &[Node] = &[n("snmpModules", 3, L_SNMPUSMMIB)];

const L_CCUR: &[Node] = &[
    n("ccur", 136, NONE),
    n("ultra", 101, NONE),
    n("ohiostate", 100, NONE),
    n("snmpresearch", 99, NONE),
    n("emergingtech", 98, NONE),
    n("sigma", 97, NONE),
    n("cern", 96, NONE),
    n("allenbradley", 95, NONE),
    n("nokia", 94, NONE),
    n("frontier", 93, NONE),
    n("webstercomputer", 92, NONE),
    n("learningtree", 91, NONE),
    n("intercon", 90, NONE),
    n("rnd", 89, NONE),
    n("nyu", 88, NONE),
    n("link", 87, NONE),
    n("networkappltech", 86, NONE),
    n("datability", 85, NONE),
    n("pirellifocom", 84, NONE),
    n("raycom", 83, NONE),
    n("ncd", 82, NONE),
    n("lannet", 81, NONE),
    n("auspex", 80, NONE),
    n("icl", 79, NONE),
    n("netlabs", 78, NONE),
    n("hplanman", 77, NONE),
    n("digitalanalysis", 76, NONE),
    n("ungermannbass", 75, NONE),
    n("att", 74, NONE),
    n("boeing", 73, NONE),
    n("retix", 72, NONE),
    n("nasa", 71, NONE),
    n("locus", 70, NONE),
    n("tmac", 69, NONE),
    n("cornell", 68, NONE),
    n("reuter", 67, NONE),
    n("davidsystems", 66, NONE),
    n("dartmouth", 65, NONE),
    n("gandalf", 64, NONE),
    n("apple", 63, NONE),
    n("fibercom", 62, NONE),
    n("merit", 61, NONE),
    n("ubc", 60, NONE),
    n("silicongraphics", 59, NONE),
    n("tgv", 58, NONE),
    n("mips", 57, NONE),
    n("castlerock", 56, NONE),
    n("ssds", 55, NONE),
    n("desktalksystems", 54, NONE),
    n("apollo", 53, NONE),
    n("cabletron", 52, NONE),
    n("gated", 51, NONE),
    n("opticaldatasystems", 50, NONE),
    n("chipcom", 49, NONE),
    n("mcnc", 48, NONE),
    n("prime", 47, NONE),
    n("cheyenne", 46, NONE),
    n("synoptics", 45, NONE),
    n("cmc", 44, NONE),
    n("3com", 43, NONE),
    n("sun", 42, NONE),
    n("sri", 41, NONE),
    n("nmfeccllnl", 40, NONE),
    n("baylor", 39, NONE),
    n("networkresearchcorp", 38, NONE),
    n("touch", 37, NONE),
    n("dec", 36, NONE),
    n("bellnorthernresearch", 35, NONE),
    n("cray", 34, NONE),
    n("xyplex", 33, NONE),
    n("santacruzoperation", 32, NONE),
    n("nswc", 31, NONE),
    n("ulana", 30, NONE),
    n("vitalink", 29, NONE),
    n("interlan", 28, NONE),
    n("intergraph", 27, NONE),
    n("sytek", 26, NONE),
    n("nsfnet", 25, NONE),
    n("spider", 24, NONE),
    n("excelan", 23, NONE),
    n("spartacus", 22, NONE),
    n("eon", 21, NONE),
    n("mit", 20, NONE),
    n("trw", 19, NONE),
    n("wellfleet", 18, NONE),
    n("canstar", 17, NONE),
    n("unisys", 16, NONE),
    n("xylogics", 15, NONE),
    n("bbn", 14, NONE),
    n("utennessee", 13, NONE),
    n("epilogue", 12, NONE),
    n("hp", 11, NONE),
    n("nsc", 10, NONE),
    n("cisco", 9, NONE),
    n("nysernet", 8, NONE),
    n("cayman", 7, NONE),
    n("twg", 6, NONE),
    n("acc", 5, NONE),
    n("unix", 4, NONE),
    n("cmu", 3, NONE),
    n("ibm", 2, NONE),
    n("proteon", 1, NONE),
];

const L_ENTERPRISES: &[Node] = &[n("enterprises", 1, L_CCUR)];

const L_SNMPENABLEAUTHTRAPS: &[Node] = &[
    n("snmpEnableAuthTraps", 30, NONE),
    n("snmpOutTraps", 29, NONE),
    n("snmpOutGetResponses", 28, NONE),
    n("snmpOutSetRequests", 27, NONE),
    n("snmpOutGetNexts", 26, NONE),
    n("snmpOutGetRequests", 25, NONE),
    n("snmpOutGenErrs", 24, NONE),
    n("snmpOutReadOnlys", 23, NONE),
    n("snmpOutBadValues", 22, NONE),
    n("snmpOutNoSuchNames", 21, NONE),
    n("snmpOutTooBigs", 20, NONE),
    n("snmpInTraps", 19, NONE),
    n("snmpInGetResponses", 18, NONE),
    n("snmpInSetRequests", 17, NONE),
    n("snmpInGetNexts", 16, NONE),
    n("snmpInGetRequests", 15, NONE),
    n("snmpInTotalSetVars", 14, NONE),
    n("snmpInTotalReqVars", 13, NONE),
    n("snmpInGenErrs", 12, NONE),
    n("snmpInReadOnlys", 11, NONE),
    n("snmpInBadValues", 10, NONE),
    n("snmpInNoSuchNames", 9, NONE),
    n("snmpInTooBigs", 8, NONE),
    n("snmpInBadTypes", 7, NONE),
    n("snmpInASNParseErrs", 6, NONE),
    n("snmpInBadCommunityUses", 5, NONE),
    n("snmpInBadCommunityNames", 4, NONE),
    n("snmpInBadVersions", 3, NONE),
    n("snmpOutPkts", 2, NONE),
    n("snmpInPkts", 1, NONE),
];

const L_EGPNEIGHEVENTTRIGGER: &[Node] = &[
    n("egpNeighEventTrigger", 15, NONE),
    n("egpNeighMode", 14, NONE),
    n("egpNeighIntervalPoll", 13, NONE),
    n("egpNeighIntervalHello", 12, NONE),
    n("egpNeighStateDowns", 11, NONE),
    n("egpNeighStateUps", 10, NONE),
    n("egpNeighOutErrMsgs", 9, NONE),
    n("egpNeighInErrMsgs", 8, NONE),
    n("egpNeighOutErrs", 7, NONE),
    n("egpNeighOutMsgs", 6, NONE),
    n("egpNeighInErrs", 5, NONE),
    n("egpNeighInMsgs", 4, NONE),
    n("egpNeighAs", 3, NONE),
    n("egpNeighAddr", 2, NONE),
    n("egpNeighState", 1, NONE),
];

const L_EGPNEIGHENTRY: &[Node] = &[n("egpNeighEntry", 1, L_EGPNEIGHEVENTTRIGGER)];

const L_EGPAS: &[Node] = &[
    n("egpAs", 6, NONE),
    n("egpNeighTable", 5, L_EGPNEIGHENTRY),
    n("egpOutErrors", 4, NONE),
    n("egpOutMsgs", 3, NONE),
    n("egpInErrors", 2, NONE),
    n("egpInMsgs", 1, NONE),
];

const L_UDPLOCALPORT: &[Node] = &[n("udpLocalPort", 2, NONE), n("udpLocalAddress", 1, NONE)];

const L_UDPENTRY: &[Node] = &[n("udpEntry", 1, L_UDPLOCALPORT)];

const L_UDPTABLE: &[Node] = &[
    n("udpTable", 5, L_UDPENTRY),
    n("udpOutDatagrams", 4, NONE),
    n("udpInErrors", 3, NONE),
    n("udpNoPorts", 2, NONE),
    n("udpInDatagrams", 1, NONE),
];

const L_TCPCONNREMPORT: &[Node] = &[
    n("tcpConnRemPort", 5, NONE),
    n("tcpConnRemAddress", 4, NONE),
    n("tcpConnLocalPort", 3, NONE),
    n("tcpConnLocalAddress", 2, NONE),
    n("tcpConnState", 1, NONE),
];

const L_TCPCONNENTRY: &[Node] = &[n("tcpConnEntry", 1, L_TCPCONNREMPORT)];

const L_TCPOUTRSTS: &[Node] = &[
    n("tcpOutRsts", 15, NONE),
    n("tcpInErrs", 14, NONE),
    n("tcpConnTable", 13, L_TCPCONNENTRY),
    n("tcpRetransSegs", 12, NONE),
    n("tcpOutSegs", 11, NONE),
    n("tcpInSegs", 10, NONE),
    n("tcpCurrEstab", 9, NONE),
    n("tcpEstabResets", 8, NONE),
    n("tcpAttemptFails", 7, NONE),
    n("tcpPassiveOpens", 6, NONE),
    n("tcpActiveOpens", 5, NONE),
    n("tcpMaxConn", 4, NONE),
    n("tcpRtoMax", 3, NONE),
    n("tcpRtoMin", 2, NONE),
    n("tcpRtoAlgorithm", 1, NONE),
];

const L_ICMPOUTADDRMASKREPS: &[Node] = &[
    n("icmpOutAddrMaskReps", 26, NONE),
    n("icmpOutAddrMasks", 25, NONE),
    n("icmpOutTimestampReps", 24, NONE),
    n("icmpOutTimestamps", 23, NONE),
    n("icmpOutEchoReps", 22, NONE),
    n("icmpOutEchos", 21, NONE),
    n("icmpOutRedirects", 20, NONE),
    n("icmpOutSrcQuenchs", 19, NONE),
    n("icmpOutParmProbs", 18, NONE),
    n("icmpOutTimeExcds", 17, NONE),
    n("icmpOutDestUnreachs", 16, NONE),
    n("icmpOutErrors", 15, NONE),
    n("icmpOutMsgs", 14, NONE),
    n("icmpInAddrMaskReps", 13, NONE),
    n("icmpInAddrMasks", 12, NONE),
    n("icmpInTimestampReps", 11, NONE),
    n("icmpInTimestamps", 10, NONE),
    n("icmpInEchoReps", 9, NONE),
    n("icmpInEchos", 8, NONE),
    n("icmpInRedirects", 7, NONE),
    n("icmpInSrcQuenchs", 6, NONE),
    n("icmpInParmProbs", 5, NONE),
    n("icmpInTimeExcds", 4, NONE),
    n("icmpInDestUnreachs", 3, NONE),
    n("icmpInErrors", 2, NONE),
    n("icmpInMsgs", 1, NONE),
];

const L_IPNETTOMEDIATYPE: &[Node] = &[
    n("ipNetToMediaType", 4, NONE),
    n("ipNetToMediaNetAddress", 3, NONE),
    n("ipNetToMediaPhysAddress", 2, NONE),
    n("ipNetToMediaIfIndex", 1, NONE),
];

const L_IPNETTOMEDIAENTRY: &[Node] = &[n("ipNetToMediaEntry", 1, L_IPNETTOMEDIATYPE)];

const L_IPROUTEMASK: &[Node] = &[
    n("ipRouteMask", 11, NONE),
    n("ipRouteAge", 10, NONE),
    n("ipRouteProto", 9, NONE),
    n("ipRouteType", 8, NONE),
    n("ipRouteNextHop", 7, NONE),
    n("ipRouteMetric4", 6, NONE),
    n("ipRouteMetric3", 5, NONE),
    n("ipRouteMetric2", 4, NONE),
    n("ipRouteMetric1", 3, NONE),
    n("ipRouteIfIndex", 2, NONE),
    n("ipRouteDest", 1, NONE),
];

const L_IPROUTEENTRY: &[Node] = &[n("ipRouteEntry", 1, L_IPROUTEMASK)];

const L_IPADENTREASMMAXSIZE: &[Node] = &[
    n("ipAdEntReasmMaxSize", 5, NONE),
    n("ipAdEntBcastAddr", 4, NONE),
    n("ipAdEntNetMask", 3, NONE),
    n("ipAdEntIfIndex", 2, NONE),
    n("ipAdEntAddr", 1, NONE),
];

const L_IPADDRENTRY: &[Node] = &[n("ipAddrEntry", 1, L_IPADENTREASMMAXSIZE)];

const L_IPNETTOMEDIATABLE: &[Node] = &[
    n("ipNetToMediaTable", 22, L_IPNETTOMEDIAENTRY),
    n("ipRoutingTable", 21, L_IPROUTEENTRY),
    n("ipAddrTable", 20, L_IPADDRENTRY),
    n("ipFragCreates", 19, NONE),
    n("ipFragFails", 18, NONE),
    n("ipFragOKs", 17, NONE),
    n("ipReasmFails", 16, NONE),
    n("ipReasmOKs", 15, NONE),
    n("ipReasmReqds", 14, NONE),
    n("ipReasmTimeout", 13, NONE),
    n("ipOutNoRoutes", 12, NONE),
    n("ipOutDiscards", 11, NONE),
    n("ipOutRequests", 10, NONE),
    n("ipInDelivers", 9, NONE),
    n("ipInDiscards", 8, NONE),
    n("ipInUnknownProtos", 7, NONE),
    n("ipForwDatagrams", 6, NONE),
    n("ipInAddrErrors", 5, NONE),
    n("ipInHdrErrors", 4, NONE),
    n("ipInReceives", 3, NONE),
    n("ipDefaultTTL", 2, NONE),
    n("ipForwarding", 1, NONE),
];

const L_ATNETADDRESS: &[Node] = &[
    n("atNetAddress", 3, NONE),
    n("atPhysAddress", 2, NONE),
    n("atIfIndex", 1, NONE),
];

const L_ATENTRY: &[Node] = &[n("atEntry", 1, L_ATNETADDRESS)];

const L_ATTABLE: &[Node] = &[n("atTable", 1, L_ATENTRY)];

const L_IFSPECIFIC: &[Node] = &[
    n("ifSpecific", 22, NONE),
    n("ifOutQLen", 21, NONE),
    n("ifOutErrors", 20, NONE),
    n("ifOutDiscards", 19, NONE),
    n("ifOutNUcastPkts", 18, NONE),
    n("ifOutUcastPkts", 17, NONE),
    n("ifOutOctets", 16, NONE),
    n("ifInUnknownProtos", 15, NONE),
    n("ifInErrors", 14, NONE),
    n("ifInDiscards", 13, NONE),
    n("ifInNUcastPkts", 12, NONE),
    n("ifInUcastPkts", 11, NONE),
    n("ifInOctets", 10, NONE),
    n("ifLastChange", 9, NONE),
    n("ifOperStatus", 8, NONE),
    n("ifAdminStatus", 7, NONE),
    n("ifPhysAddress", 6, NONE),
    n("ifSpeed", 5, NONE),
    n("ifMtu", 4, NONE),
    n("ifType", 3, NONE),
    n("ifDescr", 2, NONE),
    n("ifIndex", 1, NONE),
];

const L_IFENTRY: &[Node] = &[n("ifEntry", 1, L_IFSPECIFIC)];

const L_IFTABLE: &[Node] = &[n("ifTable", 2, L_IFENTRY), n("ifNumber", 1, NONE)];

const L_SYSSERVICES: &[Node] = &[
    n("sysServices", 7, NONE),
    n("sysLocation", 6, NONE),
    n("sysName", 5, NONE),
    n("sysContact", 4, NONE),
    n("sysUpTime", 3, NONE),
    n("sysObjectID", 2, NONE),
    n("sysDescr", 1, NONE),
];

const L_SNMP: &[Node] = &[
    n("snmp", 11, L_SNMPENABLEAUTHTRAPS),
    n("transmission", 10, NONE),
    n("egp", 8, L_EGPAS),
    n("udp", 7, L_UDPTABLE),
    n("tcp", 6, L_TCPOUTRSTS),
    n("icmp", 5, L_ICMPOUTADDRMASKREPS),
    n("ip", 4, L_IPNETTOMEDIATABLE),
    n("at", 3, L_ATTABLE),
    n("interfaces", 2, L_IFTABLE),
    n("system", 1, L_SYSSERVICES),
];

const L_MIB: &[Node] = &[n("mib", 1, L_SNMP)];

const L_SNMPV2: &[Node] = &[
    n("snmpV2", 6, L_SNMPMODULES),
    n("security", 5, NONE),
    n("private", 4, L_ENTERPRISES),
    n("experimental", 3, NONE),
    n("mgmt", 2, L_MIB),
    n("directory", 1, NONE),
];

const L_INTERNET: &[Node] = &[n("internet", 1, L_SNMPV2)];

const L_DOD: &[Node] = &[n("dod", 6, L_INTERNET)];

const L_ORG: &[Node] = &[n("org", 3, L_DOD)];

const L_ISO: &[Node] = &[n("iso", 1, L_ORG)];
