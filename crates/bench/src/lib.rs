//! netsift-bench: workload generators (synthetic captures with a ground truth) for
//! benchmarking netsift's filters, in particular the dynamic-update scenario of the
//! Swift paper.
//!
//! The generators live in [`gen`]; the `netsift-bench` binary is a thin command
//! line over them. The main entry point today is [`ftp_workload`], the
//! passive-mode FTP trace of the paper's section 5.1.

#![deny(unsafe_op_in_unsafe_fn)]

pub use netsift_gen as gen;

pub use gen::ftp::{ftp_workload, Class, ConfigError, DataConn, FtpConfig, FtpStats, FtpWorkload};
pub use gen::{write_pcap, GenPacket};
pub mod dynamic;
pub mod graphs;
pub mod kernel;
pub mod live;
pub mod multi;
pub mod static_bench;
pub mod stats;
