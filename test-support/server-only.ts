// Stand-in for the `server-only` marker package when lib/ modules are imported by unit tests.
export {}
