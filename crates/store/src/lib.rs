//! Storage: the database handle (SQLite or PostgreSQL), DDL and migrations generated from the
//! declarations, the generic repository and the generic entity service.
#![forbid(unsafe_code)]

pub mod audit;
pub mod backup;
mod checkpoint;
pub mod cluster;
pub mod counters;
pub mod db;
pub mod ddl;
mod errors;
pub mod group;
pub mod guard;
pub mod jobs;
pub mod names;
pub mod publish;
pub mod read;
pub mod record;
pub mod repo;
pub mod seed;
pub mod service;
pub mod sqlite_read;
pub mod tap;
pub mod typed;

pub use db::{Backend, Db, DbOptions, Exec, Link, Nested, Tx};
pub use read::{ListPlan, Reader, Total};
pub use record::{Cell, Record};
pub use service::{JsonPage, Page, Store, Walk};
