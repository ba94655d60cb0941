"""What the entry points (api/, mcp/, the CLI, hooks, doctor) share, below all of them: an
entry point never imports another (tests/unit/test_layers.py), so what two need lives here."""
