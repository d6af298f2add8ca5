//! Conformance harness (to be written).
