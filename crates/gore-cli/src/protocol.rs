//! The engine protocol's grammar (docs/PROTOCOL.md), in one place: the
//! commands a client sends ([`Command`]) and the lines an engine answers
//! ([`Reply`]), each written by `Display` and read by `FromStr`.
//! `gore engine` reads commands and writes replies; the match runner's
//! client (`cmd:` engines) writes commands and reads replies.
//!
//! Reading checks the form only (words, numbers and their ranges, action
//! tokens); what depends on the engine's state (a GPN under the current
//! rules, the legality of actions, a search already running) is for the
//! engine. Error messages name the command and the field, with pieces of
//! the input quoted by [`quote`].

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use gore_ai::{Level, Limits, MAX_LEVEL};
use gore_core::{Action, Rules};

/// Bounds of the `hash` option, in MiB.
pub const HASH_MIN: usize = 1;
/// See [`HASH_MIN`].
pub const HASH_MAX: usize = 4096;
/// The deepest `go depth` (the search never goes deeper).
pub const DEPTH_MAX: u32 = Limits::MAX_DEPTH;

/// Why a line is not a command or a reply: a message for people, naming
/// the command and the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProtocolError {}

fn err<T>(message: impl Into<String>) -> Result<T, ProtocolError> {
    Err(ProtocolError(message.into()))
}

/// A piece of the input, quoted for an error line: control characters
/// escaped (so the line never breaks), at most 40 characters.
pub fn quote(s: &str) -> String {
    let mut t = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 40 {
            t.push('…');
            break;
        }
        if c.is_control() {
            t.extend(c.escape_default());
        } else {
            t.push(c);
        }
    }
    format!("`{t}`")
}

/// A whole number in decimal digits, from `lo` to `hi`; the error says
/// which numbers are allowed.
fn parse_num(s: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let range = if hi == u64::MAX {
        format!("a whole number from {lo}")
    } else {
        format!("a whole number from {lo} to {hi}")
    };
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{} is not {range}", quote(s)));
    }
    match s.parse::<u64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!("{} is not {range}", quote(s))),
    }
}

/// The words of a line: blanks of any number separate them.
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// What follows the first `n` words of `line`, without the blanks around
/// it (so a name keeps the blanks inside it).
fn rest_after(line: &str, n: usize) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest.trim_end()
}

/// Writes ` a1 b2 …` (a blank before each action).
fn write_actions(f: &mut fmt::Formatter<'_>, actions: &[Action]) -> fmt::Result {
    for a in actions {
        write!(f, " {a}")?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Commands

/// A command, from the client to the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `gpi`: identify and list the options.
    Gpi,
    /// `isready`: answered by `readyok`.
    IsReady,
    /// `setoption name <name> value <value>`.
    SetOption(EngineOption),
    /// `rules <ruleset>`.
    Rules(Rules),
    /// `newgame`.
    NewGame,
    /// `position startpos|gpn <GPN> [actions …]`.
    Position {
        /// Where the game starts.
        start: Start,
        /// The actions played from there (`actions` is left out when none).
        actions: Vec<Action>,
    },
    /// `go …`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `legal`.
    Legal,
    /// `d` (or `show`, read as the same command).
    Show,
    /// `quit`.
    Quit,
}

/// An option of `setoption`, with a value in its range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineOption {
    /// `level`, 1 to [`MAX_LEVEL`].
    Level(Level),
    /// `honourable`, `true` or `false`.
    Honourable(bool),
    /// `hash`, [`HASH_MIN`] to [`HASH_MAX`] MiB.
    Hash(usize),
    /// `glory`, 0 to 255 seeds: decline an offer only for a gain of at
    /// least that many seeds over accepting (`gore_ai::Options::glory`).
    Glory(u8),
    /// `seed`, any `u64`.
    Seed(u64),
    /// `perfect`, `true` or `false`: play from the solver's database
    /// (no-trade games; `db` gives it).
    Perfect(bool),
    /// `db`, a directory: the solver's database (`gore solve --db DIR`).
    /// The value is the rest of the line, so it may hold blanks.
    Db(String),
}

/// The start of a `position` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// `startpos`: the start position of the current rules.
    StartPos,
    /// `gpn <fields>`: the GPN fields as written, joined by single blanks
    /// (never the word `actions`). Whether they make a position is checked
    /// by the engine, under its rules.
    Gpn(String),
}

/// The parameters of `go`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Go {
    /// `go infinite`: search until `stop`.
    Infinite,
    /// `go [depth N] [nodes N] [movetime MS] [atime MS] [btime MS] [ainc
    /// MS] [binc MS]`; with none, the level's default movetime. Depth is 1
    /// to [`DEPTH_MAX`], nodes and movetime at least 1, the clock's times
    /// and increments at least 0.
    Limits {
        /// `depth N`.
        depth: Option<u32>,
        /// `nodes N`.
        nodes: Option<u64>,
        /// `movetime MS`, in milliseconds.
        movetime: Option<u64>,
        /// The players' clocks.
        clock: GoClock,
    },
}

