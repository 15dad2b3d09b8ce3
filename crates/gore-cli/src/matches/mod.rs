//! `gore match`: engine-against-engine matches.
//!
//! Games are played in pairs: each opening (`--openings` random sowings
//! from the start, drawn from `--seed`) is played twice, engine1 as A in
//! the even games (0, 2, …) and as B in the odd ones. Each engine gets a
//! seed per game, derived from `--seed`, the game's index and the engine's
//! slot, so that lower levels err differently from game to game and a match
//! is repeated exactly by the same command (unless an engine plays on the
//! clock).
//!
//! `--concurrency` threads take games by index; results are counted in
//! index order, so the statistics, the SPRT's stopping point and the
//! output do not depend on which thread finished first.
//!
//! Output: see [`report`] and docs/STRENGTH.md.

mod external;
mod players;
mod spec;
mod stats;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use gore_core::{Action, EndReason, Game, Player as Side, Record, Rules};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::commands::parse_rules;
use players::{EngineSpec, Fault, Kind, Player, Setup};
use stats::{Sprt, Tally, Verdict};

/// The ply cap applied when the rules give none. Two engines that both
/// avoid losing can shuffle seeds (and trade holes back and forth) for a
/// very long time without repeating a position exactly, since the captured
/// totals and controllers change too; the cap bounds every game, and so
/// the match's time. Real games end by the board long before 300 actions.
pub const DEFAULT_PLY_CAP: u32 = 300;

#[derive(Args)]
pub struct MatchArgs {
    /// The first engine (results are given from its side): `random`,
    /// `greedy`, `ai:LEVEL[:depth=N][:nodes=N][:movetime=MS][:honourable][:hash=MB][:glory=N][:oracle]`,
    /// `ai:perfect[:OPTIONS]`,
    /// or `cmd:[OPTIONS:]COMMAND` for an external engine speaking the engine
    /// protocol.
    // Specs are checked by `run`, so that a bad one exits with status 1
    // and a one-line message like every other error of the tool. The help
    // text is given apart so that `--help` shows the forms without the
    // backquotes the doc comment needs.
    #[arg(
        long,
        value_name = "SPEC",
        help = "The first engine (results are given from its side): random, greedy, \
                ai:LEVEL[:depth=N][:nodes=N][:movetime=MS][:honourable][:hash=MB][:glory=N][:oracle], \
                ai:perfect[:OPTIONS] (no-trade rules, with --solver-db), \
                or cmd:[OPTIONS:]COMMAND for an external engine speaking the engine protocol"
    )]
    engine1: String,
    /// The second engine, written like --engine1.
    #[arg(long, value_name = "SPEC")]
    engine2: String,
    /// Number of games (each opening is played twice, colours swapped).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
    /// Rule set: `standard` or options such as `skip-origin,no-trades`.
    #[arg(long, default_value = "standard", value_parser = parse_rules)]
    rules: Rules,
    /// Random sowings played from the start before the engines take over.
    #[arg(long, default_value_t = 2)]
    openings: u32,
    /// Seed of the openings and of every engine's per-game seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games played at once, on as many threads (default: available cores).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    concurrency: Option<u64>,
    /// End every game after N actions (0: no cap). Default: the rules'
    /// own ply cap, else 300 (see docs/STRENGTH.md).
    #[arg(long, value_name = "N")]
    ply_cap: Option<u32>,
    /// Stop early by a sequential probability ratio test of engine1's Elo
    /// advantage: H0 elo0 against H1 elo1 (alpha, beta default 0.05).
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<String>,
    /// Write every game's record to DIR/game-0001.gore, …
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
    /// Milliseconds per decision for engines whose spec gives no limit
    /// (ai:8 and cmd: engines; the lower levels stop at their depth).
    /// Default: the level's one default, 1000 ms (as `gore engine`).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Play on real clocks: BASE seconds per engine and game, plus INC
    /// seconds per action (e.g. 10+0.1). An engine whose time runs out
    /// loses the game ("flag").
    #[arg(long, value_name = "BASE+INC", value_parser = parse_tc)]
    tc: Option<TimeControl>,
    /// How long an external engine may take beyond its movetime to answer
    /// (a late engine loses the game), in milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    timeout: u64,
    /// Show progress on stderr even when it is not a terminal (as lines).
    #[arg(long)]
    progress: bool,
    /// The solver's database (built by `gore solve --db DIR`) for an
    /// engine `ai:perfect`: no-trade rules only, the same `skip-origin`.
    #[arg(long, value_name = "DIR")]
    solver_db: Option<PathBuf>,
}

/// Why a game ended, for the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Over(EndReason),
    /// The engine in this slot (0 = engine1) lost by a fault.
    Forfeit(usize),
    /// The engine in this slot ran out of time (`--tc`).
    Flag(usize),
}

