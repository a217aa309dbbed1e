//! Text formats: positions ([`sfen`]), moves in coordinate notation ([`coord`]), in Hodges
//! notation for display ([`hodges`]) and in the XBoard engine protocol's notation with its
//! variant names ([`xboard`]), shogi game records in CSA format ([`csa`]), and the board
//! diagram ([`diagram`]).

pub mod coord;
pub mod csa;
pub mod diagram;
pub mod hodges;
pub mod sfen;
pub mod xboard;
