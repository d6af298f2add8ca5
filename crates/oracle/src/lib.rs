//! libpcap oracle (to be written).
