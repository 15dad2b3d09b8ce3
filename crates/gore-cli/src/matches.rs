//! `gore match`: engine-against-engine matches.

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct MatchArgs {}

pub fn run(_args: MatchArgs) -> Result<()> {
    anyhow::bail!("not yet implemented")
}
