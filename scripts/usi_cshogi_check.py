#!/usr/bin/env python3
"""Drives shogi-zero's USI engine through cshogi's USI driver (cshogi.usi.Engine) for whole
games, and checks every move the engine sends against cshogi's own move generator.

Usage: usi_cshogi_check.py ENGINE [MAX_PLIES]

ENGINE is an executable that starts the engine (cshogi runs it without arguments), e.g. a shell
script running `shogi-zero usi --model <checkpoint>`. Two games are played, the engine keeping
80 ms of every move's time back (MoveOverhead):
  1. the engine (Black) against a random player, with 200 ms byoyomi per move; a move that
     takes longer than the byoyomi plus a grace of 800 ms for a busy machine fails the check;
  2. the engine against itself (two processes), on a 3 s + 100 ms increment clock kept here:
     a side whose clock runs out loses, which fails the check.
A game ends by the rules (mate, fourth repetition, declaration, resignation) or after MAX_PLIES
plies (default 256, cshogi's own match limit). The time checks assume a machine that is not
busy with other work. The script exits 1 on the first illegal move or lost
time, and prints one line per game and a total.
"""

import random
import sys
import time

import cshogi
from cshogi.usi import Engine


LAST_INFO = [""]


def engine_move(engine, board, moves, go_args):
    """Asks `engine` for a move in the position after `moves`; returns it (or 'resign'/'win')."""
    engine.position(moves)

    def listen(line):
        if line.startswith("info"):
            LAST_INFO[0] = line

    best, _ponder = engine.go(**go_args, listener=listen)
    if best in ("resign", "win"):
        if best == "win" and not board.is_nyugyoku():
            raise SystemExit(f"the engine declared a win that cshogi does not accept after {moves}")
        return best
    move = board.move_from_usi(best)
    if move == 0 or not board.is_legal(move):
        raise SystemExit(f"illegal move '{best}' after {' '.join(moves) or 'the start'}")
    return best


def play(players, go_for, max_plies, rng):
    """Plays one game; players[color] is an Engine or None (random). Returns a result line."""
    board = cshogi.Board()
    moves = []
    seen = {}
    for engine in {id(p): p for p in players if p is not None}.values():
        engine.usinewgame()
        engine.isready()
    while len(moves) < max_plies:
        if board.is_game_over():
            return f"{'White' if board.turn == cshogi.BLACK else 'Black'} mates after {len(moves)} plies"
        # The fourth occurrence of a position ends the game (cshogi's is_draw sees the second).
        position = board.sfen().rsplit(" ", 1)[0]
        seen[position] = seen.get(position, 0) + 1
        if seen[position] >= 4:
            return f"repetition after {len(moves)} plies"
        player = players[board.turn]
        if player is None:
            text = cshogi.move_to_usi(rng.choice(list(board.legal_moves)))
        else:
            started = time.monotonic()
            text = engine_move(player, board, moves, go_for(board.turn, len(moves)))
            go_for.spent(board.turn, time.monotonic() - started)
            if text in ("resign", "win"):
                return f"{'Black' if board.turn == cshogi.BLACK else 'White'} says {text} after {len(moves)} plies"
        board.push_usi(text)
        moves.append(text)
    return f"stopped at the {max_plies}-ply limit"


class Byoyomi:
    """200 ms per move."""

    def __init__(self):
        self.slowest = 0.0

    def __call__(self, color, ply):
        return {"byoyomi": 200}

    def spent(self, color, seconds):
        self.slowest = max(self.slowest, seconds)
        if seconds > 0.2 + 0.8:
            raise SystemExit(f"a 200 ms byoyomi move took {seconds:.3f} s; the engine's last report: {LAST_INFO[0]}")


class Fischer:
    """3 s each plus 100 ms per move; the engine loses when its clock goes below zero."""

    def __init__(self):
        self.left = [3.0, 3.0]

    def __call__(self, color, ply):
        ms = [int(t * 1000) for t in self.left]
        return {"btime": ms[0], "wtime": ms[1], "binc": 100, "winc": 100}

    def spent(self, color, seconds):
        self.left[color] -= seconds
        if self.left[color] < 0:
            side = "Black" if color == cshogi.BLACK else "White"
            raise SystemExit(f"{side} lost on time (its move took {seconds:.3f} s; the engine's last report: {LAST_INFO[0]})")
        self.left[color] += 0.1


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    command = sys.argv[1]
    max_plies = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    rng = random.Random(1)
    first = Engine(command)
    first.setoption("MoveOverhead", 80)
    second = Engine(command)
    second.setoption("MoveOverhead", 80)
    byoyomi, fischer = Byoyomi(), Fischer()
    try:
        results = [
            play([first, None], byoyomi, max_plies, rng) + f"; slowest move {byoyomi.slowest:.3f} s",
            play([first, second], fischer, max_plies, rng) + f"; clocks left {fischer.left[0]:.2f} s, {fischer.left[1]:.2f} s",
        ]
    finally:
        first.quit()
        second.quit()
    for number, result in enumerate(results, 1):
        print(f"game {number}: {result}")
    print(f"games: {len(results)}, every engine move legal, no time lost")


if __name__ == "__main__":
    main()
