//! Zero-copy views of the headers netsift filters on, and the link types it knows.
//!
//! `LinkType` holds the LINKTYPE_* value stored in capture files (not the platform's
//! DLT_* value); every other crate speaks in these numbers.

mod linktype;

pub use linktype::LinkType;
