#!/usr/bin/env python3
"""Perft counts of a Fairy-Stockfish variant, for tests/perft/fairy-stockfish.tsv.

Walks a few random games from the start position with Fairy-Stockfish itself (USI mode, so
that moves and positions are written as this project writes them), keeps one position of each
walk, and prints one row per position and depth: variant, sfen, depth, nodes, name.

    scripts/fairy-perft.py <our variant name> <UCI_Variant> <max depth> [walks] [seed]
"""
import random
import subprocess
import sys


class Engine:
    def __init__(self, variant):
        self.p = subprocess.Popen(["fairy-stockfish"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("usi")
        self.wait("usiok")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("fairy-stockfish ended")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def perft(self, position, depth):
        self.send(f"position {position}")
        self.send(f"go perft {depth}")
        lines = self.wait("Nodes searched")
        moves = [l.split(":")[0] for l in lines if ": " in l and not l.startswith("Nodes")]
        return int(lines[-1].split(":")[1]), moves

    def sfen(self, position):
        self.send(f"position {position}")
        self.send("d")
        for line in self.wait("Checkers"):
            if line.startswith("Sfen: "):
                return line[len("Sfen: "):]
        raise SystemExit("no Sfen line")


def main():
    ours, theirs, max_depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
    walks = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    engine = Engine(theirs)
    start = engine.sfen("startpos")
    positions = [(start, "startpos")]
    for walk in range(walks):
        moves = []
        for _ in range(rng.randrange(8, 30)):
            _, legal = engine.perft("startpos moves " + " ".join(moves), 1)
            if not legal:
                break
            moves.append(rng.choice(legal))
        positions.append((engine.sfen("startpos moves " + " ".join(moves)), f"random walk {walk + 1}"))
    for sfen, name in positions:
        for depth in range(1, max_depth + 1):
            nodes, _ = engine.perft(f"sfen {sfen}", depth)
            print(f"{ours}\t{sfen}\t{depth}\t{nodes}\t{name}", flush=True)
    engine.send("quit")


if __name__ == "__main__":
    main()
