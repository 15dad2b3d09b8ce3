//! The one place that says what a level means: its depth cap, its noise,
//! how often it blunders, and what one decision may spend when the caller
//! gives no limit of its own.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::human::Vision;
use crate::Limits;

/// The strongest level: full search within the limits given.
pub const MAX_LEVEL: u8 = LADDER.len() as u8;

/// A playing strength, from 1 (a beginner can win) to [`MAX_LEVEL`] (full
/// strength). It cannot hold a level that does not exist.
///
/// ```
/// use std::time::Duration;
/// use gore_ai::{Level, Limits};
///
/// let level: Level = "6".parse().unwrap();
/// assert_eq!(level.limits(Duration::from_millis(500)), Limits::depth(3));
/// assert_eq!(Level::MAX.limits(Duration::from_millis(500)), Limits::time(Duration::from_millis(500)));
/// assert!("13".parse::<Level>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// How each level plays: by sight ([`Vision`]) or by search to a depth
/// cap, the noise added to each action's score (score units, 100 = one
/// seed), how often it plays a random sowing, and how it is described to
/// players.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelProfile {
    /// What the level sees when it plays by sight, without search (the
    /// weakest levels); `None` for the levels that search.
    pub vision: Option<Vision>,
    /// Deepest search of the level (`None` = the limits given); 1 for the
    /// levels that play by sight.
    pub depth: Option<u32>,
    /// Uniform noise of ± this many units added to each root action's score.
    pub noise: i32,
    /// Probability of a uniformly random sowing.
    pub blunder: f64,
    /// A short name for players ("Beginner").
    pub name: &'static str,
    /// What the level sees, in a sentence for the home page (English; the
    /// web app has it in every language).
    pub describe: &'static str,
}

/// Sees the landing hole of short sowings only.
const LANDING: Vision = Vision {
    reach: 7,
    back: false,
    forward: false,
    replies: false,
};

/// Sees every capture it can make now, long sowings included.
const CHAINS_ALL: Vision = Vision {
    reach: 255,
    back: true,
    forward: true,
    replies: false,
};

/// Sees every capture, its own and the opponent's next one.
const REPLIES: Vision = Vision {
    reach: 255,
    back: true,
    forward: true,
    replies: true,
};

const fn sight(
    vision: Vision,
    noise: i32,
    blunder: f64,
    name: &'static str,
    describe: &'static str,
) -> LevelProfile {
    LevelProfile {
        vision: Some(vision),
        depth: Some(1),
        noise,
        blunder,
        name,
        describe,
    }
}

const fn search(
    depth: Option<u32>,
    noise: i32,
    name: &'static str,
    describe: &'static str,
) -> LevelProfile {
    LevelProfile {
        vision: None,
        depth,
        noise,
        blunder: 0.0,
        name,
        describe,
    }
}

/// The ladder, weakest first: the one place a level's play is decided
/// (docs/STRENGTH.md measures it). The three weakest play by sight; the
/// others search to a depth cap, the top one as deep as its limits allow.
const LADDER: [LevelProfile; 12] = [
    sight(
        LANDING,
        100,
        0.15,
        "Beginner",
        "sees a capture in the hole where a short sowing lands, not the chains",
    ),
    sight(
        CHAINS_ALL,
        20,
        0.0,
        "Novice",
        "sees every capture it can make now, not the opponent's reply",
    ),
    sight(
        REPLIES,
        20,
        0.0,
        "Learner",
        "sees every capture, and the opponent's next one",
    ),
    search(
        Some(1),
        0,
        "Casual",
        "weighs each action by the position it leaves, trades included",
    ),
    search(Some(2), 0, "Club player", "looks two actions ahead"),
    search(Some(3), 0, "Improver", "looks three actions ahead"),
    search(Some(4), 0, "Thoughtful", "looks four actions ahead"),
    search(Some(7), 0, "Strong", "looks seven actions ahead"),
    search(Some(9), 0, "Expert", "looks nine actions ahead"),
    search(Some(11), 0, "Master", "looks eleven actions ahead"),
    search(Some(13), 0, "Grandmaster", "looks thirteen actions ahead"),
    search(
        None,
        0,
        "Full strength",
        "searches as deep as its time allows",
    ),
];

/// The deepest search cap of the levels below the top: the top level's
/// floor ([`Level::cap`]).
pub const TOP_FLOOR: u32 = deepest_cap();

const fn deepest_cap() -> u32 {
    let mut deepest = 0;
    let mut i = 0;
    while i < LADDER.len() {
        if let Some(d) = LADDER[i].depth {
            if d > deepest {
                deepest = d;
            }
        }
        i += 1;
    }
    deepest
}

