"""The experiment runner's parts: matrix files, one cell's run, the results store, the progress line."""
