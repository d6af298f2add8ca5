//! pcap/pcapng I/O (to be written).