/// A number that is not a level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelError {
    /// The text that was read (the number, for [`Level::new`]).
    pub text: String,
}

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a level: levels go from 1 to {MAX_LEVEL}",
            self.text
        )
    }
}

impl std::error::Error for LevelError {}

impl Level {
    /// The weakest level.
    pub const MIN: Level = Level(1);
    /// Full strength.
    pub const MAX: Level = Level(MAX_LEVEL);
    /// The level of a new game against the computer when the player
    /// chooses none (the web app's and its API's default): the strongest
    /// level that still plays by a fixed, shallow depth with some noise
    /// and never a random blunder, so that a newcomer meets a fair game.
    pub const STANDARD: Level = Level(5);

    /// The level `n`, if there is one.
    pub fn new(n: u8) -> Result<Level, LevelError> {
        if (1..=MAX_LEVEL).contains(&n) {
            Ok(Level(n))
        } else {
            Err(LevelError {
                text: n.to_string(),
            })
        }
    }

    /// Every level, weakest first.
    pub fn all() -> impl DoubleEndedIterator<Item = Level> {
        (1..=MAX_LEVEL).map(Level)
    }

    /// The level as a number, 1 to [`MAX_LEVEL`].
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Whether this is full strength ([`Level::MAX`]).
    pub const fn is_max(self) -> bool {
        self.0 == MAX_LEVEL
    }

    /// How the level plays. The depths are the ladder of docs/STRENGTH.md.
    pub fn profile(self) -> LevelProfile {
        LADDER[self.0 as usize - 1]
    }

    /// The given limits with the level's depth cap applied (the smaller of
    /// the two depths). The top level keeps them, with a floor when they
    /// set none: it always completes [`TOP_FLOOR`] plies, the depth of the
    /// level below it, so that full strength never plays weaker than
    /// level 11 however small its nodes or time.
    pub fn cap(self, limits: Limits) -> Limits {
        let mut limits = limits;
        match self.profile().depth {
            Some(d) => limits.depth = Some(limits.depth.map_or(d, |x| x.min(d))),
            None => limits.min_depth = limits.min_depth.or(Some(TOP_FLOOR)),
        }
        limits
    }

    /// What one decision may spend when the caller sets no limit of its
    /// own: the top level thinks for `movetime`; the levels below search to
    /// their own depth and are not on the clock, so that a seed replays the
    /// same game.
    pub fn limits(self, movetime: Duration) -> Limits {
        match self.profile().depth {
            Some(d) => Limits::depth(d),
            None => Limits::time(movetime),
        }
    }

    /// Like [`Level::limits`], but the levels below the top also stop
    /// after `bound`, a safety net for a slow machine (their answer then
    /// depends on the clock).
    pub fn limits_within(self, movetime: Duration, bound: Duration) -> Limits {
        let mut limits = self.limits(movetime);
        if !self.is_max() {
            limits.time = Some(bound);
        }
        limits
    }
}

/// The one thinking time per decision when the caller gives none: the
/// engine protocol's `go` without limits, `gore match` without
/// `--movetime`, `gore play` and the server all use it.
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(1000);

impl Level {
    /// The level's thinking time per decision when nothing else is said
    /// ([`DEFAULT_MOVETIME`], one second: a person's opponent answers
    /// without a noticeable wait, and the top level searches some 15 plies).
    /// Only the top level spends it; the others stop at their depth.
    pub fn default_movetime(self) -> Duration {
        DEFAULT_MOVETIME
    }

    /// The limits of one decision when the caller gives none:
    /// [`Level::limits`] of [`Level::default_movetime`]. The lower levels
    /// are off the clock, so that a seed replays the same game.
    pub fn default_limits(self) -> Limits {
        self.limits(self.default_movetime())
    }
}

