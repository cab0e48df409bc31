"""A log of many runs: each client invocation cut out and diagnosed on its own."""