/// The clocks of `go`: each player's remaining time and increment per
/// action, in milliseconds (any of them may be left out).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GoClock {
    /// `atime MS`: A's remaining time.
    pub atime: Option<u64>,
    /// `btime MS`: B's remaining time.
    pub btime: Option<u64>,
    /// `ainc MS`: A's increment.
    pub ainc: Option<u64>,
    /// `binc MS`: B's increment.
    pub binc: Option<u64>,
}

impl GoClock {
    /// Whether no clock field is given.
    pub fn is_empty(&self) -> bool {
        *self == GoClock::default()
    }

    /// The remaining time and increment of `side`, when its time is
    /// given (a missing increment is 0).
    pub fn of(&self, side: gore_core::Player) -> Option<(Duration, Duration)> {
        let (time, inc) = match side {
            gore_core::Player::A => (self.atime, self.ainc),
            gore_core::Player::B => (self.btime, self.binc),
        };
        time.map(|t| {
            (
                Duration::from_millis(t),
                Duration::from_millis(inc.unwrap_or(0)),
            )
        })
    }
}

impl Go {
    /// The `go` that asks for these limits (time in whole milliseconds).
    pub fn from_limits(limits: &Limits) -> Go {
        Go::Limits {
            depth: limits.depth,
            nodes: limits.nodes,
            movetime: limits
                .time
                .map(|t| t.as_millis().min(u64::MAX as u128) as u64),
            clock: GoClock::default(),
        }
    }

    /// The clocks asked for (none for `infinite`).
    pub fn clock(&self) -> GoClock {
        match *self {
            Go::Infinite => GoClock::default(),
            Go::Limits { clock, .. } => clock,
        }
    }

    /// The search limits asked for; `None` for `infinite`.
    pub fn limits(&self) -> Option<Limits> {
        match *self {
            Go::Infinite => None,
            Go::Limits {
                depth,
                nodes,
                movetime,
                ..
            } => Some(Limits {
                depth,
                nodes,
                time: movetime.map(Duration::from_millis),
                ..Limits::default()
            }),
        }
    }
}

