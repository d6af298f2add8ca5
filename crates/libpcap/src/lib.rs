//! A drop-in `libpcap.so.0.8`: programs built against libpcap (tcpdump,
//! tshark's libraries, snort, scapy) load it in place of the real one, and
//! capture through netsift from interfaces named `netsift:IFACE`; everything
//! else (capture files, dump files, link type names, filters compiled to BPF,
//! other interfaces) is the real libpcap's work, byte for byte.
//!
//! How (docs/libpcap.md has the whole story):
//!
//! - `real`: the real library, loaded with `dlmopen` into a
//!   namespace of its own, so its internal calls never come back here (its
//!   stdio, which is not the program's, flushed at exit).
//! - `trampoline`: every function that takes no `pcap_t` and names no
//!   interface jumps straight to the real one (`symbols.txt`: `pass`).
//! - `exports`: the intercepted functions (`wrap`), with exact C
//!   signatures; a `pcap_t` is classified by `registry` as ours
//!   (`handle::Handle`) or the real library's, which gets it unchanged.
//! - `filters`: the text behind each compiled program, so a netsift capture
//!   filters with the expression, not the BPF.
//! - [`backend`]: where a netsift capture's packets come from
//!   ([`backend::LiveSource`]): a flow on `netsiftd`, or a session in process.
//! - `devs`: `pcap_findalldevs` with the netsift entries; `data`: the two
//!   exported data objects.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod backend;
mod data;
mod devs;
mod exports;
mod ffi;
mod filters;
mod handle;
mod real;
mod registry;
mod trampoline;