/// `--tc BASE+INC`: each engine's time for a game and its increment per
/// action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// The time each engine starts a game with.
    pub base: Duration,
    /// Added to an engine's clock after each of its actions.
    pub increment: Duration,
}

/// Reads `BASE+INC` in seconds (decimals allowed, `+INC` optional).
fn parse_tc(s: &str) -> Result<TimeControl, String> {
    let secs = |what: &str, t: &str| -> Result<Duration, String> {
        let ok = !t.is_empty()
            && t.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && t.bytes().filter(|&b| b == b'.').count() <= 1;
        t.parse::<f64>()
            .ok()
            .filter(|v| ok && v.is_finite() && *v <= 1e9)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| format!("{what} `{t}` is not a number of seconds (as in 10+0.1)"))
    };
    let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
    let tc = TimeControl {
        base: secs("BASE", base)?,
        increment: secs("INC", inc)?,
    };
    if tc.base.is_zero() {
        return Err("BASE must be more than 0 seconds (as in 10+0.1)".into());
    }
    Ok(tc)
}

/// The players' clocks during a game under `--tc`, by slot (0 = engine1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Clocks {
    remaining: [Duration; 2],
    increment: Duration,
}

impl Clocks {
    fn new(tc: TimeControl) -> Clocks {
        Clocks {
            remaining: [tc.base; 2],
            increment: tc.increment,
        }
    }

    /// The clocks as `go` gives them, A's and B's, in whole milliseconds.
    fn go(&self, slot_a: usize) -> crate::protocol::GoClock {
        let ms = |d: Duration| d.as_millis().min(u64::MAX as u128) as u64;
        crate::protocol::GoClock {
            atime: Some(ms(self.remaining[slot_a])),
            btime: Some(ms(self.remaining[1 - slot_a])),
            ainc: Some(ms(self.increment)),
            binc: Some(ms(self.increment)),
        }
    }

    /// Charges `slot` for a decision that took `spent`: `false` when it
    /// took more than the time left (the flag falls), else the time is
    /// taken and the increment added.
    fn charge(&mut self, slot: usize, spent: Duration) -> bool {
        let left = &mut self.remaining[slot];
        if spent > *left {
            *left = Duration::ZERO;
            return false;
        }
        *left = *left - spent + self.increment;
        true
    }
}

/// The match's clock: the time since some fixed instant. Real matches read
/// the machine's clock; tests inject one.
pub type Now = dyn Fn() -> Duration + Send + Sync;

/// One finished game, as a worker reports it.
#[derive(Debug)]
struct GameResult {
    index: usize,
    /// Engine1's result: Greater a win, Equal a draw, Less a loss.
    result: std::cmp::Ordering,
    end: End,
    plies: usize,
    /// Offers made, accepted and declined in the game.
    trades: Trades,
    /// Each engine's wins "without glory" (won after declining an offer).
    without_glory: [u64; 2],
    forfeit_note: Option<String>,
    save_error: Option<String>,
}

/// What every worker shares.
struct Match {
    specs: [EngineSpec; 2],
    rules: Rules,
    seed: u64,
    openings: Vec<Vec<Action>>,
    opening_plies: u32,
    setup: Setup,
    save: Option<PathBuf>,
    event: String,
    date: String,
    width: usize,
    /// `--tc`: play on clocks.
    tc: Option<TimeControl>,
    /// Read around each decision under `--tc`.
    now: Box<Now>,
}

/// SplitMix64's finaliser: a well-mixed 64-bit function of a 64-bit input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of the engine in `slot` (0 = engine1) for game `index`.
pub fn game_seed(seed: u64, index: usize, slot: usize) -> u64 {
    mix(mix(seed) ^ mix((index as u64) << 1 | slot as u64))
}

/// `pairs` openings of `plies` random sowings from the start (any legal
/// action when no sowing is possible), none ending the game, distinct as
/// long as fresh ones can be found.
fn make_openings(rules: Rules, plies: u32, pairs: usize, seed: u64) -> Result<Vec<Vec<Action>>> {
    if let Some(cap) = rules.ply_cap {
        if plies >= cap {
            bail!("--openings: {plies} plies would reach the ply cap of {cap}");
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(mix(seed ^ 0x6f70_656e_696e_6773));
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        let mut chosen = None;
        for attempt in 0..1000 {
            let Some(line) = random_opening(rules, plies, &mut rng) else {
                continue;
            };
            if seen.insert(line.clone()) || attempt >= 20 {
                chosen = Some(line);
                break;
            }
        }
        let line = chosen.ok_or_else(|| {
            anyhow!("--openings: no line of {plies} random plies keeps the game going")
        })?;
        out.push(line);
    }
    Ok(out)
}

fn random_opening(rules: Rules, plies: u32, rng: &mut ChaCha8Rng) -> Option<Vec<Action>> {
    let mut game = Game::new(rules);
    for _ in 0..plies {
        let legal = game.legal_actions();
        let sows: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|a| matches!(a, Action::Sow(_)))
            .collect();
        let pool: Vec<Action> = if sows.is_empty() {
            legal.iter().copied().collect()
        } else {
            sows
        };
        if pool.is_empty() {
            return None;
        }
        let a = pool[rng.gen_range(0..pool.len())];
        game.play(a).ok()?;
        if game.is_over() {
            return None;
        }
    }
    Some(game.actions().to_vec())
}

