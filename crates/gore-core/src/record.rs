//! Game records: tag lines, then the actions. See `docs/NOTATION.md`.
//!
//! ```text
//! [Game "Goré"]
//! [Rules "standard"]
//! [A "Awa"]
//! [B "Koffi"]
//! [Date "2026-11-30"]
//! [Result "30-18 without glory"]
//! [Termination "board"]
//!
//! 1. a3 b2 a1 b4 a2 b3 offer:a1 accept
//! 9. b1 ...
//! ```

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write as _};
use core::str::FromStr;

use crate::action::Action;
use crate::error::{GpnError, IllegalAction, ParseActionError, ParseRulesError};
use crate::game::{EndReason, Game};
use crate::position::{parse_count, Position, Setup};
use crate::rules::Rules;
use crate::types::Player;

/// The `YYYY-MM-DD` date (UTC) of a Unix time in milliseconds, as the tools
/// write the `Date` tag. Pure: the caller reads the clock.
///
/// ```
/// assert_eq!(gore_core::iso_date(0), "1970-01-01");
/// assert_eq!(gore_core::iso_date(951_782_400_000), "2000-02-29");
/// ```
pub fn iso_date(unix_ms: i64) -> String {
    // Howard Hinnant's days-to-civil.
    let z = unix_ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    alloc::format!("{y:04}-{m:02}-{d:02}")
}

/// The result a record claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordResult {
    /// `*`: the game was not finished.
    Unfinished,
    /// `A-B`, perhaps with ` without glory`.
    Finished {
        /// Final seeds of A and B.
        seeds: [u8; 2],
        /// The winner had declined an offer.
        without_glory: bool,
    },
}

impl fmt::Display for RecordResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordResult::Unfinished => f.write_str("*"),
            RecordResult::Finished {
                seeds,
                without_glory,
            } => {
                write!(f, "{}-{}", seeds[0], seeds[1])?;
                if *without_glory {
                    f.write_str(" without glory")?;
                }
                Ok(())
            }
        }
    }
}

/// Reads a `Result` tag's syntax; that the seeds add up to the variant's
/// total is checked once the `Rules` tag is known.
fn parse_result(s: &str) -> Option<RecordResult> {
    if s == "*" {
        return Some(RecordResult::Unfinished);
    }
    let (score, without_glory) = match s.strip_suffix(" without glory") {
        Some(score) => (score, true),
        None => (s, false),
    };
    let (a, b) = score.split_once('-')?;
    let seeds = [parse_count(a)?, parse_count(b)?];
    // "Without glory" on a draw is refused once the tags are read (a
    // resigned game may have equal seeds and a winner).
    Some(RecordResult::Finished {
        seeds,
        without_glory,
    })
}

/// How a game between people ended before the board ended it (RULES.md,
/// "Games between people"): the record's `Termination` says which.
///
/// ```
/// use gore_core::{Forfeit, Player};
/// assert_eq!(Forfeit::Time(Player::B).loser(), Some(Player::B));
/// assert_eq!(Forfeit::Abort.loser(), None);
/// assert_eq!(Forfeit::from_parts("time", None), None, "time needs its loser");
/// assert_eq!(Forfeit::from_parts("abort", None), Some(Forfeit::Abort));
/// assert_eq!(Forfeit::Left(Player::A).as_str(), "left");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Forfeit {
    /// The player resigned (`Termination "resign"`, `Resigned "A"`).
    Resign(Player),
    /// The player's time ran out (`Termination "time"`, `Loser "A"`).
    Time(Player),
    /// The player left and his opponent claimed the win
    /// (`Termination "left"`, `Loser "A"`).
    Left(Player),
    /// Aborted before each player had acted: no result, counts for nobody
    /// (`Termination "abort"`, `Result "*"`).
    Abort,
}

impl Forfeit {
    /// Who lost (`None` for an abort).
    pub fn loser(self) -> Option<Player> {
        match self {
            Forfeit::Resign(p) | Forfeit::Time(p) | Forfeit::Left(p) => Some(p),
            Forfeit::Abort => None,
        }
    }

