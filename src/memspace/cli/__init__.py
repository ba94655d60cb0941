"""The `memspace` command (main.py assembles it; root.py is the app its verbs register on)."""