/// Today's date, `YYYY-MM-DD` (UTC), for the records.
fn today() -> String {
    let ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    gore_core::iso_date(ms)
}

impl Match {
    /// Plays game `index` with the worker's two players (slot 0 = engine1);
    /// `None` when the match stops before it ends.
    fn play(
        &self,
        players: &mut [Player; 2],
        index: usize,
        stop: &AtomicBool,
    ) -> Option<GameResult> {
        let swap = index % 2 == 1;
        // The slot of the engine playing A.
        let slot_a = usize::from(swap);
        let slot_of = |side: Side| if side == Side::A { slot_a } else { 1 - slot_a };
        let mut game = Game::new(self.rules);
        for &a in &self.openings[index / 2] {
            game.play(a).expect("openings are legal");
        }
        let mut forfeit: Option<(usize, String)> = None;
        let mut clocks = self.tc.map(Clocks::new);
        let mut flag = None;
        for (slot, p) in players.iter_mut().enumerate() {
            match p.new_game(game_seed(self.seed, index, slot), self.rules, stop) {
                Ok(()) => {}
                Err(Fault::Aborted) => return None,
                Err(Fault::Forfeit(m)) => {
                    forfeit = Some((slot, m));
                    break;
                }
            }
        }
        while forfeit.is_none() && !game.is_over() {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let slot = slot_of(game.position().to_move());
            let started = (self.now)();
            let chosen = players[slot].choose(&game, stop, clocks.map(|c| c.go(slot_a)));
            if let Some(c) = clocks.as_mut() {
                let spent = (self.now)().saturating_sub(started);
                let left = c.remaining[slot];
                if !matches!(chosen, Err(Fault::Aborted)) && !c.charge(slot, spent) {
                    flag = Some(slot);
                    forfeit = Some((
                        slot,
                        format!(
                            "{} ms for a decision with {} ms left",
                            spent.as_millis(),
                            left.as_millis()
                        ),
                    ));
                    break;
                }
            }
            match chosen {
                Ok(a) => {
                    if let Err(e) = game.play(a) {
                        forfeit = Some((slot, format!("played the illegal action {a}: {e}")));
                    }
                }
                Err(Fault::Aborted) => return None,
                Err(Fault::Forfeit(m)) => forfeit = Some((slot, m)),
            }
        }
        if stop.load(Ordering::Relaxed) && forfeit.is_some() {
            // A fault while the match stops may be the stop's doing.
            return None;
        }
        let (result, end) = match (&forfeit, game.outcome()) {
            (Some((slot, _)), _) => {
                let r = if *slot == 0 {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                };
                let end = if flag == Some(*slot) {
                    End::Flag(*slot)
                } else {
                    End::Forfeit(*slot)
                };
                (r, end)
            }
            (None, Some(o)) => {
                // Half the game's seeds is a draw: 24 of 48, 12 under seeds=3.
                let mine = 2 * o.seeds[slot_a] as u16;
                let all = o.seeds[0] as u16 + o.seeds[1] as u16;
                (mine.cmp(&all), End::Over(o.reason))
            }
            (None, None) => unreachable!("the loop ends with an outcome or a forfeit"),
        };
        let forfeit_note = forfeit.as_ref().map(|(slot, m)| {
            format!(
                "game {}: engine{} `{}` {}: {m}",
                index + 1,
                slot + 1,
                self.specs[*slot],
                if flag == Some(*slot) {
                    "loses on time (flag)"
                } else {
                    "forfeits"
                }
            )
        });
        let save_error = self
            .save(&game, index, slot_a, forfeit_note.as_deref())
            .err()
            .map(|e| format!("{e:#}"));
        let mut trades = Trades::default();
        for a in game.actions() {
            match a {
                Action::Offer(_) => trades.offers += 1,
                Action::Accept => trades.accepted += 1,
                Action::Decline => trades.declined += 1,
                _ => {}
            }
        }
        let mut without_glory = [0; 2];
        if let (None, Some(o)) = (&forfeit, game.outcome()) {
            if let Some(w) = o.winner() {
                if o.declined[w.index()] {
                    without_glory[slot_of(w)] += 1;
                }
            }
        }
        Some(GameResult {
            index,
            result,
            end,
            plies: game.actions().len(),
            trades,
            without_glory,
            forfeit_note,
            save_error,
        })
    }

