"""Baseline for `shogi-zero bench perft`: the same walk (make every move, generate the legal
moves of every position reached, leaves included) done by cshogi from Python.
Usage: cshogi_baseline.py "NAME=DEPTH"... (the bench's position names and the depths it walked).
Prints one line per position: name, depth, nodes made, seconds, nodes/s."""
import sys
import time

import cshogi

POSITIONS = {
    "shogi start": cshogi.STARTING_SFEN,
    "shogi matsuri": "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
}


def walk(board, depth):
    moves = list(board.legal_moves)
    if depth == 0:
        return 0
    nodes = 0
    for move in moves:
        board.push(move)
        nodes += 1 + walk(board, depth - 1)
        board.pop()
    return nodes


def main():
    for arg in sys.argv[1:]:
        name, _, depth = arg.rpartition("=")
        if name not in POSITIONS or not depth.isdigit():
            sys.exit(f"cshogi_baseline.py: expected NAME=DEPTH with NAME one of {sorted(POSITIONS)}, got '{arg}'")
        depth = int(depth)
        board = cshogi.Board(POSITIONS[name])
        started = time.perf_counter()
        nodes = walk(board, depth)
        seconds = time.perf_counter() - started
        print(f"{name}\t{depth}\t{nodes}\t{seconds:.3f}\t{nodes / seconds:.0f}")


if __name__ == "__main__":
    main()