impl Default for Level {
    /// Full strength.
    fn default() -> Level {
        Level::MAX
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Level {
    type Err = LevelError;

    /// A level in decimal digits, `1` to `8`.
    fn from_str(s: &str) -> Result<Level, LevelError> {
        let err = || LevelError {
            text: s.to_string(),
        };
        if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let n: u8 = s.parse().map_err(|_| err())?;
        Level::new(n).map_err(|_| err())
    }
}

impl TryFrom<u8> for Level {
    type Error = LevelError;

    fn try_from(n: u8) -> Result<Level, LevelError> {
        Level::new(n)
    }
}

impl From<Level> for u8 {
    fn from(level: Level) -> u8 {
        level.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(250);

    #[test]
    fn levels_below_the_top_are_depth_limited_as_the_ladder_says() {
        // docs/STRENGTH.md: levels 1-3 play by sight (one action ahead),
        // levels 4-11 search 1, 2, 3, 4, 7, 9, 11 and 13 plies.
        let ladder = [1, 1, 1, 1, 2, 3, 4, 7, 9, 11, 13];
        for (n, depth) in (1..=11).zip(ladder) {
            let level = Level::new(n).unwrap();
            assert!(!level.is_max());
            assert_eq!(level.profile().depth, Some(depth), "level {n}");
            // Not on the clock: a seed replays the same game.
            assert_eq!(level.limits(MS), Limits::depth(depth), "level {n}");
            assert_eq!(
                level.limits_within(MS, 5 * MS),
                Limits {
                    depth: Some(depth),
                    nodes: None,
                    time: Some(5 * MS),
                    min_depth: None,
                },
                "level {n}"
            );
        }
    }

    #[test]
    fn the_top_level_thinks_for_the_time_given() {
        assert!(Level::MAX.is_max());
        assert_eq!(Level::MAX.get(), 12);
        assert_eq!(Level::MAX.profile().depth, None);
        assert_eq!(Level::MAX.limits(MS), Limits::time(MS));
        // The safety net is for the lower levels only.
        assert_eq!(Level::MAX.limits_within(MS, 5 * MS), Limits::time(MS));
        let given = Limits {
            depth: Some(20),
            nodes: Some(7),
            time: None,
            min_depth: None,
        };
        // Level 11 searches 13 plies (the ladder above): the top level's
        // floor, added to the caller's limits unless they set their own.
        assert_eq!(TOP_FLOOR, 13);
        let capped = Level::MAX.cap(given);
        assert_eq!(
            capped,
            Limits {
                min_depth: Some(13),
                ..given
            }
        );
        let own = Limits {
            min_depth: Some(2),
            ..given
        };
        assert_eq!(Level::MAX.cap(own), own);
        // The levels below have no floor.
        for level in Level::all().filter(|l| !l.is_max()) {
            assert_eq!(level.cap(given).min_depth, None, "level {level}");
        }
    }

    #[test]
    fn only_the_levels_that_play_by_sight_are_noisy() {
        for level in Level::all() {
            let p = level.profile();
            let noisy = p.noise > 0 || p.blunder > 0.0;
            assert_eq!(p.vision.is_some(), level.get() <= 3, "level {level}");
            assert_eq!(noisy, level.get() <= 3, "level {level}");
            assert!((0.0..1.0).contains(&p.blunder));
            assert!(!p.name.is_empty() && !p.describe.is_empty());
        }
        // Up the ladder a level sees more or errs less: by sight, less
        // noise; searching, a deeper search, or as deep with less noise.
        let all: Vec<LevelProfile> = Level::all().map(Level::profile).collect();
        for w in all.windows(2) {
            let (a, b) = (w[0], w[1]);
            let better = match (a.vision, b.vision) {
                (Some(_), Some(_)) => a.noise >= b.noise,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => match (a.depth, b.depth) {
                    (Some(x), Some(y)) => x < y || (x == y && a.noise > b.noise),
                    (Some(_), None) => true,
                    _ => false,
                },
            };
            assert!(better, "{} then {}", a.name, b.name);
        }
    }

    #[test]
    fn the_cap_takes_the_smaller_depth() {
        let three = Level::new(6).unwrap(); // three plies
        assert_eq!(three.cap(Limits::default()), Limits::depth(3));
        assert_eq!(three.cap(Limits::depth(2)), Limits::depth(2));
        assert_eq!(three.cap(Limits::depth(9)), Limits::depth(3));
        let t = three.cap(Limits::time(MS));
        assert_eq!((t.depth, t.time), (Some(3), Some(MS)));
    }

    #[test]
    fn out_of_range_is_refused_naming_the_range() {
        for n in [0u8, 13, 255] {
            let e = Level::new(n).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("`{n}` is not a level: levels go from 1 to 12")
            );
            assert!(Level::try_from(n).is_err());
        }
        for s in [
            "",
            "0",
            "13",
            "08x",
            "-1",
            "+3",
            " 3",
            "3 ",
            "1000",
            "99999999999",
            "é",
        ] {
            let e = s.parse::<Level>().unwrap_err();
            assert!(
                e.to_string().contains("levels go from 1 to 12"),
                "{s:?}: {e}"
            );
            assert_eq!(e.text, s);
        }
    }

    #[test]
    fn text_round_trips() {
        let all: Vec<Level> = Level::all().collect();
        assert_eq!(all.len(), 12);
        for (i, level) in all.into_iter().enumerate() {
            let n = i as u8 + 1;
            assert_eq!(level.get(), n);
            assert_eq!(u8::from(level), n);
            assert_eq!(level.to_string(), n.to_string());
            assert_eq!(level.to_string().parse::<Level>(), Ok(level));
        }
        assert_eq!("05".parse::<Level>().map(Level::get), Ok(5));
        assert_eq!(Level::default(), Level::MAX);
        assert!(Level::MIN < Level::MAX);
    }
}
