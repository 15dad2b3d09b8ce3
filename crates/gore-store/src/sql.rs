//! What both executors share: a statement ([`Stmt`]: its SQL, written once
//! in PostgreSQL's style, and its [`Value`]s), the rewrite of that SQL for
//! SQLite ([`for_sqlite`]), the rows both drivers answer ([`Row`]), and
//! the [`Executor`] contract the store's queries ([`super::queries`]) run
//! on.
//!
//! One value type binds into both drivers: into rusqlite through
//! `ToSql`, into tokio-postgres through `ToSql` too, where an integer is
//! encoded at the width the statement's parameter has (`SMALLINT`,
//! `INTEGER` or `BIGINT`: PostgreSQL is strict about it, SQLite has one
//! integer type).

use std::borrow::Cow;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::{Notice, StoreError};

/// One value of a statement or of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `NULL`.
    Null,
    /// Any integer column or parameter.
    Int(i64),
    /// A `REAL` / `DOUBLE PRECISION`.
    Real(f64),
    /// Text.
    Text(String),
    /// A boolean (SQLite answers booleans as 0 and 1: [`Value::Int`]).
    Bool(bool),
    /// A list of texts, only ever compared with `= ANY($n)`.
    List(Vec<String>),
}

macro_rules! value_from {
    ($($t:ty => $v:ident via $conv:expr),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$v($conv(x))
            }
        }
    )*};
}

value_from! {
    i64 => Int via |x| x,
    u64 => Int via |x| i64::try_from(x).unwrap_or(i64::MAX),
    u32 => Int via i64::from,
    u8 => Int via i64::from,
    f64 => Real via |x| x,
    bool => Bool via |x| x,
    String => Text via |x| x,
    &str => Text via str::to_string,
    &String => Text via String::clone,
    Vec<String> => List via |x| x,
    gore_core::Player => Text via |p: gore_core::Player| p.char().to_string(),
    gore_domain::Ply => Int via |p: gore_domain::Ply| i64::from(p.get()),
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(x: Option<T>) -> Value {
        x.map_or(Value::Null, Into::into)
    }
}

/// The values of a statement: `vals![a, b]` is `vec![Value::from(a), …]`.
macro_rules! vals {
    ($($v:expr),* $(,)?) => { vec![$($crate::sql::Value::from($v)),*] };
}
pub(crate) use vals;

/// A type a column reads into.
pub trait FromValue: Sized {
    /// The value as `Self`, or why not.
    fn from_value(v: &Value) -> Result<Self, String>;
}

fn mismatch<T>(v: &Value, want: &str) -> Result<T, String> {
    Err(format!("{v:?} is not {want}"))
}

impl FromValue for i64 {
    fn from_value(v: &Value) -> Result<i64, String> {
        match v {
            Value::Int(i) => Ok(*i),
            v => mismatch(v, "an integer"),
        }
    }
}

/// Narrower integers: an integer in their range.
macro_rules! narrow_from_value {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: &Value) -> Result<$t, String> {
                let i = i64::from_value(v)?;
                <$t>::try_from(i).map_err(|_| format!("{i} is out of range"))
            }
        }
    )*};
}

narrow_from_value!(u64, u32, u8);

impl FromValue for f64 {
    fn from_value(v: &Value) -> Result<f64, String> {
        match v {
            Value::Real(f) => Ok(*f),
            Value::Int(i) => Ok(*i as f64),
            v => mismatch(v, "a number"),
        }
    }
}

impl FromValue for bool {
    fn from_value(v: &Value) -> Result<bool, String> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Int(0) => Ok(false),
            Value::Int(1) => Ok(true),
            v => mismatch(v, "a boolean"),
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> Result<String, String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            v => mismatch(v, "text"),
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Result<Option<T>, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// One row of an answer, whichever database gave it.
#[derive(Debug, Clone)]
pub struct Row {
    names: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    /// A row of `values` under the columns `names`.
    pub fn new(names: Arc<[String]>, values: Vec<Value>) -> Row {
        Row { names, values }
    }

