//! What an import did, table by table: rows read, written, left as they were, skipped (each with
//! its row and reason), and warnings — printed at the end and as JSON for scripts.

use std::fmt;

use serde::Serialize;

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Table {
    /// The SPS table.
    pub table: String,
    /// The Stoa entity its rows go to (empty when none).
    pub entity: String,
    pub read: u64,
    pub created: u64,
    pub updated: u64,
    /// Same as at the last import (or merged into a record Stoa already had, unchanged).
    pub unchanged: u64,
    /// Joined to a record Stoa already had (a role, a currency, a permission of the same name).
    pub merged: u64,
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Skipped {
    pub id: String,
    pub reason: String,
}

impl Table {
    /// Every row read is counted once: created, updated, unchanged, merged or skipped.
    pub fn accounted(&self) -> bool {
        self.created + self.updated + self.unchanged + self.merged + self.skipped.len() as u64
            == self.read
    }

    pub fn warn(&mut self, w: impl Into<String>) {
        let w = w.into();
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub dry_run: bool,
    pub tables: Vec<Table>,
    /// Files copied into Stoa's storage.
    pub files_copied: u64,
    /// Files only orders or chat messages link (receipts, attachments), hidden from visitors.
    pub files_hidden: u64,
}

impl Report {
    pub fn written(&self) -> u64 {
        self.tables.iter().map(|t| t.created + t.updated).sum()
    }

    pub fn read(&self) -> u64 {
        self.tables.iter().map(|t| t.read).sum()
    }

    pub fn skipped(&self) -> usize {
        self.tables.iter().map(|t| t.skipped.len()).sum()
    }

    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.table == name)
    }
}

/// Text from the SPS database as the terminal shows it: control characters (escape sequences)
/// replaced.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<34} {:<44} {:>6} {:>7} {:>7} {:>9} {:>6} {:>7}",
            "SPS table", "Stoa", "read", "created", "updated", "unchanged", "merged", "skipped"
        )?;
        for t in &self.tables {
            writeln!(
                f,
                "{:<34} {:<44} {:>6} {:>7} {:>7} {:>9} {:>6} {:>7}",
                t.table,
                if t.entity.is_empty() {
                    "—"
                } else {
                    &t.entity
                },
                t.read,
                t.created,
                t.updated,
                t.unchanged,
                t.merged,
                t.skipped.len()
            )?;
        }
        let mut notes = false;
        for t in &self.tables {
            if t.skipped.is_empty() && t.warnings.is_empty() {
                continue;
            }
            if !notes {
                writeln!(f)?;
                notes = true;
            }
            writeln!(f, "{}:", t.table)?;
            for w in &t.warnings {
                writeln!(f, "  warning: {}", clean(w))?;
            }
            for s in &t.skipped {
                writeln!(f, "  skipped {}: {}", clean(&s.id), clean(&s.reason))?;
            }
        }
        writeln!(f)?;
        write!(
            f,
            "{} rows read, {} written, {} skipped, {} files copied, {} private files hidden{}",
            self.read(),
            self.written(),
            self.skipped(),
            self.files_copied,
            self.files_hidden,
            if self.dry_run {
                " (dry run: nothing was written)"
            } else {
                ""
            }
        )
    }
}
