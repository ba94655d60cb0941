"""Pure models, errors and ports. Imports no adapter and no I/O library."""
