//! The scanner (to be written).
