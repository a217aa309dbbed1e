//! Thinking time from the clock.
//!
//! A move gets a share of the remaining time (split over the moves still to play before the
//! next time control, or over [`EXPECTED_MOVES`] when the rest of the game must be played in
//! it), plus the increment (it comes back after the move) and the byoyomi (a period that is used
//! or lost on every move once the main time is gone), but never more than the time that can be
//! spent without losing on time, the remaining time plus the byoyomi; from that an overhead is
//! kept back on every move for the simulation in progress when time is up and for the move to
//! reach the opponent (were it spent, a clock living on its increment would lose it move by move).

use std::time::Duration;

/// The moves a player is assumed to have left when the whole game is played in one period.
pub const EXPECTED_MOVES: u32 = 40;

/// The state of the engine's clock when it must move.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the engine's clock.
    pub remaining: Duration,
    /// Time added to the clock after each move (Fischer).
    pub increment: Duration,
    /// Time per move once the main time is gone (Japanese byoyomi).
    pub byoyomi: Duration,
    /// Moves to play before time is added again; `None` for the rest of the game.
    pub moves_to_go: Option<u32>,
}

impl Clock {
    /// The time to think on this move, `overhead` kept back for communication.
    pub fn budget(&self, overhead: Duration) -> Duration {
        let moves = self.moves_to_go.unwrap_or(EXPECTED_MOVES).max(1);
        let share = (self.remaining / moves).saturating_add(self.increment).saturating_add(self.byoyomi);
        let safe = self.remaining.saturating_add(self.byoyomi);
        share.min(safe).saturating_sub(overhead)
    }
}

/// When a search of `budget` started now must stop; `None` when that is too far to say.
pub fn deadline(budget: Duration) -> Option<std::time::Instant> {
    std::time::Instant::now().checked_add(budget)
}

/// The time to think when each move has `per_move`, `overhead` kept back.
pub fn fixed(per_move: Duration, overhead: Duration) -> Duration {
    per_move.saturating_sub(overhead)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    const OVERHEAD: Duration = Duration::from_millis(300);

    #[test]
    fn byoyomi_only_uses_the_period_less_the_overhead() {
        let clock = Clock { byoyomi: ms(10_000), ..Clock::default() };
        assert_eq!(clock.budget(OVERHEAD), ms(9_700));
    }

    #[test]
    fn main_time_is_shared_and_byoyomi_added() {
        let clock = Clock { remaining: ms(60_000), byoyomi: ms(10_000), ..Clock::default() };
        assert_eq!(clock.budget(OVERHEAD), ms(60_000 / 40 + 10_000 - 300));
        let sudden_death = Clock { remaining: ms(60_000), ..Clock::default() };
        assert_eq!(sudden_death.budget(OVERHEAD), ms(1_200));
    }

    #[test]
    fn increment_is_spent_but_never_beyond_the_clock() {
        let clock = Clock { remaining: ms(40_000), increment: ms(5_000), ..Clock::default() };
        assert_eq!(clock.budget(OVERHEAD), ms(5_700));
        // Almost out of time: the increment is not there yet, only the remaining time is.
        let short = Clock { remaining: ms(1_000), increment: ms(5_000), ..Clock::default() };
        assert_eq!(short.budget(OVERHEAD), ms(700));
    }

    #[test]
    fn never_more_than_the_clock_allows() {
        let flagging = Clock { remaining: ms(200), ..Clock::default() };
        assert_eq!(flagging.budget(OVERHEAD), Duration::ZERO);
        let last_move = Clock { remaining: ms(30_000), moves_to_go: Some(1), ..Clock::default() };
        assert_eq!(last_move.budget(OVERHEAD), ms(29_700));
        let zero_moves = Clock { remaining: ms(30_000), moves_to_go: Some(0), ..Clock::default() };
        assert_eq!(zero_moves.budget(OVERHEAD), ms(29_700));
        let control = Clock { remaining: ms(30_000), moves_to_go: Some(10), ..Clock::default() };
        assert_eq!(control.budget(OVERHEAD), ms(2_700));
    }

    #[test]
    fn absurd_clocks_do_not_overflow() {
        let huge = Clock { remaining: Duration::MAX, increment: Duration::MAX, byoyomi: Duration::MAX, moves_to_go: Some(1) };
        assert_eq!(huge.budget(OVERHEAD), Duration::MAX - OVERHEAD);
    }

    #[test]
    fn fixed_time_keeps_the_overhead() {
        assert_eq!(fixed(ms(1_000), OVERHEAD), ms(700));
        assert_eq!(fixed(ms(100), OVERHEAD), Duration::ZERO);
    }
}