impl fmt::Display for EngineOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineOption::Level(l) => write!(f, "name level value {l}"),
            EngineOption::Honourable(h) => write!(f, "name honourable value {h}"),
            EngineOption::Hash(h) => write!(f, "name hash value {h}"),
            EngineOption::Glory(g) => write!(f, "name glory value {g}"),
            EngineOption::Seed(s) => write!(f, "name seed value {s}"),
            EngineOption::Perfect(p) => write!(f, "name perfect value {p}"),
            EngineOption::Db(d) => write!(f, "name db value {d}"),
        }
    }
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        match self {
            Go::Infinite => f.write_str(" infinite"),
            Go::Limits {
                depth,
                nodes,
                movetime,
                clock,
            } => {
                if let Some(d) = depth {
                    write!(f, " depth {d}")?;
                }
                if let Some(n) = nodes {
                    write!(f, " nodes {n}")?;
                }
                if let Some(t) = movetime {
                    write!(f, " movetime {t}")?;
                }
                for (word, v) in [
                    ("atime", clock.atime),
                    ("btime", clock.btime),
                    ("ainc", clock.ainc),
                    ("binc", clock.binc),
                ] {
                    if let Some(v) = v {
                        write!(f, " {word} {v}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Gpi => f.write_str("gpi"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption(o) => write!(f, "setoption {o}"),
            Command::Rules(r) => write!(f, "rules {r}"),
            Command::NewGame => f.write_str("newgame"),
            Command::Position { start, actions } => {
                match start {
                    Start::StartPos => f.write_str("position startpos")?,
                    Start::Gpn(g) => write!(f, "position gpn {g}")?,
                }
                if !actions.is_empty() {
                    f.write_str(" actions")?;
                    write_actions(f, actions)?;
                }
                Ok(())
            }
            Command::Go(go) => go.fmt(f),
            Command::Stop => f.write_str("stop"),
            Command::Legal => f.write_str("legal"),
            Command::Show => f.write_str("d"),
            Command::Quit => f.write_str("quit"),
        }
    }
}

/// A command that takes no argument.
fn no_args(cmd: &str, args: &[&str], c: Command) -> Result<Command, ProtocolError> {
    match args.first() {
        None => Ok(c),
        Some(w) => err(format!("{cmd}: unexpected argument {}", quote(w))),
    }
}

impl FromStr for Command {
    type Err = ProtocolError;

    /// Reads one command line (without its line end). A line of blanks is
    /// no command: the engine skips it before reading.
    fn from_str(line: &str) -> Result<Command, ProtocolError> {
        let words = words(line);
        let Some((&cmd, args)) = words.split_first() else {
            return err("empty line: no command");
        };
        match cmd {
            "gpi" => no_args(cmd, args, Command::Gpi),
            "isready" => no_args(cmd, args, Command::IsReady),
            "setoption" => parse_setoption(args).map(Command::SetOption),
            "rules" => parse_rules(args).map(Command::Rules),
            "newgame" => no_args(cmd, args, Command::NewGame),
            "position" => parse_position(args),
            "go" => parse_go(args).map(Command::Go),
            "stop" => no_args(cmd, args, Command::Stop),
            "legal" => no_args(cmd, args, Command::Legal),
            "d" | "show" => no_args(cmd, args, Command::Show),
            "quit" => no_args(cmd, args, Command::Quit),
            _ => err(format!(
                "unknown command {} (commands: gpi isready setoption rules newgame position go stop legal d show quit)",
                quote(cmd)
            )),
        }
    }
}

fn parse_setoption(args: &[&str]) -> Result<EngineOption, ProtocolError> {
    const USAGE: &str = "setoption: expected `setoption name <name> value <value>`";
    // `db` takes a path: the rest of the line, blanks and all.
    if let ["name", name, "value", path @ ..] = args {
        if name.eq_ignore_ascii_case("db") && !path.is_empty() {
            return Ok(EngineOption::Db(path.join(" ")));
        }
    }
    let [name_kw, name, value_kw, value] = args else {
        return err(match args {
            ["name"] => "setoption: missing the option name",
            ["name", _] | ["name", _, "value"] => {
                "setoption: missing the value (setoption name <name> value <value>)"
            }
            _ => USAGE,
        });
    };
    if *name_kw != "name" || *value_kw != "value" {
        return err(USAGE);
    }
    match name.to_ascii_lowercase().as_str() {
        "level" => {
            let n = parse_num(value, 1, MAX_LEVEL as u64)
                .map_err(|e| ProtocolError(format!("setoption level: {e}")))?;
            let level =
                Level::new(n as u8).map_err(|e| ProtocolError(format!("setoption level: {e}")))?;
            Ok(EngineOption::Level(level))
        }
        "honourable" => match value.to_ascii_lowercase().as_str() {
            "true" => Ok(EngineOption::Honourable(true)),
            "false" => Ok(EngineOption::Honourable(false)),
            _ => err(format!(
                "setoption honourable: {} is not true or false",
                quote(value)
            )),
        },
        "hash" => parse_num(value, HASH_MIN as u64, HASH_MAX as u64)
            .map(|h| EngineOption::Hash(h as usize))
            .map_err(|e| ProtocolError(format!("setoption hash: {e}"))),
        "glory" => parse_num(value, 0, u8::MAX as u64)
            .map(|g| EngineOption::Glory(g as u8))
            .map_err(|e| ProtocolError(format!("setoption glory: {e}"))),
        "seed" => parse_num(value, 0, u64::MAX)
            .map(EngineOption::Seed)
            .map_err(|e| ProtocolError(format!("setoption seed: {e}"))),
        "perfect" => match value.to_ascii_lowercase().as_str() {
            "true" => Ok(EngineOption::Perfect(true)),
            "false" => Ok(EngineOption::Perfect(false)),
            _ => err(format!(
                "setoption perfect: {} is not true or false",
                quote(value)
            )),
        },
        _ => err(format!(
            "setoption: unknown option {} (options: level, honourable, hash, glory, seed, perfect, db)",
            quote(name)
        )),
    }
}

fn parse_rules(args: &[&str]) -> Result<Rules, ProtocolError> {
    let [text] = args else {
        return err(if args.is_empty() {
            "rules: missing the rule set, as `rules standard` or `rules skip-origin,ply-cap=200`"
        } else {
            "rules: expected one word, options joined by commas without spaces (skip-origin,ply-cap=200)"
        });
    };
    text.parse().map_err(|e| ProtocolError(format!("{e}")))
}

fn parse_position(args: &[&str]) -> Result<Command, ProtocolError> {
    let (start, rest) = match args.split_first() {
        Some((&"startpos", rest)) => (Start::StartPos, rest),
        Some((&"gpn", rest)) => {
            let end = rest
                .iter()
                .position(|w| *w == "actions")
                .unwrap_or(rest.len());
            if end == 0 {
                return err("position gpn: missing the five GPN fields");
            }
            (Start::Gpn(rest[..end].join(" ")), &rest[end..])
        }
        Some((w, _)) => {
            return err(format!(
                "position: expected startpos or gpn, not {}",
                quote(w)
            ))
        }
        None => {
            return err(
                "position: expected `position startpos` or `position gpn <GPN>`, then optionally `actions <a1> <a2> ...`",
            )
        }
    };
    let actions = match rest.split_first() {
        None => Vec::new(),
        Some((&"actions", tokens)) => tokens
            .iter()
            .enumerate()
            .map(|(i, token)| {
                token.parse::<Action>().map_err(|e| {
                    ProtocolError(format!("position: action {} {}: {e}", i + 1, quote(token)))
                })
            })
            .collect::<Result<_, _>>()?,
        Some((w, _)) => {
            return err(format!(
                "position: expected `actions` after the position, not {}",
                quote(w)
            ))
        }
    };
    Ok(Command::Position { start, actions })
}

/// The forms of `go`, for its error messages.
const GO_USAGE: &str =
    "go [depth N] [nodes N] [movetime MS] [atime MS] [btime MS] [ainc MS] [binc MS] [infinite]";

fn parse_go(args: &[&str]) -> Result<Go, ProtocolError> {
    let (mut depth, mut nodes, mut movetime) = (None, None, None);
    let mut clock = GoClock::default();
    let mut infinite = false;
    let mut it = args.iter();
    while let Some(&word) = it.next() {
        let mut value = |lo: u64, hi: u64| -> Result<u64, ProtocolError> {
            let v = it
                .next()
                .ok_or_else(|| ProtocolError(format!("go {word}: missing the number")))?;
            parse_num(v, lo, hi).map_err(|e| ProtocolError(format!("go {word}: {e}")))
        };
        let twice = match word {
            "depth" => depth
                .replace(value(1, u64::from(DEPTH_MAX))? as u32)
                .is_some(),
            "nodes" => nodes.replace(value(1, u64::MAX)?).is_some(),
            "movetime" => movetime.replace(value(1, u64::MAX)?).is_some(),
            "atime" => clock.atime.replace(value(0, u64::MAX)?).is_some(),
            "btime" => clock.btime.replace(value(0, u64::MAX)?).is_some(),
            "ainc" => clock.ainc.replace(value(0, u64::MAX)?).is_some(),
            "binc" => clock.binc.replace(value(0, u64::MAX)?).is_some(),
            "infinite" => std::mem::replace(&mut infinite, true),
            _ => {
                return err(format!(
                    "go: unknown parameter {} ({GO_USAGE})",
                    quote(word)
                ))
            }
        };
        if twice {
            return err(format!("go: {word} is given twice"));
        }
    }
    let limited = depth.is_some() || nodes.is_some() || movetime.is_some() || !clock.is_empty();
    match (infinite, limited) {
        (true, true) => err(
            "go: infinite runs until stop; it takes no depth, nodes, movetime or clock (atime btime ainc binc)",
        ),
        (true, false) => Ok(Go::Infinite),
        (false, _) => Ok(Go::Limits {
            depth,
            nodes,
            movetime,
            clock,
        }),
    }
}

// ---------------------------------------------------------------------------
// Replies

/// A line from the engine to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `id name <name>` (the rest of the line, inner blanks kept).
    IdName(String),
    /// `id author <author>`.
    IdAuthor(String),
    /// `option name <name> type <spin|check> default <d> [min <a> max <b>]`.
    Option {
        /// The option's name, one word.
        name: String,
        /// Its type and values.
        kind: OptionKind,
    },
    /// `gpiok`: the end of the answer to `gpi`.
    GpiOk,
    /// `readyok`.
    ReadyOk,
    /// `info depth … score … nodes … nps … time … pv …`.
    Info(InfoLine),
    /// `bestaction <action>`.
    BestAction(Action),
    /// `legal [<action> …]`.
    Legal(Vec<Action>),
    /// `position <GPN>` (from `d`): the fields joined by single blanks.
    Position(String),
    /// `rules <ruleset>` (from `d`).
    Rules(Rules),
    /// `error <message>` (the rest of the line).
    Error(String),
}

/// The type and values of an option in the answer to `gpi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// `type spin default <d> [min <a> max <b>]`.
    Spin {
        /// The default value.
        default: u64,
        /// The smallest and largest values, when bounded.
        range: Option<(u64, u64)>,
    },
    /// `type check default <true|false>`.
    Check {
        /// The default value.
        default: bool,
    },
}