    /// Writes the record of game `index`, if asked to.
    fn save(&self, game: &Game, index: usize, slot_a: usize, forfeit: Option<&str>) -> Result<()> {
        let Some(dir) = &self.save else {
            return Ok(());
        };
        let mut rec = Record::from_game(game);
        rec.event = Some(self.event.clone());
        rec.players = [
            Some(self.specs[slot_a].text.clone()),
            Some(self.specs[1 - slot_a].text.clone()),
        ];
        rec.date = Some(self.date.clone());
        rec.extra.push(("Round".into(), (index + 1).to_string()));
        rec.extra
            .push(("Opening".into(), self.opening_plies.to_string()));
        if let Some(f) = forfeit {
            rec.extra.push(("Forfeit".into(), f.to_string()));
        }
        let path = dir.join(format!("game-{:0w$}.gore", index + 1, w = self.width));
        std::fs::write(&path, rec.to_string())
            .with_context(|| format!("--save: cannot write {}", path.display()))
    }
}

/// Trade actions counted over games.
#[derive(Debug, Default, Clone, Copy)]
struct Trades {
    offers: u64,
    accepted: u64,
    declined: u64,
}

/// Counts in index order.
#[derive(Default)]
struct Totals {
    trades: Trades,
    without_glory: [u64; 2],
    all: Tally,
    /// Engine1's results as A and as B.
    by_side: [Tally; 2],
    board: u64,
    repetition: u64,
    ply_cap: u64,
    forfeits: [u64; 2],
    flags: [u64; 2],
    plies: u64,
}

impl Totals {
    fn add(&mut self, r: &GameResult) {
        self.all.add(r.result);
        self.by_side[r.index % 2].add(r.result);
        match r.end {
            // A player left without a hole is an end on the board too.
            End::Over(EndReason::Board | EndReason::NoHole) => self.board += 1,
            End::Over(EndReason::Repetition) => self.repetition += 1,
            End::Over(EndReason::PlyCap) => self.ply_cap += 1,
            End::Forfeit(slot) => self.forfeits[slot] += 1,
            End::Flag(slot) => self.flags[slot] += 1,
        }
        self.plies += r.plies as u64;
        self.trades.offers += r.trades.offers;
        self.trades.accepted += r.trades.accepted;
        self.trades.declined += r.trades.declined;
        for (t, g) in self.without_glory.iter_mut().zip(r.without_glory) {
            *t += g;
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn tally_line(t: &Tally) -> String {
    format!("wins {}  draws {}  losses {}", t.wins, t.draws, t.losses)
}

/// The match's report on stdout: one `key value…` line each.
///
/// ```text
/// engine1 ai:8:depth=4
/// engine2 random
/// rules ply-cap=300
/// games 20  wins 20  draws 0  losses 0
/// score 100.0%
/// elo +inf ± inf (95%)
/// as-a wins 10  draws 0  losses 0
/// as-b wins 10  draws 0  losses 0
/// ended board 20  repetition 0  ply-cap 0  forfeit 0  flag 0
/// forfeits engine1 0  engine2 0
/// plies 61.4
/// offers 0.0  accepted 0.0  declined 0.0 per game
/// without-glory engine1 0  engine2 0
/// sprt llr 2.95  lower -2.94  upper 2.94  elo0 0  elo1 10  alpha 0.05  beta 0.05  result H1
/// ```
fn report(m: &Match, t: &Totals, sprt: Option<(&Sprt, f64)>) -> String {
    let mut out = String::new();
    let games = t.all.games();
    let _ = writeln!(out, "engine1 {}", m.specs[0]);
    let _ = writeln!(out, "engine2 {}", m.specs[1]);
    let _ = writeln!(out, "rules {}", m.rules);
    let _ = writeln!(out, "games {games}  {}", tally_line(&t.all));
    let _ = writeln!(out, "score {}", pct(t.all.score()));
    let _ = writeln!(
        out,
        "elo {:+.1} ± {:.1} (95%)",
        t.all.elo(),
        t.all.elo_margin()
    );
    let _ = writeln!(out, "as-a {}", tally_line(&t.by_side[0]));
    let _ = writeln!(out, "as-b {}", tally_line(&t.by_side[1]));
    let _ = writeln!(
        out,
        "ended board {}  repetition {}  ply-cap {}  forfeit {}  flag {}",
        t.board,
        t.repetition,
        t.ply_cap,
        t.forfeits[0] + t.forfeits[1],
        t.flags[0] + t.flags[1]
    );
    let _ = writeln!(
        out,
        "forfeits engine1 {}  engine2 {}",
        t.forfeits[0], t.forfeits[1]
    );
    if let Some(tc) = m.tc {
        let _ = writeln!(
            out,
            "tc {}+{}  flags engine1 {}  engine2 {}",
            tc.base.as_secs_f64(),
            tc.increment.as_secs_f64(),
            t.flags[0],
            t.flags[1]
        );
    }
    let _ = writeln!(
        out,
        "plies {:.1}",
        if games > 0 {
            t.plies as f64 / games as f64
        } else {
            0.0
        }
    );
    let per_game = |x: u64| {
        if games > 0 {
            x as f64 / games as f64
        } else {
            0.0
        }
    };
    let _ = writeln!(
        out,
        "offers {:.1}  accepted {:.1}  declined {:.1} per game",
        per_game(t.trades.offers),
        per_game(t.trades.accepted),
        per_game(t.trades.declined)
    );
    let _ = writeln!(
        out,
        "without-glory engine1 {}  engine2 {}",
        t.without_glory[0], t.without_glory[1]
    );
    if let Some((s, llr)) = sprt {
        let _ = writeln!(
            out,
            "sprt llr {llr:.2}  lower {:.2}  upper {:.2}  elo0 {}  elo1 {}  alpha {}  beta {}  result {}",
            s.lower(),
            s.upper(),
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta,
            s.verdict(llr).as_str()
        );
    }
    out
}

/// Progress on stderr: a bar on a terminal, else plain lines (with
/// `--progress`), else nothing.
enum Progress {
    Bar(ProgressBar),
    Lines { every: u64, total: u64 },
    Off,
}

impl Progress {
    fn new(total: u64, forced: bool) -> Progress {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games  {msg}  {elapsed_precise} eta {eta}",
                )
                .expect("valid template"),
            );
            Progress::Bar(bar)
        } else if forced {
            Progress::Lines {
                every: (total / 20).max(1),
                total,
            }
        } else {
            Progress::Off
        }
    }

