"""The incident screen: run a client command live, or open a log, and watch
osdoctor explain it. Only ``launch.run_tui`` is meant to be imported from
outside; Textual is loaded by it, never by the core."""
