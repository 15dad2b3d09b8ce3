//! Where the database lives: `--db` read into a [`DbUrl`], and a URL's
//! password kept out of every message ([`redact`]).

use std::path::PathBuf;

/// Where the database lives, from `--db` (or `GORE_DB`).
#[derive(Clone, PartialEq, Eq)]
pub enum DbUrl {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://USER:PASSWORD@HOST/DB`).
    Postgres(String),
}

impl std::fmt::Debug for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbUrl::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            // Never the password, even in a debug print.
            DbUrl::Postgres(u) => f.debug_tuple("Postgres").field(&redact(u)).finish(),
        }
    }
}

impl DbUrl {
    /// Reads a file path, a `sqlite://PATH` (also `sqlite:PATH`) URL, or a
    /// `postgres://` (also `postgresql://`) URL. Any other scheme is
    /// refused.
    pub fn parse(s: &str) -> anyhow::Result<DbUrl> {
        let s = s.trim();
        if s.is_empty() {
            anyhow::bail!("--db: empty; give a file path, sqlite://PATH or postgres://…");
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            use std::str::FromStr;
            if let Err(e) = tokio_postgres::Config::from_str(s) {
                anyhow::bail!(
                    "--db: not a PostgreSQL URL ({e}): {}; give \
                     postgres://USER:PASSWORD@HOST/DB",
                    redact(s)
                );
            }
            return Ok(DbUrl::Postgres(s.to_string()));
        }
        if let Some(rest) = s.strip_prefix("sqlite://") {
            if rest.is_empty() {
                anyhow::bail!("--db: sqlite:// needs a file path, as sqlite://gore.sqlite3");
            }
            return Ok(DbUrl::Sqlite(PathBuf::from(rest)));
        }
        if let Some(rest) = s.strip_prefix("sqlite:") {
            if !rest.is_empty() {
                return Ok(DbUrl::Sqlite(PathBuf::from(rest)));
            }
        }
        if let Some((scheme, _)) = s.split_once("://") {
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            {
                anyhow::bail!(
                    "--db: unsupported database `{scheme}://`: give a file path, \
                     sqlite://PATH or postgres://USER:PASSWORD@HOST/DB"
                );
            }
        }
        Ok(DbUrl::Sqlite(PathBuf::from(s)))
    }
}

/// A URL with its password replaced, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((a, h)) => (a, h),
        None => return url.to_string(),
    };
    let user = auth.split_once(':').map_or(auth, |(u, _)| u);
    format!("{scheme}://{user}:***@{host}")
}