/// An `info` line: the report of a finished iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoLine {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The expected final seed difference for the player to move, 1/100 seed.
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Milliseconds since `go`.
    pub time: u64,
    /// The principal variation, at least one action.
    pub pv: Vec<Action>,
}

impl InfoLine {
    /// The line for a finished iteration of the search.
    pub fn from_info(info: &gore_ai::Info) -> InfoLine {
        InfoLine {
            depth: info.depth,
            score: info.score,
            nodes: info.nodes,
            nps: info.nps(),
            time: info.elapsed.as_millis().min(u64::MAX as u128) as u64,
            pv: info.pv.clone(),
        }
    }
}

impl fmt::Display for OptionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionKind::Spin { default, range } => {
                write!(f, "type spin default {default}")?;
                if let Some((lo, hi)) = range {
                    write!(f, " min {lo} max {hi}")?;
                }
                Ok(())
            }
            OptionKind::Check { default } => write!(f, "type check default {default}"),
        }
    }
}

impl fmt::Display for InfoLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "info depth {} score {} nodes {} nps {} time {} pv",
            self.depth, self.score, self.nodes, self.nps, self.time
        )?;
        write_actions(f, &self.pv)
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::IdName(n) => write!(f, "id name {n}"),
            Reply::IdAuthor(a) => write!(f, "id author {a}"),
            Reply::Option { name, kind } => write!(f, "option name {name} {kind}"),
            Reply::GpiOk => f.write_str("gpiok"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Info(i) => i.fmt(f),
            Reply::BestAction(a) => write!(f, "bestaction {a}"),
            Reply::Legal(actions) => {
                f.write_str("legal")?;
                write_actions(f, actions)
            }
            Reply::Position(gpn) => write!(f, "position {gpn}"),
            Reply::Rules(r) => write!(f, "rules {r}"),
            Reply::Error(m) => write!(f, "error {m}"),
        }
    }
}

/// A number of a reply's field.
fn field<T: FromStr>(reply: &str, name: &str, text: Option<&&str>) -> Result<T, ProtocolError> {
    let Some(text) = text else {
        return err(format!("{reply}: missing the value of `{name}`"));
    };
    text.parse()
        .map_err(|_| ProtocolError(format!("{reply} {name}: {} is not a number", quote(text))))
}

