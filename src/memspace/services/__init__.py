"""Use cases. Every rule (access, validation, relations) lives here, once."""