    /// The `Termination` word: `resign`, `time`, `left` or `abort`.
    pub fn as_str(self) -> &'static str {
        match self {
            Forfeit::Resign(_) => "resign",
            Forfeit::Time(_) => "time",
            Forfeit::Left(_) => "left",
            Forfeit::Abort => "abort",
        }
    }

    /// The forfeit of `word` (an [`Forfeit::as_str`]) lost by `loser`;
    /// `None` when the word is not one, or the loser is missing or extra.
    pub fn from_parts(word: &str, loser: Option<Player>) -> Option<Forfeit> {
        match (word, loser) {
            ("resign", Some(p)) => Some(Forfeit::Resign(p)),
            ("time", Some(p)) => Some(Forfeit::Time(p)),
            ("left", Some(p)) => Some(Forfeit::Left(p)),
            ("abort", None) => Some(Forfeit::Abort),
            _ => None,
        }
    }

    /// Whether `word` is a forfeit's `Termination` word.
    pub fn is_word(word: &str) -> bool {
        matches!(word, "resign" | "time" | "left" | "abort")
    }
}

/// A game record: who played, under which rules, from where, the actions
/// and the result.
///
/// ```
/// use gore_core::{Action, Game, Hole, Record, Rules};
/// let mut game = Game::new(Rules::STANDARD);
/// game.play(Action::Sow(Hole::A1)).unwrap();
/// let mut rec = Record::from_game(&game);
/// rec.players = [Some("Awa".into()), Some("Koffi".into())];
/// let text = rec.to_string();
/// let back = Record::parse(&text).unwrap();
/// assert_eq!(back, rec);
/// assert_eq!(back.replay().unwrap().actions(), game.actions());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The rule set (tag `Rules`, required).
    pub rules: Rules,
    /// Names of A and B (tags `A`, `B`).
    pub players: [Option<String>; 2],
    /// Tag `Date`, free text (ISO `2026-11-30` is written by the tools).
    pub date: Option<String>,
    /// Tag `Event`.
    pub event: Option<String>,
    /// Tag `Start`: the start position, when it is not the initial one.
    pub start: Option<Setup>,
    /// Tag `Result`.
    pub result: Option<RecordResult>,
    /// Tag `Termination`: why the game ended on the board (`None` for a
    /// forfeit: see `forfeit`).
    pub termination: Option<EndReason>,
    /// How the game ended off the board (tag `Termination` `resign`,
    /// `time`, `left` or `abort`, with `Resigned` or `Loser`): the game
    /// ended there, its `Result` the captured totals as they stood (not
    /// swept), the loser's opponent the winner; `*` after an abort.
    pub forfeit: Option<Forfeit>,
    /// Any other tags, in order.
    pub extra: Vec<(String, String)>,
    /// The actions, in order.
    pub actions: Vec<Action>,
    /// Comments attached to actions (`{…}` after an action token), as
    /// `(ply, text)` in the order read: `ply` is the number of actions
    /// played when the comment comes (1 for a comment after the first
    /// action, 0 for one before any action). A review writes its
    /// evaluations here (docs/NOTATION.md, "Comments").
    pub comments: Vec<(usize, String)>,
}

/// What is wrong in a record, and on which line (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// The line of the record where the problem is (0 when it concerns the
    /// whole record).
    pub line: usize,
    /// The problem.
    pub kind: RecordErrorKind,
}