    /// Column `name` as a `T`, or what is wrong with it.
    pub fn get<T: FromValue>(&self, name: &str) -> Result<T, String> {
        let i = self
            .names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| format!("no column {name}"))?;
        T::from_value(&self.values[i]).map_err(|e| format!("{name}: {e}"))
    }

    /// The first column as a `T`.
    pub fn first<T: FromValue>(&self) -> Result<T, String> {
        self.values
            .first()
            .ok_or_else(|| "no column".to_string())
            .and_then(T::from_value)
    }
}

/// One statement of a transaction (or a read).
#[derive(Debug, Clone)]
pub struct Stmt {
    /// Its text in PostgreSQL's style (`$1`, casts, `= ANY($n)`,
    /// `FOR UPDATE`); see [`for_sqlite`].
    pub sql: Cow<'static, str>,
    /// Its parameters, `$1` first.
    pub params: Vec<Value>,
    /// The rows it must touch (or return), or its transaction is rolled
    /// back and the write refused as [`StoreError::Conflict`] (the game
    /// moved on).
    pub expect: Option<u64>,
}

/// A statement.
pub fn stmt(sql: impl Into<Cow<'static, str>>, params: Vec<Value>) -> Stmt {
    Stmt {
        sql: sql.into(),
        params,
        expect: None,
    }
}

/// A write of one statement.
impl From<Stmt> for Vec<Stmt> {
    fn from(s: Stmt) -> Vec<Stmt> {
        vec![s]
    }
}

impl Stmt {
    /// The statement must touch `n` rows.
    pub fn expect(mut self, n: u64) -> Stmt {
        self.expect = Some(n);
        self
    }
}

/// What a statement of a write did: the rows it touched, and those it
/// returned (a `SELECT`, or `RETURNING`).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// Rows inserted, changed, deleted or returned.
    pub count: u64,
    /// Rows returned.
    pub rows: Vec<Row>,
}

/// A statement's text for SQLite: `$n` becomes `?n`, `x = ANY($n)` becomes
/// `x IN rarray(?n)` (rusqlite's array table), casts (`::TEXT`) and
/// `FOR UPDATE` (SQLite's writer runs one write at a time) go. The
/// statements are written for PostgreSQL, the stricter of the two.
pub fn for_sqlite(sql: &str) -> String {
    let sql = sql
        .replace("FOR UPDATE", "")
        .replace("= ANY($", "IN rarray($");
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => out.push('?'),
            ':' if chars.peek() == Some(&':') => {
                chars.next();
                while chars.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    chars.next();
                }
            }
            c => out.push(c),
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// A database the store's queries run on: it runs statements and keeps
/// its durability machinery to itself ([`super::sqlite`],
/// [`super::postgres`]).
pub trait Executor: Clone + Send + Sync + 'static {
    /// Runs `stmts` in one transaction, in order, and answers once it is
    /// committed (durable); a statement whose count is not its
    /// [`Stmt::expect`] rolls it back ([`StoreError::Conflict`]).
    fn write(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Answer>, StoreError>>;

    /// Runs reads, several of them on one snapshot.
    fn read(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Vec<Row>>, StoreError>>;

    /// Why writes are refused, if they are.
    fn failure(&self) -> Option<String>;

    /// This process's name among those sharing the database: its
    /// heartbeats and AI claims are under it. Random per process, so that
    /// a restarted server is another (its predecessor's claims lapse).
    fn origin(&self) -> &str;

    /// Tells the other servers that game `game` changed (now `ply`
    /// actions; 0: loads it whole): after the commit, a hint.
    fn announce(&self, game: String, ply: gore_domain::Ply) {
        let _ = (game, ply);
    }

    /// Tells the other servers of a lobby event.
    fn announce_lobby(&self, event: String) {
        let _ = event;
    }

    /// The other servers' changes.
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        None
    }
}