/// Actions of a reply, numbered from 1 in errors.
fn actions(reply: &str, tokens: &[&str]) -> Result<Vec<Action>, ProtocolError> {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.parse::<Action>()
                .map_err(|e| ProtocolError(format!("{reply}: action {} {}: {e}", i + 1, quote(t))))
        })
        .collect()
}

impl FromStr for Reply {
    type Err = ProtocolError;

    /// Reads one line of an engine's output (without its line end).
    fn from_str(line: &str) -> Result<Reply, ProtocolError> {
        let w = words(line);
        let Some((&kind, args)) = w.split_first() else {
            return err("empty line: no reply");
        };
        let no_args = |r: Reply| match args.first() {
            None => Ok(r),
            Some(x) => err(format!("{kind}: unexpected argument {}", quote(x))),
        };
        match kind {
            "id" => match args.first() {
                Some(&"name") => Ok(Reply::IdName(rest_after(line, 2).to_string())),
                Some(&"author") => Ok(Reply::IdAuthor(rest_after(line, 2).to_string())),
                Some(x) => err(format!("id: expected `name` or `author`, not {}", quote(x))),
                None => err("id: expected `id name <name>` or `id author <author>`"),
            },
            "option" => parse_option(args),
            "gpiok" => no_args(Reply::GpiOk),
            "readyok" => no_args(Reply::ReadyOk),
            "info" => parse_info(args).map(Reply::Info),
            "bestaction" => match args {
                [a] => a
                    .parse()
                    .map(Reply::BestAction)
                    .map_err(|e| ProtocolError(format!("bestaction: {}: {e}", quote(a)))),
                [] => err("bestaction: missing the action"),
                [_, x, ..] => err(format!("bestaction: unexpected argument {}", quote(x))),
            },
            "legal" => actions(kind, args).map(Reply::Legal),
            "position" if args.is_empty() => err("position: missing the GPN fields"),
            "position" => Ok(Reply::Position(args.join(" "))),
            "rules" => parse_rules(args).map(Reply::Rules),
            "error" => Ok(Reply::Error(rest_after(line, 1).to_string())),
            _ => err(format!("unknown reply {}", quote(kind))),
        }
    }
}

fn parse_option(args: &[&str]) -> Result<Reply, ProtocolError> {
    const USAGE: &str =
        "option: expected `option name <name> type <spin|check> default <d> [min <a> max <b>]`";
    let [name_kw, name, type_kw, ty, default_kw, default, bounds @ ..] = args else {
        return err(USAGE);
    };
    if *name_kw != "name" || *type_kw != "type" || *default_kw != "default" {
        return err(USAGE);
    }
    let reply = format!("option {name}");
    let kind = match *ty {
        "spin" => {
            let default = field(&reply, "default", Some(default))?;
            let range = match bounds {
                [] => None,
                ["min", lo, "max", hi] => Some((
                    field(&reply, "min", Some(lo))?,
                    field(&reply, "max", Some(hi))?,
                )),
                _ => {
                    return err(format!(
                        "{reply}: expected `min <a> max <b>` after the default"
                    ))
                }
            };
            OptionKind::Spin { default, range }
        }
        "check" => {
            if let Some(x) = bounds.first() {
                return err(format!("{reply}: unexpected argument {}", quote(x)));
            }
            let default = match *default {
                "true" => true,
                "false" => false,
                _ => {
                    return err(format!(
                        "{reply} default: {} is not true or false",
                        quote(default)
                    ))
                }
            };
            OptionKind::Check { default }
        }
        _ => return err(format!("{reply}: type {} is not spin or check", quote(ty))),
    };
    Ok(Reply::Option {
        name: name.to_string(),
        kind,
    })
}

