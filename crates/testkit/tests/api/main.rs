//! The Core suite: every test runs against a real server on SQLite and on PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

mod abuse;
mod admin_content;
mod ai_chat;
mod analytics;
mod answers;
mod auth;
mod authz;
mod backup;
mod bad_input;
mod cascades;
mod chats;
mod commerce;
mod contract;
mod files;
mod filters;
mod host_pages;
mod mails;
mod mcp;
mod modules;
mod notify;
mod oidc;
mod openapi;
mod ops;
mod providers;
mod second_factor;
mod site;
mod ssr;
mod web;
mod webhooks_out;
