//! Links the installed libpcap (libpcap-dev): `-lpcap`.

fn main() {
    println!("cargo:rustc-link-lib=pcap");
    println!("cargo:rerun-if-changed=build.rs");
}
