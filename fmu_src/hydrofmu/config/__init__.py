"""The TOML configuration: parsing, typed values, the bodies' sections, resolution (build time)."""
