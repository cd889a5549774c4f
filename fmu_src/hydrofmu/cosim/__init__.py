"""Running built FMUs: fmpy runs, a co-simulation master, the importer diagnosis (build time)."""
