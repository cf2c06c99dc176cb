"""Lab computations: pure numpy (or pure Python), no web library. One module per topic."""