/// The kinds of [`RecordError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordErrorKind {
    /// A tag line that is not `[Name "value"]`.
    TagSyntax,
    /// A tag given twice.
    RepeatedTag(String),
    /// The `Rules` tag is missing.
    MissingRules,
    /// The `Rules` tag does not parse.
    Rules(ParseRulesError),
    /// The `Start` tag is not a valid position.
    Start(GpnError),
    /// The `Result` tag is not `*`, `A-B` or `A-B without glory`.
    ResultSyntax,
    /// The `Result` tag's seeds do not add up to the game's seeds.
    ResultTotal {
        /// The seeds the tag gives in all.
        found: u32,
        /// The seeds of the `Rules` tag's variant (48, or 8N).
        expected: u8,
    },
    /// The `Termination` tag is not `board`, `no-hole`, `repetition`,
    /// `ply-cap`, or a forfeit with its loser (`resign` with `Resigned`,
    /// `time` or `left` with `Loser`, `abort` with neither), or names a
    /// board's reason for an unfinished game.
    TerminationSyntax,
    /// A token among the actions does not parse.
    Action(String, ParseActionError),
    /// An action breaks a rule.
    Illegal {
        /// Its ply number, from 1.
        ply: usize,
        /// The action.
        action: Action,
        /// The rule it breaks.
        error: IllegalAction,
    },
    /// A tag line after the actions have begun.
    TagAfterActions,
    /// A `{` comment not closed by `}` on its line.
    UnclosedComment,
    /// A forfeit (`Termination "resign"`, `time`, `left`, `abort`) on a
    /// game that had already ended by the board's rules.
    ForfeitAfterEnd {
        /// Why the replayed game ended.
        actual: EndReason,
    },
    /// The `Termination` tag does not match the replayed game.
    TerminationMismatch {
        /// What the tag says.
        claimed: EndReason,
        /// Why the replayed game ended.
        actual: EndReason,
    },
    /// The `Result` tag does not match the replayed game.
    ResultMismatch {
        /// What the tag says.
        claimed: RecordResult,
        /// What the actions give.
        actual: RecordResult,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "record line {}: ", self.line)?;
        } else {
            f.write_str("record: ")?;
        }
        match &self.kind {
            RecordErrorKind::TagSyntax => f.write_str("a tag is written [Name \"value\"]"),
            RecordErrorKind::RepeatedTag(t) => write!(f, "tag {t} is given twice"),
            RecordErrorKind::MissingRules => {
                f.write_str("the Rules tag is required ([Rules \"standard\"])")
            }
            RecordErrorKind::Rules(e) => write!(f, "tag Rules: {e}"),
            RecordErrorKind::Start(e) => write!(f, "tag Start: {e}"),
            RecordErrorKind::ResultSyntax => f.write_str(
                "tag Result: expected *, A-B adding up to the game's seeds, or A-B without glory",
            ),
            RecordErrorKind::ResultTotal { found, expected } => write!(
                f,
                "tag Result: the seeds add up to {found}, not to the game's {expected}"
            ),
            RecordErrorKind::TerminationSyntax => f.write_str(
                "tag Termination: expected board, no-hole, repetition or ply-cap, for a finished \
                 game; resign with a Resigned tag (A or B); time or left with a Loser tag (A or \
                 B); or abort",
            ),
            RecordErrorKind::ForfeitAfterEnd { actual } => write!(
                f,
                "tag Termination says the game ended off the board, but the board had ended it \
                 by {}",
                actual.as_str()
            ),
            RecordErrorKind::Action(tok, e) => write!(f, "`{tok}`: {e}"),
            RecordErrorKind::Illegal { ply, action, error } => {
                write!(f, "action {ply} ({action}): {error}")
            }
            RecordErrorKind::TagAfterActions => f.write_str("tags come before the actions"),
            RecordErrorKind::UnclosedComment => {
                f.write_str("a comment opened with { is closed by } on the same line")
            }
            RecordErrorKind::TerminationMismatch { claimed, actual } => write!(
                f,
                "tag Termination says {} but the game ended by {}",
                claimed.as_str(),
                actual.as_str()
            ),
            RecordErrorKind::ResultMismatch { claimed, actual } => {
                write!(f, "tag Result says {claimed} but the actions give {actual}")
            }
        }
    }
}

impl core::error::Error for RecordError {}

fn err(line: usize, kind: RecordErrorKind) -> RecordError {
    RecordError { line, kind }
}

/// Reads `[Name "value"]`, unescaping `\"` and `\\`.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(' ')?;
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return None;
    }
    let body = rest.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                c @ ('"' | '\\') => value.push(c),
                'n' => value.push('\n'),
                'r' => value.push('\r'),
                't' => value.push('\t'),
                _ => return None,
            },
            '"' => return None,
            c => value.push(c),
        }
    }
    Some((name.to_string(), value))
}

