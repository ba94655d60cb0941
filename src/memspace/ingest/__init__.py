"""Reading uploaded files: parsers for PDF, CSV, Markdown and plain text, and chunking.

An adapter: `reader.FileReader` implements `domain.ports.DocumentReader`; services never import
this package (startup/container.py wires it).
"""
