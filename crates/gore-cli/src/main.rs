//! `gore`: the command-line tool for Goré.
//!
//! Subcommands: `legal`, `apply`, `perft` (exact, scriptable output),
//! `play` (a game in the terminal), `analyze`, `review`, `engine`, `match`, `serve`
//! (the web app), `worker` (the AI's turns for servers that do not search),
//! `bot` (an engine on the site through the Bot API), `solve` and `probe`
//! (the no-trade database), `calibrate` (the levels measured against it),
//! `puzzles` (generate and verify).

mod analyze;
mod board;
mod bot;
mod calibrate;
mod commands;
mod engine;
mod matches;
mod play;
mod protocol;
mod puzzles;
mod review;
mod serve;
mod solve;
mod worker;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Goré, the mancala of the Guro people with its negotiation, in the terminal.
#[derive(Parser)]
#[command(name = "gore", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every legal action of a position, one per line.
    Legal(commands::LegalArgs),
    /// Play actions from a position and print the GPN reached after each.
    Apply(commands::ApplyArgs),
    /// Count legal action sequences (perft) at every depth up to DEPTH.
    Perft(commands::PerftArgs),
    /// Play a game in the terminal: against the AI, a person or a random mover.
    Play(play::PlayArgs),
    /// Search a position and print the progress and the best line.
    Analyze(analyze::AnalyzeArgs),
    /// Review a game record: each action valued and marked, as comments.
    Review(review::ReviewArgs),
    /// Speak the engine protocol on stdin/stdout (docs/PROTOCOL.md).
    Engine(engine::EngineArgs),
    /// Play a match between two engines, built-in or external.
    Match(matches::MatchArgs),
    /// Serve the web app and its API (docs/API.md).
    Serve(serve::ServeArgs),
    /// Play the AI's turns, reviews and board analyses of a shared database (AI worker).
    Worker(worker::WorkerArgs),
    /// Build the no-trade database layer by layer (or check it: --verify).
    Solve(solve::SolveArgs),
    /// Print a position's solved values and each legal action's.
    Probe(solve::ProbeArgs),
    /// Measure each level's seed loss per action against the database.
    Calibrate(calibrate::CalibrateArgs),
    /// Generate puzzles by self-play, or verify a puzzle file.
    Puzzles(puzzles::PuzzlesArgs),
    /// Play as a BOT account through a server's Bot API with an engine.
    Bot(bot::BotArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Legal(a) => commands::legal(a),
        Command::Apply(a) => commands::apply(a),
        Command::Perft(a) => commands::perft(a),
        Command::Play(a) => play::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Review(a) => review::run(a),
        Command::Engine(a) => engine::run(a),
        Command::Match(a) => matches::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Worker(a) => worker::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Probe(a) => solve::probe(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Puzzles(a) => puzzles::run(a),
        Command::Bot(a) => bot::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, naming the problem: scripts read it.
            eprintln!("gore: {e:#}");
            ExitCode::FAILURE
        }
    }
}
