//! Text formats: positions ([`sfen`]), moves in coordinate notation ([`coord`]) and in Hodges
//! notation for display ([`hodges`]), and the board diagram ([`diagram`]).

pub mod coord;
pub mod diagram;
pub mod hodges;
pub mod sfen;
