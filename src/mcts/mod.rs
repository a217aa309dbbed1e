//! Monte Carlo tree search over the rules core, guided by an evaluator (the network, or a
//! uniform one for tests).
