//! `gore engine`: the line-based engine protocol on stdin/stdout
//! (docs/PROTOCOL.md).

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct EngineArgs {}

pub fn run(_args: EngineArgs) -> Result<()> {
    anyhow::bail!("not yet implemented")
}