fn parse_info(args: &[&str]) -> Result<InfoLine, ProtocolError> {
    const KEYS: [&str; 6] = ["depth", "score", "nodes", "nps", "time", "pv"];
    // Each key at most once, in any order; `pv` takes the rest of the line.
    let mut at: [Option<usize>; 6] = [None; 6];
    let mut i = 0;
    while i < args.len() {
        let Some(k) = KEYS.iter().position(|k| *k == args[i]) else {
            return err(format!("info: unknown field {}", quote(args[i])));
        };
        if at[k].replace(i + 1).is_some() {
            return err(format!("info: {} is given twice", KEYS[k]));
        }
        i += if KEYS[k] == "pv" { args.len() } else { 2 };
    }
    let value = |k: usize| -> Option<&&str> { at[k].and_then(|j| args.get(j)) };
    for (k, name) in KEYS.iter().enumerate() {
        if at[k].is_none() {
            return err(format!("info: missing `{name}`"));
        }
    }
    let pv = actions("info pv", &args[at[5].unwrap_or(args.len())..])?;
    if pv.is_empty() {
        return err("info pv: no action");
    }
    Ok(InfoLine {
        depth: field("info", "depth", value(0))?,
        score: field("info", "score", value(1))?,
        nodes: field("info", "nodes", value(2))?,
        nps: field("info", "nps", value(3))?,
        time: field("info", "time", value(4))?,
        pv,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Hole;

    fn cmd(s: &str) -> Result<Command, String> {
        s.parse::<Command>().map_err(|e| e.0)
    }

    #[test]
    fn commands_are_written_as_the_protocol_says() {
        let position = Command::Position {
            start: Start::Gpn("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4".into()),
            actions: vec![Action::Decline, Action::Sow(Hole::A3)],
        };
        assert_eq!(
            position.to_string(),
            "position gpn 0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4 actions decline a3"
        );
        let start = Command::Position {
            start: Start::StartPos,
            actions: vec![],
        };
        assert_eq!(start.to_string(), "position startpos");
        let go = Go::from_limits(&Limits {
            depth: Some(3),
            nodes: Some(500),
            time: Some(Duration::from_millis(40)),
            ..Limits::default()
        });
        assert_eq!(go.to_string(), "go depth 3 nodes 500 movetime 40");
        assert_eq!(Go::from_limits(&Limits::default()).to_string(), "go");
        assert_eq!(Go::Infinite.to_string(), "go infinite");
        let level = EngineOption::Level(Level::new(3).unwrap());
        assert_eq!(
            Command::SetOption(level).to_string(),
            "setoption name level value 3"
        );
        assert_eq!(
            Command::SetOption(EngineOption::Honourable(true)).to_string(),
            "setoption name honourable value true"
        );
        assert_eq!(Command::Show.to_string(), "d");
    }

    #[test]
    fn commands_are_read_with_blanks_and_case_as_the_protocol_says() {
        assert_eq!(cmd("  position \t startpos  actions a1 b2 "), {
            Ok(Command::Position {
                start: Start::StartPos,
                actions: vec![Action::Sow(Hole::A1), Action::Sow(Hole::B2)],
            })
        });
        assert_eq!(cmd("show"), Ok(Command::Show));
        assert_eq!(
            cmd("setoption name Honourable value TRUE"),
            Ok(Command::SetOption(EngineOption::Honourable(true)))
        );
        assert_eq!(
            cmd("go movetime 5 depth 2"),
            Ok(Command::Go(Go::Limits {
                depth: Some(2),
                nodes: None,
                movetime: Some(5),
                clock: GoClock::default(),
            }))
        );
        assert_eq!(
            cmd("go btime 9000 depth 4 binc 100 atime 0"),
            Ok(Command::Go(Go::Limits {
                depth: Some(4),
                nodes: None,
                movetime: None,
                clock: GoClock {
                    atime: Some(0),
                    btime: Some(9000),
                    ainc: None,
                    binc: Some(100),
                },
            }))
        );
        // Command words are case-sensitive.
        assert!(cmd("GPI").unwrap_err().contains("unknown command `GPI`"));
    }

    #[test]
    fn errors_name_the_command_and_the_field() {
        for (line, message) in [
            ("isready now", "isready: unexpected argument `now`"),
            (
                "setoption",
                "setoption: expected `setoption name <name> value <value>`",
            ),
            (
                "setoption name foo value 1",
                "setoption: unknown option `foo` (options: level, honourable, hash, glory, seed, perfect, db)",
            ),
            (
                "setoption name level value 13",
                "setoption level: `13` is not a whole number from 1 to 12",
            ),
            (
                "setoption name hash value 0",
                "setoption hash: `0` is not a whole number from 1 to 4096",
            ),
            (
                "setoption name seed value -1",
                "setoption seed: `-1` is not a whole number from 0",
            ),
            (
                "position foo",
                "position: expected startpos or gpn, not `foo`",
            ),
            (
                "position gpn actions a1",
                "position gpn: missing the five GPN fields",
            ),
            (
                "position startpos moves a1",
                "position: expected `actions` after the position, not `moves`",
            ),
            (
                "position startpos actions a1 zz",
                "position: action 2 `zz`: action:",
            ),
            (
                "go depth 0",
                "go depth: `0` is not a whole number from 1 to 100",
            ),
            ("go depth", "go depth: missing the number"),
            ("go nodes 3 nodes 4", "go: nodes is given twice"),
            (
                "go wibble",
                "go: unknown parameter `wibble` (go [depth N] [nodes N] [movetime MS] [atime MS] [btime MS] [ainc MS] [binc MS] [infinite])",
            ),
            (
                "go infinite movetime 100",
                "go: infinite runs until stop; it takes no depth, nodes, movetime or clock",
            ),
            ("go atime", "go atime: missing the number"),
            ("go btime -5", "go btime: `-5` is not a whole number from 0"),
            ("go ainc 1.5", "go ainc: `1.5` is not a whole number from 0"),
            ("go binc 1 binc 2", "go: binc is given twice"),
            (
                "go atime 10 infinite",
                "go: infinite runs until stop; it takes no depth, nodes, movetime or clock",
            ),
            ("rules", "rules: missing the rule set"),
            ("rules a b", "rules: expected one word"),
            ("\u{1b}[2J", "unknown command `\\u{1b}[2J`"),
        ] {
            let e = cmd(line).unwrap_err();
            assert!(e.starts_with(message), "{line}: {e}");
        }
    }

    #[test]
    fn replies_are_read_as_the_engine_writes_them() {
        let r = |s: &str| s.parse::<Reply>();
        assert_eq!(
            r("id name gore  0.1 x "),
            Ok(Reply::IdName("gore  0.1 x".into()))
        );
        assert_eq!(
            r("option name level type spin default 8 min 1 max 8"),
            Ok(Reply::Option {
                name: "level".into(),
                kind: OptionKind::Spin {
                    default: 8,
                    range: Some((1, 8))
                }
            })
        );
        assert_eq!(
            r("option name seed type spin default 0"),
            Ok(Reply::Option {
                name: "seed".into(),
                kind: OptionKind::Spin {
                    default: 0,
                    range: None
                }
            })
        );
        assert_eq!(r("gpiok"), Ok(Reply::GpiOk));
        assert_eq!(r(" readyok\r"), Ok(Reply::ReadyOk));
        assert_eq!(
            r("info depth 6 score -450 nodes 691 nps 1464597 time 0 pv a1 b1"),
            Ok(Reply::Info(InfoLine {
                depth: 6,
                score: -450,
                nodes: 691,
                nps: 1_464_597,
                time: 0,
                pv: vec![Action::Sow(Hole::A1), Action::Sow(Hole::B1)],
            }))
        );
        assert_eq!(
            r("bestaction accept"),
            Ok(Reply::BestAction(Action::Accept))
        );
        assert_eq!(r("legal"), Ok(Reply::Legal(vec![])));
        assert_eq!(
            r("error go: already searching (send stop first)"),
            Ok(Reply::Error(
                "go: already searching (send stop first)".into()
            ))
        );
        for (line, message) in [
            ("bestaction a9", "bestaction: `a9`:"),
            ("bestaction", "bestaction: missing the action"),
            (
                "info depth 1 score x nodes 1 nps 1 time 0 pv a1",
                "info score: `x` is not a number",
            ),
            (
                "info depth 1 nodes 1 nps 1 time 0 pv a1",
                "info: missing `score`",
            ),
            (
                "info depth 1 score 0 nodes 1 nps 1 time 0 pv",
                "info pv: no action",
            ),
            (
                "option name x type slider default 1",
                "option x: type `slider` is not spin or check",
            ),
            ("wibble", "unknown reply `wibble`"),
        ] {
            let e = r(line).unwrap_err().0;
            assert!(e.starts_with(message), "{line}: {e}");
        }
    }

    /// Round trips: whatever `Display` writes, `FromStr` reads back the same.
    mod round_trip {
        use super::*;
        use proptest::prelude::*;
        use proptest::sample::select;

        /// Every action token: the sowings, the offers of 1 to 3 holes,
        /// the answers and the pass (kept only when they parse).
        fn all_actions() -> Vec<Action> {
            let holes = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"];
            let mut tokens: Vec<String> = holes.iter().map(|h| h.to_string()).collect();
            tokens.extend(["accept", "decline", "pass"].map(String::from));
            for mask in 1u32..256 {
                if (1..=3).contains(&mask.count_ones()) {
                    let list: Vec<&str> = (0..8)
                        .filter(|i| mask & (1 << i) != 0)
                        .map(|i| holes[i])
                        .collect();
                    tokens.push(format!("offer:{}", list.join(",")));
                }
            }
            let actions: Vec<Action> = tokens.iter().filter_map(|t| t.parse().ok()).collect();
            assert!(actions.len() > 11, "offers parse too");
            actions
        }

        fn action() -> impl Strategy<Value = Action> {
            select(all_actions())
        }

        fn actions(max: usize) -> impl Strategy<Value = Vec<Action>> {
            proptest::collection::vec(action(), 0..max)
        }

        fn rules() -> impl Strategy<Value = Rules> {
            (any::<[bool; 3]>(), proptest::option::of(1u32..=999_999_999)).prop_map(
                |(flags, cap)| {
                    let mut opts: Vec<String> = ["skip-origin", "no-trades", "cede-all"]
                        .iter()
                        .zip(flags)
                        .filter(|(_, on)| *on)
                        .map(|(o, _)| o.to_string())
                        .collect();
                    if let Some(n) = cap {
                        opts.push(format!("ply-cap={n}"));
                    }
                    let text = if opts.is_empty() {
                        "standard".to_string()
                    } else {
                        opts.join(",")
                    };
                    text.parse().expect("a valid rule set")
                },
            )
        }

        /// Words without blanks, joined by single blanks, never `actions`.
        fn fields() -> impl Strategy<Value = String> {
            proptest::collection::vec("[!-~]{1,12}", 1..7)
                .prop_map(|w| {
                    w.into_iter()
                        .filter(|w| w != "actions")
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .prop_filter("some field", |s| !s.is_empty())
        }

        /// A text without blanks at its ends (inner ones are kept).
        fn text() -> impl Strategy<Value = String> {
            "\\PC{0,30}".prop_map(|s| s.trim().to_string())
        }

        fn option() -> impl Strategy<Value = EngineOption> {
            prop_oneof![
                (1u8..=MAX_LEVEL).prop_map(|l| EngineOption::Level(Level::new(l).unwrap())),
                any::<bool>().prop_map(EngineOption::Honourable),
                (HASH_MIN..=HASH_MAX).prop_map(EngineOption::Hash),
                any::<u8>().prop_map(EngineOption::Glory),
                any::<u64>().prop_map(EngineOption::Seed),
                any::<bool>().prop_map(EngineOption::Perfect),
                "[a-z0-9/._-]{1,12}( [a-z0-9/._-]{1,8})?".prop_map(EngineOption::Db),
            ]
        }

        fn go() -> impl Strategy<Value = Go> {
            prop_oneof![
                Just(Go::Infinite),
                (
                    proptest::option::of(1..=DEPTH_MAX),
                    proptest::option::of(1u64..),
                    proptest::option::of(1u64..),
                    proptest::array::uniform4(proptest::option::of(any::<u64>())),
                )
                    .prop_map(
                        |(depth, nodes, movetime, [atime, btime, ainc, binc])| {
                            Go::Limits {
                                depth,
                                nodes,
                                movetime,
                                clock: GoClock {
                                    atime,
                                    btime,
                                    ainc,
                                    binc,
                                },
                            }
                        }
                    ),
            ]
        }

        fn command() -> impl Strategy<Value = Command> {
            let start = prop_oneof![Just(Start::StartPos), fields().prop_map(Start::Gpn)];
            prop_oneof![
                Just(Command::Gpi),
                Just(Command::IsReady),
                option().prop_map(Command::SetOption),
                rules().prop_map(Command::Rules),
                Just(Command::NewGame),
                (start, actions(12))
                    .prop_map(|(start, actions)| Command::Position { start, actions }),
                go().prop_map(Command::Go),
                Just(Command::Stop),
                Just(Command::Legal),
                Just(Command::Show),
                Just(Command::Quit),
            ]
        }

        fn reply() -> impl Strategy<Value = Reply> {
            let kind = prop_oneof![
                (any::<u64>(), proptest::option::of(any::<(u64, u64)>()))
                    .prop_map(|(default, range)| OptionKind::Spin { default, range }),
                any::<bool>().prop_map(|default| OptionKind::Check { default }),
            ];
            let info = (
                any::<u32>(),
                any::<i32>(),
                any::<[u64; 3]>(),
                proptest::collection::vec(action(), 1..10),
            )
                .prop_map(|(depth, score, [nodes, nps, time], pv)| InfoLine {
                    depth,
                    score,
                    nodes,
                    nps,
                    time,
                    pv,
                });
            prop_oneof![
                text().prop_map(Reply::IdName),
                text().prop_map(Reply::IdAuthor),
                ("[a-zA-Z_-]{1,12}", kind).prop_map(|(name, kind)| Reply::Option { name, kind }),
                Just(Reply::GpiOk),
                Just(Reply::ReadyOk),
                info.prop_map(Reply::Info),
                action().prop_map(Reply::BestAction),
                actions(20).prop_map(Reply::Legal),
                fields().prop_map(Reply::Position),
                rules().prop_map(Reply::Rules),
                text().prop_map(Reply::Error),
            ]
        }

        /// Lines made of the protocol's own words, numbers and junk, so
        /// that parsing goes deep into each command's grammar.
        fn wordy_line() -> impl Strategy<Value = String> {
            let word = prop_oneof![
                select(vec![
                    "gpi",
                    "isready",
                    "setoption",
                    "name",
                    "value",
                    "level",
                    "honourable",
                    "hash",
                    "glory",
                    "seed",
                    "rules",
                    "newgame",
                    "position",
                    "startpos",
                    "gpn",
                    "actions",
                    "go",
                    "depth",
                    "nodes",
                    "movetime",
                    "atime",
                    "btime",
                    "ainc",
                    "binc",
                    "infinite",
                    "stop",
                    "legal",
                    "d",
                    "show",
                    "quit",
                    "id",
                    "author",
                    "option",
                    "type",
                    "spin",
                    "check",
                    "default",
                    "min",
                    "max",
                    "gpiok",
                    "readyok",
                    "info",
                    "score",
                    "nps",
                    "time",
                    "pv",
                    "bestaction",
                    "error",
                    "true",
                    "false",
                    "standard",
                    "a1",
                    "offer:a1,a3",
                    "accept",
                    "0",
                    "1",
                    "100",
                    "101",
                    "-1",
                    "18446744073709551616",
                    "",
                ])
                .prop_map(String::from),
                "\\PC{0,6}",
                any::<u64>().prop_map(|n| n.to_string()),
            ];
            (
                proptest::collection::vec(word, 0..12),
                select(vec![" ", "  ", "\t", " \u{a0}"]),
            )
                .prop_map(|(w, sep)| w.join(sep))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn commands_round_trip(c in command()) {
                let text = c.to_string();
                prop_assert!(!text.contains('\n'), "{text:?}");
                prop_assert_eq!(text.parse::<Command>(), Ok(c), "{}", text);
            }

            #[test]
            fn replies_round_trip(r in reply()) {
                let text = r.to_string();
                prop_assert!(!text.contains('\n'), "{text:?}");
                prop_assert_eq!(text.parse::<Reply>(), Ok(r), "{}", text);
            }

            #[test]
            fn any_string_parses_without_panicking(s in any::<String>()) {
                let _ = s.parse::<Command>();
                let _ = s.parse::<Reply>();
            }

            #[test]
            fn protocol_like_lines_parse_without_panicking(s in wordy_line()) {
                // What does parse is written back the same way.
                if let Ok(c) = s.parse::<Command>() {
                    prop_assert_eq!(c.to_string().parse::<Command>(), Ok(c));
                }
                if let Ok(r) = s.parse::<Reply>() {
                    prop_assert_eq!(r.to_string().parse::<Reply>(), Ok(r));
                }
            }
        }
    }
}