    fn update(&self, done: u64, t: &Tally) {
        let msg = format!(
            "+{} ={} -{}  score {}",
            t.wins,
            t.draws,
            t.losses,
            pct(t.score())
        );
        match self {
            Progress::Bar(b) => {
                b.set_message(msg);
                b.set_position(done);
            }
            Progress::Lines { every, total } => {
                if done.is_multiple_of(*every) || done == *total {
                    eprintln!("progress {done}/{total} games  {msg}");
                }
            }
            Progress::Off => {}
        }
    }

    fn finish(&self) {
        if let Progress::Bar(b) = self {
            b.finish_and_clear();
        }
    }

    fn println(&self, line: &str) {
        match self {
            Progress::Bar(b) => b.println(line),
            _ => eprintln!("{line}"),
        }
    }
}

/// The perfect player over the database in `dir` for games of `rules`:
/// refused without a database, with trades allowed, or on an empty one.
pub fn open_perfect(
    dir: Option<&std::path::Path>,
    rules: Rules,
) -> Result<gore_solver::perfect::Perfect> {
    let v = rules.variant;
    if !v.no_trades {
        bail!(
            "ai:perfect plays only games without trades (--rules no-trades or \
             no-trades,skip-origin): with trades the database's values are not the game's"
        );
    }
    let Some(dir) = dir else {
        bail!("ai:perfect needs the solver's database: --solver-db DIR (built by gore solve --db DIR)");
    };
    let db = gore_solver::disk::Database::open(dir, v.skip_origin)
        .with_context(|| format!("--solver-db {}", dir.display()))?;
    let Some(max_n) = db.max_layer() else {
        bail!(
            "--solver-db {}: no layer of the rules {} (run gore solve --db {})",
            dir.display(),
            if v.skip_origin {
                "no-trades,skip-origin"
            } else {
                "no-trades"
            },
            dir.display()
        );
    };
    Ok(gore_solver::perfect::Perfect::new(
        std::sync::Arc::new(db),
        max_n,
        v.skip_origin,
    ))
}

