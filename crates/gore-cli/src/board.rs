//! Drawing a position as text.

use std::fmt::Write as _;

use gore_core::{Hole, Player, Position};

/// The board as A (South) sees it: B's row on top, right to left, so that
/// sowing runs counter-clockwise. Each cell shows the seeds and the
/// controller; `*` marks a hole controlled by the player whose row it is not.
pub fn render(pos: &Position, names: &[String; 2]) -> String {
    let cell = |h: Hole| {
        let c = pos.controller(h);
        let traded = if c == h.row() { ' ' } else { '*' };
        format!(" {:>2} {}{} ", pos.seeds(h), c, traded)
    };
    let top = [Hole::B4, Hole::B3, Hole::B2, Hole::B1];
    let bottom = [Hole::A1, Hole::A2, Hole::A3, Hole::A4];
    let rule = "   +-------+-------+-------+-------+";
    let mut s = String::new();
    let labels = |holes: &[Hole; 4]| {
        holes
            .iter()
            .map(|h| format!("   {h}   "))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(s, "    {}", labels(&top));
    let _ = writeln!(s, "{rule}");
    let row = |holes: &[Hole; 4]| holes.iter().map(|&h| cell(h)).collect::<Vec<_>>().join("|");
    let _ = writeln!(
        s,
        "   |{}|   B {}: {} captured",
        row(&top),
        names[1],
        pos.captured(Player::B)
    );
    let _ = writeln!(s, "{rule}");
    let _ = writeln!(
        s,
        "   |{}|   A {}: {} captured",
        row(&bottom),
        names[0],
        pos.captured(Player::A)
    );
    let _ = writeln!(s, "{rule}");
    let _ = writeln!(s, "    {}", labels(&bottom));
    s
}
