"""Model heads shipped with the package (package data)."""
