//! The demo site ('for planet'): `stoa seed --demo` loads it through the generic store.
#![forbid(unsafe_code)]

pub mod demo;
