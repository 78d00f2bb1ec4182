"""Speed benchmarks on the library: encoder backends side by side (``graphhop bench encode``)."""