/// A comment as written between `{` and `}`: on one line, without `}`
/// (which would close it early: written `)`), trimmed as the reader trims.
fn comment_text(c: &str) -> String {
    c.chars()
        .map(|ch| match ch {
            '}' => ')',
            '\n' | '\r' | '\t' => ' ',
            ch => ch,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        // Escapes keep every value on its one line.
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

impl Record {
    /// An empty record of a game under `rules` from the initial position.
    pub fn new(rules: Rules) -> Record {
        Record {
            rules,
            players: [None, None],
            date: None,
            event: None,
            start: None,
            result: None,
            termination: None,
            forfeit: None,
            extra: Vec::new(),
            actions: Vec::new(),
            comments: Vec::new(),
        }
    }

    /// The record of a game: rules, start (when not initial), actions, and
    /// the result (`*` while it goes on).
    pub fn from_game(game: &Game) -> Record {
        let mut r = Record::new(game.rules());
        if *game.start() != Position::new(game.rules().variant) {
            r.start = Some(game.start().to_setup());
        }
        r.actions = game.actions().to_vec();
        r.result = Some(match game.outcome() {
            None => RecordResult::Unfinished,
            Some(o) => RecordResult::Finished {
                seeds: o.seeds,
                without_glory: o.without_glory(),
            },
        });
        r.termination = game.outcome().map(|o| o.reason);
        r
    }

    /// Reads a record. Syntax only, plus the start position's validity; use
    /// [`Record::replay`] to check the actions and the result.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut r = Record::new(Rules::STANDARD);
        let mut have_rules = false;
        let mut result_line = 0;
        // A forfeit's `Termination` word and its loser's tag (`Resigned`
        // for a resignation, `Loser` for time and leaving), with their
        // lines: each needs the other, checked once all tags are read.
        let mut forfeit_word: Option<(usize, String)> = None;
        let mut loser_tag: Option<(usize, &'static str, Player)> = None;
        let mut seen: Vec<String> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let trimmed = raw.trim();
            if trimmed.starts_with('[') {
                if !r.actions.is_empty() || !r.comments.is_empty() {
                    return Err(err(line_no, RecordErrorKind::TagAfterActions));
                }
                let (name, value) =
                    parse_tag(trimmed).ok_or_else(|| err(line_no, RecordErrorKind::TagSyntax))?;
                if seen.contains(&name) {
                    return Err(err(line_no, RecordErrorKind::RepeatedTag(name)));
                }
                seen.push(name.clone());
                match name.as_str() {
                    "Rules" => {
                        r.rules = value
                            .parse()
                            .map_err(|e| err(line_no, RecordErrorKind::Rules(e)))?;
                        have_rules = true;
                    }
                    "A" => r.players[0] = Some(value),
                    "B" => r.players[1] = Some(value),
                    "Date" => r.date = Some(value),
                    "Event" => r.event = Some(value),
                    "Start" => {
                        let s: Setup = value.parse().map_err(|e| {
                            err(line_no, RecordErrorKind::Start(GpnError::Parse(e)))
                        })?;
                        r.start = Some(s);
                    }
                    "Result" => {
                        result_line = line_no;
                        r.result = Some(
                            parse_result(&value)
                                .ok_or_else(|| err(line_no, RecordErrorKind::ResultSyntax))?,
                        )
                    }
                    "Termination" if Forfeit::is_word(&value) => {
                        forfeit_word = Some((line_no, value))
                    }
                    "Termination" => {
                        r.termination = Some(
                            value
                                .parse()
                                .map_err(|_| err(line_no, RecordErrorKind::TerminationSyntax))?,
                        )
                    }
                    tag @ ("Resigned" | "Loser") => {
                        if loser_tag.is_some() {
                            return Err(err(line_no, RecordErrorKind::TerminationSyntax));
                        }
                        let p: Player = value
                            .parse()
                            .map_err(|_| err(line_no, RecordErrorKind::TerminationSyntax))?;
                        let tag = if tag == "Resigned" {
                            "Resigned"
                        } else {
                            "Loser"
                        };
                        loser_tag = Some((line_no, tag, p));
                    }
                    "Game" => {}
                    _ => r.extra.push((name, value)),
                }
                continue;
            }
            // Among the actions: `{…}` is a comment on the action before it
            // (it may hold `#`); outside one, `#` ends the line.
            let mut rest = trimmed;
            while !rest.is_empty() {
                let (code, comment, after) = match (rest.find('{'), rest.find('#')) {
                    (Some(b), h) if h.is_none_or(|h| b < h) => {
                        let close = rest[b..]
                            .find('}')
                            .ok_or_else(|| err(line_no, RecordErrorKind::UnclosedComment))?;
                        (
                            &rest[..b],
                            Some(rest[b + 1..b + close].trim()),
                            &rest[b + close + 1..],
                        )
                    }
                    (_, Some(h)) => (&rest[..h], None, ""),
                    (_, None) => (rest, None, ""),
                };
                for tok in code.split_whitespace() {
                    // Ply numbers such as `9.` are for readers.
                    if let Some(num) = tok.strip_suffix('.') {
                        if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                            continue;
                        }
                    }
                    let a: Action = tok
                        .parse()
                        .map_err(|e| err(line_no, RecordErrorKind::Action(tok.to_string(), e)))?;
                    r.actions.push(a);
                }
                if let Some(c) = comment {
                    r.comments.push((r.actions.len(), c.to_string()));
                }
                rest = after;
            }
        }
        if !have_rules {
            return Err(err(0, RecordErrorKind::MissingRules));
        }
        r.forfeit = match (forfeit_word, loser_tag) {
            (None, None) => None,
            (None, Some((line, _, _))) => {
                return Err(err(line, RecordErrorKind::TerminationSyntax))
            }
            (Some((line, word)), loser) => {
                // A resignation names its loser `Resigned`, the others `Loser`.
                let tag_fits = match &loser {
                    Some((_, tag, _)) => (*tag == "Resigned") == (word == "resign"),
                    None => true,
                };
                let at = loser.as_ref().map_or(line, |l| l.0.max(line));
                Some(
                    Forfeit::from_parts(&word, loser.map(|l| l.2))
                        .filter(|_| tag_fits)
                        .ok_or_else(|| err(at, RecordErrorKind::TerminationSyntax))?,
                )
            }
        };
        let won = r.forfeit.and_then(Forfeit::loser).is_some();
        if let Some(RecordResult::Finished {
            seeds,
            without_glory,
        }) = r.result
        {
            if without_glory && seeds[0] == seeds[1] && !won {
                return Err(err(result_line, RecordErrorKind::ResultSyntax));
            }
            let found = seeds[0] as u32 + seeds[1] as u32;
            let expected = r.rules.variant.total_seeds();
            // A forfeited game's seeds are the captured totals, not swept.
            let wrong = match r.forfeit {
                None => found != expected as u32,
                Some(_) => found > expected as u32,
            };
            if wrong {
                return Err(err(
                    result_line,
                    RecordErrorKind::ResultTotal { found, expected },
                ));
            }
        }
        if let Some(s) = &r.start {
            Position::from_setup(s, r.rules.variant)
                .map_err(|e| err(0, RecordErrorKind::Start(GpnError::Invalid(e))))?;
        }
        Ok(r)
    }

    /// The start position.
    pub fn start_position(&self) -> Result<Position, RecordError> {
        match &self.start {
            None => Ok(Position::new(self.rules.variant)),
            Some(s) => Position::from_setup(s, self.rules.variant)
                .map_err(|e| err(0, RecordErrorKind::Start(GpnError::Invalid(e)))),
        }
    }

    /// Replays the actions and checks the `Result` tag against them.
    pub fn replay(&self) -> Result<Game, RecordError> {
        let mut game = Game::from_position(self.start_position()?, self.rules.ply_cap);
        for (i, &action) in self.actions.iter().enumerate() {
            game.play(action).map_err(|error| {
                err(
                    0,
                    RecordErrorKind::Illegal {
                        ply: i + 1,
                        action,
                        error,
                    },
                )
            })?;
        }
        let reason = game.outcome().map(|o| o.reason);
        let actual = match (game.outcome(), self.forfeit) {
            (Some(o), Some(_)) => {
                return Err(err(
                    0,
                    RecordErrorKind::ForfeitAfterEnd { actual: o.reason },
                ))
            }
            (None, Some(f)) => match f.loser() {
                Some(p) => RecordResult::Finished {
                    seeds: [
                        game.position().captured(Player::A),
                        game.position().captured(Player::B),
                    ],
                    without_glory: game.has_declined(p.opponent()),
                },
                None => RecordResult::Unfinished,
            },
            (None, None) => RecordResult::Unfinished,
            (Some(o), None) => RecordResult::Finished {
                seeds: o.seeds,
                without_glory: o.without_glory(),
            },
        };
        if let (Some(claimed), Some(actual)) = (self.termination, reason) {
            if claimed != actual {
                return Err(err(
                    0,
                    RecordErrorKind::TerminationMismatch { claimed, actual },
                ));
            }
        }
        if self.termination.is_some() && reason.is_none() {
            return Err(err(0, RecordErrorKind::TerminationSyntax));
        }
        if let Some(claimed) = self.result {
            if claimed != actual {
                return Err(err(0, RecordErrorKind::ResultMismatch { claimed, actual }));
            }
        }
        Ok(game)
    }
}

impl FromStr for Record {
    type Err = RecordError;

    /// [`Record::parse`].
    fn from_str(text: &str) -> Result<Record, RecordError> {
        Record::parse(text)
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_tag(&mut out, "Game", "Goré");
        write_tag(&mut out, "Rules", &self.rules.to_string());
        if let Some(e) = &self.event {
            write_tag(&mut out, "Event", e);
        }
        if let Some(a) = &self.players[0] {
            write_tag(&mut out, "A", a);
        }
        if let Some(b) = &self.players[1] {
            write_tag(&mut out, "B", b);
        }
        if let Some(d) = &self.date {
            write_tag(&mut out, "Date", d);
        }
        if let Some(s) = &self.start {
            write_tag(&mut out, "Start", &s.to_string());
        }
        for (k, v) in &self.extra {
            write_tag(&mut out, k, v);
        }
        if let Some(r) = &self.result {
            write_tag(&mut out, "Result", &r.to_string());
        }
        if let Some(t) = &self.termination {
            write_tag(&mut out, "Termination", t.as_str());
        }
        if let Some(f) = self.forfeit {
            write_tag(&mut out, "Termination", f.as_str());
            if let Some(p) = f.loser() {
                let tag = match f {
                    Forfeit::Resign(_) => "Resigned",
                    _ => "Loser",
                };
                write_tag(&mut out, tag, p.char().encode_utf8(&mut [0; 4]));
            }
        }
        out.push('\n');
        let mut comments = self.comments.iter().peekable();
        let mut write_comments = |out: &mut String, ply: usize| {
            while let Some((_, c)) = comments.next_if(|(p, _)| *p <= ply) {
                out.push_str(" {");
                out.push_str(&comment_text(c));
                out.push('}');
            }
        };
        if self.comments.first().is_some_and(|(p, _)| *p == 0) {
            let mut first = String::new();
            write_comments(&mut first, 0);
            out.push_str(first.trim_start());
            out.push('\n');
        }
        for (i, chunk) in self.actions.chunks(8).enumerate() {
            let _ = write!(out, "{}.", i * 8 + 1);
            for (j, a) in chunk.iter().enumerate() {
                let _ = write!(out, " {a}");
                write_comments(&mut out, i * 8 + j + 1);
            }
            out.push('\n');
        }
        // Comments past the last action (none from the reader) stay with it.
        let mut last = String::new();
        write_comments(&mut last, usize::MAX);
        if !last.is_empty() {
            out.push_str(last.trim_start());
            out.push('\n');
        }
        f.write_str(&out)
    }
}