pub fn run(args: MatchArgs) -> Result<()> {
    let spec = |flag: &str, s: &str| -> Result<EngineSpec> {
        s.parse().map_err(|e: String| anyhow!("{flag}: {e}"))
    };
    let specs = [
        spec("--engine1", &args.engine1)?,
        spec("--engine2", &args.engine2)?,
    ];
    let sprt = match &args.sprt {
        None => None,
        Some(s) => Some(Sprt::parse(s).map_err(|e| anyhow!("--sprt: {e}"))?),
    };
    let mut rules = args.rules;
    match args.ply_cap {
        Some(0) => rules.ply_cap = None,
        Some(n) => rules.ply_cap = Some(n),
        None if rules.ply_cap.is_none() => rules.ply_cap = Some(DEFAULT_PLY_CAP),
        None => {}
    }
    let games = args.games as usize;
    let pairs = games.div_ceil(2);
    let openings = make_openings(rules, args.openings, pairs, args.seed)?;
    let perfect = if specs.iter().any(|s| s.kind == Kind::Perfect) {
        Some(std::sync::Arc::new(open_perfect(
            args.solver_db.as_deref(),
            rules,
        )?))
    } else {
        None
    };
    let oracle: Option<std::sync::Arc<dyn gore_ai::Oracle>> = if specs.iter().any(|s| s.oracle) {
        let Some(dir) = args.solver_db.as_deref() else {
            bail!("the option `oracle` needs the solver's database: --solver-db DIR");
        };
        Some(std::sync::Arc::new(gore_server::oracle::DbOracle::open(
            dir,
            rules.variant.skip_origin,
        )?))
    } else {
        None
    };
    let setup = Setup {
        default_movetime: args.movetime.map(|ms| ms.max(1)),
        timeout: Duration::from_millis(args.timeout),
        perfect,
        oracle,
    };
    // An external engine that cannot start is an error, not 100 forfeits.
    let stop = AtomicBool::new(false);
    for (i, spec) in specs.iter().enumerate() {
        if let Kind::Cmd(command) = &spec.kind {
            let mut probe = external::External::new(
                spec.clone(),
                command.clone(),
                gore_ai::Limits::default(),
                setup.timeout,
            );
            if let Err(Fault::Forfeit(m)) = probe.start(&stop) {
                bail!("--engine{} `{spec}`: {m}", i + 1);
            }
        }
    }
    if let Some(dir) = &args.save {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--save: cannot create {}", dir.display()))?;
    }
    let concurrency = args
        .concurrency
        .map(|c| c as usize)
        .unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, games);
    let m = Match {
        event: format!("gore match: {} vs {}", specs[0], specs[1]),
        specs,
        rules,
        seed: args.seed,
        openings,
        opening_plies: args.openings,
        setup,
        save: args.save,
        date: today(),
        width: games.to_string().len().max(4),
        tc: args.tc,
        now: {
            let t0 = Instant::now();
            Box::new(move || t0.elapsed())
        },
    };
    let progress = Progress::new(args.games, args.progress);
    let clock = Instant::now();
    let next_game = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<GameResult>();
    let mut totals = Totals::default();
    let mut llr = None;
    let mut failure = None;
    thread::scope(|scope| {
        for _ in 0..concurrency {
            let tx = tx.clone();
            let (m, stop, next_game) = (&m, &stop, &next_game);
            scope.spawn(move || {
                let mut players = [
                    Player::new(&m.specs[0], &m.setup),
                    Player::new(&m.specs[1], &m.setup),
                ];
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    match m.play(&mut players, index, stop) {
                        Some(r) => {
                            if tx.send(r).is_err() {
                                break;
                            }
                        }
                        None => break,
                    }
                }
            });
        }
        drop(tx);
        let mut pending: Vec<Option<GameResult>> = (0..games).map(|_| None).collect();
        let mut counted = 0;
        let mut done = 0;
        'receive: for r in rx.iter() {
            done += 1;
            if let Some(note) = &r.forfeit_note {
                progress.println(&format!("gore: {note}"));
            }
            if let Some(e) = &r.save_error {
                failure = Some(e.clone());
                stop.store(true, Ordering::Relaxed);
                break;
            }
            let index = r.index;
            pending[index] = Some(r);
            while counted < games {
                let Some(r) = pending[counted].take() else {
                    break;
                };
                totals.add(&r);
                counted += 1;
                // The test looks at whole pairs, so both colours weigh alike.
                if let Some(s) = &sprt {
                    if counted % 2 == 0 || counted == games {
                        let l = s.llr(&totals.all);
                        llr = Some(l);
                        if s.verdict(l) != Verdict::Continue {
                            stop.store(true, Ordering::Relaxed);
                            break 'receive;
                        }
                    }
                }
            }
            progress.update(done, &totals.all);
        }
        // Let the workers see the end quickly if the loop broke early.
        stop.store(true, Ordering::Relaxed);
    });
    progress.finish();
    if let Some(e) = failure {
        bail!("{e}");
    }
    let sprt = sprt.as_ref().map(|s| (s, llr.unwrap_or(0.0)));
    let mut out = std::io::stdout().lock();
    out.write_all(report(&m, &totals, sprt).as_bytes())?;
    out.flush()?;
    let secs = clock.elapsed().as_secs_f64();
    let timed: Vec<String> = m
        .specs
        .iter()
        .filter(|s| {
            let clocked = m.tc.is_some() && !matches!(s.kind, Kind::Random | Kind::Greedy);
            clocked || s.is_timed(m.setup.default_movetime)
        })
        .map(|s| s.text.clone())
        .collect();
    eprintln!(
        "time {secs:.1} s ({:.2} s/game, concurrency {concurrency}){}",
        secs / totals.all.games().max(1) as f64,
        if timed.is_empty() {
            String::new()
        } else {
            format!(
                "; on the clock, not exactly repeatable: {}",
                timed.join(", ")
            )
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    /// A match of two random movers, with a clock that advances by
    /// `step` at each reading: each decision takes exactly `step`.
    fn clocked(tc: &str, step: Duration) -> Match {
        let reads = Arc::new(AtomicU64::new(0));
        let specs = ["random".parse().unwrap(), "random".parse().unwrap()];
        Match {
            specs,
            rules: "ply-cap=300".parse().unwrap(),
            seed: 3,
            openings: make_openings(Rules::STANDARD, 2, 2, 3).unwrap(),
            opening_plies: 2,
            setup: Setup {
                default_movetime: None,
                timeout: Duration::from_secs(1),
                perfect: None,
                oracle: None,
            },
            save: None,
            event: "test".into(),
            date: "2026-01-01".into(),
            width: 4,
            tc: Some(parse_tc(tc).unwrap()),
            now: Box::new(move || step * reads.fetch_add(1, Ordering::SeqCst) as u32),
        }
    }

    fn play_game(m: &Match, index: usize) -> GameResult {
        let mut players = [
            Player::new(&m.specs[0], &m.setup),
            Player::new(&m.specs[1], &m.setup),
        ];
        m.play(&mut players, index, &AtomicBool::new(false))
            .expect("not stopped")
    }

    /// The side to move after game `index`'s opening, as a slot.
    fn first_slot(m: &Match, index: usize) -> usize {
        let mut g = Game::new(m.rules);
        for &a in &m.openings[index / 2] {
            g.play(a).unwrap();
        }
        let slot_a = index % 2;
        if g.position().to_move() == Side::A {
            slot_a
        } else {
            1 - slot_a
        }
    }

    #[test]
    fn time_control_is_read_in_seconds() {
        let ms = Duration::from_millis;
        assert_eq!(
            parse_tc("10+0.1"),
            Ok(TimeControl {
                base: ms(10_000),
                increment: ms(100)
            })
        );
        assert_eq!(parse_tc("2.5").map(|t| t.increment), Ok(Duration::ZERO));
        for bad in ["", "+1", "0+1", "x+1", "1+-1", "1+1+1", "1e3", "-2", "1..2"] {
            assert!(parse_tc(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clocks_charge_and_flag() {
        let ms = Duration::from_millis;
        let mut c = Clocks::new(parse_tc("1+0.5").unwrap());
        // 1000 - 600 + 500 = 900.
        assert!(c.charge(0, ms(600)));
        assert_eq!(c.remaining, [ms(900), ms(1000)]);
        // All that is left is allowed, and the increment follows.
        assert!(c.charge(1, ms(1000)));
        assert_eq!(c.remaining[1], ms(500));
        // A millisecond more than is left: the flag.
        assert!(!c.charge(0, ms(901)));
        // The protocol's view, A first: slot 1 plays A here.
        let go = c.go(1);
        assert_eq!(
            (go.atime, go.btime, go.ainc),
            (Some(500), Some(0), Some(500))
        );
    }

    #[test]
    fn a_decision_longer_than_the_clock_loses_on_time() {
        // 1.5 s for every decision with 1 s on the clock: the first engine
        // to decide after the opening flags at once.
        for index in 0..2 {
            let m = clocked("1+0", Duration::from_millis(1500));
            let r = play_game(&m, index);
            let slot = first_slot(&m, index);
            assert_eq!(r.end, End::Flag(slot), "game {index}");
            assert_eq!(r.plies, 2, "no action after the opening");
            let lost = if slot == 0 {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            };
            assert_eq!(r.result, lost);
            let note = r.forfeit_note.unwrap();
            assert!(
                note.contains("loses on time (flag): 1500 ms for a decision with 1000 ms left"),
                "{note}"
            );
        }
    }

    #[test]
    fn the_increment_keeps_a_side_on_the_clock() {
        // 0.4 s a decision and 0.5 s back: the clocks grow, no flag.
        let m = clocked("1+0.5", Duration::from_millis(400));
        let r = play_game(&m, 0);
        assert!(matches!(r.end, End::Over(_)), "{:?}", r.end);
        // 0.6 s a decision and 0.5 s back: each decision costs 0.1 s, so
        // a side's sixth decision finds 0.5 s left and flags; the other
        // side has made at most as many decisions... when the game lasts.
        let m = clocked("1+0.5", Duration::from_millis(600));
        let r = play_game(&m, 0);
        match r.end {
            End::Flag(_) => {
                assert!(r.plies >= 2 + 5, "{} plies", r.plies);
                let note = r.forfeit_note.unwrap();
                assert!(
                    note.contains("600 ms for a decision with 500 ms left"),
                    "{note}"
                );
            }
            End::Over(_) => assert!(r.plies < 2 + 11, "a long game flags"),
            End::Forfeit(_) => panic!("{:?}", r.forfeit_note),
        }
    }

    #[test]
    fn seeds_differ_by_game_and_slot() {
        let mut all = HashSet::new();
        for g in 0..100 {
            for s in 0..2 {
                assert!(all.insert(game_seed(7, g, s)));
            }
        }
        assert_eq!(game_seed(7, 3, 1), game_seed(7, 3, 1));
        assert_ne!(game_seed(7, 3, 1), game_seed(8, 3, 1));
    }

    #[test]
    fn openings_are_deterministic_distinct_and_legal() {
        let a = make_openings(Rules::STANDARD, 2, 16, 5).unwrap();
        let b = make_openings(Rules::STANDARD, 2, 16, 5).unwrap();
        assert_eq!(a, b);
        // 16 two-ply openings exist: all of them, once each.
        let set: HashSet<_> = a.iter().cloned().collect();
        assert_eq!(set.len(), 16);
        // More pairs than distinct openings: repeats are allowed.
        let c = make_openings(Rules::STANDARD, 2, 40, 5).unwrap();
        assert_eq!(c.len(), 40);
        for line in make_openings(Rules::STANDARD, 12, 10, 1).unwrap() {
            let mut g = Game::new(Rules::STANDARD);
            for a in &line {
                g.play(*a).unwrap();
            }
            assert_eq!(line.len(), 12);
            assert!(!g.is_over());
        }
        assert!(make_openings(Rules::STANDARD, 0, 3, 1)
            .unwrap()
            .iter()
            .all(Vec::is_empty));
        let capped: Rules = "ply-cap=4".parse().unwrap();
        assert!(make_openings(capped, 4, 1, 1).is_err());
    }

    /// The UTC date of a Unix second, counted the slow way: whole years
    /// from 1970, then whole months (a different method from the one the
    /// tools use).
    fn naive_date(unix_secs: u64) -> (u64, u64, u64) {
        let leap =
            |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
        let mut days = unix_secs / 86_400;
        let mut year = 1970;
        while days >= if leap(year) { 366 } else { 365 } {
            days -= if leap(year) { 366 } else { 365 };
            year += 1;
        }
        let feb = if leap(year) { 29 } else { 28 };
        let lengths = [31, feb, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        let mut month = 1;
        for len in lengths {
            if days < len {
                break;
            }
            days -= len;
            month += 1;
        }
        (year, month, days + 1)
    }

    /// `YYYY-MM-DD` read back into numbers, each in its range.
    fn read_iso(d: &str) -> (u64, u64, u64) {
        let parts: Vec<&str> = d.split('-').collect();
        assert_eq!(parts.len(), 3, "{d}");
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [4, 2, 2],
            "{d}"
        );
        assert!(d.bytes().all(|b| b.is_ascii_digit() || b == b'-'), "{d}");
        let n: Vec<u64> = parts.iter().map(|p| p.parse().unwrap()).collect();
        assert!((1..=12).contains(&n[1]), "month: {d}");
        assert!((1..=31).contains(&n[2]), "day: {d}");
        (n[0], n[1], n[2])
    }

    #[test]
    fn the_slow_count_agrees_with_the_calendar() {
        // Worked by hand: 1,700,000,000 s is 19,675 days and 80,000 s, and
        // 19,675 days from 1970-01-01 is 2023-11-14; 951,782,400 s is 11,016
        // days: 30 years (7 of them leap) are 10,957, then 31 + 28 more
        // reach 2000-02-29, a leap day (2000 divides by 400). 2100 does not:
        // its 28 February is followed by 1 March.
        assert_eq!(naive_date(0), (1970, 1, 1));
        assert_eq!(naive_date(1_700_000_000), (2023, 11, 14));
        assert_eq!(naive_date(951_782_400), (2000, 2, 29));
        assert_eq!(naive_date(978_307_200), (2001, 1, 1));
        assert_eq!(naive_date(4_107_456_000), (2100, 2, 28));
        assert_eq!(naive_date(4_107_542_400), (2100, 3, 1));
    }

    #[test]
    fn dates_are_iso() {
        for secs in [
            0,
            1_700_000_000,
            951_782_400,
            951_868_799,
            978_307_199,
            4_107_542_400,
        ] {
            let d = gore_core::iso_date(secs as i64 * 1000);
            assert_eq!(read_iso(&d), naive_date(secs), "{secs}: {d}");
        }
        // Today's date is the one of the clock's second, read just before
        // or just after (midnight may fall between).
        let now = || {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        };
        let before = now();
        let d = today();
        let after = now();
        let got = read_iso(&d);
        assert!(
            got == naive_date(before) || got == naive_date(after),
            "{d} at {before}"
        );
    }
}
