"""Games: creating them, moves, batches, undo and redo (the one write path), and reading them."""
