//! `gore worker`: an AI worker. It plays the AI's turns of the games on a
//! shared database and computes the reviews and the analysis board's
//! searches asked for there, so that the
//! web servers (`gore serve --ai-threads 0 --analysis-threads 0`) never
//! search and AI capacity grows by adding workers (docs/DEPLOY.md, "AI
//! workers").

use anyhow::Context;
use clap::Args;

/// Options of `gore worker`.
#[derive(Args)]
pub struct WorkerArgs {
    /// The database the web servers use: postgres://USER:PASSWORD@HOST/DB,
    /// or a SQLite file path on the same machine. Also read from GORE_DB.
    #[arg(long, env = "GORE_DB", hide_env_values = true)]
    db: String,
    /// Searches at once (default: the machine's cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Reviews and analysis board searches run at once (threads of the
    /// analysis pool); 0: this worker takes neither.
    #[arg(long, default_value_t = 1)]
    analysis_threads: usize,
    /// What `gore serve` and `gore worker` share.
    #[command(flatten)]
    common: crate::serve::CommonArgs,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    args.common.init_logging();
    gore_server::DbUrl::parse(&args.db)?;
    let defaults = gore_server::Config::default();
    let threads = args.threads.unwrap_or(defaults.ai_threads).max(1);
    let config = args.common.apply(gore_server::Config {
        db: args.db,
        ai_threads: threads,
        // A worker takes up only the turns it has threads for (two each)
        // and shares them among addresses: no cap per address below that,
        // which would leave a claimed turn waiting, kept from the others.
        ai_per_client: 2 * threads,
        ai_role: gore_server::domain::AiRole::Worker,
        analysis_threads: args.analysis_threads,
        ..defaults
    });
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the worker's runtime")?
        .block_on(gore_server::run_worker(config))
}
